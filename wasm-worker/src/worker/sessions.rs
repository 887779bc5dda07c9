//! The session side of the worker: hands the core's [`SessionDesk`] its platform (storage,
//! the metered model, the host's transcript capture, the clock) and redraws the panel as it
//! says. Every decision is in `waymark_core::app`, natively tested.

use super::Worker;
use super::env::BrowserEnv;
use crate::host_port::HostLink;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use waymark_core::app::StoredTurn;
use waymark_core::platform::Redraw;
use waymark_core::record::TaskOutcome;
use waymark_core::session::{RanWorkflow, Session, TaskRecord};

fn host(w: &Rc<Worker>) -> HostLink {
    HostLink(w.host.clone())
}

/// The open side panels, as the core's app sees them.
pub(super) struct WorkerPanels(pub Rc<Worker>);

impl waymark_core::platform::Panels for WorkerPanels {
    fn show(&self, shown: Redraw) {
        redraw(&self.0, shown);
    }
}

/// Sends the panel what changed.
pub(super) fn redraw(w: &Rc<Worker>, redraw: Redraw) {
    match redraw {
        Redraw::Session => {
            super::status::follow_session(w);
            super::snapshot::save(w);
            w.broadcast();
        }
        Redraw::View => w.broadcast(),
        Redraw::Nothing => {}
    }
}

/// Records a finished task as the next turn and runs its summary call in the background (a
/// workflow run, `ran`, makes no model call).
pub(super) async fn record_task(
    w: &Rc<Worker>,
    prompt: &str,
    outcome: &TaskOutcome,
    taint: &waymark_core::safety::TaintLedger,
    asked_by: Option<String>,
    ran: Option<RanWorkflow>,
) {
    if let Some(turn) = store_turn(w, prompt, outcome, taint, asked_by, ran).await {
        let w = w.clone();
        spawn_local(async move {
            summarise(&w, turn).await;
        });
    }
}

/// Records a finished task as the next turn; what its summary call needs (`None` for a
/// workflow run).
pub(super) async fn store_turn(
    w: &Rc<Worker>,
    prompt: &str,
    outcome: &TaskOutcome,
    taint: &waymark_core::safety::TaintLedger,
    asked_by: Option<String>,
    ran: Option<RanWorkflow>,
) -> Option<StoredTurn> {
    let sink = host(w);
    let turn = w
        .app
        .sessions
        .record(&w.app.state, &sink, &BrowserEnv, prompt, outcome, taint, asked_by, ran)
        .await;
    redraw(w, Redraw::Session);
    turn
}

/// Runs a stored turn's summary call and stores it; the turn as summarised.
pub(super) async fn summarise(w: &Rc<Worker>, turn: StoredTurn) -> TaskRecord {
    let llm = super::status::MeteredLlm {
        host: w.host.clone(),
        worker: Rc::downgrade(w),
        for_task: false,
    };
    let record = w.app.sessions.summarise(&w.app.state, &llm, &host(w), turn).await;
    redraw(w, Redraw::Session);
    record
}

/// Makes a new, empty session current, whatever the panel shows.
pub(super) async fn start_new(w: &Rc<Worker>) {
    let shown = w.app.sessions.start_new(&w.app.state, &BrowserEnv).await;
    redraw(w, shown);
}

/// A session by id: the current one, else the stored one.
pub(super) async fn find(w: &Rc<Worker>, id: &str) -> Option<Session> {
    w.app.sessions.find(&w.app.state, id).await
}

/// Makes `session` the current one, whatever the panel shows.
pub(super) async fn switch_to(w: &Rc<Worker>, session: Session) {
    let shown = w.app.sessions.switch_to(&w.app.state, session).await;
    redraw(w, shown);
}
