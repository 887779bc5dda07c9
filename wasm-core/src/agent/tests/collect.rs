//! `collect` in the loop: one model call names the records, the pages are read and turned
//! without it, each page turn passes the gate, and the table lands in the task's record.

use super::*;
use crate::session::TaskRecord;
use waymark_page::collect::{CollectedPage, Pager, PagerKind};

/// A listing of `pages` pages of `per_page` products; [1] is "Next" on every page but the
/// last, linking to `next_site` (the same site unless a test says otherwise).
struct Listing {
    page: Cell<u32>,
    pages: u32,
    per_page: u32,
    next_site: &'static str,
    reads: Cell<u32>,
    acts: RefCell<Vec<Action>>,
}

impl Listing {
    fn new(pages: u32, per_page: u32) -> Self {
        Self {
            page: Cell::new(1),
            pages,
            per_page,
            next_site: "https://shop.example",
            reads: Cell::new(0),
            acts: RefCell::new(Vec::new()),
        }
    }

    fn url(&self) -> String {
        format!("https://shop.example/list?page={}", self.page.get())
    }
}

impl Page for Listing {
    async fn observe(&self) -> Result<Observation, PageError> {
        let mut items = vec![Item::Element(Element {
            ref_id: Ref::top(2),
            role: "link".into(),
            name: "Product 1".into(),
            ..Element::default()
        })];
        if self.page.get() < self.pages {
            items.push(Item::Element(Element {
                ref_id: Ref::top(1),
                role: "link".into(),
                name: "Next".into(),
                ..Element::default()
            }));
        }
        Ok(Observation { url: self.url(), title: "Shop".into(), items, ..Observation::default() })
    }

    async fn act(&self, action: &Action, _: &NetworkPermit) -> Result<ActionOutcome, PageError> {
        self.acts.borrow_mut().push(action.clone());
        match action {
            Action::Collect(spec) => {
                self.reads.set(self.reads.get() + 1);
                let p = self.page.get();
                // The first row of every page repeats the last of the page before (a listing
                // that shifted): de-duplicated.
                let first = (p - 1) * self.per_page;
                let rows = (first.saturating_sub(1)..first + self.per_page)
                    .map(|i| vec![format!("Product {}", i + 1), format!("${}.00", 10 + i)])
                    .collect();
                let pager = (p < self.pages).then(|| Pager {
                    kind: PagerKind::Next,
                    control: Some(Ref::top(1)),
                    label: "next".into(),
                });
                let shape = spec.shape.clone().or_else(|| {
                    Some(waymark_page::collect::RecordShape {
                        record: Default::default(),
                        container: Default::default(),
                        columns: vec![],
                    })
                });
                Ok(ActionOutcome {
                    collected: Some(Box::new(waymark_page::collect::Collected::Page(
                        CollectedPage { url: self.url(), rows, skipped: 1, shape, pager },
                    ))),
                    ..ActionOutcome::done()
                })
            }
            Action::Click { ref_id } if ref_id.index == 1 && self.page.get() < self.pages => {
                self.page.set(self.page.get() + 1);
                Ok(ActionOutcome { navigated: true, ..ActionOutcome::done() })
            }
            other => Ok(ActionOutcome::failed(format!("cannot {other:?}"))),
        }
    }

    async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
        let page_url = self.url();
        let next = format!("{}/list?page={}", self.next_site, self.page.get() + 1);
        Ok(match target.map(|r| r.index) {
            Some(1) => ActionTarget {
                role: "link".into(),
                name: "Next".into(),
                tag: "a".into(),
                href: Some(next),
                page_url,
                ..ActionTarget::default()
            },
            _ => ActionTarget { page_url, ..ActionTarget::default() },
        })
    }
}

const COLLECT: (&str, &str) = (
    "extract",
    r#"{"ref": 2, "columns": [{"name": "name", "example": "Product 1"}, {"name": "price", "example": "$10.00"}]}"#,
);

fn collect_task() -> TaskSpec {
    TaskSpec { validate: false, ..TaskSpec::new("Collect every product with its price") }
}

#[test]
fn every_page_is_read_without_the_model_and_rows_are_deduplicated() {
    let llm = ScriptedLlm::new(vec![
        calls(&[COLLECT]),
        calls(&[("done", r#"{"answer":"Collected 30 products.","success":true}"#)]),
    ]);
    let page = Listing::new(3, 10);
    let r = run_spec(collect_task(), &llm, &page, &ScriptedUser::new(vec![]));
    assert!(r.outcome.success, "{:?}", r.outcome);
    // One navigator call named the records; the next one only finished.
    assert_eq!(llm.navigator_texts().len(), 2);
    assert_eq!(page.reads.get(), 3);
    let clicks = page.acts.borrow().iter().filter(|a| matches!(a, Action::Click { .. })).count();
    assert_eq!(clicks, 2);
    let step = &r.outcome.steps[0];
    let table = step.outcome.table().expect("table");
    assert_eq!(table.columns, ["name", "price"]);
    assert_eq!(table.rows.len(), 30);
    assert_eq!(table.rows[29].values, ["Product 30", "$39.00"]);
    assert_eq!(table.rows[10].source, "https://shop.example/list?page=2");
    assert_eq!(table.pages, 3);
    assert_eq!(table.end, waymark_protocol::TableEnd::LastPage);
    // Later pages were read with the shape learned on the first, not the example's ref.
    let Action::Collect(later) = &page.acts.borrow()[2] else { panic!("a read") };
    assert!(later.shape.is_some());
    // The model read a summary and three rows, never the thirty.
    let second = &llm.navigator_texts()[1];
    assert!(second.contains("table: 30 rows × 2 columns (name, price) from 3 pages"), "{second}");
    assert!(second.contains("Product 3 | $12.00") && !second.contains("Product 4 |"), "{second}");
    // The record keeps the table once (not again in its step), and the notes only its size.
    let record = TaskRecord::from_outcome(1, "Collect", &r.outcome, 0.0);
    assert_eq!(record.tables.len(), 1);
    assert!(record.actions[0].outcome.table().is_none());
}

#[test]
fn the_page_budget_stops_the_collect() {
    let llm = ScriptedLlm::new(vec![
        calls(&[(
            "extract",
            r#"{"ref": 2, "pages": 2, "columns": [{"name": "name", "example": "Product 1"}]}"#,
        )]),
        calls(&[("done", r#"{"answer":"ok","success":true}"#)]),
    ]);
    let page = Listing::new(5, 4);
    let r = run_spec(collect_task(), &llm, &page, &ScriptedUser::new(vec![]));
    let table = r.outcome.steps[0].outcome.table().expect("table");
    assert_eq!((table.pages, table.rows.len()), (2, 8));
    assert_eq!(table.end, waymark_protocol::TableEnd::Budget);
}

#[test]
fn a_page_turn_to_another_site_goes_through_the_gate() {
    let llm = ScriptedLlm::new(vec![
        calls(&[COLLECT]),
        calls(&[("done", r#"{"answer":"ok","success":true}"#)]),
    ]);
    let mut page = Listing::new(3, 5);
    page.next_site = "https://elsewhere.example";
    // The user declines the card the gate raises for the other site.
    let user = ScriptedUser::new(vec![Reply::proceed()]);
    let r = run_spec(collect_task(), &llm, &page, &user);
    assert!(!user.cards.borrow().is_empty(), "the page turn raised a card");
    let table = r.outcome.steps[0].outcome.table().expect("table");
    assert_eq!((table.pages, table.rows.len()), (1, 5));
    assert_eq!(table.end, waymark_protocol::TableEnd::Blocked);
    assert_eq!(page.page.get(), 1, "never went to the other site");
}
