//! The `wait` tool and the waits after navigations, on events instead of polls (issue 31):
//! what they report must stay true — a text that appears or goes is seen, one that does not is
//! reported with the limit, a wait follows the tab to the page it navigates to, and `wait`
//! without a text tells a quiet page from a busy one. How soon is a speed claim, measured by
//! `cargo xtask bench step` and the workflow replay bench, never asserted here.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok};
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

fn a_click_that_starts_a_navigation_is_followed_and_one_the_page_cancels_is_not(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (_page, tab) = zoo.open("/waits.html").expect("waits");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let stay = must_ref(&obs, "link", "Stay instead");
    let out = zoo.act(tab, json!({"action": "click", "ref": stay})).expect("click stay");
    ok(&out);
    assert_eq!(out["navigated"], json!(false), "the page cancelled it: {out}");
    ok(&zoo
        .act(tab, json!({"action": "wait", "text": "Stayed on the page", "seconds": 5}))
        .expect("wait"));
    let (obs, observation) = zoo.observe(tab).expect("observe");
    assert!(observation["url"].as_str().unwrap_or_default().ends_with("/waits.html"), "{obs}");

    let leave = must_ref(&obs, "link", "Leave for B");
    let out = zoo.act(tab, json!({"action": "click", "ref": leave})).expect("click leave");
    ok(&out);
    assert_eq!(out["navigated"], json!(true), "{out}");
    assert_eq!(out["no_effect"], serde_json::Value::Null, "{out}");
    assert!(zoo.observe(tab).expect("observe").0.contains("# Page B"));
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

/// The median and the 90th percentile of `ms`, formatted.
fn spread(mut ms: Vec<f64>) -> String {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms.get(((ms.len() - 1) as f64 * q).round() as usize).copied().unwrap_or(0.0);
    format!("n={} median={:.1} ms p90={:.1} ms min={:.1} ms", ms.len(), at(0.5), at(0.9), at(0.0))
}

/// Benchmark (ignored; `cargo test -p waymark-tests --test e2e -- --ignored waits::`): how late
/// a wait ends after what it waits for happened, and what a navigation costs, as the agent
/// does them (the service worker's `waymarkPageRequest`, timed there).
fn bench_waits(extension: &Path) {
    const RUNS: usize = 12;
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/waits.html").expect("waits");
    let act = |action: serde_json::Value| {
        let js = format!(
            "(async () => {{ const t = performance.now(); \
             const r = await waymarkPageRequest({tab}, {{op: 'act', action: {action}}}); \
             return [performance.now() - t, Date.now(), r.outcome.ok]; }})()"
        );
        let v = zoo.sw.eval(&js).expect("timed act");
        assert_eq!(v[2], json!(true), "{action}: {v}");
        (v[0].as_f64().unwrap_or(0.0), v[1].as_f64().unwrap_or(0.0))
    };

    let mut late = Vec::new();
    for _ in 0..RUNS {
        page.eval("showLater(700)").expect("arm");
        let (_, done_at) = act(json!({"action": "wait", "text": "Arrived late", "seconds": 10}));
        let shown_at = page.eval("window.shownAt").expect("shown").as_f64().unwrap_or(0.0);
        late.push(done_at - shown_at);
    }
    eprintln!("BENCH wait for a text shown after 700 ms, ended after it showed: {}", spread(late));

    let quiet: Vec<f64> =
        (0..RUNS).map(|_| act(json!({"action": "wait", "seconds": 5})).0).collect();
    eprintln!("BENCH wait without a text on a quiet page (400 ms quiet owed): {}", spread(quiet));

    let (a, b) = (zoo.site.url("/nav-a.html"), zoo.site.url("/nav-b.html"));
    let (mut navigate, mut back, mut click) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        navigate.push(act(json!({"action": "navigate", "url": a})).0);
        navigate.push(act(json!({"action": "navigate", "url": b})).0);
        back.push(act(json!({"action": "back"})).0);
        let (obs, _) = zoo.observe(tab).expect("observe");
        let link = must_ref(&obs, "link", "Go to B");
        click.push(act(json!({"action": "click", "ref": link})).0);
    }
    eprintln!("BENCH navigate (until the new page has loaded): {}", spread(navigate));
    eprintln!("BENCH back (until the page before has loaded): {}", spread(back));
    eprintln!("BENCH click a link (until the page it opens has loaded): {}", spread(click));
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, a_wait_sees_a_text_appear_or_go_and_reports_the_limit_truthfully),
        e2e!(test_hooks, a_wait_follows_the_tab_to_the_page_it_navigates_to),
        e2e!(
            test_hooks,
            a_click_that_starts_a_navigation_is_followed_and_one_the_page_cancels_is_not
        ),
        e2e!(test_hooks, a_wait_without_a_text_tells_a_quiet_page_from_a_busy_one),
        e2e!(test_hooks, bench_waits).only_when_asked(),
    ]
}
