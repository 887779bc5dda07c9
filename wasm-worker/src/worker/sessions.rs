//! The session side of the worker: hands the core's [`SessionDesk`] its platform (storage,
//! the metered model, the host's transcript capture, the clock) and redraws the panel as it
//! says. Every decision is in `waymark_core::app`, natively tested.

use super::Worker;
use super::env::BrowserEnv;
use super::storage::ChromeStore;
use crate::host_port::HostClient;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use waymark_core::agent::TaskOutcome;
use waymark_core::app::{Redraw, StoredTurn};
use waymark_core::platform::Transcripts;
use waymark_core::protocol::{ErrorBody, TranscriptRecord};
use waymark_core::session::{RanWorkflow, Session, TaskRecord};

/// The worker's sessions, in `chrome.storage.local`.
pub(super) type Desk = waymark_core::app::SessionDesk<ChromeStore>;

/// The host's transcript capture.
struct HostTranscripts(Rc<HostClient>);

impl Transcripts for HostTranscripts {
    async fn capture(&self, record: TranscriptRecord) -> Result<(), ErrorBody> {
        self.0.request(record).await.map(drop)
    }
}

fn transcripts(w: &Rc<Worker>) -> HostTranscripts {
    HostTranscripts(w.host.clone())
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

/// Loads the current session and the list at worker start.
pub(super) async fn start(w: &Rc<Worker>) {
    let shown = w.sessions.start(&w.state, &BrowserEnv).await;
    redraw(w, shown);
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
    let sink = transcripts(w);
    let turn = w
        .sessions
        .record(&w.state, &sink, &BrowserEnv, prompt, outcome, taint, asked_by, ran)
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
    let record = w.sessions.summarise(&w.state, &llm, &transcripts(w), turn).await;
    redraw(w, Redraw::Session);
    record
}

/// Starts a new, empty session unless a task runs.
pub(super) async fn new_session(w: Rc<Worker>) {
    let shown = w.sessions.new_session(&w.state, &BrowserEnv).await;
    redraw(&w, shown);
}

/// Makes a new, empty session current, whatever the panel shows.
pub(super) async fn start_new(w: &Rc<Worker>) {
    let shown = w.sessions.start_new(&w.state, &BrowserEnv).await;
    redraw(w, shown);
}

/// Makes a stored session the current one (unless a task runs).
pub(super) async fn continue_session(w: Rc<Worker>, id: String) {
    w.sessions.continue_session(&w.state, &id).await;
    redraw(&w, Redraw::Session);
}

/// A session by id: the current one, else the stored one.
pub(super) async fn find(w: &Rc<Worker>, id: &str) -> Option<Session> {
    w.sessions.find(&w.state, id).await
}

/// Makes `session` the current one, whatever the panel shows.
pub(super) async fn switch_to(w: &Rc<Worker>, session: Session) {
    let shown = w.sessions.switch_to(&w.state, session).await;
    redraw(w, shown);
}

/// Renames a session (current or not).
pub(super) async fn rename(w: Rc<Worker>, id: String, title: String) {
    let shown = w.sessions.rename(&w.state, &id, &title).await;
    redraw(&w, shown);
}

/// First step of a deletion: the panel asks the user to confirm.
pub(super) fn ask_delete(w: &Rc<Worker>, id: &str) {
    let shown = w.sessions.ask_delete(&w.state, id);
    redraw(w, shown);
}

/// The user kept the session.
pub(super) fn cancel_delete(w: &Rc<Worker>) {
    let shown = w.sessions.cancel_delete(&w.state);
    redraw(w, shown);
}

/// Deletes a confirmed session.
pub(super) async fn delete(w: Rc<Worker>, id: String) {
    let shown = w.sessions.delete(&w.state, &BrowserEnv, &id).await;
    redraw(&w, shown);
}

/// Runs a search.
pub(super) async fn search(w: Rc<Worker>, query: String, current_only: bool) {
    let shown = w.sessions.search(&w.state, query, current_only).await;
    redraw(&w, shown);
}

/// Shows a turn with its neighbours, switching to its session first when needed.
pub(super) async fn jump(w: Rc<Worker>, session_id: Option<String>, turn: u32) {
    let shown = w.sessions.jump(&w.state, session_id.as_deref(), turn).await;
    redraw(&w, shown);
}
