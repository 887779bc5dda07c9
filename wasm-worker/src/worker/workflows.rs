//! The workflows side of the worker: hands the core's [`WorkflowDesk`] its storage and clock,
//! starts the runs it allows and writes the exports it asks for. Every decision (what may be
//! saved, when a run starts, what the user reads) is in `waymark_core::app`, natively tested.

use super::{Worker, task};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use waymark_core::agent::{OutputMode, TaskContext};
use waymark_core::app::bridge_result;
use waymark_core::panel::TaskView;
use waymark_core::session::RanWorkflow;
use waymark_core::workflow::WorkflowRun;
use waymark_protocol::{BridgeFailure, BridgeOutput};

/// Starts a run the desk allowed on the tab the user is looking at.
pub(super) fn start_run(w: &Rc<Worker>, run: WorkflowRun, mode: OutputMode) {
    let prompt = run.task_text();
    let mut view = TaskView::started(&prompt);
    view.mode = mode;
    view.workflow = Some(run.workflow.name.clone());
    let opts = task::StartOptions::shown(w, view, prompt, mode, Some(run));
    spawn_local(task::run(w.clone(), opts));
}

/// An external agent (MCP `run_workflow`) runs a saved workflow by name, as a task of the
/// user's session on the tab the user is looking at; the answer once it ended.
pub(super) async fn run_for_bridge(
    w: &Rc<Worker>,
    name: &str,
    values: BTreeMap<String, String>,
) -> Result<BridgeOutput, BridgeFailure> {
    let run = w.app.workflows.for_bridge(name, values)?;
    let prompt = run.task_text();
    let mut view = TaskView::started(&prompt);
    view.workflow = Some(run.workflow.name.clone());
    let opts = task::StartOptions::shown(w, view, prompt, OutputMode::default(), Some(run));
    bridge_result(task::run_to_end(w.clone(), opts).await)
}

/// After a run of an imported workflow that went through every step with the user's approval.
pub(super) async fn note_reviewed(w: &Rc<Worker>, ctx: &TaskContext) {
    w.app.workflows.note_reviewed(ctx).await;
}

/// After a task: for a workflow run, what the session records of it.
pub(super) async fn after_run(w: &Rc<Worker>, ctx: &TaskContext) -> Option<RanWorkflow> {
    let ran = w.app.workflows.after_run(&w.app.state, ctx).await;
    w.broadcast();
    ran
}
