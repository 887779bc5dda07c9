//! The write budget and the safety gate's verdicts (issue 26), against a fake page whose
//! network layer reports what it blocked: a read-only task's state-changing request is held
//! and put to the user with its fields, approved exactly or denied; keys are judged by what
//! they activate; a form, a one-click GET link and a publishing field outside the budget ask
//! first; writes the task asked for need no card; the information-flow card; the gate an
//! external agent's calls go through.

use super::*;
use crate::safety::target::{ControlSnapshot, FormSnapshot, PageBaseline};
use crate::safety::{BlockedRequest, NetworkPermit, RequestBody};

const SHOP: &str = "https://shop.example/orders";

/// A page of numbered elements whose network layer blocks, on each act, the next batch of
/// requests in `blocks` (when the permit holds them) and reports what went out.
struct EffectsPage {
    url: String,
    elements: Vec<(u32, ActionTarget)>,
    focused: Option<u32>,
    /// What the page sends on each act, in order (one batch per act).
    sends: RefCell<VecDeque<Vec<BlockedRequest>>>,
    blocked: RefCell<Vec<BlockedRequest>>,
    sent: RefCell<Vec<BlockedRequest>>,
    /// Everything that went out, never drained.
    went: RefCell<Vec<BlockedRequest>>,
    permits: RefCell<Vec<NetworkPermit>>,
    /// What the page's forms would submit, and after how many acts each read of them came.
    forms: PageBaseline,
    forms_read: RefCell<Vec<usize>>,
}

impl EffectsPage {
    fn new(url: &str) -> Self {
        Self {
            url: url.into(),
            elements: vec![],
            focused: None,
            sends: RefCell::default(),
            blocked: RefCell::default(),
            sent: RefCell::default(),
            went: RefCell::default(),
            permits: RefCell::default(),
            forms: PageBaseline::default(),
            forms_read: RefCell::default(),
        }
    }

    fn with_forms(self, forms: Vec<FormSnapshot>) -> Self {
        Self { forms: PageBaseline { forms, ..self.forms.clone() }, ..self }
    }

    fn with_controls(self, controls: Vec<ControlSnapshot>) -> Self {
        Self { forms: PageBaseline { controls, ..self.forms.clone() }, ..self }
    }

    fn with(mut self, index: u32, facts: ActionTarget) -> Self {
        self.elements.push((index, ActionTarget { page_url: self.url.clone(), ..facts }));
        self
    }

    fn sending(self, batches: Vec<Vec<BlockedRequest>>) -> Self {
        *self.sends.borrow_mut() = batches.into();
        self
    }

    fn acted(&self) -> usize {
        self.permits.borrow().len()
    }
}

impl Page for EffectsPage {
    async fn observe(&self) -> Result<Observation, PageError> {
        let items = self
            .elements
            .iter()
            .map(|(i, f)| {
                Item::Element(Element {
                    ref_id: Ref::top(*i),
                    role: f.role.clone(),
                    name: f.name.clone(),
                    ..Element::default()
                })
            })
            .collect();
        Ok(Observation {
            url: self.url.clone(),
            title: "Shop".into(),
            items,
            ..Observation::default()
        })
    }

    async fn act(&self, _: &Action, permit: &NetworkPermit) -> Result<ActionOutcome, PageError> {
        self.permits.borrow_mut().push(permit.clone());
        for request in self.sends.borrow_mut().pop_front().unwrap_or_default() {
            if permit.holds_write_to(&request.url) {
                self.blocked.borrow_mut().push(request);
            } else {
                self.went.borrow_mut().push(request.clone());
                self.sent.borrow_mut().push(request);
            }
        }
        Ok(ActionOutcome::done())
    }

    async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
        let index = target.map(|r| r.index).or(self.focused).ok_or(PageError::Unsupported)?;
        self.elements
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, f)| f.clone())
            .ok_or_else(|| PageError::StaleRef("gone".into()))
    }

    async fn blocked_requests(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut *self.blocked.borrow_mut())
    }

    async fn sent_requests(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut *self.sent.borrow_mut())
    }

    async fn forms(&self) -> PageBaseline {
        self.forms_read.borrow_mut().push(self.acted());
        self.forms.clone()
    }
}

fn button(name: &str) -> ActionTarget {
    ActionTarget {
        role: "button".into(),
        name: name.into(),
        tag: "button".into(),
        input_type: "button".into(),
        ..ActionTarget::default()
    }
}

fn post(url: &str, json: &str) -> BlockedRequest {
    BlockedRequest {
        url: url.into(),
        method: "POST".into(),
        kind: "xmlhttprequest".into(),
        body: Some(RequestBody::Raw { bytes: json.as_bytes().to_vec() }),
    }
}

/// Runs `task` with the navigator's `actions` (then done) and the user's `replies`.
fn task(
    task: &str,
    page: &EffectsPage,
    actions: &[(&str, &str)],
    replies: Vec<Reply>,
) -> (Run, Vec<Intervention>) {
    let mut navigator: Vec<Reply_> = actions.iter().map(|a| calls(&[*a])).collect();
    navigator.push(calls(&[("done", r#"{"answer":"finished","success":true}"#)]));
    let llm = ScriptedLlm::new(navigator);
    let user = ScriptedUser::new(replies);
    let run = run_spec(TaskSpec { validate: false, ..TaskSpec::new(task) }, &llm, page, &user);
    (run, user.cards.into_inner())
}

const CLICK1: (&str, &str) = ("click", r#"{"ref":1}"#);
const ORDER_API: &str = "https://shop.example/api/orders";

#[test]
fn a_read_only_tasks_benign_named_click_that_posts_is_held_with_its_fields() {
    let page = EffectsPage::new(SHOP)
        .with(1, button("Continue"))
        .sending(vec![vec![post(ORDER_API, r#"{"item":"teapot","quantity":3}"#)]]);
    let (run, cards) = task("Check my order history", &page, &[CLICK1], vec![Reply::default()]);
    assert!(page.permits.borrow()[0].write_origins.is_empty(), "read-only: nothing granted");
    assert_eq!(cards.len(), 1, "{cards:?}");
    let card = &cards[0].message;
    assert!(card.contains("POST /api/orders to shop.example"), "{card}");
    assert!(card.contains("  quantity: 3") && card.contains("  item: teapot"), "{card}");
    assert!(card.contains("your task asks only to read"), "{card}");
    assert_eq!(page.acted(), 1, "denied: not done again");
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(text.contains("blocked by Waymark"), "the model is told: {text}");
}

#[test]
fn an_approved_held_request_is_released_exactly_and_a_changed_body_is_reported() {
    let one = post(ORDER_API, r#"{"item":"teapot","quantity":1}"#);
    let twelve = post(ORDER_API, r#"{"item":"teapot","quantity":12}"#);
    let page = EffectsPage::new(SHOP).with(1, button("Continue")).sending(vec![
        vec![one],
        vec![twelve, post("https://shop.example/api/delete-account", "{}")],
        vec![],
    ]);
    let (run, cards) =
        task("Check my order history", &page, &[CLICK1], vec![Reply::approve(), Reply::default()]);
    let permits = page.permits.borrow();
    assert_eq!(permits[1].released, vec![ORDER_API.to_owned()], "exactly the approved URL");
    assert!(permits[1].write_origins.is_empty());
    // The delete the page then sent was held again: a second card, denied.
    assert_eq!(cards.len(), 2, "{cards:?}");
    assert!(cards[1].message.contains("/api/delete-account"), "{}", cards[1].message);
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(text.contains("WARNING") && text.contains("quantity: 12"), "{text}");
    assert!(
        run.events
            .iter()
            .any(|e| matches!(e, TaskEvent::Noted { text } if text.contains("WARNING"))),
        "the user sees it in the timeline"
    );
}

#[test]
fn writes_the_task_asked_for_need_no_card_on_its_own_site() {
    let page = EffectsPage::new(SHOP).with(1, button("Place order")).sending(vec![
        vec![post(ORDER_API, r#"{"item":"teapot"}"#)],
        vec![post(ORDER_API, r#"{"item":"teapot"}"#)],
    ]);
    let (run, cards) = task("Order the blue teapot", &page, &[CLICK1], vec![]);
    assert!(cards.is_empty(), "{cards:?}");
    // Held and read: an order the words asked for, on the start tab's site, goes when the
    // click is done again with exactly its URL released; it is spent.
    let permits = page.permits.borrow();
    assert!(permits[0].write_origins.is_empty(), "writes are never opened by origin");
    assert_eq!(permits[1].released, vec![ORDER_API.to_owned()]);
    assert!(page.blocked.borrow().is_empty(), "sent the second time");
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(text.contains("fit the writes your task asks for"), "{text}");
    assert!(run.journal.iter().any(|e| matches!(e, JournalEntry::WriteSpent { .. })));
    drop(permits);
    // The same click in a read-only task: the purchase card (its words), denied.
    let page = EffectsPage::new(SHOP).with(1, button("Place order"));
    let (_, cards) = task("Show me my orders", &page, &[CLICK1], vec![Reply::default()]);
    assert_eq!(cards.len(), 1);
    assert_eq!(cards[0].title, "Approve this purchase?");
    assert_eq!(page.acted(), 0);
}

#[test]
fn space_and_enter_on_a_button_are_judged_as_its_click() {
    for keys in ["Space", "Enter"] {
        let page = EffectsPage::new(SHOP).with(1, button("Place order"));
        let press = format!(r#"{{"ref":1,"keys":"{keys}"}}"#);
        let (_, cards) =
            task("What did I order?", &page, &[("press_keys", &press)], vec![Reply::default()]);
        assert_eq!(cards.len(), 1, "{keys}: {cards:?}");
        assert!(cards[0].message.starts_with(&format!("Press {keys} on “Place order”")));
        assert_eq!(page.acted(), 0, "{keys}: denied, not pressed");
    }
    // Tab then Space: the element it activates cannot be described beforehand.
    let mut page = EffectsPage::new(SHOP).with(1, button("Next picture"));
    page.focused = Some(1);
    let (_, cards) = task(
        "What did I order?",
        &page,
        &[("press_keys", r#"{"keys":"Tab Space"}"#)],
        vec![Reply::default()],
    );
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert!(cards[0].message.contains("the focus moves first"), "{}", cards[0].message);
}

#[test]
fn forms_links_and_publishing_fields_outside_the_budget_ask_first() {
    let form = ActionTarget {
        submits_form: true,
        form_action: Some("https://shop.example/account/plan".into()),
        form_method: "post".into(),
        form_data: "plan=team-40&seats=40".into(),
        ..button("Save")
    };
    let page = EffectsPage::new(SHOP).with(1, form.clone());
    let (_, cards) = task("Which plan am I on?", &page, &[CLICK1], vec![Reply::default()]);
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert!(cards[0].message.contains("  plan: team-40"), "{}", cards[0].message);
    assert_eq!(page.acted(), 0);
    // Asked for: no card, and the form may post only to its judged action.
    let page = EffectsPage::new(SHOP).with(1, form);
    let (_, cards) = task("Change my plan to Team", &page, &[CLICK1], vec![]);
    assert!(cards.is_empty(), "{cards:?}");
    assert_eq!(
        page.permits.borrow()[0].form_submission.as_deref(),
        Some("https://shop.example/account/plan")
    );
    // A GET link that orders by itself.
    let link = ActionTarget {
        role: "link".into(),
        name: "Details".into(),
        tag: "a".into(),
        href: Some("https://shop.example/orders/new?item=7&oneclick=1".into()),
        ..ActionTarget::default()
    };
    let page = EffectsPage::new(SHOP).with(1, link);
    let (_, cards) = task("What did I order?", &page, &[CLICK1], vec![Reply::default()]);
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert!(cards[0].message.contains("changes something on the site by itself"));
    // A status box: typing there publishes.
    let status = ActionTarget {
        role: "textbox".into(),
        name: "What's on your mind?".into(),
        tag: "textarea".into(),
        ..ActionTarget::default()
    };
    let page = EffectsPage::new(SHOP).with(1, status.clone());
    let typing = ("type", r#"{"ref":1,"text":"hello"}"#);
    let (_, cards) = task("Read my feed", &page, &[typing], vec![Reply::default()]);
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert!(cards[0].message.contains("other people can read"), "{}", cards[0].message);
    let page = EffectsPage::new(SHOP).with(1, status);
    let (_, cards) = task("Post hello as my status", &page, &[typing], vec![]);
    assert!(cards.is_empty(), "{cards:?}");
}

#[test]
fn the_gate_says_when_a_field_publishes() {
    let status = ActionTarget {
        role: "textbox".into(),
        name: "Comment".into(),
        tag: "textarea".into(),
        page_url: SHOP.into(),
        ..ActionTarget::default()
    };
    let page = EffectsPage::new(SHOP).with(1, status);
    let (env, events, user) =
        (TickingEnv::default(), Recorder::default(), ScriptedUser::new(vec![]));
    let gate = SafetyGate { page: &page, env: &env, events: &events, operator: &user };
    let mut ctx = TaskContext::new(TaskSpec::new("Post a comment saying thanks"));
    ctx.apply(&JournalEntry::SiteAllowed { origin: SHOP.into(), sensitive: false });
    let observation = block_on(page.observe()).expect("observe");
    let mut action = Action::Type { ref_id: Ref::top(1), text: "thanks".into(), append: false };
    let mut entries = Vec::new();
    match block_on(gate.judge(&mut ctx, &observation, &mut action, &mut entries)) {
        GateVerdict::Go(cleared) => assert!(cleared.publishes),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_first_action_on_an_unnamed_site_after_reading_another_asks_once() {
    let page = EffectsPage::new(SHOP);
    let go = r#"{"url":"https://notes.example/new"}"#;
    let llm = ScriptedLlm::new(vec![
        calls(&[("navigate", go)]),
        calls(&[("navigate", r#"{"url":"https://notes.example/list"}"#)]),
        calls(&[("done", r#"{"answer":"finished","success":true}"#)]),
    ]);
    let user = ScriptedUser::new(vec![Reply::approve()]);
    let spec = TaskSpec {
        allowed_sites: vec!["https://notes.example".into()],
        validate: false,
        ..TaskSpec::new("Summarise my orders")
    };
    let run = run_spec(spec, &llm, &page, &user);
    let cards = user.cards.into_inner();
    assert_eq!(cards.len(), 1, "one card for the site, not one per action: {cards:?}");
    assert!(cards[0].message.contains("has read pages of shop.example"), "{}", cards[0].message);
    assert!(run.journal.iter().any(|e| matches!(e, JournalEntry::FlowAllowed { .. })));
    assert_eq!(page.acted(), 2);
    // A site the task's words name needs no such card.
    let page = EffectsPage::new(SHOP);
    let llm = ScriptedLlm::new(vec![
        calls(&[("navigate", go)]),
        calls(&[("done", r#"{"answer":"finished","success":true}"#)]),
    ]);
    let user = ScriptedUser::new(vec![]);
    let spec = TaskSpec {
        allowed_sites: vec!["https://notes.example".into()],
        validate: false,
        ..TaskSpec::new("Summarise my orders into notes.example")
    };
    run_spec(spec, &llm, &page, &user);
    assert!(user.cards.into_inner().is_empty());
}

#[test]
fn an_external_agents_calls_go_through_the_same_gate_with_no_write_budget() {
    let page = EffectsPage::new(SHOP).with(1, button("Continue"));
    let (env, events, user) =
        (TickingEnv::default(), Recorder::default(), ScriptedUser::new(vec![]));
    let mut spec = TaskSpec::new("Order the blue teapot");
    spec.asked_by = Some("Claude Code".into());
    let mut ctx = TaskContext::new(spec);
    ctx.apply(&JournalEntry::SiteAllowed { origin: SHOP.into(), sensitive: false });
    let observation = block_on(page.observe()).expect("observe");
    let mut action = Action::Click { ref_id: Ref::top(1) };
    let policed =
        block_on(police_external(&page, &env, &events, &user, &mut ctx, &observation, &mut action));
    match policed {
        Policed::Permit(permit) => {
            assert!(permit.write_origins.is_empty(), "a client's words grant nothing: {permit:?}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_self_saving_box_approved_after_a_hold_says_when_nothing_was_sent_again() {
    let boxed = ActionTarget {
        role: "checkbox".into(),
        name: "Early access".into(),
        tag: "input".into(),
        input_type: "checkbox".into(),
        ..ActionTarget::default()
    };
    let page = EffectsPage::new(SHOP)
        .with(1, boxed)
        .sending(vec![vec![post("https://shop.example/api/beta", r#"{"on":true}"#)], vec![]]);
    let (run, cards) =
        task("Which plan am I on?", &page, &[("check", r#"{"ref":1}"#)], vec![Reply::approve()]);
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert!(cards[0].message.contains("POST /api/beta"), "{}", cards[0].message);
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(text.contains("is not saved"), "the model is told: {text}");
}

mod baseline;
mod budget;
