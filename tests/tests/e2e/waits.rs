//! The `wait` tool and the waits after navigations, on events instead of polls (issue 31):
//! what they report must stay true — a text that appears or goes is seen, one that does not is
//! reported with the limit, a wait follows the tab to the page it navigates to, and `wait`
//! without a text tells a quiet page from a busy one. How soon is a speed claim, measured by
//! `cargo xtask bench step` and the workflow replay bench, never asserted here.

use crate::perception_support;
use perception_support::{Zoo, ok};
use serde_json::json;
use std::path::Path;
use waymark_tests::trial::E2e;

fn error_of(outcome: &serde_json::Value) -> String {
    assert_eq!(outcome["ok"], json!(false), "{outcome}");
    outcome["error"].as_str().unwrap_or_default().to_owned()
}

fn a_wait_sees_a_text_appear_or_go_and_reports_the_limit_truthfully(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/waits.html").expect("waits");

    page.eval("showLater(700)").expect("arm");
    ok(&zoo
        .act(tab, json!({"action": "wait", "text": "Arrived late", "seconds": 10}))
        .expect("wait"));
    // Already there: done at once, whatever the limit.
    ok(&zoo
        .act(tab, json!({"action": "wait", "text": "arrived LATE", "seconds": 0.2}))
        .expect("there"));

    page.eval("hideLater(500)").expect("arm");
    ok(&zoo
        .act(tab, json!({"action": "wait", "text": "Going away soon", "gone": true, "seconds": 10}))
        .expect("wait gone"));

    // Shown by a style change alone (an attribute mutation, no new text in the DOM).
    page.eval("revealLater(400)").expect("arm");
    ok(&zoo
        .act(tab, json!({"action": "wait", "text": "Shown by a style", "seconds": 10}))
        .expect("wait reveal"));

    let never = zoo
        .act(tab, json!({"action": "wait", "text": "Never there", "seconds": 1}))
        .expect("bound");
    assert_eq!(error_of(&never), "“Never there” did not appear within 1 s");
    let stays = zoo
        .act(tab, json!({"action": "wait", "text": "Arrived late", "gone": true, "seconds": 1}))
        .expect("bound gone");
    assert_eq!(error_of(&stays), "“Arrived late” was still on the page within 1 s");
}

fn a_wait_follows_the_tab_to_the_page_it_navigates_to(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/waits.html").expect("waits");
    page.eval("leaveLater(300)").expect("arm");
    ok(&zoo.act(tab, json!({"action": "wait", "text": "Page B", "seconds": 10})).expect("wait"));
    assert!(zoo.observe(tab).expect("observe").0.contains("# Page B"));

    // Navigations the worker starts are followed to their new page before it is read.
    for _ in 0..3 {
        ok(&zoo
            .act(tab, json!({"action": "navigate", "url": zoo.site.url("/nav-a.html")}))
            .expect("navigate"));
        assert!(zoo.observe(tab).expect("observe").0.contains("# Page A"));
        let back = zoo.act(tab, json!({"action": "back"})).expect("back");
        assert_eq!(back["navigated"], json!(true), "{back}");
        assert!(zoo.observe(tab).expect("observe").0.contains("# Page B"));
        ok(&zoo.act(tab, json!({"action": "forward"})).expect("forward"));
        assert!(zoo.observe(tab).expect("observe").0.contains("# Page A"));
        ok(&zoo.act(tab, json!({"action": "reload"})).expect("reload"));
        assert!(zoo.observe(tab).expect("observe").0.contains("# Page A"));
        ok(&zoo
            .act(tab, json!({"action": "navigate", "url": zoo.site.url("/nav-b.html")}))
            .expect("navigate"));
        assert!(zoo.observe(tab).expect("observe").0.contains("# Page B"));
    }
}

fn a_wait_without_a_text_tells_a_quiet_page_from_a_busy_one(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/waits.html").expect("waits");
    let quiet = zoo.act(tab, json!({"action": "wait", "seconds": 5})).expect("wait quiet");
    ok(&quiet);
    assert!(
        quiet["text"].as_str().unwrap_or_default().starts_with("the page settled after "),
        "{quiet}"
    );

    // After an action the page's mutations count: a page that never stops is reported.
    ok(&zoo.act(tab, json!({"action": "press_keys", "keys": "Tab"})).expect("a key"));
    page.eval("keepBusy()").expect("arm");
    let busy = zoo.act(tab, json!({"action": "wait", "seconds": 1})).expect("wait busy");
    assert_eq!(error_of(&busy), "the page kept changing after 1 s");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, a_wait_sees_a_text_appear_or_go_and_reports_the_limit_truthfully),
        e2e!(test_hooks, a_wait_follows_the_tab_to_the_page_it_navigates_to),
        e2e!(test_hooks, a_wait_without_a_text_tells_a_quiet_page_from_a_busy_one),
    ]
}
