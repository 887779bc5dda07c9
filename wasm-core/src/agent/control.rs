//! The user's hands on a running task: pause, resume, stop, step, take over, and answers to
//! intervention cards. Target-independent: the service worker calls the methods when the side
//! panel asks, the loop awaits [`Operator`] at every safe point.

use super::interventions::{Intervention, InterventionSettings, Reply};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// What the loop may do at a safe point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Carry on; `after_takeover` when the user had control since the last gate (the page may
    /// have changed under the agent).
    Go {
        /// The user drove the page in between.
        after_takeover: bool,
    },
    /// Stop the task now.
    Stop,
}

/// The user, as the loop sees them.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Operator {
    /// A safe point (before a step, between two actions): waits while paused or taken over.
    async fn gate(&self) -> Gate;
    /// A step finished (in step mode the operator pauses here).
    fn step_done(&self);
    /// Shows a card and waits for the answer.
    async fn ask(&self, card: Intervention) -> Reply;
    /// Which interventions are on.
    fn settings(&self) -> InterventionSettings;
    /// Resolves once the user asked to stop (never, for an operator that cannot stop). The loop
    /// races every model call against it: a call can take minutes (timeouts, retries) and spend
    /// tokens nobody will read, so Stop must not wait for it.
    async fn stop_requested(&self);
}

/// The state of the controls, as the side panel shows it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ControlState {
    /// Paused at the next safe point.
    pub paused: bool,
    /// Pause after every step.
    pub step_mode: bool,
    /// The user drives the page; the agent waits.
    pub taken_over: bool,
    /// Stop requested.
    pub stopping: bool,
    /// The loop is actually held at a safe point (not just asked to pause).
    pub waiting: bool,
    /// The card awaiting an answer.
    pub card: Option<Intervention>,
    #[serde(skip)]
    took_over_since_gate: bool,
    #[serde(skip)]
    answer: Option<Reply>,
}

/// Shared controls for one task; clone the `Rc` freely.
#[derive(Default)]
pub struct Controls {
    state: RefCell<ControlState>,
    wakers: RefCell<Vec<Waker>>,
    settings: RefCell<InterventionSettings>,
    on_change: RefCell<Option<Box<dyn Fn()>>>,
    /// The answer every card gets at once, when the task has no one to ask (a routine that
    /// stops at cards).
    auto_answer: RefCell<Option<Reply>>,
}

impl Controls {
    /// Fresh controls (running, no card) with these settings.
    pub fn new(settings: InterventionSettings, step_mode: bool) -> Rc<Self> {
        let c = Rc::new(Self::default());
        *c.settings.borrow_mut() = settings;
        c.state.borrow_mut().step_mode = step_mode;
        c.state.borrow_mut().paused = false;
        c
    }

    /// Every card of the task is answered `reply` at once, without being shown; never an
    /// approval, whatever `reply` says (only the panel's Approve approves).
    pub fn answer_cards_with(&self, reply: Reply) {
        *self.auto_answer.borrow_mut() =
            Some(Reply { approve: false, allow_similar: false, ..reply });
    }

    /// Called after every change (the worker re-renders the panel).
    pub fn set_on_change(&self, f: impl Fn() + 'static) {
        *self.on_change.borrow_mut() = Some(Box::new(f));
    }

    /// A copy of the state for the view.
    pub fn snapshot(&self) -> ControlState {
        self.state.borrow().clone()
    }

    /// Pause at the next safe point.
    pub fn pause(&self) {
        self.update(|s| s.paused = true);
    }

    /// Leave pause, step mode and take-over; run on.
    pub fn resume(&self) {
        self.update(|s| {
            s.paused = false;
            s.step_mode = false;
            s.taken_over = false;
        });
    }

    /// Run exactly one more step, then pause again.
    pub fn step(&self) {
        self.update(|s| {
            s.step_mode = true;
            s.paused = false;
            s.taken_over = false;
        });
    }

    /// Stop at the next safe point (an action in flight finishes and is reported first); a
    /// model call in flight is abandoned at once (see [`Operator::stop_requested`]).
    pub fn stop(&self) {
        self.update(|s| {
            s.stopping = true;
            if s.card.is_some() {
                s.answer = Some(Reply::stop());
            }
        });
    }

    /// The user drives the page until they resume.
    pub fn take_over(&self) {
        self.update(|s| {
            s.taken_over = true;
            s.took_over_since_gate = true;
        });
    }

    /// The user answered the card on show.
    pub fn answer(&self, reply: Reply) {
        self.update(|s| {
            if s.card.is_some() {
                s.answer = Some(reply);
            }
        });
    }

    /// Replaces the intervention settings.
    pub fn set_settings(&self, settings: InterventionSettings) {
        *self.settings.borrow_mut() = settings;
    }

    fn update(&self, f: impl FnOnce(&mut ControlState)) {
        f(&mut self.state.borrow_mut());
        for w in self.wakers.borrow_mut().drain(..) {
            w.wake();
        }
        if let Some(cb) = &*self.on_change.borrow() {
            cb();
        }
    }

    /// Resolves once `ready` holds, re-checking after every change.
    fn until<T, F: FnMut(&mut ControlState) -> Option<T>>(&self, ready: F) -> Until<'_, T, F> {
        Until { controls: self, ready }
    }
}

struct Until<'a, T, F: FnMut(&mut ControlState) -> Option<T>> {
    controls: &'a Controls,
    ready: F,
}

impl<T, F: FnMut(&mut ControlState) -> Option<T> + Unpin> Future for Until<'_, T, F> {
    type Output = T;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let controls = self.controls;
        let got = (self.ready)(&mut controls.state.borrow_mut());
        match got {
            Some(v) => Poll::Ready(v),
            None => {
                let mut wakers = controls.wakers.borrow_mut();
                // Polled again and again while raced against a model call: one entry per task.
                if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

impl Operator for Rc<Controls> {
    async fn gate(&self) -> Gate {
        let held = |s: &ControlState| !s.stopping && (s.paused || s.taken_over);
        if held(&self.state.borrow()) {
            self.update(|s| s.waiting = true);
        }
        let gate = self
            .until(|s| {
                if s.stopping {
                    return Some(Gate::Stop);
                }
                if s.paused || s.taken_over {
                    return None;
                }
                let after_takeover = std::mem::take(&mut s.took_over_since_gate);
                Some(Gate::Go { after_takeover })
            })
            .await;
        if self.state.borrow().waiting {
            self.update(|s| s.waiting = false);
        }
        gate
    }

    fn step_done(&self) {
        if self.state.borrow().step_mode {
            self.pause();
        }
    }

    async fn ask(&self, card: Intervention) -> Reply {
        if let Some(reply) = self.auto_answer.borrow().clone() {
            return reply;
        }
        self.update(|s| {
            s.card = Some(card);
            s.answer = s.stopping.then(Reply::stop);
        });
        let reply = self.until(|s| s.answer.take()).await;
        self.update(|s| s.card = None);
        reply
    }

    fn settings(&self) -> InterventionSettings {
        *self.settings.borrow()
    }

    async fn stop_requested(&self) {
        self.until(|s| s.stopping.then_some(())).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::interventions::InterventionKind;
    use futures::FutureExt;

    #[test]
    fn pause_holds_the_gate_until_resume() {
        let c = Controls::new(InterventionSettings::default(), false);
        c.pause();
        assert!(!c.snapshot().waiting, "asked to pause, not yet held");
        let mut gate = Box::pin(c.gate());
        assert!((&mut gate).now_or_never().is_none(), "paused: the gate must wait");
        assert!(c.snapshot().waiting, "held at the gate");
        c.resume();
        assert_eq!(gate.now_or_never(), Some(Gate::Go { after_takeover: false }));
        assert!(!c.snapshot().waiting);
    }

    #[test]
    fn take_over_waits_and_is_reported_once() {
        let c = Controls::new(InterventionSettings::default(), false);
        c.take_over();
        let mut gate = Box::pin(c.gate());
        assert!((&mut gate).now_or_never().is_none());
        c.resume();
        assert_eq!(gate.now_or_never(), Some(Gate::Go { after_takeover: true }));
        assert_eq!(Box::pin(c.gate()).now_or_never(), Some(Gate::Go { after_takeover: false }));
    }

    #[test]
    fn step_mode_pauses_after_each_step() {
        let c = Controls::new(InterventionSettings::default(), true);
        assert!(Box::pin(c.gate()).now_or_never().is_some());
        c.step_done();
        assert!(Box::pin(c.gate()).now_or_never().is_none());
        c.step();
        assert!(Box::pin(c.gate()).now_or_never().is_some());
    }

    #[test]
    fn stop_answers_an_open_card_and_closes_the_gate() {
        let c = Controls::new(InterventionSettings::default(), false);
        let card = Intervention {
            kind: InterventionKind::Checkpoint,
            title: "t".into(),
            message: "m".into(),
            questions: vec![],
            allow_similar: None,
        };
        let mut ask = Box::pin(c.ask(card));
        assert!((&mut ask).now_or_never().is_none());
        assert!(c.snapshot().card.is_some());
        c.stop();
        assert_eq!(ask.now_or_never(), Some(Reply::stop()));
        assert!(c.snapshot().card.is_none());
        assert_eq!(Box::pin(c.gate()).now_or_never(), Some(Gate::Stop));
    }

    #[test]
    fn a_task_that_stops_at_cards_never_shows_or_approves_one() {
        let c = Controls::new(InterventionSettings::default(), false);
        c.answer_cards_with(Reply { approve: true, allow_similar: true, ..Reply::stop() });
        let card = Intervention {
            kind: InterventionKind::Confirm,
            title: "Buy the plan?".into(),
            message: "m".into(),
            questions: vec![],
            allow_similar: None,
        };
        assert_eq!(Box::pin(c.ask(card)).now_or_never(), Some(Reply::stop()));
        assert!(c.snapshot().card.is_none(), "nothing waits in the panel");
    }

    #[test]
    fn stop_requested_resolves_on_stop_only() {
        let c = Controls::new(InterventionSettings::default(), false);
        let mut stopped = Box::pin(c.stop_requested());
        assert!((&mut stopped).now_or_never().is_none(), "running: no stop yet");
        assert!((&mut stopped).now_or_never().is_none(), "polled again: still waiting");
        assert_eq!(c.wakers.borrow().len(), 1, "one waker per waiting task, however often polled");
        c.pause();
        c.take_over();
        assert!((&mut stopped).now_or_never().is_none(), "pause and take-over are not a stop");
        c.stop();
        assert_eq!(stopped.now_or_never(), Some(()));
        assert_eq!(Box::pin(c.stop_requested()).now_or_never(), Some(()), "stays stopped");
    }
}
