//! A whole task an external agent asked for (`run_task`), run like the user's own: the same
//! runner, model, policy, cards and write-ahead journal, in a session of its own (new, or one
//! an external agent started), shown in the panel as "Claude Code asked: …". The core decides
//! what the task may know and do ([`ExternalSession::run_task`]) and what the agent is told
//! ([`task_report`]); this module wires the tab, the panel and the session.

use super::bridge::Tabs;
use super::env::BrowserEnv;
use super::journal::StorageJournal;
use super::storage::ChromeStore;
use super::task::TaskEventSink;
use super::{Worker, WorkerPlatform, sessions};
use std::rc::Rc;
use waymark_core::agent::{Agent, TaskEvent, TaskEvents};
use waymark_core::app::TaskPlatform;
use waymark_core::bridge::{
    ClientTaskOperator, ExternalSession, OnCard, awaiting_user, may_continue, progress_of,
    task_report,
};
use waymark_core::panel::TaskView;
use waymark_core::platform::Env;
use waymark_protocol::{BridgeFailure, BridgeFailureKind, BridgeOutput, BridgeProgress};

/// The task's timeline, and its progress for the agent that waits for it.
struct ProgressSink {
    view: TaskEventSink,
    call: u64,
}

impl TaskEvents for ProgressSink {
    fn emit(&self, event: TaskEvent) {
        if let Some((step, message)) = progress_of(&event) {
            let host = self.view.0.host.clone();
            let progress = BridgeProgress { call: self.call, step, message, awaiting_user: false };
            wasm_bindgen_futures::spawn_local(async move {
                if let Err(e) = host.request(progress).await {
                    tracing::debug!(code = %e.code, "progress not delivered: {}", e.message);
                }
            });
        }
        self.view.emit(event);
    }
}

/// Makes the session the task runs in current: the one named (when an external agent started
/// it), else a new one.
async fn open_session(w: &Rc<Worker>, id: Option<String>) -> Result<(), BridgeFailure> {
    let Some(id) = id else {
        sessions::start_new(w).await;
        return Ok(());
    };
    let Some(session) = sessions::find(w, &id).await else {
        return Err(BridgeFailure::new(
            BridgeFailureKind::BadArguments,
            format!("there is no session {id}; leave `session` out to start a new one"),
        ));
    };
    may_continue(&session)?;
    sessions::switch_to(w, session).await;
    Ok(())
}

/// Runs `prompt` for the agent of `session` (call `call` of client `client`) and reports what
/// it found; the caller holds the bridge's turn.
pub(super) async fn run(
    w: &Rc<Worker>,
    call: u64,
    client: u64,
    session: &mut ExternalSession,
    prompt: String,
    continue_id: Option<String>,
) -> Result<BridgeOutput, BridgeFailure> {
    let spec = session.task_spec(&prompt)?;
    let browser = Tabs { w: w.clone() };
    let tab = session.work_tab(&browser).await?;
    open_session(w, continue_id).await?;
    let spec = w.app.with_session_notes(spec);
    let p = WorkerPlatform::of(w);
    {
        let mut state = w.app.state.borrow_mut();
        state.task = Some(TaskView::started(&spec.shown_task()));
        state.task_turn = None;
    }
    w.broadcast();
    let id = waymark_core::app::new_id(&BrowserEnv);
    let journal = StorageJournal::new(ChromeStore, id, tab);
    let page = p.task_page(tab, &spec);
    let controls = w.app.attach_controls(&p, false, Some(&page));
    w.bridge.task_started(client, session.client(), &controls);
    let progress = w.host.clone();
    let on_card: OnCard = Box::new(move |card| {
        super::bridge::send_progress(&progress, awaiting_user(call, card));
    });
    let operator = ClientTaskOperator::new(controls, session.client()).with_on_card(on_card);
    let llm = p.llm(true);
    let events = ProgressSink { view: TaskEventSink(w.clone()), call };
    let agent = Agent {
        llm: &llm,
        page: &page,
        env: &BrowserEnv,
        events: &events,
        operator: &operator,
        journal: &journal,
    };
    let ran = session.run_task(&browser, &agent, spec).await;
    p.release_page(&page);
    w.bridge.task_ended();
    let (ctx, outcome) = match ran {
        Ok(done) => done,
        Err(e) => {
            *w.app.controls.borrow_mut() = None;
            let message =
                format!("Could not save the task before starting it ({e}); nothing was done.");
            if let Some(view) = w.app.state.borrow_mut().task.as_mut() {
                view.running = false;
                view.answer = Some(message.clone());
                view.heading = message.clone();
            }
            w.broadcast();
            return Err(BridgeFailure::new(BridgeFailureKind::PageFailed, message));
        }
    };
    let Some(turn) = w.app.finish_task(&p, &ctx, outcome.clone(), &journal).await else {
        return Err(BridgeFailure::new(
            BridgeFailureKind::PageFailed,
            "the task ended but its turn could not be recorded",
        ));
    };
    let session_id = turn.session_id.clone();
    let record = w.app.summarise(&p, turn).await;
    let nonce = format!("{:016x}", BrowserEnv.random_u64());
    Ok(task_report(&outcome, &record, &session_id, &nonce))
}
