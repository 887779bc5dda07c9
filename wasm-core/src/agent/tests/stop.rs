//! Stop while a model call is in flight: the call is dropped at once (which is what cancels it
//! at the host), the task ends Stopped, and what was done before is kept.

use super::*;
use futures::FutureExt;
use std::rc::Rc;
use waymark_protocol::LlmRole;

/// Sets its flag when dropped: proves the in-flight call's future was dropped, not left
/// running in the background.
struct DropFlag(Rc<Cell<bool>>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

/// The scripted model, except that the `hang`-th call of role `role` (0-based) never answers,
/// like an endpoint that takes minutes.
struct HangingLlm {
    inner: ScriptedLlm,
    role: LlmRole,
    hang: usize,
    seen: Cell<usize>,
    /// The hanging call started.
    started: Cell<bool>,
    /// The hanging call's future was dropped.
    dropped: Rc<Cell<bool>>,
}

impl HangingLlm {
    fn new(inner: ScriptedLlm, role: LlmRole, hang: usize) -> Self {
        let (seen, started, dropped) = (Cell::new(0), Cell::new(false), Rc::default());
        Self { inner, role, hang, seen, started, dropped }
    }
}

impl Llm for HangingLlm {
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        if request.role == self.role {
            let n = self.seen.get();
            self.seen.set(n + 1);
            if n == self.hang {
                let _flag = DropFlag(self.dropped.clone());
                self.started.set(true);
                std::future::pending::<()>().await;
            }
        }
        self.inner.complete(request).await
    }
}

struct Stopped {
    outcome: TaskOutcome,
    journal: Vec<JournalEntry>,
    events: Vec<TaskEvent>,
}

/// Runs the task until the hanging call is in flight, presses Stop, and runs it on: it must
/// end without another poll of the (never-answering) model.
fn stop_during_the_hanging_call(llm: &HangingLlm, page: &FakeForm) -> Stopped {
    let controls = Controls::new(InterventionSettings::default(), false);
    let (env, events, journal) =
        (TickingEnv::default(), Recorder::default(), MemJournal::default());
    let agent =
        Agent { llm, page, env: &env, events: &events, operator: &controls, journal: &journal };
    let mut ctx = block_on(agent.start(spec(6))).expect("start");
    let outcome = {
        let mut run = Box::pin(agent.run(&mut ctx));
        assert!((&mut run).now_or_never().is_none(), "the model never answers: the task waits");
        assert!(llm.started.get() && !llm.dropped.get(), "the call is in flight");
        controls.stop();
        run.now_or_never().expect("Stop ends the task without the model's answer")
    };
    assert!(llm.dropped.get(), "the in-flight call was dropped (cancelled), not left running");
    assert_eq!(ctx.finished.as_ref(), Some(&outcome), "the context knows the task ended");
    Stopped { outcome, journal: journal.entries.into_inner(), events: events.0.into_inner() }
}

fn last_journaled(journal: &[JournalEntry]) -> &TaskOutcome {
    match journal.last() {
        Some(JournalEntry::Finished { outcome }) => outcome,
        other => panic!("the end is journaled last, got {other:?}"),
    }
}

#[test]
fn stop_during_the_navigator_call_ends_the_task_at_once() {
    let llm = HangingLlm::new(ScriptedLlm::new(vec![calls(&[FILL])]), LlmRole::Navigator, 1);
    let page = FakeForm::default();
    let r = stop_during_the_hanging_call(&llm, &page);
    assert_eq!(r.outcome.ending, Ending::Stopped);
    assert!(!r.outcome.success);
    assert!(
        r.outcome.answer.starts_with("Stopped by you after 2 steps while the model was answering"),
        "{}",
        r.outcome.answer
    );
    assert_eq!(r.outcome.step_count, 2);
    assert_eq!(r.outcome.steps.len(), 1, "the action of step 1 is kept");
    assert_eq!(page.acts.borrow().len(), 1, "nothing ran after Stop");
    assert_eq!(*page.name.borrow(), "Ada");
    assert_eq!(last_journaled(&r.journal), &r.outcome);
    assert!(r.journal.iter().any(|e| matches!(e, JournalEntry::Outcome { .. })));
    assert!(matches!(r.events.last(), Some(TaskEvent::Finished(o)) if *o == r.outcome));
    assert_eq!(llm.inner.roles(), ["planner", "navigator"], "no call after Stop");
}

#[test]
fn stop_during_the_first_plan_ends_before_anything_is_done() {
    let llm = HangingLlm::new(ScriptedLlm::new(vec![]), LlmRole::Planner, 0);
    let page = FakeForm::default();
    let r = stop_during_the_hanging_call(&llm, &page);
    assert_eq!(r.outcome.ending, Ending::Stopped);
    assert!(r.outcome.answer.contains("(as planner)"), "{}", r.outcome.answer);
    assert_eq!((r.outcome.step_count, r.outcome.steps.len()), (1, 0));
    assert!(page.acts.borrow().is_empty());
    assert!(llm.inner.roles().is_empty(), "the navigator was never asked");
    assert_eq!(last_journaled(&r.journal), &r.outcome);
}

#[test]
fn stop_while_the_validator_checks_keeps_the_work_and_the_unconfirmed_answer() {
    let llm = HangingLlm::new(
        ScriptedLlm::new(vec![calls(&[FILL, SAVE]), calls(&[DONE])]),
        LlmRole::Validator,
        0,
    );
    let page = FakeForm::default();
    let r = stop_during_the_hanging_call(&llm, &page);
    assert_eq!(r.outcome.ending, Ending::Stopped, "not Finished: the claim was never confirmed");
    assert!(!r.outcome.success);
    assert!(r.outcome.answer.ends_with("it is not confirmed: Saved Ada."), "{}", r.outcome.answer);
    assert_eq!(r.outcome.steps.len(), 2, "both actions are kept");
    assert_eq!(page.saved.borrow().as_deref(), Some("Ada"));
    assert_eq!(last_journaled(&r.journal), &r.outcome);
}

#[test]
fn a_stop_before_the_call_starts_it_never() {
    // A stop that arrives while the page is read (between the gate and the call) is seen before
    // the model is asked: no tokens are spent on an answer nobody will read.
    struct StopWhileObserving<'a> {
        form: FakeForm,
        controls: &'a Rc<Controls>,
    }
    impl Page for StopWhileObserving<'_> {
        async fn observe(&self) -> Result<Observation, PageError> {
            self.controls.stop();
            self.form.observe().await
        }
        async fn act(
            &self,
            action: &Action,
            permit: &NetworkPermit,
        ) -> Result<ActionOutcome, PageError> {
            self.form.act(action, permit).await
        }
        async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
            self.form.describe(target).await
        }
    }
    let controls = Controls::new(InterventionSettings::default(), false);
    let page = StopWhileObserving { form: FakeForm::default(), controls: &controls };
    let llm = ScriptedLlm::new(vec![]);
    let (env, events, journal) =
        (TickingEnv::default(), Recorder::default(), MemJournal::default());
    let agent = Agent {
        llm: &llm,
        page: &page,
        env: &env,
        events: &events,
        operator: &controls,
        journal: &journal,
    };
    let mut ctx = block_on(agent.start(spec(6))).expect("start");
    let outcome = block_on(agent.run(&mut ctx));
    assert_eq!(outcome.ending, Ending::Stopped);
    assert!(llm.roles().is_empty(), "no model call after Stop: {:?}", llm.roles());
}
