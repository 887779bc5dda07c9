//! What the model is sent, end to end in real Chromium with the real host (issue 14): page text
//! read by `extract` is shown in full once and what the model kept of it travels on; the answer
//! and the next task's session notes still have the finding; consecutive calls share their
//! beginning; and `recall` searches the session's folded tasks through the worker.

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark, message_text, navigator_requests, role_reply};
use serde_json::{Map, Value, json};
use std::path::Path;
use waymark_core::record::TaskOutcome;
use waymark_core::session::{Session, TaskRecord};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const ASK: &str = "When does the museum open on Sundays?";
const FOLLOW_UP: &str = "Remind me of the museum's Sunday hours";
/// The page's own sentence (deep in a long page: outside the first window).
const SENTENCE: &str = "it opens at 09:45 on Sundays and closes at 17:30";
const KEPT: &str = "museum: Sundays 09:45-17:30";

fn launch(extension: &Path, llm: &ScriptedLlm) -> Waymark {
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    Waymark::launch(extension, Setup { llm, install_host: true, site }).expect("launch")
}

fn extracted_text_is_shown_once_and_its_finding_reaches_the_answer_and_the_next_task(
    extension: &Path,
) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let user = message_text(&req.body, 1);
        if user.contains(&format!("New task: {FOLLOW_UP}")) {
            return ScriptedReply::tool_call(
                "done",
                json!({"answer": "See the notes.", "success": true}),
            );
        }
        if user.contains(KEPT) {
            return ScriptedReply::tool_call(
                "done",
                json!({"answer": "The museum opens at 09:45 on Sundays.", "success": true}),
            );
        }
        if user.contains("Output of step 1") {
            return ScriptedReply::tool_calls([
                ("progress", json!({"evaluation": "found the hours", "memory": KEPT})),
                ("scroll", json!({"direction": "down"})),
            ]);
        }
        ScriptedReply::tool_call("extract", json!({}))
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let _page = wm.open("/article.html").expect("open article");
    let panel = wm.panel().expect("panel");
    panel.send(ASK).expect("send");
    assert_eq!(panel.answer().expect("answer"), "The museum opens at 09:45 on Sundays.");

    let nav = navigator_requests(&llm);
    assert_eq!(nav.len(), 3, "extract, keep + scroll, done");
    let texts: Vec<String> = nav.iter().map(|r| message_text(&r.body, 1)).collect();
    assert!(!texts[0].contains(SENTENCE), "the sentence is beyond the first page window");
    assert!(texts[1].contains(SENTENCE), "the extract output, in full, the call after");
    assert!(texts[1].contains("Output of step 1 (shown this once"), "{}", texts[1]);
    assert!(!texts[2].contains(SENTENCE), "not again: {}", texts[2]);
    assert!(texts[2].contains(&format!("  kept: {KEPT}")), "{}", texts[2]);
    assert!(texts[2].contains("1. Extract the page's text → ok: read "), "{}", texts[2]);

    // The extract changed nothing on the page: the second call repeats the first one's whole
    // beginning up to where the step list starts.
    let steps_at = texts[1].find("Steps so far:").expect("step list");
    assert_eq!(texts[0][..steps_at], texts[1][..steps_at]);
    assert_eq!(nav[0].body["tools"], nav[1].body["tools"]);

    // The task's record keeps the whole output; the next task's notes carry the finding.
    panel.send(FOLLOW_UP).expect("send follow-up");
    panel
        .page
        .wait_for(
            &format!(
                "document.getElementById('answer')?.textContent === 'See the notes.' && {}",
                "!document.getElementById('answer').hidden"
            ),
            TASK_TIMEOUT,
        )
        .expect("follow-up answered");
    let follow = navigator_requests(&llm).pop().expect("follow-up call");
    let notes = message_text(&follow.body, 1);
    let notes = &notes[..notes.find("</session_notes").expect("notes")];
    assert!(notes.contains("09:45"), "the finding reaches the next task: {notes}");
    llm.assert_no_script_panics().expect("script ok");
}

/// `n` earlier tasks, each with its own finding, as the storage items the worker writes.
fn seeded_session(n: u32) -> Map<String, Value> {
    let mut session = Session::new("recallsession".into(), 1_790_000_000_000.0);
    for i in 1..=n {
        let outcome = TaskOutcome {
            answer: format!("Offer page {i}: Plan {i} costs {} EUR a month.", 100 + i),
            success: true,
            error: None,
            steps: vec![],
            step_count: 2,
            elapsed_ms: 4_000.0,
            ending: Default::default(),
        };
        let task = format!("Check offer page {i}");
        let mut record = TaskRecord::from_outcome(i, &task, &outcome, 1_790_000_000_000.0);
        record.toc_line = format!("Offer page {i} checked");
        session.push(record);
    }
    common::session_items(&session)
}

fn recall_finds_a_folded_task_of_the_session(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let user = message_text(&req.body, 1);
        if user.contains("Earlier tasks matching") {
            return ScriptedReply::tool_call("done", json!({"answer": "103 EUR", "success": true}));
        }
        ScriptedReply::tool_call("recall", json!({"query": "offer page 3"}))
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    common::seed_storage(&wm, seeded_session(20));
    let _page = wm.open("/form.html").expect("open form");
    let panel = wm.panel().expect("panel");
    panel.send("What did plan 3 cost?").expect("send");
    assert_eq!(panel.answer().expect("answer"), "103 EUR");

    let nav = navigator_requests(&llm);
    assert_eq!(nav.len(), 2, "recall, then done");
    let tools: Vec<&str> = nav[0].body["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t.pointer("/function/name")?.as_str()).collect())
        .unwrap_or_default();
    assert!(tools.contains(&"recall"), "{tools:?}");
    let first = message_text(&nav[0].body, 1);
    assert!(!first.contains("Plan 3 costs 103 EUR"), "folded in the notes: {first}");
    let second = message_text(&nav[1].body, 1);
    assert!(second.contains("Plan 3 costs 103 EUR"), "{second}");
    assert!(second.contains("recalled “offer page 3”"), "{second}");
    let notes = panel.page.eval("document.body.textContent").expect("panel text");
    assert!(
        notes.as_str().is_some_and(|t| t.contains("Searched earlier tasks for “offer page 3”")),
        "the timeline says what was searched"
    );
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(
            extension,
            extracted_text_is_shown_once_and_its_finding_reaches_the_answer_and_the_next_task
        ),
        e2e!(extension, recall_finds_a_folded_task_of_the_session),
    ]
}
