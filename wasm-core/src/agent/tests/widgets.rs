//! The policy for the widget actions (a drag judged on where it drops, a line break typed
//! through the keyboard judged as Enter) and the follow-up card after an approved action whose
//! page's script sent to another address than the card named.

use super::*;
use crate::safety::{BlockedRequest, NetworkPermit};

/// A contact page: a field, a send button whose form has no action (its own URL), a drop zone
/// named "Delete", a sortable item, a link and a second sortable item whose words read like a
/// purchase; each `act` may be followed by blocked requests from the queue.
struct ContactPage {
    url: String,
    elements: Vec<(u32, ActionTarget)>,
    blocks: RefCell<VecDeque<Vec<BlockedRequest>>>,
    pending: RefCell<Vec<BlockedRequest>>,
    acts: RefCell<Vec<Action>>,
    permits: RefCell<Vec<NetworkPermit>>,
}

const PAGE: &str = "https://help.example/contact";

fn target(role: &str, name: &str, tag: &str) -> ActionTarget {
    ActionTarget {
        role: role.into(),
        name: name.into(),
        tag: tag.into(),
        page_url: PAGE.into(),
        ..ActionTarget::default()
    }
}

impl ContactPage {
    fn new(blocks: Vec<Vec<BlockedRequest>>) -> Self {
        let mut send = target("button", "Send to support", "button");
        send.input_type = "submit".into();
        send.submits_form = true;
        send.form_action = Some(PAGE.into());
        send.form_data = "topic=Printer&details=jammed".into();
        let mut field = target("textbox", "Coupon", "input");
        field.form_action = Some("https://help.example/checkout".into());
        field.default_button = "Place order".into();
        let mut link = target("link", "Partner", "a");
        link.href = Some("https://partner.example/".into());
        Self {
            url: PAGE.into(),
            elements: vec![
                (1, send),
                (2, target("dropzone", "Delete", "div")),
                (3, target("draggable", "Old ticket", "div")),
                (4, field),
                (5, link),
                (6, target("draggable", "Renew the passport", "li")),
            ],
            blocks: RefCell::new(blocks.into()),
            pending: RefCell::default(),
            acts: RefCell::default(),
            permits: RefCell::default(),
        }
    }
}

impl Page for ContactPage {
    async fn observe(&self) -> Result<Observation, PageError> {
        let items = self
            .elements
            .iter()
            .map(|(i, t)| {
                Item::Element(Element {
                    ref_id: Ref::top(*i),
                    role: t.role.clone(),
                    name: t.name.clone(),
                    ..Element::default()
                })
            })
            .collect();
        Ok(Observation {
            url: self.url.clone(),
            title: "Contact".into(),
            items,
            ..Observation::default()
        })
    }

    async fn act(
        &self,
        action: &Action,
        permit: &NetworkPermit,
    ) -> Result<ActionOutcome, PageError> {
        self.acts.borrow_mut().push(action.clone());
        self.permits.borrow_mut().push(permit.clone());
        *self.pending.borrow_mut() = self.blocks.borrow_mut().pop_front().unwrap_or_default();
        Ok(ActionOutcome::done())
    }

    async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
        let index = target.map_or(4, |r| r.index);
        let found = self.elements.iter().find(|(i, _)| *i == index);
        found.map(|(_, t)| t.clone()).ok_or_else(|| PageError::StaleRef("gone".into()))
    }

    async fn blocked_requests(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut *self.pending.borrow_mut())
    }
}

fn post(url: &str) -> BlockedRequest {
    BlockedRequest {
        url: url.into(),
        method: "POST".into(),
        kind: "xmlhttprequest".into(),
        body: None,
    }
}

fn run_contact(
    page: &ContactPage,
    answers: &[(&str, &str)],
    replies: Vec<Reply>,
) -> (Run, Vec<Intervention>) {
    let mut navigator: Vec<Reply_> = answers.iter().map(|a| calls(&[*a])).collect();
    navigator.push(calls(&[("done", r#"{"answer":"sent","success":true}"#)]));
    let llm = ScriptedLlm::new(navigator);
    let user = ScriptedUser::new(replies);
    // Words that grant no form: every script send is put to the user.
    let words = TaskSpec { validate: false, ..TaskSpec::new("Look at the contact page") };
    let run = run_spec(TaskSpec { max_steps: 6, ..words }, &llm, page, &user);
    (run, user.cards.into_inner())
}

const SEND: (&str, &str) = ("click", r#"{"ref":1}"#);

#[test]
fn an_approved_send_that_the_pages_script_posts_elsewhere_is_asked_about_exactly() {
    let api = "https://help.example/api/support";
    let page = ContactPage::new(vec![vec![post(api)]]);
    let (run, cards) = run_contact(&page, &[SEND], vec![Reply::approve(), Reply::approve()]);
    assert_eq!(cards.len(), 2, "{cards:?}");
    assert_eq!(cards[0].title, "Approve this message?");
    let held = &cards[1].message;
    assert!(held.contains("POST /api/support to help.example"), "{held}");
    assert!(held.contains("Nothing was sent"), "{held}");
    assert!(cards[1].allow_similar.is_none());
    let permits = page.permits.borrow();
    assert_eq!(permits.len(), 2, "done again after the second approval");
    assert_eq!(permits[0].approved_destination.as_deref(), Some(PAGE));
    assert_eq!(permits[1].approved_destination.as_deref(), Some(PAGE));
    assert_eq!(permits[1].released, vec![api.to_owned()], "exactly that address");
    let intents = run.journal.iter().filter(|e| matches!(e, JournalEntry::Intent { .. })).count();
    assert_eq!(intents, 2, "each attempt is journaled before it runs");
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(text.contains("done again"), "{text}");
}

#[test]
fn a_denied_or_foreign_script_send_stays_blocked() {
    // The user says no at the second card: one attempt, blocked, and the model is told.
    let api = "https://help.example/api/support";
    let page = ContactPage::new(vec![vec![post(api)]]);
    let (run, cards) = run_contact(&page, &[SEND], vec![Reply::approve(), Reply::default()]);
    assert_eq!((cards.len(), page.acts.borrow().len()), (2, 1));
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(text.contains("blocked by Waymark"), "{text}");
    // Another site is never offered.
    let page = ContactPage::new(vec![vec![post("https://collector.example/c")]]);
    let (_, cards) = run_contact(&page, &[SEND], vec![Reply::approve(), Reply::approve()]);
    assert_eq!((cards.len(), page.acts.borrow().len()), (1, 1), "{cards:?}");
    // A free action's blocked post in a task that asks only to read is a held request.
    let page = ContactPage::new(vec![vec![post(api)]]);
    let (_, cards) = run_contact(&page, &[("click", r#"{"ref":3}"#)], vec![Reply::default()]);
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0].title, "Approve what the page would send?");
}

#[test]
fn a_drag_is_judged_on_where_it_drops() {
    let page = ContactPage::new(vec![]);
    let drop_on_delete = ("click", r#"{"ref":3,"to":"2"}"#);
    let (_, cards) = run_contact(&page, &[drop_on_delete], vec![Reply::default()]);
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0].title, "Approve this deletion?");
    assert!(cards[0].message.starts_with("Drag element [3] onto “Delete”"), "{}", cards[0].message);
    assert!(page.acts.borrow().is_empty(), "denied: nothing dragged");
    // Dropped on a link, nothing follows the link: no card for the other site.
    let page = ContactPage::new(vec![]);
    let (_, cards) = run_contact(&page, &[("click", r#"{"ref":3,"to":"5"}"#)], vec![]);
    assert!(cards.is_empty(), "{cards:?}");
    let permits = page.permits.borrow();
    assert_eq!(permits[0].approved_destination, None);
    assert_eq!(permits[0].form_submission, None);
}

#[test]
fn a_drop_onto_another_item_of_a_list_is_a_position_not_its_words() {
    // "Renew" would read as a purchase on a button; an item of a sortable list or board is
    // where the dragged one lands, and what the move sends is judged at the network layer.
    let page = ContactPage::new(vec![]);
    let (_, cards) = run_contact(&page, &[("click", r#"{"ref":3,"to":"6"}"#)], vec![]);
    assert!(cards.is_empty(), "{cards:?}");
    assert_eq!(page.acts.borrow().len(), 1, "dragged");
}

#[test]
fn a_line_break_typed_into_a_field_is_judged_as_enter() {
    let page = ContactPage::new(vec![]);
    let typed = ("type", r#"{"ref":4,"text":"SPRING\n"}"#);
    let (_, cards) = run_contact(&page, &[typed], vec![Reply::default()]);
    assert_eq!(cards.len(), 1, "Enter presses “Place order”: {cards:?}");
    assert_eq!(cards[0].title, "Approve this purchase?");
    let plain = ("type", r#"{"ref":4,"text":"SPRING"}"#);
    let page = ContactPage::new(vec![]);
    let (_, cards) = run_contact(&page, &[plain], vec![]);
    assert!(cards.is_empty(), "{cards:?}");
}
