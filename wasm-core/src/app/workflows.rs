//! The saved workflows behind the side panel: the list, the editor (a draft from a task, a
//! recording or a saved workflow), runs from the panel, a prompt or an external agent, export
//! and import, and the healed steps waiting for the user.
//!
//! Why in the core: what may be saved, what a refusal keeps (the user's form), when a run may
//! start and every sentence the user reads about it are decisions, tested natively against an
//! in-memory store. The worker starts the runs and writes the export file.

use crate::agent::TaskContext;
use crate::panel::workflows::{self as view, DraftSource, WorkflowExport};
use crate::panel::{PanelRequest, PanelState};
use crate::platform::Env;
use crate::platform::{Store, load_value, save_value};
use crate::record::{Ending, TaskOutcome};
use crate::session::{RanWorkflow, TaskRecord};
use crate::workflow::{
    Heal, Workflow, WorkflowError, WorkflowMeta, WorkflowRun, WorkflowStore, export_json,
    parse_run_prompt, record,
};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use waymark_page::action::Refuser;
use waymark_protocol::{
    BridgeFailure, BridgeFailureKind, BridgeOutput, ErrorBody, ExportFormat, ExportWrite,
    ExportWritten,
};

/// Where the last run's healed steps wait for the user's decision (kept across restarts).
pub const HEALS_KEY: &str = "workflow_heals";

/// Healed steps waiting for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct PendingHeals {
    workflow_id: String,
    workflow_name: String,
    heals: Vec<Heal>,
}

/// What the worker does after a workflow request.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a run or an export the user asked for must be carried out"]
pub enum WorkflowEffect {
    /// Nothing beyond redrawing.
    Redraw,
    /// Start this run on the tab the user looks at (no task runs: checked).
    Start(Box<WorkflowRun>),
    /// Write this file through the host, then report with [`WorkflowDesk::exported`].
    Export {
        /// The workflow's name (for the panel's report).
        name: String,
        /// The file.
        write: ExportWrite,
    },
}

/// A prompt that may name a saved workflow ("run NAME …").
#[derive(Debug, Clone, PartialEq)]
pub enum PromptRun {
    /// Not a workflow's name: an ordinary task.
    Task,
    /// Start this run.
    Start(Box<WorkflowRun>),
    /// It names a workflow that cannot run so: the task ends at once with this answer.
    Refused(String),
}

/// The saved workflows and the editor.
pub struct WorkflowDesk<S> {
    store: S,
    /// Every saved workflow (they are small; the list, the run form and prompts need them).
    saved: RefCell<Vec<Workflow>>,
    /// The workflow in the editor, and the turn a draft came from: the authority for what is
    /// saved (the panel sends only the form).
    editing: RefCell<Option<(Workflow, Option<u32>)>>,
    /// The last run's healed steps, until accepted or rejected.
    heals: RefCell<Option<PendingHeals>>,
}

/// Tells a workflow problem in the panel (in place of a notice).
pub(super) fn set_error(state: &RefCell<PanelState>, message: String) {
    let mut state = state.borrow_mut();
    state.workflows.error = Some(message);
    state.workflows.notice = None;
}

fn set_notice(state: &RefCell<PanelState>, message: String) {
    let mut state = state.borrow_mut();
    state.workflows.notice = Some(message);
    state.workflows.error = None;
}

/// A fresh id (a session, a workflow, a task): the time and a random part.
pub fn new_id(env: &impl Env) -> String {
    format!("{:x}{:08x}", env.now_ms() as u64, env.random_u64() as u32)
}

const GONE: &str = "That workflow is no longer saved.";

impl<S: Store + Clone> WorkflowDesk<S> {
    /// The workflows in `store`; [`WorkflowDesk::load`] reads them.
    pub fn new(store: S) -> Self {
        Self {
            store,
            saved: RefCell::new(Vec::new()),
            editing: RefCell::new(None),
            heals: RefCell::new(None),
        }
    }

    fn workflows(&self) -> WorkflowStore<S> {
        WorkflowStore::new(self.store.clone())
    }

    /// Loads the saved workflows and any healed steps still waiting (at worker start); what
    /// does not read is told.
    pub async fn load(&self, state: &RefCell<PanelState>) {
        let store = self.workflows();
        let mut saved = Vec::new();
        let mut unreadable = 0;
        match store.list().await {
            Ok(list) => {
                for meta in list {
                    match store.load(&meta.id).await {
                        Ok(workflow) => saved.push(workflow),
                        Err(e) => {
                            tracing::warn!(error = %e, "a saved workflow could not be read");
                            unreadable += 1;
                        }
                    }
                }
            }
            Err(e) => set_error(state, format!("The saved workflows could not be read ({e}).")),
        }
        if unreadable > 0 {
            set_error(
                state,
                format!(
                    "{} could not be read (made by a newer Waymark?).",
                    crate::text::counted(unreadable, "saved workflow")
                ),
            );
        }
        *self.saved.borrow_mut() = saved;
        *self.heals.borrow_mut() = load_value(&self.store, HEALS_KEY).await;
        self.refresh(state);
    }

    /// Draws the workflows part of the panel.
    pub fn refresh(&self, state: &RefCell<PanelState>) {
        let mut state = state.borrow_mut();
        state.workflows.list = view::list(&self.saved.borrow());
        state.workflows.heals = self
            .heals
            .borrow()
            .as_ref()
            .map(|p| view::heal_review(&p.workflow_id, &p.workflow_name, &p.heals));
    }

    fn remember(&self, workflow: Workflow) {
        let mut saved = self.saved.borrow_mut();
        saved.retain(|s| s.id != workflow.id);
        saved.push(workflow);
    }

    /// The saved workflow `id`.
    pub fn find(&self, id: &str) -> Option<Workflow> {
        self.saved.borrow().iter().find(|s| s.id == id).cloned()
    }

    /// One workflow request of the panel; `turn_of` finds a turn of the current session (for
    /// "save as workflow"). The panel is refreshed; the effect says what else to do.
    pub async fn handle(
        &self,
        state: &RefCell<PanelState>,
        env: &impl Env,
        turn_of: impl Fn(u32) -> Option<TaskRecord>,
        request: PanelRequest,
    ) -> WorkflowEffect {
        let effect = self.dispatch(state, env, turn_of, request).await;
        self.refresh(state);
        effect
    }

    async fn dispatch(
        &self,
        state: &RefCell<PanelState>,
        env: &impl Env,
        turn_of: impl Fn(u32) -> Option<TaskRecord>,
        request: PanelRequest,
    ) -> WorkflowEffect {
        let now = env.now_ms();
        match request {
            PanelRequest::SaveAsWorkflow { turn } => match turn_of(turn) {
                None => set_error(state, format!("Task {turn} is not in this session.")),
                Some(task) => match record(&task, new_id(env), now) {
                    Ok(draft) => self.open_editor(state, draft, DraftSource::Task(turn)),
                    Err(e) => {
                        set_error(state, format!("Task {turn} cannot be saved as a workflow: {e}."))
                    }
                },
            },
            PanelRequest::EditWorkflow { id } => match self.find(&id) {
                Some(workflow) => self.open_editor(state, workflow, DraftSource::Saved),
                None => set_error(state, GONE.into()),
            },
            PanelRequest::SaveWorkflow { form } => self.save(state, form, now).await,
            PanelRequest::CloseWorkflowEditor => {
                *self.editing.borrow_mut() = None;
                state.borrow_mut().workflows.editor = None;
            }
            PanelRequest::RunWorkflow { id, values } => match self.find(&id) {
                None => set_error(state, GONE.into()),
                Some(workflow) => match WorkflowRun::bind(workflow, values) {
                    Ok(run) => return self.start(state, run),
                    Err(e) => set_error(state, format!("The workflow did not start: {e}.")),
                },
            },
            PanelRequest::RenameWorkflow { id, name } => {
                match self.workflows().rename(&id, &name, now).await {
                    Ok(workflow) => {
                        set_notice(state, format!("Renamed to “{}”.", workflow.name));
                        self.remember(workflow);
                    }
                    Err(e) => set_error(state, format!("Not renamed: {e}.")),
                }
            }
            PanelRequest::DuplicateWorkflow { id } => {
                match self.workflows().duplicate(&id, new_id(env), now).await {
                    Ok(copy) => {
                        set_notice(state, format!("Saved a copy: “{}”.", copy.name));
                        self.remember(copy);
                    }
                    Err(e) => set_error(state, format!("Not copied: {e}.")),
                }
            }
            PanelRequest::DeleteWorkflow { id } => {
                let item = state.borrow().workflows.list.iter().find(|i| i.id == id).cloned();
                state.borrow_mut().workflows.confirm_delete = item;
            }
            PanelRequest::ConfirmDeleteWorkflow { id } => {
                let confirmed = state.borrow_mut().workflows.confirm_delete.take();
                if confirmed.is_some_and(|c| c.id == id) {
                    match self.workflows().delete(&id).await {
                        Ok(()) => {
                            let name = self.find(&id).map(|f| f.name).unwrap_or_default();
                            self.saved.borrow_mut().retain(|s| s.id != id);
                            set_notice(state, format!("Deleted “{name}”."));
                        }
                        Err(e) => set_error(state, format!("Not deleted: {e}.")),
                    }
                }
            }
            PanelRequest::CancelDeleteWorkflow => {
                state.borrow_mut().workflows.confirm_delete = None;
            }
            PanelRequest::ExportWorkflow { id } => {
                if let Some(workflow) = self.find(&id) {
                    return WorkflowEffect::Export {
                        name: workflow.name.clone(),
                        write: export_request(&workflow),
                    };
                }
            }
            PanelRequest::ImportWorkflow { json } => {
                match self.workflows().import(&json, new_id(env), now).await {
                    Ok(workflow) => {
                        set_notice(
                            state,
                            format!(
                                "Imported “{}” ({}).",
                                workflow.name,
                                crate::text::counted(workflow.steps.len(), "step")
                            ),
                        );
                        self.remember(workflow);
                    }
                    Err(e) => set_error(state, format!("Not imported: {e}. Nothing was stored.")),
                }
            }
            PanelRequest::AcceptHeals => self.accept_heals(state, now).await,
            PanelRequest::RejectHeals => {
                let name = self.heals.borrow().as_ref().map(|p| p.workflow_name.clone());
                self.clear_heals().await;
                if let Some(name) = name {
                    set_notice(state, format!("“{name}” stays as it was."));
                }
            }
            other => tracing::debug!(?other, "not a workflow request"),
        }
        WorkflowEffect::Redraw
    }

    /// Opens the editor on `workflow` (a draft is stored only when the user saves it).
    pub fn open_editor(
        &self,
        state: &RefCell<PanelState>,
        workflow: Workflow,
        source: DraftSource,
    ) {
        let turn = match source {
            DraftSource::Task(turn) => Some(turn),
            DraftSource::Shown | DraftSource::Saved => None,
        };
        let editor = view::editor(&workflow, source);
        *self.editing.borrow_mut() = Some((workflow, turn));
        let mut state = state.borrow_mut();
        state.workflows.editor = Some(editor);
        state.workflows.error = None;
        state.workflows.notice = None;
    }

    /// Saves the editor's workflow with the user's form; a refusal (bad input, full storage)
    /// keeps the editor open with the form as the user left it, so nothing they did is lost.
    async fn save(
        &self,
        state: &RefCell<PanelState>,
        form: crate::workflow::WorkflowEdit,
        now: f64,
    ) {
        let Some((workflow, turn)) = self.editing.borrow().clone() else { return };
        let keep_form = |problems: Vec<String>| {
            if let Some(editor) = state.borrow_mut().workflows.editor.as_mut() {
                editor.form = form.clone();
                editor.problems = problems;
            }
        };
        let mut next = match workflow.edited(&form) {
            Ok(next) => next,
            Err(problems) => return keep_form(problems),
        };
        next.updated_ms = now;
        if turn.is_none() {
            next.revision += 1;
        }
        match self.workflows().save(&next).await {
            Ok(()) => {
                *self.editing.borrow_mut() = None;
                state.borrow_mut().workflows.editor = None;
                set_notice(
                    state,
                    format!(
                        "Saved “{}”: run it from this list or with “run {}”.",
                        next.name, next.name
                    ),
                );
                self.remember(next);
            }
            Err(e) => {
                keep_form(Vec::new());
                set_error(
                    state,
                    format!(
                        "Could not save “{}”: {e}. Your draft is still open: free some space \
                         (delete old sessions or workflows) and save again.",
                        next.name
                    ),
                );
            }
        }
    }

    /// A run may start only when no task runs.
    fn start(&self, state: &RefCell<PanelState>, run: WorkflowRun) -> WorkflowEffect {
        if state.borrow().task.as_ref().is_some_and(|t| t.running) {
            set_error(state, "A task is running: wait for it to end, or stop it.".into());
            return WorkflowEffect::Redraw;
        }
        state.borrow_mut().workflows.error = None;
        WorkflowEffect::Start(Box::new(run))
    }

    /// A prompt "run NAME …" that names a saved workflow: its run, or why it cannot run.
    /// Asked only when no task runs (as for any prompt).
    pub fn from_prompt(&self, state: &RefCell<PanelState>, prompt: &str) -> PromptRun {
        let metas: Vec<WorkflowMeta> = self.saved.borrow().iter().map(WorkflowMeta::of).collect();
        let Some(parsed) = parse_run_prompt(prompt, &metas) else { return PromptRun::Task };
        let bound = parsed.map_err(|e| e.to_string()).and_then(|request| {
            let workflow = self.find(&request.id).ok_or_else(|| GONE.to_owned())?;
            WorkflowRun::bind(workflow, request.values)
                .map_err(|e| format!("The workflow did not start: {e}."))
        });
        match bound {
            Ok(run) => {
                state.borrow_mut().workflows.error = None;
                PromptRun::Start(Box::new(run))
            }
            Err(message) => PromptRun::Refused(message),
        }
    }

    /// An external agent (MCP `run_workflow`) names a saved workflow: its run, or why not.
    pub fn for_bridge(
        &self,
        name: &str,
        values: BTreeMap<String, String>,
    ) -> Result<WorkflowRun, BridgeFailure> {
        let found = self
            .saved
            .borrow()
            .iter()
            .find(|s| s.name.trim().eq_ignore_ascii_case(name.trim()))
            .cloned();
        let Some(workflow) = found else {
            let names: Vec<String> =
                self.saved.borrow().iter().map(|s| format!("“{}”", s.name)).collect();
            let known = if names.is_empty() { "none yet".to_owned() } else { names.join(", ") };
            return Err(BridgeFailure::new(
                BridgeFailureKind::BadArguments,
                format!("there is no workflow named “{name}” (saved workflows: {known})"),
            ));
        };
        WorkflowRun::bind(workflow, values)
            .map_err(|e| BridgeFailure::new(BridgeFailureKind::BadArguments, e.to_string()))
    }

    /// After a run of an imported workflow that went through every step with the user's
    /// approval: it is the user's now (later runs ask only what the policy asks).
    pub async fn note_reviewed(&self, ctx: &TaskContext) {
        let Some(run) = ctx.spec.workflow.as_ref().filter(|r| r.workflow.needs_review()) else {
            return;
        };
        let every_step = ctx.replay.next as usize >= run.workflow.steps.len();
        let finished = ctx.finished.as_ref().is_some_and(|o| o.success);
        if !(every_step && finished) {
            return;
        }
        if let Err(e) = self.workflows().mark_reviewed(&run.workflow.id).await {
            tracing::warn!(error = %e, "an imported workflow's first run could not be recorded");
            return;
        }
        for saved in self.saved.borrow_mut().iter_mut().filter(|s| s.id == run.workflow.id) {
            if let Some(imported) = saved.imported.as_mut() {
                imported.reviewed = true;
            }
        }
    }

    /// After a task: for a workflow run, what the session records of it; its healed steps
    /// (those that ran) wait for the user's decision.
    pub async fn after_run(
        &self,
        state: &RefCell<PanelState>,
        ctx: &TaskContext,
    ) -> Option<RanWorkflow> {
        let run = ctx.spec.workflow.as_ref()?;
        let heals = ctx.replay.completed_heals();
        let ran = RanWorkflow {
            id: run.workflow.id.clone(),
            name: run.workflow.name.clone(),
            healed: heals.len() as u32,
        };
        if !heals.is_empty() {
            let pending = PendingHeals {
                workflow_id: run.workflow.id.clone(),
                workflow_name: run.workflow.name.clone(),
                heals,
            };
            if let Err(e) = save_value(&self.store, HEALS_KEY, &pending).await {
                // Shown now; kept in memory until the user decides.
                tracing::warn!(error = %e, "the healed steps could not be stored");
            }
            *self.heals.borrow_mut() = Some(pending);
            self.refresh(state);
        }
        Some(ran)
    }

    async fn accept_heals(&self, state: &RefCell<PanelState>, now: f64) {
        let Some(pending) = self.heals.borrow().clone() else { return };
        match self.workflows().accept_heals(&pending.workflow_id, &pending.heals, now).await {
            Ok(workflow) => {
                set_notice(
                    state,
                    format!(
                        "Updated “{}” with the healed steps: the next run finds them without \
                         the model.",
                        workflow.name
                    ),
                );
                self.remember(workflow);
                self.clear_heals().await;
            }
            Err(WorkflowError::Store(e)) => {
                set_error(state, format!("Could not update “{}”: {e}.", pending.workflow_name));
            }
            Err(e) => {
                set_error(state, format!("“{}” was not updated: {e}.", pending.workflow_name));
                self.clear_heals().await;
            }
        }
    }

    async fn clear_heals(&self) {
        *self.heals.borrow_mut() = None;
        if let Err(e) = self.store.remove(&[HEALS_KEY.to_owned()]).await {
            tracing::warn!(error = %e, "the decided healed steps stay stored until the next run");
        }
    }

    /// The export's result: where the file went (or why not); its JSON is shown either way.
    pub fn exported(
        &self,
        state: &RefCell<PanelState>,
        name: String,
        write: ExportWrite,
        written: Result<ExportWritten, ErrorBody>,
    ) {
        let (path, error) = match written {
            Ok(written) => (Some(written.path), None),
            Err(e) => (None, Some(e.with_advice())),
        };
        state.borrow_mut().workflows.export =
            Some(WorkflowExport { name, path, error, json: write.content });
    }
}

fn slug_hint(workflow: &Workflow) -> String {
    let slug: String = workflow
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    format!("workflow-{}", slug.trim_matches('-'))
}

/// The file a workflow's export writes.
fn export_request(workflow: &Workflow) -> ExportWrite {
    ExportWrite {
        name_hint: Some(slug_hint(workflow)),
        format: ExportFormat::Json,
        content: export_json(workflow),
    }
}

/// What an external agent hears of a workflow run that ended.
pub fn bridge_result(outcome: TaskOutcome) -> Result<BridgeOutput, BridgeFailure> {
    let kind = match outcome.ending {
        Ending::Finished => {
            return Ok(BridgeOutput { text: outcome.answer, ..BridgeOutput::default() });
        }
        Ending::Refused
            if outcome.steps.last().and_then(|s| s.outcome.refused_by) == Some(Refuser::User) =>
        {
            BridgeFailureKind::Denied
        }
        Ending::Refused => BridgeFailureKind::Refused,
        Ending::Stopped => BridgeFailureKind::Stopped,
        Ending::Failed | Ending::NotFinished | Ending::Interrupted => BridgeFailureKind::PageFailed,
    };
    Err(BridgeFailure::new(kind, outcome.answer))
}

#[cfg(test)]
mod tests;
