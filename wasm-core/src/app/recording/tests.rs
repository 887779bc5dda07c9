//! A recording against an in-memory store and the fake shop: when it may start, what a
//! restart of the worker keeps, and what stopping it gives the user.

use super::*;
use crate::agent::Page;
use crate::platform::TabError;
use crate::platform::memory::MemStore;
use crate::platform::scripted::Clock;
use crate::workflow::tests::{Shop, Variant};
use futures::executor::block_on;
use waymark_page::demonstration::DemonstratedAct;
use waymark_page::observation::Ref;

const PAGE: &str = "https://shop.example/order";

/// What the content script reports when the user types `text` into `[index]` of the shop.
fn typed(shop: &Shop, index: u32, text: &str) -> Demonstrated {
    Demonstrated {
        observation: block_on(shop.observe()).expect("observed"),
        target: Ref::top(index),
        act: DemonstratedAct::Type { text: text.into() },
        destination: None,
    }
}

fn error(state: &RefCell<PanelState>) -> Option<String> {
    state.borrow().workflows.error.clone()
}

#[test]
fn a_recording_waits_for_the_running_task_and_needs_a_web_page() {
    let mem = MemStore::default();
    let state = RefCell::default();
    let desk = RecordingDesk::new(&mem);
    let clock = Clock::default();
    assert_eq!(block_on(desk.begin(&state, &clock, true, Some((3, PAGE.into())))), None);
    assert!(error(&state).is_some_and(|e| e.starts_with("A task is running")));
    assert_eq!(block_on(desk.begin(&state, &clock, false, None)), None);
    assert!(error(&state).is_some_and(|e| e.starts_with("There is no tab to record")));
    let newtab = Some((3, "chrome://newtab/".to_owned()));
    assert_eq!(block_on(desk.begin(&state, &clock, false, newtab)), None);
    assert!(error(&state).is_some_and(|e| e.starts_with("Waymark can record only on web pages")));
    assert_eq!(desk.tab(), None);
    assert_eq!(block_on(desk.begin(&state, &clock, false, Some((3, PAGE.into())))), Some(3));
    assert_eq!(block_on(desk.begin(&state, &clock, false, Some((4, PAGE.into())))), None, "one");
    // The page would not take it: no recording, and the panel says why.
    assert!(!block_on(desk.armed(&state, Err(TabError("no content script".into())))));
    assert_eq!(desk.tab(), None);
    assert!(error(&state).is_some_and(|e| e.contains("cannot record on this page (no content")));
    assert!(state.borrow().workflows.recording.is_none());
    // A page that answers it does not record is a refusal too.
    assert_eq!(block_on(desk.begin(&state, &clock, false, Some((5, PAGE.into())))), Some(5));
    assert!(!block_on(desk.armed(&state, Ok(false))));
    assert!(error(&state).is_some_and(|e| e.contains("the page did not take the recording")));
    assert_eq!(desk.tab(), None);
}

#[test]
fn shown_steps_survive_a_restart_and_stopping_opens_the_draft_in_the_editor() {
    let mem = MemStore::default();
    let state = RefCell::default();
    let clock = Clock::default();
    let desk = RecordingDesk::new(&mem);
    let shop = Shop::new(Variant::default());
    assert_eq!(block_on(desk.begin(&state, &clock, false, Some((7, PAGE.into())))), Some(7));
    assert!(block_on(desk.armed(&state, Ok(true))));
    block_on(desk.step(&state, &typed(&shop, 1, "Ada Lovelace")));
    block_on(desk.committed(&state, "https://shop.example/review", LoadCause::Page));
    assert!(state.borrow().workflows.recording.as_ref().is_some_and(|r| r.steps.len() == 1));
    // The worker restarts: the recording goes on, its tab is armed again.
    let state = RefCell::default();
    let again = RecordingDesk::new(&mem);
    assert_eq!(block_on(again.load(&state)), Some(7));
    again.rearmed(&state, 7, Ok(true));
    assert!(state.borrow().workflows.recording.as_ref().is_some_and(|r| r.steps.len() == 1));
    let workflows = WorkflowDesk::new(&mem);
    assert_eq!(block_on(again.end(&state, &clock, &workflows, true)), Some(7));
    let editor = state.borrow().workflows.editor.clone().expect("the draft is open");
    assert_eq!(editor.form.steps.len(), 1);
    assert!(state.borrow().workflows.recording.is_none());
    assert_eq!(block_on(RecordingDesk::new(&mem).load(&state)), None, "nothing left to go on");
}

#[test]
fn stopping_with_nothing_shown_says_so_and_discarding_keeps_nothing() {
    let mem = MemStore::default();
    let state = RefCell::default();
    let clock = Clock::default();
    let desk = RecordingDesk::new(&mem);
    let workflows = WorkflowDesk::new(&mem);
    assert_eq!(block_on(desk.end(&state, &clock, &workflows, true)), None, "none runs");
    let _ = block_on(desk.begin(&state, &clock, false, Some((7, PAGE.into()))));
    assert!(block_on(desk.armed(&state, Ok(true))));
    assert_eq!(block_on(desk.end(&state, &clock, &workflows, true)), Some(7));
    assert!(
        error(&state).is_some_and(|e| e.starts_with("Nothing was recorded:")),
        "{:?}",
        error(&state)
    );
    let _ = block_on(desk.begin(&state, &clock, false, Some((7, PAGE.into()))));
    assert!(block_on(desk.armed(&state, Ok(true))));
    let shop = Shop::new(Variant::default());
    block_on(desk.step(&state, &typed(&shop, 1, "Ada")));
    assert_eq!(block_on(desk.end(&state, &clock, &workflows, false)), Some(7));
    assert!(state.borrow().workflows.editor.is_none(), "discarded");
}

#[test]
fn only_the_recorded_tabs_top_frame_reports_steps() {
    let mem = MemStore::default();
    let state = RefCell::default();
    let desk = RecordingDesk::new(&mem);
    let shop = Shop::new(Variant::default());
    let step = typed(&shop, 1, "Ada Lovelace");
    let msg = DemonstratedMessage {
        waymark: DEMONSTRATED.into(),
        step: serde_json::to_string(&step).expect("plain data"),
    };
    assert_eq!(desk.step_from(7, 0, &msg), None, "nothing is recorded yet");
    assert_eq!(
        block_on(desk.begin(&state, &Clock::default(), false, Some((7, PAGE.into())))),
        Some(7)
    );
    assert_eq!(desk.step_from(7, 0, &msg), Some(step));
    assert_eq!(desk.step_from(7, 2, &msg), None, "a frame inside the page");
    assert_eq!(desk.step_from(8, 0, &msg), None, "another tab");
    assert!(desk.follows(7, 0) && !desk.follows(7, 1) && !desk.follows(8, 0));
    let other = DemonstratedMessage { waymark: "something else".into(), step: msg.step.clone() };
    assert_eq!(desk.step_from(7, 0, &other), None);
    let unreadable = DemonstratedMessage { waymark: DEMONSTRATED.into(), step: "{".into() };
    assert_eq!(desk.step_from(7, 0, &unreadable), None);
}
