//! The task's tab closed under the agent: a card asks for another, the task goes on there, or
//! ends with the reason when the user stops or no page is open.

use super::*;

/// The form, whose tab closes after the `close_after`-th action; `adopt` is the page the user
/// opens when asked (none: no web page is open).
struct ClosingForm {
    form: FakeForm,
    close_after: usize,
    closed: Cell<bool>,
    adopt: Option<&'static str>,
    adopted: Cell<u32>,
}

impl ClosingForm {
    fn new(close_after: usize, adopt: Option<&'static str>) -> Self {
        let form = FakeForm::default();
        Self { form, close_after, closed: Cell::new(false), adopt, adopted: Cell::new(0) }
    }
}

impl Page for ClosingForm {
    async fn observe(&self) -> Result<Observation, PageError> {
        if self.closed.get() {
            return Err(PageError::TabClosed { tab: 7, during: String::new() });
        }
        self.form.observe().await
    }
    async fn act(
        &self,
        action: &Action,
        permit: &NetworkPermit,
    ) -> Result<ActionOutcome, PageError> {
        let outcome = self.form.act(action, permit).await;
        if self.form.acts.borrow().len() == self.close_after {
            self.closed.set(true);
        }
        outcome
    }
    async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
        self.form.describe(target).await
    }
    async fn adopt_active_tab(&self) -> Result<String, PageError> {
        let url = self.adopt.ok_or(PageError::NoPage)?;
        self.closed.set(false);
        self.adopted.set(self.adopted.get() + 1);
        Ok(url.to_owned())
    }
}

#[test]
fn a_closed_tab_is_replaced_by_the_one_the_user_opens_and_the_task_goes_on() {
    let page = ClosingForm::new(1, Some("https://form.example/"));
    let llm = ScriptedLlm::new(vec![calls(&[FILL]), calls(&[SAVE]), calls(&[DONE])]);
    let user = ScriptedUser::new(vec![Reply::proceed()]);
    let Run { outcome, events, .. } = run_spec(spec(6), &llm, &page, &user);
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(page.adopted.get(), 1);
    assert_eq!(page.form.acts.borrow().len(), 2, "typed, then saved in the new tab");
    let cards = user.cards.borrow();
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0].kind, InterventionKind::TakeOver);
    assert!(cards[0].title.contains("was closed"), "{:?}", cards[0]);
    assert!(events.iter().any(|e| matches!(e, TaskEvent::Noted { text }
        if text == "Going on in the tab showing https://form.example/.")));
}

#[test]
fn stopping_at_the_closed_tab_card_ends_the_task_with_what_was_done() {
    let page = ClosingForm::new(1, Some("https://form.example/"));
    let llm = ScriptedLlm::new(vec![calls(&[FILL]), calls(&[SAVE]), calls(&[DONE])]);
    let user = ScriptedUser::new(vec![Reply::stop()]);
    let outcome = run_spec(spec(6), &llm, &page, &user).outcome;
    assert!(!outcome.success);
    assert_eq!(
        outcome.answer,
        "Stopped by you after the tab closed; 1 action done before it, listed below."
    );
    assert_eq!(page.adopted.get(), 0, "no tab taken after a stop");
    assert_eq!(outcome.steps.len(), 1, "the finished action stays listed");
}

#[test]
fn with_no_page_open_the_task_ends_with_the_reason() {
    let page = ClosingForm::new(1, None);
    let llm = ScriptedLlm::new(vec![calls(&[FILL]), calls(&[SAVE]), calls(&[DONE])]);
    let user = ScriptedUser::new(vec![Reply::proceed()]);
    let outcome = run_spec(spec(6), &llm, &page, &user).outcome;
    assert!(!outcome.success);
    assert!(outcome.answer.contains("was closed"), "{}", outcome.answer);
    assert!(outcome.answer.contains("no web page is open"), "{}", outcome.answer);
}
