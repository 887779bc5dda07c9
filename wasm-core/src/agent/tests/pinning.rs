//! Body pinning through the agent's loop (issue 26): a fake page whose browser pins an
//! approved request's body as the worker's debugger adapter does (every request of a redo
//! is judged by `safety::network::pin`), so a page that changes the order on the redo sends
//! nothing and its real request becomes the next card.

use super::*;
use crate::safety::network::pin::{
    CdpResourceType, PausedHttp, PausedRequest, PinVerdict, Pinning,
};
use crate::safety::{BlockedRequest, NetworkPermit, RequestBody};

const SHOP: &str = "https://shop.example/checkout";
const ORDER: &str = "https://shop.example/api/place-order";

/// A page with one “Continue” button whose script sends the next batch on each click; its
/// browser pins bodies when the permit pins (as `wasm-worker`'s `pin.rs` does).
struct PinningPage {
    sends: RefCell<VecDeque<Vec<(&'static str, &'static str)>>>,
    blocked: RefCell<Vec<BlockedRequest>>,
    sent: RefCell<Vec<BlockedRequest>>,
    permits: RefCell<Vec<NetworkPermit>>,
    /// Chrome's words when the debugger cannot attach (`None`: it attaches).
    no_debugger: Option<&'static str>,
    unpinned: RefCell<Option<String>>,
}

impl PinningPage {
    fn new(batches: Vec<Vec<(&'static str, &'static str)>>) -> Self {
        Self {
            sends: RefCell::new(batches.into()),
            blocked: RefCell::default(),
            sent: RefCell::default(),
            permits: RefCell::default(),
            no_debugger: None,
            unpinned: RefCell::default(),
        }
    }
}

impl Page for PinningPage {
    async fn observe(&self) -> Result<Observation, PageError> {
        let button = Element {
            ref_id: Ref::top(1),
            role: "button".into(),
            name: "Continue".into(),
            ..Element::default()
        };
        Ok(Observation {
            url: SHOP.into(),
            title: "Checkout".into(),
            items: vec![Item::Element(button)],
            ..Observation::default()
        })
    }

    async fn act(&self, _: &Action, permit: &NetworkPermit) -> Result<ActionOutcome, PageError> {
        self.permits.borrow_mut().push(permit.clone());
        let mut pin = Pinning::new(permit);
        if let (Some(_), Some(why)) = (&pin, self.no_debugger) {
            pin = None;
            *self.unpinned.borrow_mut() = Some(why.to_owned());
        }
        for (url, json) in self.sends.borrow_mut().pop_front().unwrap_or_default() {
            let paused = PausedRequest {
                request_id: "1".into(),
                request: PausedHttp {
                    url: url.into(),
                    method: "POST".into(),
                    headers: [("Content-Type".to_owned(), "application/json".to_owned())].into(),
                    post_data: Some(json.into()),
                    has_post_data: true,
                    post_data_entries: vec![],
                },
                resource_type: CdpResourceType::Fetch,
            };
            let request = BlockedRequest {
                url: url.into(),
                method: "POST".into(),
                kind: "xmlhttprequest".into(),
                body: Some(RequestBody::Raw { bytes: json.as_bytes().to_vec() }),
            };
            // The rules first (they let a released URL go), then the pin.
            if permit.holds_write_to(url) {
                self.blocked.borrow_mut().push(request);
                continue;
            }
            match pin.as_mut().map(|p| p.judge(&paused)) {
                Some(PinVerdict::Fail(held)) => self.blocked.borrow_mut().push(*held),
                _ => self.sent.borrow_mut().push(request),
            }
        }
        Ok(ActionOutcome::done())
    }

    async fn describe(&self, _: Option<Ref>) -> Result<ActionTarget, PageError> {
        Ok(ActionTarget {
            role: "button".into(),
            name: "Continue".into(),
            tag: "button".into(),
            input_type: "button".into(),
            page_url: SHOP.into(),
            ..ActionTarget::default()
        })
    }

    async fn blocked_requests(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut *self.blocked.borrow_mut())
    }

    async fn sent_requests(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut *self.sent.borrow_mut())
    }

    async fn unpinned(&self) -> Option<String> {
        self.unpinned.borrow_mut().take()
    }
}

fn run_task(page: &PinningPage, replies: Vec<Reply>) -> (Run, Vec<Intervention>) {
    let llm = ScriptedLlm::new(vec![
        calls(&[("click", r#"{"ref":1}"#)]),
        calls(&[("done", r#"{"answer":"finished","success":true}"#)]),
    ]);
    let user = ScriptedUser::new(replies);
    let spec = TaskSpec { validate: false, ..TaskSpec::new("Look at my checkout") };
    let run = run_spec(spec, &llm, page, &user);
    (run, user.cards.into_inner())
}

const ONE: &str = r#"{"item":"blue teapot","qty":1}"#;
const TWELVE: &str = r#"{"item":"blue teapot","qty":12}"#;

#[test]
fn a_quantity_changed_on_the_redo_is_not_sent_but_put_to_the_user() {
    let page = PinningPage::new(vec![vec![(ORDER, ONE)], vec![(ORDER, TWELVE)], vec![]]);
    let (run, cards) = run_task(&page, vec![Reply::approve(), Reply::default()]);
    assert_eq!(cards.len(), 2, "{cards:?}");
    assert!(cards[0].message.contains("qty: 1"), "{}", cards[0].message);
    assert!(cards[1].message.contains("qty: 12"), "the real request: {}", cards[1].message);
    assert!(page.sent.borrow().is_empty(), "nothing was ordered");
    assert_eq!(page.permits.borrow()[1].pinned.len(), 1);
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(text.contains("Waymark held it (nothing was sent)"), "{text}");
    assert!(!text.contains("WARNING"), "nothing went out to warn about: {text}");
}

#[test]
fn the_approved_order_goes_with_one_card_and_a_second_post_is_held() {
    let page = PinningPage::new(vec![vec![(ORDER, ONE)], vec![(ORDER, ONE)]]);
    let (run, cards) = run_task(&page, vec![Reply::approve()]);
    assert_eq!(cards.len(), 1, "the benign twin: {cards:?}");
    assert_eq!(page.sent.borrow().len(), 0, "taken by the check");
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(!text.contains("held it") && !text.contains("WARNING"), "{text}");

    let extra = "https://shop.example/api/add-warranty";
    let page = PinningPage::new(vec![vec![(ORDER, ONE)], vec![(ORDER, ONE), (extra, "{}")]]);
    let (_, cards) = run_task(&page, vec![Reply::approve(), Reply::default()]);
    assert_eq!(cards.len(), 2, "{cards:?}");
    assert!(cards[1].message.contains("/api/add-warranty"), "{}", cards[1].message);
}

#[test]
fn without_the_debugger_the_redo_says_so_and_a_changed_body_is_reported_loudly() {
    let mut page = PinningPage::new(vec![vec![(ORDER, ONE)], vec![(ORDER, TWELVE)]]);
    page.no_debugger = Some("Another debugger is already attached to the tab with id: 7.");
    let (run, cards) = run_task(&page, vec![Reply::approve()]);
    assert_eq!(cards.len(), 1, "{cards:?}");
    let text = run.outcome.steps[0].outcome.text.clone().unwrap_or_default();
    assert!(text.contains("could not hold the approved request"), "{text}");
    assert!(text.contains("Another debugger is already attached"), "{text}");
    assert!(text.contains("WARNING") && text.contains("qty: 12"), "{text}");
    let noted = |words: &str| {
        run.events.iter().any(|e| matches!(e, TaskEvent::Noted { text } if text.contains(words)))
    };
    assert!(noted("could not hold") && noted("WARNING"), "the timeline says both");
}
