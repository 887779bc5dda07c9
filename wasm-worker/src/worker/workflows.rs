//! The workflows side of the worker: starts the runs the core's [`WorkflowDesk`] allows.
//! Every decision (what may be saved, when a run starts, what the user reads) is in
//! `waymark_core::app`, natively tested.
//!
//! [`WorkflowDesk`]: waymark_core::app::WorkflowDesk

use super::{Worker, task};
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use waymark_core::agent::OutputMode;
use waymark_core::workflow::WorkflowRun;

/// Starts a run the desk allowed on the tab the user is looking at.
pub(super) fn start_run(w: &Rc<Worker>, run: WorkflowRun, mode: OutputMode) {
    let run = w.app.workflow_run(run, mode);
    w.broadcast();
    spawn_local(task::run(w.clone(), run));
}
