//! A whole task an external agent asked for (`run_task`), run like the user's own: the same
//! runner, model, policy, cards and write-ahead journal, in a session of its own (new, or one
//! an external agent started), shown in the panel as "Claude Code asked: …". What the task may
//! know and do is [`ExternalSession::run_task`]'s, what the agent is told [`task_report`]'s.

use super::{App, BridgePlatform, ClientTask};
use crate::agent::{Agent, StoredJournal, TaskEvent, TaskEvents};
use crate::app::{new_id, not_started_message};
use crate::bridge::{
    ClientTaskOperator, ExternalSession, OnCard, awaiting_user, may_continue, progress_of,
    task_report,
};
use crate::panel::TaskView;
use crate::platform::{Env, Panels, Platform, Redraw, Store};
use std::rc::Rc;
use waymark_protocol::{BridgeFailure, BridgeFailureKind, BridgeOutput, BridgeProgress};

/// The task's timeline, and its progress for the agent that waits for it.
struct ProgressSink<'a, V> {
    view: &'a V,
    progress: Rc<dyn Fn(BridgeProgress)>,
    call: u64,
}

impl<V: TaskEvents> TaskEvents for ProgressSink<'_, V> {
    fn emit(&self, event: TaskEvent) {
        if let Some((step, message)) = progress_of(&event) {
            (self.progress)(BridgeProgress {
                call: self.call,
                step,
                message,
                awaiting_user: false,
            });
        }
        self.view.emit(event);
    }
}

impl<S: Store + Clone> App<S> {
    /// Makes the session the task runs in current: the one named (when an external agent
    /// started it), else a new one.
    async fn open_session(
        &self,
        p: &impl Platform,
        id: Option<String>,
    ) -> Result<(), BridgeFailure> {
        let Some(id) = id else {
            let shown = self.sessions.start_new(&self.state, p.env()).await;
            p.panels().show(shown);
            return Ok(());
        };
        let Some(session) = self.sessions.find(&self.state, &id).await else {
            return Err(BridgeFailure::new(
                BridgeFailureKind::BadArguments,
                format!("there is no session {id}; leave `session` out to start a new one"),
            ));
        };
        may_continue(&session)?;
        let shown = self.sessions.switch_to(&self.state, session).await;
        p.panels().show(shown);
        Ok(())
    }

    /// Runs `prompt` for the agent of `session` (call `call` of client `client`) and reports
    /// what it found; the caller holds the bridge's turn.
    pub(super) async fn client_task(
        &self,
        p: &impl BridgePlatform,
        call: u64,
        client: u64,
        session: &mut ExternalSession,
        prompt: String,
        continue_id: Option<String>,
    ) -> Result<BridgeOutput, BridgeFailure> {
        let spec = session.task_spec(&prompt)?;
        let tab = session.work_tab(p.browser()).await?;
        self.open_session(p, continue_id).await?;
        let spec = self.with_session_notes(spec);
        {
            let mut state = self.state.borrow_mut();
            state.task = Some(TaskView::started(&spec.shown_task()));
            state.task_turn = None;
        }
        p.panels().show(Redraw::View);
        let journal = StoredJournal::new(self.store.clone(), new_id(p.env()), tab);
        let page = p.task_page(tab, &spec);
        let controls = self.attach_controls(p, false, Some(&page));
        *self.external.task.borrow_mut() = Some(ClientTask {
            client,
            name: session.client().to_owned(),
            controls: controls.clone(),
        });
        let progress = p.progress();
        let on_card: OnCard = Box::new(move |card| progress(awaiting_user(call, card)));
        let operator = ClientTaskOperator::new(controls, session.client()).with_on_card(on_card);
        let llm = p.llm(true);
        let events = ProgressSink { view: p.events(), progress: p.progress(), call };
        let agent = Agent {
            llm: &llm,
            page: &page,
            env: p.env(),
            events: &events,
            operator: &operator,
            journal: &journal,
        };
        let ran = session.run_task(p.browser(), &agent, spec).await;
        p.release_page(&page);
        self.external.task.borrow_mut().take();
        let (ctx, outcome) = match ran {
            Ok(done) => done,
            Err(e) => {
                *self.controls.borrow_mut() = None;
                let message = not_started_message(&e);
                if let Some(view) = self.state.borrow_mut().task.as_mut() {
                    view.running = false;
                    view.answer = Some(message.clone());
                    view.heading = message.clone();
                }
                p.panels().show(Redraw::View);
                return Err(BridgeFailure::new(BridgeFailureKind::PageFailed, message));
            }
        };
        let Some(turn) = self.finish_task(p, &ctx, outcome.clone(), &journal).await else {
            return Err(BridgeFailure::new(
                BridgeFailureKind::PageFailed,
                "the task ended but its turn could not be recorded",
            ));
        };
        let session_id = turn.session_id.clone();
        let record = self.summarise(p, turn).await;
        let nonce = format!("{:016x}", p.env().random_u64());
        Ok(task_report(&outcome, &record, &session_id, &nonce))
    }
}
