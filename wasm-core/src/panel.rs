//! Messages between the side panel (a view) and the service worker (the agent), and the state
//! the panel renders. The panel holds no logic: it sends [`PanelRequest`]s and draws each
//! [`PanelState`] it receives.

use crate::agent::{
    ControlState, InterventionSettings, OutputMode, Reply, TaskEvent, render_output,
};
use crate::record::TaskOutcome;
use crate::session::{SearchHit, SessionMeta, TitleChange, TocEntry, TurnWithNeighbours};
use serde::{Deserialize, Serialize};
use waymark_protocol::{ExportFormat, LlmStatus};

pub mod external;
pub mod guide;
pub mod live;
pub mod llm_state;
pub mod prompt;
pub mod recording;
pub mod routines;
pub mod secrets;
pub mod settings;
pub mod setup;
pub mod status;
pub mod tables;
pub mod types;
pub mod view;
pub mod workflows;

pub use guide::{Guide, GuideAction, GuideModelForm, GuideStep, GuideView};
pub use llm_state::{LlmLine, LlmState, LlmStates};
pub use prompt::{Attachment, FindingRow, FindingsView};
pub use settings::{AgentSettings, DoctorView, SettingsForm, SettingsView};
pub use setup::{InstallCommand, Platform};
pub use status::Usage;
pub use view::{Dot, PanelView, StatusLine};
pub use workflows::WorkflowsView;

/// What the side panel can ask of the service worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PanelRequest {
    /// Send me the current state.
    Hello,
    /// Start a task on the tab the user is looking at.
    StartTask {
        /// The user's words.
        prompt: String,
        /// How the result is shown.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        mode: OutputMode,
        /// Step budget (default 25).
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        max_steps: Option<u32>,
        /// Start paused after each step (the Step button runs the next one).
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        step_mode: bool,
        /// Files the task may use: name → path on the user's disk.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        resources: std::collections::BTreeMap<String, String>,
    },
    /// Pause the running task at the next safe point.
    Pause,
    /// Resume a paused task (also ends step mode and take-over).
    Resume,
    /// Stop the running task at the next safe point; the action in flight is reported.
    Stop,
    /// Run one step, then pause.
    Step,
    /// The user drives the page; the agent waits until Resume.
    TakeOver,
    /// The user's answer to the intervention card on show.
    AnswerIntervention {
        /// Their answer.
        #[serde(flatten)]
        reply: Reply,
    },
    /// Which interventions and attention signals are on.
    SetInterventionSettings {
        /// The new settings.
        settings: InterventionSettings,
    },
    /// Write the session to a markdown file through the host.
    Export,
    /// Write the session through the host in a chosen format (markdown or JSON).
    ExportSession {
        /// `md` or `json`.
        format: ExportFormat,
        /// Tracked values are redacted unless the user chose to include them.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        values: waymark_protocol::TrackedValues,
    },
    /// Write one table finding of the current session as CSV through the host.
    ExportTable {
        /// The turn that found it.
        turn: u32,
        /// Its position among the turn's tables.
        index: usize,
        /// Tracked values are redacted unless the user chose to include them.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        values: waymark_protocol::TrackedValues,
    },
    /// Show the real value of a secret's handle in the last task's answer (the user clicked
    /// it): the worker reads it from that task's ledger, held in memory only.
    RevealSecret {
        /// The handle's number.
        id: u32,
    },
    /// Start a new, empty session (the current one stays in the list).
    NewSession,
    /// Clear the panel: the same as a new session; nothing stored is deleted.
    ClearSession,
    /// Make an earlier session the current one; the next task continues it.
    ContinueSession {
        /// Its id.
        id: String,
    },
    /// Give a session the user's title (automatic titles then leave it alone).
    RenameSession {
        /// Its id.
        id: String,
        /// The new title.
        title: String,
    },
    /// Ask to delete a session: the panel then shows a confirmation.
    DeleteSession {
        /// Its id.
        id: String,
    },
    /// The user confirmed the deletion.
    ConfirmDelete {
        /// Its id.
        id: String,
    },
    /// The user changed their mind.
    CancelDelete,
    /// Search the turns of every session (or only the current one).
    Search {
        /// The user's words; empty clears the results.
        query: String,
        /// Only the current session.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        current_only: bool,
    },
    /// Show one turn (with its neighbours), switching to its session if needed.
    JumpToTurn {
        /// The session; `None` is the current one.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        session_id: Option<String>,
        /// 1-based turn.
        turn: u32,
    },
    /// The settings view opened: fetch the host's settings.
    OpenSettings,
    /// Save the settings form (validated in Rust; keys go to the host once).
    SaveSettings {
        /// The form as the user left it.
        form: SettingsForm,
    },
    /// Run the host's doctor checks and show each result.
    CheckSetup,
    /// Attach a file (by its full path) to the next task.
    Attach {
        /// Path on the user's disk; the host reads it.
        path: String,
    },
    /// Remove an attachment.
    Detach {
        /// Its name.
        name: String,
    },
    /// A button of the first-run guide (next, back, skip).
    Guide {
        /// Which.
        action: GuideAction,
    },
    /// The guide's model step: save this model as the host's default and test it.
    GuideModel {
        /// The form as the user left it.
        form: GuideModelForm,
    },
    /// The guide's last step: run the sample task on the current page (ends the guide).
    TrySample,
    /// Let external agents (MCP clients) use this browser, or not (Settings).
    SetExternalAgents {
        /// On or off.
        on: bool,
    },
    /// End one external agent's connection.
    DisconnectExternal {
        /// Its id (from [`external::ExternalClient`]).
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        client: u64,
    },
    /// Make a workflow of a finished task of the current session: the editor opens with the
    /// draft (nothing is stored until the user saves it).
    SaveAsWorkflow {
        /// The task's turn.
        turn: u32,
    },
    /// Open a saved workflow in the editor.
    EditWorkflow {
        /// Its id.
        id: String,
    },
    /// Save the editor's workflow with the user's changes (validated in Rust).
    SaveWorkflow {
        /// The form as the user left it.
        form: crate::workflow::WorkflowEdit,
    },
    /// Close the editor without saving.
    CloseWorkflowEditor,
    /// Run a workflow on the tab the user is looking at.
    RunWorkflow {
        /// Its id.
        id: String,
        /// The run form's values (empty ones take the defaults).
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        values: std::collections::BTreeMap<String, String>,
    },
    /// Give a workflow a new name.
    RenameWorkflow {
        /// Its id.
        id: String,
        /// The new name.
        name: String,
    },
    /// Copy a workflow.
    DuplicateWorkflow {
        /// Its id.
        id: String,
    },
    /// Ask to delete a workflow: the panel then shows a confirmation.
    DeleteWorkflow {
        /// Its id.
        id: String,
    },
    /// The user confirmed the deletion.
    ConfirmDeleteWorkflow {
        /// Its id.
        id: String,
    },
    /// The user kept the workflow.
    CancelDeleteWorkflow,
    /// Write a workflow as a JSON file through the host (and show its JSON to copy).
    ExportWorkflow {
        /// Its id.
        id: String,
    },
    /// Import a workflow file's text (validated; nothing is stored when it is refused).
    ImportWorkflow {
        /// The file's content.
        json: String,
    },
    /// The user read the crash notice (its report copied or not): it goes.
    DismissCrash,
    /// Schedule a saved workflow as a routine.
    SaveRoutine {
        /// The schedule form.
        form: routines::RoutineForm,
    },
    /// Pause or resume a routine.
    PauseRoutine {
        /// Its id.
        id: String,
        /// Paused (true) or running on schedule.
        paused: bool,
    },
    /// Run a routine now, as its alarm would.
    RunRoutine {
        /// Its id.
        id: String,
    },
    /// Delete a routine (its alarm and history go).
    DeleteRoutine {
        /// Its id.
        id: String,
    },
    /// Write the last run's healed steps into its workflow.
    AcceptHeals,
    /// Keep the workflow as it was.
    RejectHeals,
    /// Teach by showing: record what the user does in the current tab from now on.
    StartRecording,
    /// End the recording: the workflow editor opens with its draft.
    StopRecording,
    /// End the recording and keep nothing.
    CancelRecording,
}

/// Everything the side panel shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PanelState {
    /// Whether the native host answers.
    pub host: HostStatus,
    /// The current or last task.
    pub task: Option<TaskView>,
    /// Tasks finished in this session.
    pub turns: u32,
    /// Result of the last export.
    pub export: Option<ExportView>,
    /// Which interventions and attention signals are on.
    #[serde(default)]
    pub interventions: InterventionSettings,
    /// The current session.
    #[serde(default)]
    pub session: SessionView,
    /// Every stored session, most recently updated first.
    #[serde(default)]
    pub sessions: Vec<SessionListItem>,
    /// The current session's table of contents.
    #[serde(default)]
    pub toc: Vec<TocEntry>,
    /// The turn the user jumped to, with its neighbours.
    #[serde(default)]
    pub focus: Option<TurnWithNeighbours>,
    /// The last search and its results.
    #[serde(default)]
    pub search: Option<SearchView>,
    /// A deletion waiting for the user's confirmation.
    #[serde(default)]
    pub confirm_delete: Option<SessionListItem>,
    /// Why the last write to storage failed (e.g. the quota), shown until a write succeeds.
    #[serde(default)]
    pub storage_error: Option<String>,
    /// The settings view's content.
    #[serde(default)]
    pub settings: SettingsView,
    /// Whether the LLM answers, per role (ready, rate limited, key invalid, …).
    #[serde(default)]
    pub llm: LlmStates,
    /// Tokens and cost of the current session (every call, summaries included).
    #[serde(default)]
    pub session_usage: Usage,
    /// The session `session_usage` belongs to.
    #[serde(default)]
    pub usage_session_id: String,
    /// Prompts sent before, oldest first (Up/Down in the prompt box).
    #[serde(default)]
    pub prompt_history: Vec<String>,
    /// Files attached to the next task.
    #[serde(default)]
    pub attachments: Vec<Attachment>,
    /// Why the last attachment was refused.
    #[serde(default)]
    pub attach_error: Option<String>,
    /// The last finished task's findings (once its turn is recorded).
    #[serde(default)]
    pub findings: Option<FindingsView>,
    /// Why the worker could not read the panel's last message (a panel page older than the
    /// worker, say), until it reads one again.
    #[serde(default)]
    pub panel_error: Option<String>,
    /// The first-run guide's progress (stored by the worker). Not sent: the panel draws the
    /// guide's view ([`PanelView::guide`]), which would otherwise share its key.
    #[serde(default, skip_serializing)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub guide: Guide,
    /// How to install or update the host on this machine (once the browser said which).
    #[serde(default)]
    pub install: Option<InstallCommand>,
    /// Why the guide's model form was refused (until the next try).
    #[serde(default)]
    pub guide_error: Option<String>,
    /// The turn the finished task on show was recorded as (the conversation lists it once).
    #[serde(default)]
    pub task_turn: Option<u32>,
    /// External agents: the switch, who is connected, what is wrong.
    #[serde(default)]
    pub external: external::ExternalView,
    /// Saved workflows, the editor, the last run's healed steps.
    #[serde(default)]
    pub workflows: WorkflowsView,
    /// Routines: saved workflows that run on a schedule.
    #[serde(default)]
    pub routines: routines::RoutinesView,
    /// Waymark's own wasm crashed and was restarted: what happened and a report to copy,
    /// until the user dismisses it.
    #[serde(default)]
    pub crash: Option<crate::crash::CrashNotice>,
}

/// A side panel message the worker could not read, with the decoder's reason (a panel page
/// older than the worker, say).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnreadableMessage(pub String);

/// What the worker does with one message from a side panel.
#[derive(Debug, PartialEq)]
pub struct Received {
    /// The request, when the message could be read.
    pub request: Option<PanelRequest>,
    /// Whether the panels must be drawn again (the error line appeared or went).
    pub redraw: bool,
}

impl PanelState {
    /// Takes in one decoded panel message: one that could not be read is never dropped in
    /// silence, the panel shows why (and the worker logs it); the next readable one clears it.
    pub fn receive(&mut self, decoded: Result<PanelRequest, UnreadableMessage>) -> Received {
        match decoded {
            Ok(request) => {
                Received { request: Some(request), redraw: self.panel_error.take().is_some() }
            }
            Err(e) => {
                self.panel_error = Some(format!(
                    "Waymark could not read what the side panel sent ({e}); nothing was done. \
                     Close and reopen the side panel (it may be older than the extension)."
                ));
                Received { request: None, redraw: true }
            }
        }
    }

    /// What a panel may draw before the worker answers (see the worker's `snapshot` module):
    /// the session, its TOC and list, the prompt history; nothing of a task, a search, a dialog
    /// or the settings view, and not whether the host and the LLM answer ("connecting" until
    /// the worker says), which would be stale or misleading.
    pub fn snapshot(&self) -> PanelState {
        PanelState {
            turns: self.turns,
            interventions: self.interventions,
            session: self.session.clone(),
            sessions: self.sessions.clone(),
            toc: self.toc.clone(),
            session_usage: self.session_usage,
            usage_session_id: self.usage_session_id.clone(),
            prompt_history: self.prompt_history.clone(),
            guide: self.guide,
            install: self.install.clone(),
            workflows: WorkflowsView {
                list: self.workflows.list.clone(),
                ..WorkflowsView::default()
            },
            routines: routines::RoutinesView {
                list: self.routines.list.clone(),
                ..routines::RoutinesView::default()
            },
            settings: SettingsView {
                roles: self.settings.roles.clone(),
                agent: self.settings.agent.clone(),
                ..SettingsView::default()
            },
            ..PanelState::default()
        }
    }
}

/// The current session as the panel shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionView {
    /// Its id.
    pub id: String,
    /// Its title (or the first task's line while it has none).
    pub title: String,
    /// Earlier titles, newest first, each with the turn that caused it.
    pub title_history: Vec<TitleChange>,
    /// Created (ms since the epoch).
    pub created_ms: f64,
    /// Number of tasks.
    pub tasks: u32,
}

/// One row of the session list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionListItem {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Created (ms since the epoch).
    pub created_ms: f64,
    /// Last changed (ms since the epoch).
    pub updated_ms: f64,
    /// Number of tasks.
    pub tasks: u32,
    /// Whether it is the current session.
    pub current: bool,
}

/// A search and its ranked hits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchView {
    /// What was searched.
    pub query: String,
    /// Only the current session.
    pub current_only: bool,
    /// Best first.
    pub hits: Vec<SearchHit>,
}

/// The native host as the panel explains it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum HostStatus {
    /// Not contacted yet.
    #[default]
    Unknown,
    /// Connected and answering.
    Connected {
        /// Host version.
        version: String,
        /// Its LLM configuration.
        llm: LlmStatus,
    },
    /// The browser could not start the host, or it went away.
    Missing {
        /// What went wrong.
        message: String,
        /// What the user should do, exactly.
        fix: String,
    },
    /// The host answered but is older than this extension works with
    /// ([`waymark_protocol::compatibility`]).
    Outdated {
        /// The host's version.
        version: String,
        /// The oldest host this extension works with.
        needed: String,
        /// "Update the Waymark host: …".
        message: String,
    },
}

/// Result of an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ExportView {
    /// Written.
    Written {
        /// Where.
        path: String,
        /// A prompt naming the file, for another agent (the panel's copy button).
        prompt: String,
    },
    /// Not written.
    Failed {
        /// Why.
        message: String,
    },
}

/// A task as the panel shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskView {
    /// The user's words.
    pub prompt: String,
    /// Still working.
    pub running: bool,
    /// Current step number.
    pub step: u32,
    /// Each action performed.
    pub steps: Vec<StepView>,
    /// The page the agent works on.
    pub page: Option<String>,
    /// Which build reads pages (`wasm`, or `wasm2js` when the page's CSP blocks wasm).
    pub engine: Option<String>,
    /// Final answer once finished.
    pub answer: Option<String>,
    /// Whether it succeeded (meaningful once finished).
    pub success: bool,
    /// The error that stopped it, if any.
    pub error: Option<String>,
    /// Time taken once finished.
    pub elapsed_ms: Option<f64>,
    /// Once it ended, how: `Stopped after 2 steps, 1.3 s` (its real outcome, not "finished").
    #[serde(default)]
    pub heading: String,
    /// The plan, one line per step.
    #[serde(default)]
    pub plan: Vec<String>,
    /// Notes in the timeline (refusals, rejected claims, take-overs).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Pause, step mode, take-over and the open intervention card.
    #[serde(default)]
    pub controls: ControlState,
    /// How the result is shown.
    #[serde(default)]
    pub mode: OutputMode,
    /// The result as the chosen mode renders it, once finished.
    #[serde(default)]
    pub output: Option<String>,
    /// The result cut into words and secrets' handles (chips the user clicks to see the
    /// value), once finished.
    #[serde(default)]
    pub output_parts: Vec<secrets::ShownPart>,
    /// The values of handles the user asked to see (never stored, never in a snapshot).
    #[serde(skip)]
    pub revealed: std::collections::BTreeMap<u32, String>,
    /// Counts attention sounds asked for; the panel plays one each time it goes up.
    #[serde(default)]
    pub chime: u32,
    /// The agent's own time per step (reply received → next observation ready), in ms.
    #[serde(default)]
    pub overhead_ms: Vec<f64>,
    /// Of each, the time inside page calls (content-script round trips, DOM walk, actions).
    #[serde(default)]
    pub overhead_page_ms: Vec<f64>,
    /// Tokens and cost of this task's model calls.
    #[serde(default)]
    pub usage: Usage,
    /// The latest step, as one sentence for screen readers (the live region reads it).
    #[serde(default)]
    pub announce: String,
    /// The tail of the model's text while it streams (see [`live`]); empty otherwise.
    #[serde(default)]
    pub live_text: String,
    /// The workflow this task runs, by name (a run says so).
    #[serde(default)]
    pub workflow: Option<String>,
}

/// One action in the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StepView {
    /// Step number.
    pub step: u32,
    /// The action in plain words.
    pub text: String,
    /// Whether it worked.
    pub ok: bool,
    /// Why not.
    pub error: Option<String>,
}

impl TaskView {
    /// A task that just started.
    pub fn started(prompt: &str) -> Self {
        Self { prompt: prompt.to_owned(), running: true, ..Self::default() }
    }

    /// The view of a task resumed from its journal after the service worker restarted.
    pub fn resumed(ctx: &crate::agent::TaskContext) -> Self {
        let mut view = Self::replayed(&ctx.spec.shown_task(), ctx);
        view.workflow = ctx.spec.workflow.as_ref().map(|r| r.workflow.name.clone());
        view.notes
            .push("Waymark restarted and resumed this task from its last completed step.".into());
        view
    }

    /// The view of an external agent's task that a restarted worker did not resume (see
    /// [`crate::bridge::not_resumed`]).
    pub fn not_resumed(ctx: &crate::agent::TaskContext) -> Self {
        Self::replayed(&ctx.spec.shown_task(), ctx)
    }

    /// The view of an interrupted task whose journal could not be fully read: not resumed,
    /// shown as failed with what was recovered (its actions, and the notice as its answer).
    pub fn unrestored(report: &crate::agent::DamageReport, now_ms: f64) -> Self {
        let mut view = Self::replayed(report.task(), &report.recovered);
        view.apply(&TaskEvent::Finished(report.outcome(now_ms)));
        view
    }

    /// The view of `task` rebuilt from what its journal recorded: plan, actions and notes.
    fn replayed(task: &str, ctx: &crate::agent::TaskContext) -> Self {
        let mut view = Self::started(task);
        view.mode = ctx.spec.output;
        view.step = ctx.step;
        if let Some(plan) = &ctx.plan {
            view.apply(&TaskEvent::Planned(plan.clone()));
        }
        for record in &ctx.steps {
            view.apply(&TaskEvent::Acted(record.clone()));
        }
        view.notes = ctx.notes.clone();
        view
    }

    /// Adds a streamed piece of the model's text to the live view (its last
    /// [`live::LIVE_TEXT_MAX_CHARS`] characters are kept), while the task runs.
    pub fn stream_text(&mut self, delta: &str) {
        if self.running {
            live::append_bounded(&mut self.live_text, delta, live::LIVE_TEXT_MAX_CHARS);
        }
    }

    /// Folds one event into the view.
    pub fn apply(&mut self, event: &TaskEvent) {
        if matches!(event, TaskEvent::Acted(_) | TaskEvent::Finished(_) | TaskEvent::Noted { .. }) {
            // The step's actions start, the task ends, or a note (such as a call sent again
            // on a new host process) comes first: the words streamed so far are done.
            self.live_text.clear();
        }
        match event {
            TaskEvent::StepStarted { step } => self.step = *step,
            TaskEvent::Observed { url, title, engine } => {
                self.page =
                    Some(if title.is_empty() { url.clone() } else { format!("{title} — {url}") });
                self.engine = Some(engine.clone());
            }
            TaskEvent::Acted(record) => {
                self.announce = match &record.outcome.error {
                    None => format!("Step {}: {}", record.step, record.description),
                    Some(e) => format!("Step {}: {} failed: {e}", record.step, record.description),
                };
                self.steps.push(StepView {
                    step: record.step,
                    text: record.description.clone(),
                    ok: record.outcome.ok,
                    error: record.outcome.error.clone(),
                });
            }
            TaskEvent::Planned(plan) => {
                self.plan = plan
                    .steps
                    .iter()
                    .map(|s| {
                        if s.phase.is_empty() {
                            s.goal.clone()
                        } else {
                            format!("[{}] {}", s.phase, s.goal)
                        }
                    })
                    .collect();
            }
            TaskEvent::Noted { text } => self.notes.push(text.clone()),
            TaskEvent::StepOverhead { ms, page_ms, .. } => {
                self.overhead_ms.push(*ms);
                self.overhead_page_ms.push(*page_ms);
            }
            TaskEvent::Finished(outcome) => self.finish(outcome),
        }
    }

    /// Shows the real value of handle `id` (the worker found it in the task's ledger).
    pub fn reveal(&mut self, id: u32, value: String) {
        self.revealed.insert(id, value);
        self.show_parts();
    }

    /// Cuts the shown result into words and handles.
    pub fn show_parts(&mut self) {
        let shown = self.output.as_deref().or(self.answer.as_deref()).unwrap_or_default();
        self.output_parts = secrets::parts(shown, &self.revealed);
    }

    fn finish(&mut self, outcome: &TaskOutcome) {
        self.running = false;
        self.controls = ControlState::default();
        self.output = Some(render_output(self.mode, &self.prompt, outcome, 0.0));
        self.answer = Some(outcome.answer.clone());
        self.show_parts();
        self.success = outcome.success;
        self.error = outcome.error.clone();
        self.elapsed_ms = Some(outcome.elapsed_ms);
        let heading = outcome.ending.heading(outcome.step_count);
        self.heading = format!("{heading}, {:.1} s", outcome.elapsed_ms / 1000.0);
        self.announce = format!("{heading}.");
    }
}

/// The session list from stored headers: most recently updated first, the current one marked.
pub fn session_list(metas: &[SessionMeta], current_id: &str) -> Vec<SessionListItem> {
    let mut list: Vec<SessionListItem> = metas
        .iter()
        .map(|m| SessionListItem {
            id: m.id.clone(),
            title: if m.title.is_empty() { "Untitled session".to_owned() } else { m.title.clone() },
            created_ms: m.created_ms,
            updated_ms: m.updated_ms.max(m.created_ms),
            tasks: m.turns,
            current: m.id == current_id,
        })
        .collect();
    list.sort_by(|a, b| b.updated_ms.total_cmp(&a.updated_ms).then_with(|| a.id.cmp(&b.id)));
    list
}

/// Why the browser could not reach the native host, as the browser adapter classified its
/// error (`waymark-worker`'s `chrome_error.rs`): the browser's own wording differs between browsers and
/// versions, so only the adapter reads it, and the panel decides on this kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostUnreachable {
    /// No host manifest for this browser: the host is not installed.
    NotInstalled,
    /// A manifest exists but does not list this extension.
    Forbidden,
    /// The host process started and stopped at once, or could not be started.
    Exited,
    /// Anything else the browser said.
    Other,
}

/// The side panel's explanation when the browser cannot reach the host: `kind` decides what
/// to tell and which fix to offer; the browser's own message is quoted for reference.
pub fn host_missing(kind: HostUnreachable, browser_error: &str) -> HostStatus {
    let (message, fix) = match kind {
        HostUnreachable::NotInstalled => (
            "The Waymark host is not installed for this browser.",
            "Run the install command for your system (below; `waymark-host install --browser all`), then reopen this panel.",
        ),
        HostUnreachable::Forbidden => (
            "The Waymark host is installed but does not allow this extension.",
            "Run the install command for your system (below; `waymark-host install --browser all`) again so the manifest lists this extension's ID.",
        ),
        HostUnreachable::Exited => (
            "The Waymark host started but stopped at once.",
            "Run `waymark-host doctor` in a terminal and follow what it prints.",
        ),
        HostUnreachable::Other => (
            "The Waymark host is not reachable.",
            "Run `waymark-host doctor` in a terminal and follow what it prints.",
        ),
    };
    HostStatus::Missing { message: format!("{message} ({browser_error})"), fix: fix.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_panel_message_is_shown_until_a_readable_one_arrives() {
        let mut state = PanelState::default();
        let decode = |json: &str| {
            serde_json::from_str::<PanelRequest>(json).map_err(|e| UnreadableMessage(e.to_string()))
        };
        let got = state.receive(decode(r#"{"type":"start_taks","prompt":"p"}"#));
        assert_eq!(got, Received { request: None, redraw: true });
        let shown = state.panel_error.clone().expect("shown");
        assert!(shown.contains("start_taks") && shown.contains("nothing was done"), "{shown}");
        let got = state.receive(decode(r#"{"type":"hello"}"#));
        assert_eq!(got, Received { request: Some(PanelRequest::Hello), redraw: true });
        assert_eq!(state.panel_error, None);
        let got = state.receive(decode(r#"{"type":"pause"}"#));
        assert_eq!(got, Received { request: Some(PanelRequest::Pause), redraw: false });
    }

    #[test]
    fn task_requests_from_the_panel_parse() {
        let answer: PanelRequest =
            serde_json::from_str(r#"{"type":"answer_intervention","text":"1. Ada","stop":false}"#)
                .expect("answer");
        assert_eq!(
            answer,
            PanelRequest::AnswerIntervention {
                reply: Reply { text: "1. Ada".into(), ..Reply::default() }
            }
        );
        let start: PanelRequest = serde_json::from_str(
            r#"{"type":"start_task","prompt":"p","mode":"json","step_mode":true}"#,
        )
        .expect("start");
        assert!(matches!(
            start,
            PanelRequest::StartTask {
                mode: OutputMode::Json,
                step_mode: true,
                max_steps: None,
                ..
            }
        ));
        let plain: PanelRequest =
            serde_json::from_str(r#"{"type":"start_task","prompt":"p"}"#).expect("old shape");
        assert!(matches!(plain, PanelRequest::StartTask { mode: OutputMode::Default, .. }));
        let take: PanelRequest =
            serde_json::from_str(r#"{"type":"take_over"}"#).expect("take over");
        assert_eq!(take, PanelRequest::TakeOver);
    }

    #[test]
    fn the_allow_similar_button_s_answer_approves_and_allows() {
        let similar: PanelRequest = serde_json::from_str(
            r#"{"type":"answer_intervention","text":"","stop":false,"approve":true,"allow_similar":true}"#,
        )
        .expect("answer");
        assert_eq!(similar, PanelRequest::AnswerIntervention { reply: Reply::approve_similar() });
        let approve: PanelRequest = serde_json::from_str(
            r#"{"type":"answer_intervention","text":"","stop":false,"approve":true}"#,
        )
        .expect("answer");
        assert_eq!(approve, PanelRequest::AnswerIntervention { reply: Reply::approve() });
    }

    #[test]
    fn a_resumed_task_shows_its_steps_and_says_it_resumed() {
        use crate::agent::{JournalEntry, TaskContext, TaskSpec};
        let mut ctx = TaskContext::new(TaskSpec::new("save"));
        ctx.apply(&JournalEntry::StepBegun { step: 2 });
        let view = TaskView::resumed(&ctx);
        assert!(view.running);
        assert_eq!(view.step, 2);
        assert!(view.notes.last().is_some_and(|n| n.contains("resumed")));
    }

    #[test]
    fn a_snapshot_keeps_the_session_and_drops_the_task_dialogs_and_live_status() {
        let mut llm = LlmStates::default();
        llm.set(waymark_protocol::LlmRole::Navigator, LlmState::Ready { model: "m".into() });
        let state = PanelState {
            host: host_missing(HostUnreachable::Other, "gone"),
            llm,
            task: Some(TaskView::started("running")),
            session: SessionView { id: "s1".into(), tasks: 3, ..SessionView::default() },
            prompt_history: vec!["earlier".into()],
            confirm_delete: Some(SessionListItem::default()),
            ..PanelState::default()
        };
        let snap = state.snapshot();
        assert_eq!(snap.session.id, "s1");
        assert_eq!(snap.prompt_history, ["earlier"]);
        assert!(snap.task.is_none() && snap.confirm_delete.is_none());
        assert_eq!(snap.host, HostStatus::default(), "the panel says 'connecting' until told");
        assert!(snap.llm.lines().is_empty());
    }

    #[test]
    fn missing_host_gets_the_install_command() {
        let HostStatus::Missing { fix, .. } = host_missing(
            HostUnreachable::NotInstalled,
            "Specified native messaging host not found.",
        ) else {
            panic!("not missing")
        };
        assert!(fix.contains("waymark-host install --browser"));
    }

    #[test]
    fn session_list_is_newest_first_with_the_current_one_marked() {
        let meta = |id: &str, updated_ms: f64, title: &str| SessionMeta {
            id: id.into(),
            title: title.into(),
            updated_ms,
            turns: 2,
            ..SessionMeta::default()
        };
        let list = session_list(&[meta("a", 10.0, "Old"), meta("b", 20.0, "")], "a");
        assert_eq!(list.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), vec!["b", "a"]);
        assert_eq!(list[0].title, "Untitled session");
        assert!(list[1].current && !list[0].current);
        assert_eq!(list[1].tasks, 2);
    }

    #[test]
    fn forbidden_host_is_told_apart() {
        let HostStatus::Missing { message, .. } = host_missing(
            HostUnreachable::Forbidden,
            "Access to the specified native messaging host is forbidden.",
        ) else {
            panic!("not missing")
        };
        assert!(message.contains("does not allow this extension"));
    }
}
