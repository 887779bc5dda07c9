//! The content script's `describe`: the facts of the live element that the safety policy
//! decides on (form action incl. `formaction`, submitters, absolute links, downloads,
//! autocomplete, form values without passwords), read in real Chromium.

use crate::perception_support;
use perception_support::Zoo;
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::paths;
use waymark_tests::trial::E2e;

fn ref_of(prompt: &str, role: &str, name: &str) -> u64 {
    // Names are quoted when something follows them on the line, bare otherwise.
    let (quoted, bare) = (format!("] {role} \"{name}\""), format!("] {role} {name}"));
    let line = prompt
        .lines()
        .find(|l| l.contains(&quoted) || l.ends_with(&bare))
        .unwrap_or_else(|| panic!("{quoted} in {prompt}"));
    line[1..line.find(']').expect("ref")].parse().expect("number")
}

fn describe_reports_the_live_elements_facts(ext: &Path) {
    let site = FixtureServer::start(paths::fixtures_dir().join("hostile")).expect("site");
    let zoo = Zoo::launch_serving(ext, site).expect("launch");
    let (_page, tab) = zoo.open("/describe.html").expect("open");
    let (prompt, _) = zoo.observe(tab).expect("observe");
    let origin = zoo.site.origin();
    let describe = |role: &str, name: &str| -> Value {
        let r = ref_of(&prompt, role, name);
        let request = json!({"op": "content", "frame": 0, "request": {"op": "describe", "ref": r}});
        zoo.sw
            .eval(&format!("waymarkPageRequest({tab}, {request})"))
            .unwrap_or_else(|e| panic!("describe {name}: {e:#}"))
    };
    let save = describe("button", "Save");
    assert_eq!(save["submits_form"], true, "{save}");
    assert_eq!(save["form_action"], format!("{origin}/save"), "{save}");
    assert_eq!(save["form_data"], "q=abc", "passwords never in the form data: {save}");
    assert_eq!(save["page_url"], format!("{origin}/describe.html"));
    let preview = describe("button", "Preview");
    assert_eq!(preview["submits_form"], false, "{preview}");
    let elsewhere = describe("button", "Send elsewhere");
    assert_eq!(elsewhere["form_action"], "http://evil.localhost:9/steal", "{elsewhere}");
    let link = describe("link", "Get installer");
    assert_eq!(link["href"], format!("{origin}/files/setup.exe"), "{link}");
    assert_eq!(link["download"], true);
    let code = describe("textbox", "Code");
    assert_eq!(code["autocomplete"], "one-time-code", "{code}");
    assert_eq!(code["tag"], "input");
    assert!(code["form_action"].is_null(), "{code}");

    // A ref the page does not have: the error keeps its kind across the content script, the
    // worker and the JS boundary (`Error.name`), so no one reads its words to know what it is.
    let missing = json!({"op": "content", "frame": 0, "request": {"op": "describe", "ref": 99999}});
    let js = format!(
        "waymarkPageRequest({tab}, {missing}).then(() => 'no error', (e) => `${{e.name}}|${{e.message}}`)"
    );
    let error = zoo.sw.eval(&js).expect("the request settles");
    let (name, message) = error.as_str().and_then(|e| e.split_once('|')).expect("name|message");
    assert_eq!(name, "StaleRef", "{error}");
    assert!(message.contains("99999"), "the message names the ref: {error}");
}

/// Benchmark (ignored; `cargo test -p waymark-tests --test e2e -- --ignored describe::`):
/// what the policy's `describe` adds to each non-read action, one content-script round trip,
/// timed in the service worker over 50 calls.
fn bench_describe_round_trip(ext: &Path) {
    let site = FixtureServer::start(paths::fixtures_dir().join("hostile")).expect("site");
    let zoo = Zoo::launch_serving(ext, site).expect("launch");
    let (_page, tab) = zoo.open("/describe.html").expect("open");
    let (prompt, _) = zoo.observe(tab).expect("observe");
    let r = ref_of(&prompt, "button", "Save");
    let request = json!({"op": "content", "frame": 0, "request": {"op": "describe", "ref": r}});
    let js = format!(
        "(async () => {{ const ms = []; for (let i = 0; i < 50; i++) {{ \
         const t = performance.now(); await waymarkPageRequest({tab}, {request}); \
         ms.push(performance.now() - t); }} ms.sort((a, b) => a - b); \
         return [ms[25], ms[45], ms[0], ms[49]].map((x) => x.toFixed(1)); }})()"
    );
    let v = zoo.sw.eval(&js).expect("bench");
    eprintln!(
        "BENCH describe round trip (n=50): median={} ms p90={} ms min={} ms max={} ms",
        v[0], v[1], v[2], v[3]
    );
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, describe_reports_the_live_elements_facts),
        e2e!(test_hooks, bench_describe_round_trip).only_when_asked(),
    ]
}
