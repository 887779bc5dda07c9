//! The application behind the side panel, as the worker runs it: what a panel request does to
//! the stored data and to what the panel shows, and what the worker must then do.
//!
//! Why here and not in the worker: these are decisions (when a task or a session may change,
//! what a failed read or write tells the user, what is retried), so they are tested natively
//! against in-memory fakes of the platform (`crate::platform`). The worker implements those
//! traits and carries out the [`Effect`]s [`App::handle`] returns.

mod external;
mod recording;
mod routines;
mod sessions;
mod settings;
mod tasks;
mod usage;
mod workflows;

pub use external::{
    BridgePlatform, ExternalDesk, FIRST_RETRY_MS, IncomingCall, MAX_RETRY_MS, next_retry,
};
pub use recording::{RECORDING_KEY, RecordingDesk};
pub use routines::{
    BUSY_DELAY_MS, Begin, ROUTINES_KEY, RoutineDesk, RoutinePlatform, RunStart, alarm_name,
    routine_of_alarm,
};
pub use sessions::{MAX_SUMMARY_CALLS, SessionDesk, StoredTurn};
pub use settings::{AGENT_SETTINGS_KEY, GUIDE_KEY};
pub use tasks::{
    NO_TAB_ANSWER, Signals, TaskEnd, TaskPlatform, TaskRun, no_tab_outcome, not_started_message,
    play_sound, signal, user_holds_page,
};
pub use usage::{Meter, MeterLink, StreamingLlm, usage_key};
pub use workflows::{HEALS_KEY, PromptRun, WorkflowDesk, WorkflowEffect, bridge_result, new_id};

use crate::agent::{Controls, InterventionSettings, OutputMode};
use crate::panel::ExportView;
use crate::panel::{PanelRequest, PanelState, TaskView};
use crate::platform::Env;
use crate::platform::{
    Alarms, Host, Platform, Redraw, Store, StoreError, Tabs, load_value, save_value,
};
use crate::record::TaskOutcome;
use crate::safety::TaintLedger;
use crate::workflow::WorkflowRun;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use waymark_protocol::{ExportFormat, ExportWrite, TrackedValues};

/// Where the prompt history is kept.
pub const HISTORY_KEY: &str = "panel:prompt_history";

/// Where the switch for external agents (MCP clients through the host) is kept.
pub const EXTERNAL_AGENTS_KEY: &str = "external_agents";

/// Where the intervention and attention settings are kept.
pub const INTERVENTIONS_KEY: &str = "settings:interventions";

/// A task the user asked for, ready to start on the tab they look at.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStart {
    /// The user's words.
    pub prompt: String,
    /// How the answer is shown.
    pub mode: OutputMode,
    /// The user's step limit, if any.
    pub max_steps: Option<u32>,
    /// Pause before every step.
    pub step_mode: bool,
    /// Files the task may upload: name → path on the host's side.
    pub resources: BTreeMap<String, String>,
    /// Sites the user allowed beyond the task's own.
    pub allowed_sites: Vec<String>,
}

/// What the worker does after a request, in order.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "the worker must carry out what the request asked for"]
pub enum Effect {
    /// Send the panels the state (see [`Redraw`]).
    Redraw(Redraw),
    /// Ask the host how it is (a panel said hello).
    RefreshHost,
    /// Start this task (its view is shown already).
    StartTask(Box<TaskStart>),
    /// Start this workflow run.
    StartRun {
        /// The bound run.
        run: Box<WorkflowRun>,
        /// How its answer is shown.
        mode: OutputMode,
    },
    /// A task ended before it began (its view is shown already): announce its outcome.
    EndedAtStart(TaskOutcome),
    /// Run routine `id` now (see [`RoutineDesk::begin`]).
    RunRoutine(String),
    /// Write a workflow's file through the host, then report with
    /// [`WorkflowDesk::exported`].
    ExportWorkflow {
        /// The workflow's name.
        name: String,
        /// The file.
        write: ExportWrite,
    },
    /// External agents were switched on: keep the host's bridge open.
    OpenBridge,
    /// External agents were switched off: a card open for one is answered Stop, the host's
    /// bridge closes and its clients go.
    CloseBridge,
    /// The user disconnected this external agent: a card open for it is answered Stop and the
    /// host drops it.
    DisconnectExternal(u64),
}

/// Why an export has nothing to write (the panel shows it where the path would be).
#[derive(Debug, thiserror::Error)]
enum ExportError {
    /// The session could not be written as JSON.
    #[error("{0}")]
    Json(serde_json::Error),
    /// The table asked for is not in that turn (the panel is older than the session).
    #[error("turn {turn} has no table {number}")]
    NoTable {
        /// The turn.
        turn: u32,
        /// The table's number, from 1.
        number: usize,
    },
}

/// The application: what the panels show, the sessions, the workflows, the running task's
/// controls.
pub struct App<S> {
    /// What the panels show.
    pub state: RefCell<PanelState>,
    /// The sessions.
    pub sessions: SessionDesk<S>,
    /// The saved workflows and the editor.
    pub workflows: WorkflowDesk<S>,
    /// The routines and their alarms.
    pub routines: RoutineDesk<S>,
    /// Teach by showing: the recording in progress.
    pub recording: RecordingDesk<S>,
    /// The running task's controls (pause, stop, answers), if a task runs.
    pub controls: RefCell<Option<Rc<Controls>>>,
    /// The last finished task's ledger, for the panel's "show this secret" (memory only).
    pub secrets: RefCell<Option<TaintLedger>>,
    /// External agents: their sessions, controls and turn.
    pub external: ExternalDesk,
    /// Paces the panel updates the running task's streamed words cause.
    live: RefCell<crate::panel::live::PushThrottle>,
    store: S,
}

fn running(state: &RefCell<PanelState>) -> bool {
    state.borrow().task.as_ref().is_some_and(|t| t.running)
}

impl<S: Store + Clone> App<S> {
    /// The app over `store`; [`App::start`] loads what it keeps.
    pub fn new(store: S) -> Self {
        Self {
            state: RefCell::new(PanelState::default()),
            sessions: SessionDesk::new(store.clone()),
            workflows: WorkflowDesk::new(store.clone()),
            routines: RoutineDesk::new(store.clone()),
            recording: RecordingDesk::new(store.clone()),
            controls: RefCell::new(None),
            secrets: RefCell::new(None),
            external: ExternalDesk::default(),
            live: RefCell::default(),
            store,
        }
    }

    /// Loads the sessions, the workflows and the intervention settings (worker start).
    pub async fn start(&self, env: &impl Env) -> Redraw {
        let shown = self.sessions.start(&self.state, env).await;
        self.workflows.load(&self.state).await;
        if let Some(settings) = self.load::<InterventionSettings>(INTERVENTIONS_KEY).await {
            self.state.borrow_mut().interventions = settings;
        }
        shown
    }

    /// Whether external agents are switched on (read at start: the bridge opens when they are).
    pub async fn load_external_agents(&self) -> bool {
        let on = self.load::<bool>(EXTERNAL_AGENTS_KEY).await.unwrap_or(false);
        self.state.borrow_mut().external.enabled = on;
        on
    }

    /// Loads the prompt history (off the start's path: the first state needs only the
    /// session).
    pub async fn load_history(&self) {
        if let Some(history) = self.load::<Vec<String>>(HISTORY_KEY).await {
            self.state.borrow_mut().prompt_history = history;
        }
    }

    async fn load<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        load_value(&self.store, key).await
    }

    async fn store_json<T: serde::Serialize>(
        &self,
        key: &str,
        value: &T,
    ) -> Result<(), StoreError> {
        save_value(&self.store, key, value).await
    }

    /// Stores `value` under `key`; a failure is told in the panel (`what` names it).
    async fn save<T: serde::Serialize>(&self, key: &str, what: &str, value: &T) {
        if let Err(e) = self.store_json(key, value).await {
            tracing::warn!(error = %e, "could not save {what}");
            self.state.borrow_mut().storage_error =
                Some(format!("Could not save {what} to browser storage ({e})."));
        }
    }

    /// Loads the routines and arms their alarms; the ids of those due now (missed while the
    /// browser was closed).
    pub async fn load_routines(&self, env: &impl Env, alarms: &impl Alarms) -> Vec<String> {
        self.routines.load(&self.state, env, alarms).await
    }

    /// One request of a panel.
    pub async fn handle(&self, platform: &impl Platform, request: PanelRequest) -> Vec<Effect> {
        let (env, host, panels, alarms) =
            (platform.env(), platform.host(), platform.panels(), platform.alarms());
        let state = &self.state;
        let redraw = |r: Redraw| vec![Effect::Redraw(r)];
        match request {
            PanelRequest::Hello => vec![Effect::Redraw(Redraw::View), Effect::RefreshHost],
            PanelRequest::StartTask { prompt, mode, max_steps, step_mode, resources } => {
                self.start_task(prompt, mode, max_steps, step_mode, resources).await
            }
            PanelRequest::TrySample => {
                self.finish_guide().await;
                let prompt = crate::panel::guide::SAMPLE_PROMPT.to_owned();
                self.start_task(prompt, OutputMode::default(), None, false, BTreeMap::new()).await
            }
            PanelRequest::Guide { action } => {
                self.guide(action).await;
                let mut effects = redraw(Redraw::View);
                // Each step shows the host's state as it is now (the user may just have
                // installed it).
                if action == crate::panel::GuideAction::Next {
                    effects.push(Effect::RefreshHost);
                }
                effects
            }
            PanelRequest::GuideModel { form } => {
                self.guide_model(host, panels, form).await;
                redraw(Redraw::View)
            }
            PanelRequest::OpenSettings => {
                self.open_settings(host).await;
                redraw(Redraw::View)
            }
            PanelRequest::SaveSettings { form } => {
                self.save_settings(host, panels, form).await;
                // The status line shows the navigator's model: ask the host again.
                vec![Effect::Redraw(Redraw::View), Effect::RefreshHost]
            }
            PanelRequest::CheckSetup => {
                self.check_setup(host, panels).await;
                redraw(Redraw::View)
            }
            PanelRequest::Pause
            | PanelRequest::Resume
            | PanelRequest::Stop
            | PanelRequest::Step
            | PanelRequest::TakeOver
            | PanelRequest::AnswerIntervention { .. } => {
                self.control(request);
                Vec::new()
            }
            PanelRequest::SetInterventionSettings { settings } => {
                state.borrow_mut().interventions = settings;
                if let Some(c) = self.controls.borrow().as_ref() {
                    c.set_settings(settings);
                }
                self.save(INTERVENTIONS_KEY, "the intervention settings", &settings).await;
                redraw(Redraw::View)
            }
            PanelRequest::RevealSecret { id } => {
                let value =
                    self.secrets.borrow().as_ref().and_then(|taint| {
                        taint.secret(id).map(|(_, value)| value.expose().to_owned())
                    });
                if let (Some(value), Some(task)) = (value, state.borrow_mut().task.as_mut()) {
                    task.reveal(id, value);
                }
                redraw(Redraw::View)
            }
            PanelRequest::Attach { path } => {
                let mut state = state.borrow_mut();
                let mut list = std::mem::take(&mut state.attachments);
                state.attach_error =
                    crate::panel::prompt::attach(&mut list, &path).err().map(|e| e.to_string());
                state.attachments = list;
                redraw(Redraw::View)
            }
            PanelRequest::Detach { name } => {
                let mut state = state.borrow_mut();
                state.attachments.retain(|a| a.name != name);
                state.attach_error = None;
                redraw(Redraw::View)
            }
            PanelRequest::Export => {
                self.export(env, host, ExportFormat::Md, TrackedValues::default()).await;
                redraw(Redraw::View)
            }
            PanelRequest::ExportSession { format, values } => {
                self.export(env, host, format, values).await;
                redraw(Redraw::View)
            }
            PanelRequest::ExportTable { turn, index, values } => {
                let now = env.now_ms();
                let content =
                    crate::session::table_csv(&self.sessions.current(), turn, index, now, values)
                        .ok_or(ExportError::NoTable { turn, number: index + 1 });
                self.write_export(host, ExportFormat::Csv, content).await;
                redraw(Redraw::View)
            }
            PanelRequest::DismissCrash => {
                state.borrow_mut().crash = None;
                redraw(Redraw::View)
            }
            PanelRequest::NewSession | PanelRequest::ClearSession => {
                redraw(self.sessions.new_session(state, env).await)
            }
            PanelRequest::ContinueSession { id } => {
                self.sessions.continue_session(state, &id).await;
                redraw(Redraw::Session)
            }
            PanelRequest::RenameSession { id, title } => {
                redraw(self.sessions.rename(state, &id, &title).await)
            }
            PanelRequest::DeleteSession { id } => redraw(self.sessions.ask_delete(state, &id)),
            PanelRequest::ConfirmDelete { id } => {
                redraw(self.sessions.delete(state, env, &id).await)
            }
            PanelRequest::CancelDelete => redraw(self.sessions.cancel_delete(state)),
            PanelRequest::Search { query, current_only } => {
                redraw(self.sessions.search(state, query, current_only).await)
            }
            PanelRequest::JumpToTurn { session_id, turn } => {
                redraw(self.sessions.jump(state, session_id.as_deref(), turn).await)
            }
            request @ (PanelRequest::SaveAsWorkflow { .. }
            | PanelRequest::EditWorkflow { .. }
            | PanelRequest::SaveWorkflow { .. }
            | PanelRequest::CloseWorkflowEditor
            | PanelRequest::RunWorkflow { .. }
            | PanelRequest::RenameWorkflow { .. }
            | PanelRequest::DuplicateWorkflow { .. }
            | PanelRequest::DeleteWorkflow { .. }
            | PanelRequest::ConfirmDeleteWorkflow { .. }
            | PanelRequest::CancelDeleteWorkflow
            | PanelRequest::ExportWorkflow { .. }
            | PanelRequest::ImportWorkflow { .. }
            | PanelRequest::AcceptHeals
            | PanelRequest::RejectHeals) => {
                let turn_of = |turn| self.sessions.current().turn(turn).cloned();
                let effect = self.workflows.handle(state, env, turn_of, request).await;
                let mut effects = redraw(Redraw::View);
                match effect {
                    WorkflowEffect::Redraw => {}
                    WorkflowEffect::Start(run) => {
                        effects.extend(self.start_run(run, OutputMode::default()));
                    }
                    WorkflowEffect::Export { name, write } => {
                        effects.push(Effect::ExportWorkflow { name, write });
                    }
                }
                effects
            }
            request @ (PanelRequest::SaveRoutine { .. }
            | PanelRequest::PauseRoutine { .. }
            | PanelRequest::DeleteRoutine { .. }) => {
                self.routines.handle(state, env, alarms, &self.workflows, request).await;
                redraw(Redraw::View)
            }
            PanelRequest::RunRoutine { id } => vec![Effect::RunRoutine(id)],
            PanelRequest::StartRecording => {
                self.start_recording(platform).await;
                redraw(Redraw::View)
            }
            PanelRequest::StopRecording | PanelRequest::CancelRecording => {
                let keep = matches!(request, PanelRequest::StopRecording);
                self.stop_recording(platform, keep).await;
                redraw(Redraw::View)
            }
            PanelRequest::SetExternalAgents { on } => {
                {
                    let mut state = state.borrow_mut();
                    state.external.enabled = on;
                    state.external.error = None;
                }
                self.save(EXTERNAL_AGENTS_KEY, "the external agents setting", &on).await;
                let bridge = if on { Effect::OpenBridge } else { Effect::CloseBridge };
                vec![Effect::Redraw(Redraw::View), bridge]
            }
            PanelRequest::DisconnectExternal { client } => {
                vec![Effect::DisconnectExternal(client)]
            }
        }
    }

    /// Writes the current session in `format` (markdown for anything but JSON; tracked values
    /// redacted unless `values` includes them) and shows where it went.
    async fn export(
        &self,
        env: &impl Env,
        host: &impl Host,
        format: ExportFormat,
        values: TrackedValues,
    ) {
        let now = env.now_ms();
        let content = {
            let current = self.sessions.current();
            match format {
                ExportFormat::Json => {
                    crate::session::to_json(&current, now, values).map_err(ExportError::Json)
                }
                // A session is no table: its CSVs are written one table at a time.
                ExportFormat::Md | ExportFormat::Jsonl | ExportFormat::Csv => {
                    Ok(crate::session::to_markdown(&current, now, values))
                }
            }
        };
        let format = if format == ExportFormat::Json { format } else { ExportFormat::Md };
        let hint = crate::session::export_name_hint(now);
        self.write_export(host, format, content.map(|c| (hint, c))).await;
    }

    /// Asks the host to write `content` (name hint, text) and shows the result: the path and
    /// the prompt that carries it into another agent, or why it failed.
    async fn write_export(
        &self,
        host: &impl Host,
        format: ExportFormat,
        content: Result<(String, String), ExportError>,
    ) {
        let view = match content {
            Err(e) => ExportView::Failed { message: e.to_string() },
            Ok((hint, content)) => {
                let request = ExportWrite { name_hint: Some(hint), format, content };
                match host.request(request).await {
                    Ok(written) => {
                        let session = self.sessions.current();
                        let prompt =
                            crate::session::portable_prompt(&session, &written.path, format);
                        ExportView::Written { path: written.path, prompt }
                    }
                    Err(e) => ExportView::Failed { message: e.with_advice() },
                }
            }
        };
        self.state.borrow_mut().export = Some(view);
    }

    /// Starts recording the tab the user is looking at (unless a task runs).
    async fn start_recording(&self, platform: &impl Platform) {
        let tabs = platform.tabs();
        let busy = self.controls.borrow().is_some();
        let target = tabs.target().await;
        let state = &self.state;
        let Some(tab) = self.recording.begin(state, platform.env(), busy, target).await else {
            return;
        };
        tabs.watch_loads(true);
        let armed = tabs.arm_recording(tab, true).await;
        if !self.recording.armed(state, armed).await {
            tabs.watch_loads(false);
        }
    }

    /// The files an external agent's task may upload: the ones the user attached in the panel
    /// (name, path), as for the user's own tasks.
    pub fn upload_resources(&self) -> std::collections::BTreeMap<String, String> {
        self.state.borrow().attachments.iter().map(|a| (a.name.clone(), a.path.clone())).collect()
    }

    /// Ends the recording; `keep`: its draft opens in the editor.
    async fn stop_recording(&self, platform: &impl Platform, keep: bool) {
        let tabs = platform.tabs();
        let ended = self.recording.end(&self.state, platform.env(), &self.workflows, keep).await;
        let Some(tab) = ended else { return };
        tabs.watch_loads(false);
        match tabs.arm_recording(tab, false).await {
            Ok(false) => {}
            Ok(true) => tracing::debug!("the recorded tab still reports steps (a new document?)"),
            Err(e) => {
                tracing::debug!(error = %e, "the recorded tab could not be disarmed (closed?)")
            }
        }
    }

    /// A control for the running task; one for a task that just ended (the panel had not
    /// redrawn yet) is dropped.
    fn control(&self, request: PanelRequest) {
        let Some(c) = self.controls.borrow().clone() else {
            tracing::debug!(?request, "no task runs; control ignored");
            return;
        };
        match request {
            PanelRequest::Pause => c.pause(),
            PanelRequest::Resume => c.resume(),
            PanelRequest::Stop => c.stop(),
            PanelRequest::Step => c.step(),
            PanelRequest::TakeOver => c.take_over(),
            PanelRequest::AnswerIntervention { reply } => c.answer(reply),
            other => tracing::debug!(?other, "not a control"),
        }
    }

    /// Remembers the prompt in the history (stored).
    async fn remember_prompt(&self, prompt: &str) {
        let history = {
            let mut state = self.state.borrow_mut();
            crate::panel::prompt::push_history(&mut state.prompt_history, prompt);
            state.prompt_history.clone()
        };
        self.save(HISTORY_KEY, "the prompt history", &history).await;
    }

    /// A task on the tab the user is looking at, unless one runs or the prompt is empty; a
    /// prompt naming a saved workflow ("run NAME …") runs it instead.
    async fn start_task(
        &self,
        prompt: String,
        mode: OutputMode,
        max_steps: Option<u32>,
        step_mode: bool,
        resources: BTreeMap<String, String>,
    ) -> Vec<Effect> {
        if running(&self.state) || prompt.trim().is_empty() {
            return Vec::new();
        }
        let effects = match self.workflows.from_prompt(&self.state, &prompt) {
            PromptRun::Task => {
                let mut state = self.state.borrow_mut();
                let mut view = TaskView::started(&prompt);
                view.mode = mode;
                state.task = Some(view);
                state.task_turn = None;
                // Files attached in the panel go with this task, then the list empties.
                let attached = std::mem::take(&mut state.attachments);
                state.attach_error = None;
                let resources = if resources.is_empty() {
                    attached.into_iter().map(|a| (a.name, a.path)).collect()
                } else {
                    resources
                };
                let allowed_sites = state.settings.agent.allowed_sites.clone();
                let start = TaskStart {
                    prompt: prompt.clone(),
                    mode,
                    max_steps,
                    step_mode,
                    resources,
                    allowed_sites,
                };
                vec![Effect::Redraw(Redraw::View), Effect::StartTask(Box::new(start))]
            }
            PromptRun::Start(run) => self.start_run(run, mode),
            PromptRun::Refused(message) => {
                let mut view = TaskView::started(&prompt);
                view.mode = mode;
                self.state.borrow_mut().task = Some(view);
                vec![Effect::EndedAtStart(TaskOutcome::failed_at_start(message))]
            }
        };
        self.remember_prompt(&prompt).await;
        effects
    }

    /// A workflow run: its view is shown and it starts.
    fn start_run(&self, run: Box<WorkflowRun>, mode: OutputMode) -> Vec<Effect> {
        let prompt = run.task_text();
        let mut view = TaskView::started(&prompt);
        view.mode = mode;
        view.workflow = Some(run.workflow.name.clone());
        let mut state = self.state.borrow_mut();
        state.task = Some(view);
        state.task_turn = None;
        vec![Effect::Redraw(Redraw::View), Effect::StartRun { run, mode }]
    }
}

#[cfg(test)]
mod tests;
