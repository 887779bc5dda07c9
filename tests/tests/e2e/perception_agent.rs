//! The model → action path once, end to end: side panel → service worker → host → scripted
//! LLM → tool calls with frame-qualified refs (`f5:2`) → the cross-origin frame's content script.

use crate::common;
use common::{Setup, Waymark, message_text};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

fn zoo() -> FixtureServer {
    FixtureServer::builder(paths::fixtures_dir().join("zoo")).start().expect("zoo")
}

/// The ref string on the line `[ref] {role} "{name}"` (or `[ref] {role} {name}`: names are
/// quoted only when something follows them).
fn ref_of(page: &str, role: &str, name: &str) -> Option<Value> {
    let (quoted, bare) = (format!("] {role} \"{name}\""), format!("] {role} {name}"));
    let line = page.lines().find(|l| l.contains(&quoted) || l.ends_with(&bare))?;
    let inner = &line[line.find('[')? + 1..line.find(']')?];
    Some(inner.parse::<u64>().map(Value::from).unwrap_or_else(|_| json!(inner)))
}

fn frame_filler(req: &RecordedRequest) -> ScriptedReply {
    let page = message_text(&req.body, 1);
    if page.contains("Cross clicked: far") {
        return ScriptedReply::tool_call(
            "done",
            json!({"answer": "Clicked in the frame.", "success": true}),
        );
    }
    let (Some(field), Some(button)) =
        (ref_of(&page, "textbox", "Cross field"), ref_of(&page, "button", "Cross button"))
    else {
        return ScriptedReply::text("I cannot find the frame's form");
    };
    ScriptedReply::tool_calls([
        ("type", json!({"ref": field, "text": "far"})),
        ("click", json!({"ref": button})),
    ])
}

fn the_model_acts_inside_a_cross_origin_frame_with_qualified_refs(extension: &Path) {
    let other = zoo();
    let port =
        other.url("/").trim_end_matches('/').rsplit(':').next().unwrap_or_default().to_owned();
    let llm = ScriptedLlm::start(frame_filler).expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: zoo() })
        .expect("launch");
    let _page = wm.open(&format!("/frames.html?other={port}")).expect("open frames");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    panel.send("Type far into the cross field and press the cross button").expect("send");
    // The frame is another site than the page: acting in it needs the user's approval once,
    // naming the frame's site; the approval adds that site to the task's scope.
    let card = panel.approve_card().expect("card for the cross-origin frame");
    assert!(card.contains("in a frame from") && card.contains("127.0.0.1"), "{card}");
    assert_eq!(panel.answer().expect("answer"), "Clicked in the frame.");
    let steps = panel.steps().expect("steps");
    assert_eq!(steps.len(), 2, "{steps:?}");
    assert!(steps[0].starts_with("Type “far” into “Cross field” [f"), "{steps:?}");
    assert!(steps[1].starts_with("Click “Cross button” [f"), "{steps:?}");

    // Every action is offered as a tool, and the first page showed the frame's content.
    // (The planner, validator and summary calls around the navigator's are not counted; the
    // navigator's own `progress` report is not a page action.)
    let requests = common::navigator_requests(&llm);
    let tools: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .map(|t| {
            t.iter().filter_map(|t| t.pointer("/function/name").and_then(Value::as_str)).collect()
        })
        .unwrap_or_default();
    let tools: Vec<&str> = tools.into_iter().filter(|t| *t != "progress").collect();
    assert_eq!(tools, waymark_core::agent::OFFERED_TOOLS);
    let first = message_text(&requests[0].body, 1);
    assert!(first.contains("Cross-origin frame text") && first.contains("[frame f"), "{first}");
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, the_model_acts_inside_a_cross_origin_frame_with_qualified_refs)]
}
