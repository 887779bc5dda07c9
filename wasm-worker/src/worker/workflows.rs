//! The workflows side of the worker: starts the runs the core's [`WorkflowDesk`] allows.
//! Every decision (what may be saved, when a run starts, what the user reads) is in
//! `waymark_core::app`, natively tested.
//!
//! [`WorkflowDesk`]: waymark_core::app::WorkflowDesk

use super::{Worker, task};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use waymark_core::agent::OutputMode;
use waymark_core::app::bridge_result;
use waymark_core::panel::TaskView;
use waymark_core::workflow::WorkflowRun;
use waymark_protocol::{BridgeFailure, BridgeOutput};

/// Starts a run the desk allowed on the tab the user is looking at.
pub(super) fn start_run(w: &Rc<Worker>, run: WorkflowRun, mode: OutputMode) {
    let prompt = run.task_text();
    let mut view = TaskView::started(&prompt);
    view.mode = mode;
    view.workflow = Some(run.workflow.name.clone());
    let run = w.app.show_task(view, prompt, mode, Some(run));
    w.broadcast();
    spawn_local(task::run(w.clone(), run));
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
    let run = w.app.show_task(view, prompt, OutputMode::default(), Some(run));
    w.broadcast();
    bridge_result(task::run_to_end(w.clone(), run).await)
}
