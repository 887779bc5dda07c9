//! The walking skeleton, end to end in real Chromium: side panel → service worker (wasm) →
//! native host → scripted LLM → content script (wasm, or wasm2js under a strict CSP) → page,
//! and the export written by the host.

use crate::common;
use common::{
    Setup, Waymark, fill_the_form, message_text, navigator_requests, role_of, role_reply,
};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const TASK: &str = "Fill the name field with Ada and press Save";

/// The model a user would hope for: fills and saves, then reports once the page says so.
fn form_filler(req: &RecordedRequest) -> ScriptedReply {
    if let Some(reply) = role_reply(req) {
        return reply;
    }
    fill_the_form(req, "Saved the name Ada.")
}

/// The fixture site; `/form-strict.html` is the same form served with a CSP that blocks
/// WebAssembly in content scripts.
fn site() -> FixtureServer {
    let root = paths::fixtures_dir().join("site");
    let form = std::fs::read(root.join("form.html")).expect("form fixture");
    FixtureServer::builder(root)
        .with_page("/form-strict.html", form)
        .with_header("/form-strict.html", "Content-Security-Policy", "script-src 'self'")
        .start()
        .expect("fixture server")
}

fn run_skeleton(extension: &Path, page_path: &str, expect_engine: &str) {
    let llm = ScriptedLlm::start(form_filler).expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let page = wm.open(page_path).expect("open fixture");
    let panel = wm.panel().expect("open panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");

    panel.send(TASK).expect("send task");
    let answer = panel.answer().expect("answer shown");
    assert_eq!(answer, "Saved the name Ada.");

    // The page's own script saw the input and the click.
    let seen =
        page.eval("JSON.stringify([window.__seen, document.getElementById('status').textContent])");
    assert_eq!(
        seen.expect("page state").as_str(),
        Some(r#"[{"inputs":1,"changes":1,"clicks":1},"Saved: Ada"]"#)
    );
    let steps = panel.steps().expect("steps");
    assert_eq!(steps.len(), 2, "{steps:?}");
    assert!(steps[0].starts_with("Type “Ada” into “Name”"), "{steps:?}");
    assert!(steps[1].starts_with("Click “Save”"), "{steps:?}");
    let progress = panel.text("task-progress").expect("progress");
    assert!(progress.contains(&format!("read with {expect_engine}")), "{progress}");

    // The model got the observation (and never the password field's value) through the host.
    // (The background summary call after the task is not a navigator request.)
    let requests = navigator_requests(&llm);
    assert_eq!(requests.len(), 2);
    let first = message_text(&requests[0].body, 1);
    assert!(first.contains(TASK), "{first}");
    assert!(first.contains("] textbox Name"), "{first}");
    // Around them: the planner first, the validator confirming the answer on the page last.
    let roles: Vec<&str> =
        llm.requests().iter().map(role_of).filter(|r| *r != "summariser").collect();
    assert_eq!(roles, ["planner", "navigator", "navigator", "validator"]);
    assert!(!llm.requests().iter().any(|r| r.raw_body.contains("hunter2-canary")));
    assert_eq!(requests[0].header("authorization"), Some("Bearer test-key"));
    let elapsed = panel.page.eval("document.getElementById('task-progress').textContent");
    eprintln!("skeleton on {page_path}: {}", elapsed.unwrap_or_default());

    // Export: the host writes the session as markdown into the export directory.
    panel.page.eval("document.getElementById('export').click()").expect("click export");
    let status =
        panel.wait_text("export-status", "t.startsWith('Exported to ')").expect("export written");
    let path = std::path::PathBuf::from(status.trim_start_matches("Exported to "));
    assert!(
        path.starts_with(&wm.export_dir),
        "{} not in {}",
        path.display(),
        wm.export_dir.display()
    );
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
    assert!(name.starts_with("browse-session-") && name.ends_with(".md"), "{name}");
    let markdown = std::fs::read_to_string(&path).expect("read export");
    assert!(markdown.contains(&format!("## Task 1: {TASK}")), "{markdown}");
    assert!(markdown.contains("Saved the name Ada."), "{markdown}");
    llm.assert_no_script_panics().expect("script ok");
}

fn skeleton_task_fills_the_form_and_exports_the_session(extension: &Path) {
    run_skeleton(extension, "/form.html", "wasm");
}

fn strict_csp_page_is_read_and_driven_by_the_wasm2js_build(extension: &Path) {
    run_skeleton(extension, "/form-strict.html", "wasm2js");
}

fn missing_host_gets_an_actionable_message(extension: &Path) {
    let llm = ScriptedLlm::start(form_filler).expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: false, site: site() })
        .expect("launch");
    let _page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("open panel");
    let status = panel
        .wait_text("host-status", "t.includes('waymark-host install --browser')")
        .expect("actionable message");
    assert!(status.contains("not installed"), "{status}");
    // A task sent anyway ends with the same explanation instead of hanging.
    panel.send(TASK).expect("send");
    let answer = panel.answer().expect("answer");
    assert!(answer.contains("host"), "{answer}");
    assert_eq!(llm.request_count(), 0);
}

fn llm_http_500_is_retried_and_the_task_finishes(extension: &Path) {
    let llm = ScriptedLlm::start(|req| match req.index {
        0 => ScriptedReply::error(500, "upstream overloaded"),
        _ => form_filler(req),
    })
    .expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.send(TASK).expect("send");
    assert_eq!(panel.answer().expect("answer"), "Saved the name Ada.");
    // The planner's call failed and was retried; then two navigator steps and the validator.
    let requests: Vec<_> =
        llm.requests().into_iter().filter(|r| role_of(r) != "summariser").collect();
    assert_eq!(requests.len(), 5, "one failed call, its retry, and the remaining calls");
    assert_eq!(navigator_requests(&llm).len(), 2);
    assert_eq!(requests[0].body, requests[1].body, "the retry resends the same request");
    let status = page.eval("document.getElementById('status').textContent").expect("status");
    assert_eq!(status.as_str(), Some("Saved: Ada"));
}

/// Runs the task against a model that never gives a usable answer; returns the answer shown
/// and the server, after checking that nothing happened on the page.
fn run_expecting_nothing_done(
    extension: &Path,
    script: fn(&RecordedRequest) -> ScriptedReply,
) -> (String, ScriptedLlm) {
    let llm = ScriptedLlm::start(script).expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.send(TASK).expect("send");
    let answer = panel.answer().expect("answer");
    assert!(panel.steps().expect("steps").is_empty());
    let seen = page.eval("JSON.stringify(window.__seen)").expect("seen");
    assert_eq!(seen.as_str(), Some(r#"{"inputs":0,"changes":0,"clicks":0}"#));
    drop(wm);
    (answer, llm)
}

fn garbage_from_the_llm_is_a_clear_error_and_nothing_is_done(extension: &Path) {
    let script = |_: &RecordedRequest| ScriptedReply::garbage("<html>definitely not json");
    let (answer, _) = run_expecting_nothing_done(extension, script);
    assert!(answer.contains("not a chat completion"), "{answer}");
}

fn nonsense_model_text_is_reasked_once_then_stopped(extension: &Path) {
    let script = |_: &RecordedRequest| ScriptedReply::text("Sure, I will do that right away!");
    let (answer, llm) = run_expecting_nothing_done(extension, script);
    assert!(answer.contains("could not be understood"), "{answer}");
    let requests = navigator_requests(&llm);
    assert_eq!(requests.len(), 2, "one re-ask, then stop");
    let reask = message_text(&requests[1].body, 1);
    assert!(reask.contains("previous answer could not be used"), "{reask}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, skeleton_task_fills_the_form_and_exports_the_session),
        e2e!(extension, strict_csp_page_is_read_and_driven_by_the_wasm2js_build),
        e2e!(extension, missing_host_gets_an_actionable_message),
        e2e!(extension, llm_http_500_is_retried_and_the_task_finishes),
        e2e!(extension, garbage_from_the_llm_is_a_clear_error_and_nothing_is_done),
        e2e!(extension, nonsense_model_text_is_reasked_once_then_stopped),
    ]
}
