//! The workflows side of the worker: loads the saved workflows, answers the panel's workflow
//! requests (save a task as a workflow, edit, run, rename, duplicate, delete, export, import,
//! accept or reject healed steps) and starts runs. What a workflow is, how it is recorded,
//! validated, stored and replayed is decided in `waymark_core::workflow`; this module moves
//! data between it, storage, the host and the panel.

use super::env::BrowserEnv;
use super::storage::ChromeStore;
use super::{Worker, storage, task};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use waymark_core::action::Refuser;
use waymark_core::agent::{
    Ending, Env, OutputMode, TaskContext, TaskEvent, TaskEvents, TaskOutcome,
};
use waymark_core::panel::workflows::{self as view, WorkflowExport};
use waymark_core::panel::{PanelRequest, TaskView};
use waymark_core::platform::Store;
use waymark_core::protocol::{
    BridgeFailure, BridgeFailureKind, BridgeOutput, ExportFormat, ExportWrite,
};
use waymark_core::session::RanWorkflow;
use waymark_core::workflow::{
    Heal, Workflow, WorkflowEdit, WorkflowMeta, WorkflowRun, WorkflowStore, export_json,
    parse_run_prompt, record,
};

/// Where the last run's healed steps wait for the user's decision (kept across restarts).
const HEALS_KEY: &str = "workflow_heals";

/// The worker's workflows.
#[derive(Default)]
pub(super) struct WorkflowsState {
    /// Every saved workflow (they are small; the list, the run form and prompts need them).
    saved: RefCell<Vec<Workflow>>,
    /// The workflow in the editor (a draft from a task, or a saved one), and the turn a draft
    /// came from: the authority for what is saved (the panel sends only the form).
    editing: RefCell<Option<(Workflow, Option<u32>)>>,
    /// The last run's healed steps, until accepted or rejected.
    heals: RefCell<Option<PendingHeals>>,
}

/// Healed steps waiting for the user.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct PendingHeals {
    workflow_id: String,
    workflow_name: String,
    heals: Vec<Heal>,
}

fn store() -> WorkflowStore<ChromeStore> {
    WorkflowStore::new(ChromeStore)
}

pub(super) fn new_id() -> String {
    format!("{:x}{:08x}", BrowserEnv.now_ms() as u64, BrowserEnv.random_u64() as u32)
}

/// Loads the saved workflows and any healed steps still waiting, at worker start.
pub(super) async fn load(w: &Rc<Worker>) {
    let store = store();
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
        Err(e) => set_error(w, format!("The saved workflows could not be read ({e}).")),
    }
    if unreadable > 0 {
        set_error(
            w,
            format!("{unreadable} saved workflow(s) could not be read (made by a newer Waymark?)."),
        );
    }
    *w.workflows.saved.borrow_mut() = saved;
    *w.workflows.heals.borrow_mut() = storage::load_json::<PendingHeals>(HEALS_KEY).await;
    refresh(w);
}

/// Draws the workflows part of the panel from the worker's state.
fn refresh(w: &Rc<Worker>) {
    {
        let saved = w.workflows.saved.borrow();
        let mut state = w.state.borrow_mut();
        state.workflows.list = view::list(&saved);
        state.workflows.heals = w
            .workflows
            .heals
            .borrow()
            .as_ref()
            .map(|p| view::heal_review(&p.workflow_id, &p.workflow_name, &p.heals));
    }
    w.broadcast();
}

fn set_error(w: &Rc<Worker>, message: String) {
    let mut state = w.state.borrow_mut();
    state.workflows.error = Some(message);
    state.workflows.notice = None;
}

fn set_notice(w: &Rc<Worker>, message: String) {
    let mut state = w.state.borrow_mut();
    state.workflows.notice = Some(message);
    state.workflows.error = None;
}

fn remember(w: &Rc<Worker>, workflow: Workflow) {
    let mut saved = w.workflows.saved.borrow_mut();
    saved.retain(|s| s.id != workflow.id);
    saved.push(workflow);
}

/// The saved workflow `id`.
pub(super) fn find(w: &Rc<Worker>, id: &str) -> Option<Workflow> {
    w.workflows.saved.borrow().iter().find(|s| s.id == id).cloned()
}

/// One workflow request of the panel.
pub(super) async fn handle(w: Rc<Worker>, request: PanelRequest) {
    let now = BrowserEnv.now_ms();
    match request {
        PanelRequest::SaveAsWorkflow { turn } => save_as(&w, turn, now),
        PanelRequest::EditWorkflow { id } => match find(&w, &id) {
            Some(workflow) => open_editor(&w, workflow, view::DraftSource::Saved),
            None => set_error(&w, "That workflow is no longer saved.".into()),
        },
        PanelRequest::SaveWorkflow { form } => save(&w, form, now).await,
        PanelRequest::CloseWorkflowEditor => {
            *w.workflows.editing.borrow_mut() = None;
            w.state.borrow_mut().workflows.editor = None;
        }
        PanelRequest::RunWorkflow { id, values } => match find(&w, &id) {
            None => set_error(&w, "That workflow is no longer saved.".into()),
            Some(workflow) => match WorkflowRun::bind(workflow, values) {
                Ok(run) => {
                    if !start_run(&w, run, OutputMode::default()) {
                        set_error(&w, "A task is running: wait for it to end, or stop it.".into());
                    }
                }
                Err(e) => set_error(&w, format!("The workflow did not start: {e}.")),
            },
        },
        PanelRequest::RenameWorkflow { id, name } => match store().rename(&id, &name, now).await {
            Ok(workflow) => {
                set_notice(&w, format!("Renamed to “{}”.", workflow.name));
                remember(&w, workflow);
            }
            Err(e) => set_error(&w, format!("Not renamed: {e}.")),
        },
        PanelRequest::DuplicateWorkflow { id } => {
            match store().duplicate(&id, new_id(), now).await {
                Ok(copy) => {
                    set_notice(&w, format!("Saved a copy: “{}”.", copy.name));
                    remember(&w, copy);
                }
                Err(e) => set_error(&w, format!("Not copied: {e}.")),
            }
        }
        PanelRequest::DeleteWorkflow { id } => {
            let item = w.state.borrow().workflows.list.iter().find(|i| i.id == id).cloned();
            w.state.borrow_mut().workflows.confirm_delete = item;
        }
        PanelRequest::ConfirmDeleteWorkflow { id } => {
            let confirmed = w.state.borrow_mut().workflows.confirm_delete.take();
            if confirmed.is_some_and(|c| c.id == id) {
                match store().delete(&id).await {
                    Ok(()) => {
                        let name = find(&w, &id).map(|f| f.name).unwrap_or_default();
                        w.workflows.saved.borrow_mut().retain(|s| s.id != id);
                        set_notice(&w, format!("Deleted “{name}”."));
                    }
                    Err(e) => set_error(&w, format!("Not deleted: {e}.")),
                }
            }
        }
        PanelRequest::CancelDeleteWorkflow => {
            w.state.borrow_mut().workflows.confirm_delete = None;
        }
        PanelRequest::ExportWorkflow { id } => export(&w, &id).await,
        PanelRequest::ImportWorkflow { json } => match store().import(&json, new_id(), now).await {
            Ok(workflow) => {
                set_notice(
                    &w,
                    format!(
                        "Imported “{}” ({}).",
                        workflow.name,
                        waymark_core::text::counted(workflow.steps.len(), "step")
                    ),
                );
                remember(&w, workflow);
            }
            Err(e) => set_error(&w, format!("Not imported: {e}. Nothing was stored.")),
        },
        PanelRequest::AcceptHeals => accept_heals(&w, now).await,
        PanelRequest::RejectHeals => {
            let name = w.workflows.heals.borrow().as_ref().map(|p| p.workflow_name.clone());
            clear_heals(&w).await;
            if let Some(name) = name {
                set_notice(&w, format!("“{name}” stays as it was."));
            }
        }
        _ => {}
    }
    refresh(&w);
}

/// A draft from turn `turn` of the current session opens in the editor (nothing is stored).
fn save_as(w: &Rc<Worker>, turn: u32, now: f64) {
    let task = w.sessions.current().turn(turn).cloned();
    let Some(task) = task else {
        return set_error(w, format!("Task {turn} is not in this session."));
    };
    match record(&task, new_id(), now) {
        Ok(draft) => open_editor(w, draft, view::DraftSource::Task(turn)),
        Err(e) => set_error(w, format!("Task {turn} cannot be saved as a workflow: {e}.")),
    }
}

/// Opens the editor on `workflow` (a draft is stored only when the user saves it).
pub(super) fn open_editor(w: &Rc<Worker>, workflow: Workflow, source: view::DraftSource) {
    let turn = match source {
        view::DraftSource::Task(turn) => Some(turn),
        view::DraftSource::Shown | view::DraftSource::Saved => None,
    };
    let editor = view::editor(&workflow, source);
    *w.workflows.editing.borrow_mut() = Some((workflow, turn));
    let mut state = w.state.borrow_mut();
    state.workflows.editor = Some(editor);
    state.workflows.error = None;
    state.workflows.notice = None;
}

/// Saves the editor's workflow with the user's form; a refusal (bad input, full storage)
/// keeps the editor open with the form as the user left it, so nothing they did is lost.
async fn save(w: &Rc<Worker>, form: WorkflowEdit, now: f64) {
    let Some((workflow, turn)) = w.workflows.editing.borrow().clone() else { return };
    let keep_form = |w: &Rc<Worker>, problems: Vec<String>| {
        if let Some(editor) = w.state.borrow_mut().workflows.editor.as_mut() {
            editor.form = form.clone();
            editor.problems = problems;
        }
    };
    let mut next = match workflow.edited(&form) {
        Ok(next) => next,
        Err(problems) => {
            keep_form(w, problems);
            return;
        }
    };
    next.updated_ms = now;
    if turn.is_none() {
        next.revision += 1;
    }
    match store().save(&next).await {
        Ok(()) => {
            *w.workflows.editing.borrow_mut() = None;
            w.state.borrow_mut().workflows.editor = None;
            set_notice(
                w,
                format!(
                    "Saved “{}”: run it from this list or with “run {}”.",
                    next.name, next.name
                ),
            );
            remember(w, next);
        }
        Err(e) => {
            keep_form(w, Vec::new());
            set_error(
                w,
                format!(
                    "Could not save “{}”: {e}. Your draft is still open: free some space (delete \
                     old sessions or workflows) and save again.",
                    next.name
                ),
            );
        }
    }
}

/// Starts a run of a bound workflow on the tab the user is looking at; `false` when a task
/// already runs.
fn start_run(w: &Rc<Worker>, run: WorkflowRun, mode: OutputMode) -> bool {
    let running = w.state.borrow().task.as_ref().is_some_and(|t| t.running);
    if running {
        return false;
    }
    let prompt = run.task_text();
    let mut view = TaskView::started(&prompt);
    view.mode = mode;
    view.workflow = Some(run.workflow.name.clone());
    w.state.borrow_mut().workflows.error = None;
    let opts = task::StartOptions::shown(w, view, prompt, mode, Some(run));
    spawn_local(task::run(w.clone(), opts));
    true
}

/// An external agent (MCP `run_workflow`) runs a saved workflow by name, as a task of the
/// user's session on the tab the user is looking at (the panel shows it and asks its cards);
/// the answer once it ended. The bridge checks first that no task of Waymark's own runs.
pub(super) async fn run_for_bridge(
    w: &Rc<Worker>,
    name: &str,
    values: BTreeMap<String, String>,
) -> Result<BridgeOutput, BridgeFailure> {
    let workflow = w
        .workflows
        .saved
        .borrow()
        .iter()
        .find(|s| s.name.trim().eq_ignore_ascii_case(name.trim()))
        .cloned();
    let Some(workflow) = workflow else {
        let names: Vec<String> =
            w.workflows.saved.borrow().iter().map(|s| format!("“{}”", s.name)).collect();
        let known = if names.is_empty() { "none yet".to_owned() } else { names.join(", ") };
        return Err(BridgeFailure::new(
            BridgeFailureKind::BadArguments,
            format!("there is no workflow named “{name}” (saved workflows: {known})"),
        ));
    };
    let run = WorkflowRun::bind(workflow, values)
        .map_err(|e| BridgeFailure::new(BridgeFailureKind::BadArguments, e.to_string()))?;
    let prompt = run.task_text();
    let mut view = TaskView::started(&prompt);
    view.workflow = Some(run.workflow.name.clone());
    let opts = task::StartOptions::shown(w, view, prompt, OutputMode::default(), Some(run));
    let outcome = task::run_to_end(w.clone(), opts).await;
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

/// A prompt "run NAME …" that names a saved workflow starts it (or shows why it cannot);
/// `false` for any other prompt (an ordinary task).
pub(super) fn start_from_prompt(w: &Rc<Worker>, prompt: &str, mode: OutputMode) -> bool {
    let metas: Vec<WorkflowMeta> =
        w.workflows.saved.borrow().iter().map(WorkflowMeta::of).collect();
    let Some(parsed) = parse_run_prompt(prompt, &metas) else { return false };
    let bound = parsed.and_then(|request| {
        let workflow =
            find(w, &request.id).ok_or_else(|| "That workflow is no longer saved.".to_owned())?;
        WorkflowRun::bind(workflow, request.values)
            .map_err(|e| format!("The workflow did not start: {e}."))
    });
    match bound {
        Ok(run) => {
            start_run(w, run, mode);
        }
        Err(message) => {
            let mut view = TaskView::started(prompt);
            view.mode = mode;
            w.state.borrow_mut().task = Some(view);
            let outcome = TaskOutcome {
                answer: message.clone(),
                success: false,
                error: Some(message),
                steps: vec![],
                step_count: 0,
                elapsed_ms: 0.0,
                ending: waymark_core::agent::Ending::Failed,
            };
            task::TaskEventSink(w.clone()).emit(TaskEvent::Finished(outcome));
        }
    }
    true
}

/// After a run of an imported workflow that went through every step with the user's approval:
/// it is the user's now (later runs ask only what the policy asks). Stored before the answer
/// is shown, so a run started at once from the panel already finds it so.
pub(super) async fn note_reviewed(w: &Rc<Worker>, ctx: &TaskContext) {
    let Some(run) = ctx.spec.workflow.as_ref().filter(|r| r.workflow.needs_review()) else {
        return;
    };
    let every_step = ctx.replay.next as usize >= run.workflow.steps.len();
    let finished = ctx.finished.as_ref().is_some_and(|o| o.success);
    if !(every_step && finished) {
        return;
    }
    if let Err(e) = store().mark_reviewed(&run.workflow.id).await {
        tracing::warn!(error = %e, "an imported workflow's first run could not be recorded");
        return;
    }
    // Runs start from the worker's copy of the saved workflows.
    for saved in w.workflows.saved.borrow_mut().iter_mut().filter(|s| s.id == run.workflow.id) {
        if let Some(imported) = saved.imported.as_mut() {
            imported.reviewed = true;
        }
    }
}

/// After a task: for a workflow run, what the session records of it, and its healed steps
/// (those that ran) waiting for the user's decision.
pub(super) async fn after_run(w: &Rc<Worker>, ctx: &TaskContext) -> Option<RanWorkflow> {
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
        if let Err(e) = storage::save_json(HEALS_KEY, &pending).await {
            // Shown now; kept in memory until the user decides.
            tracing::warn!(error = %e, "the healed steps could not be stored");
        }
        *w.workflows.heals.borrow_mut() = Some(pending);
        refresh(w);
    }
    Some(ran)
}

async fn accept_heals(w: &Rc<Worker>, now: f64) {
    let Some(pending) = w.workflows.heals.borrow().clone() else { return };
    match store().accept_heals(&pending.workflow_id, &pending.heals, now).await {
        Ok(workflow) => {
            set_notice(
                w,
                format!(
                    "Updated “{}” with the healed steps: the next run finds them without the model.",
                    workflow.name
                ),
            );
            remember(w, workflow);
            clear_heals(w).await;
        }
        Err(waymark_core::workflow::WorkflowError::Store(e)) => {
            set_error(w, format!("Could not update “{}”: {e}.", pending.workflow_name));
        }
        Err(e) => {
            set_error(w, format!("“{}” was not updated: {e}.", pending.workflow_name));
            clear_heals(w).await;
        }
    }
}

async fn clear_heals(w: &Rc<Worker>) {
    *w.workflows.heals.borrow_mut() = None;
    if let Err(e) = ChromeStore.remove(&[HEALS_KEY.to_owned()]).await {
        tracing::warn!(error = %e, "the decided healed steps stay stored until the next run");
    }
}

/// Writes a workflow as a JSON file through the host; its JSON is shown either way.
async fn export(w: &Rc<Worker>, id: &str) {
    let Some(workflow) = find(w, id) else { return };
    let json = export_json(&workflow);
    let slug: String = workflow
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    let request = ExportWrite {
        name_hint: Some(format!("workflow-{}", slug.trim_matches('-'))),
        format: ExportFormat::Json,
        content: json.clone(),
    };
    let (path, error) = match w.host.request(request).await {
        Ok(written) => (Some(written.path), None),
        Err(e) => (None, Some(e.with_advice())),
    };
    w.state.borrow_mut().workflows.export =
        Some(WorkflowExport { name: workflow.name.clone(), path, error, json });
}
