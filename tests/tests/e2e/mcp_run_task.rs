//! `waymark_run_task` end to end: rmcp's MCP client spawns the real `waymark-host mcp`, which
//! asks Waymark's own agent in the real extension (real Chromium, the host Chrome started, the
//! scripted LLM) to run a whole task. Covers: a task that finishes with findings, progress
//! notifications and a continued session; a card the panel denies (a tool error, nothing
//! sent) and approves; Stop in the panel; busy while the user's own task (or another client's)
//! runs; the worker restarted mid-task.

use crate::common;
use crate::mcp_support;
use common::{
    Gate, Panel, Setup, TASK_TIMEOUT, Waymark, fill_the_form, find_ref, is_summary_call,
    message_text, navigator_requests, role_reply,
};
use mcp_support::{Client, switched_on, wait_until};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

fn launch(ext: &Path, llm: &ScriptedLlm) -> Waymark {
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    Waymark::launch(ext, Setup { llm, install_host: true, site }).expect("launch")
}

/// Waymark on `path` of the fixture site, with external agents switched on in the panel.
fn on_the_page(ext: &Path, llm: &ScriptedLlm, path: &str) -> (Waymark, Panel) {
    let w = launch(ext, llm);
    let panel = w.panel().expect("panel");
    let page = w.open(path).expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    switched_on(&w, &panel);
    (w, panel)
}

/// The report a `waymark_run_task` answered with (its JSON part).
fn report(text: &str) -> Value {
    let json = text.lines().rev().find(|l| l.starts_with('{')).expect("a JSON report");
    serde_json::from_str(json).expect("the report parses")
}

fn posts(site: &FixtureServer) -> Vec<String> {
    site.requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/collect"))
        .map(|r| r.body.clone())
        .collect()
}

/// The summariser's answer: a summary with one finding.
fn summary() -> ScriptedReply {
    ScriptedReply::text(
        json!({"summary": "Saved Ada in the form.", "data": {"saved_name": "Ada"},
               "toc": "Saved Ada"})
        .to_string(),
    )
}

fn a_task_finishes_with_findings_progress_and_a_session_to_continue(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if is_summary_call(req) {
            return summary();
        }
        if let Some(r) = role_reply(req) {
            return r;
        }
        fill_the_form(req, "Saved Ada.")
    })
    .expect("llm");
    let w = launch(extension, &llm);
    let panel = w.panel().expect("panel");
    let page = w.open("/form.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    switched_on(&w, &panel);

    let claude = Client::spawn(&w, "claude-code");
    let run = claude
        .start_with_progress("waymark_run_task", json!({"task": "Fill the name Ada and save"}));
    panel
        .wait_text("task-prompt", "t.includes('Claude Code asked: Fill the name Ada and save')")
        .expect("the panel says who asked");
    let (err, text) = claude.finish(run);
    assert!(!err, "{text}");
    assert!(text.starts_with("Task done in"), "{text}");
    assert!(text.contains("<page_content id="), "page-derived findings are fenced: {text}");
    let done = report(&text);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["answer"], "Saved Ada.", "{done}");
    assert_eq!(done["findings"]["saved_name"], "Ada", "{done}");
    assert_eq!(done["turn"], 1);
    page.wait_for("document.body.textContent.includes('Saved: Ada')", TASK_TIMEOUT)
        .expect("the page was filled and saved");
    let progress = claude.progress();
    assert!(progress.iter().any(|p| p.contains("Step 1") && p.contains("done")), "{progress:?}");
    let steps = panel.steps().expect("steps");
    assert!(steps.iter().any(|s| s.contains("Ada")), "{steps:?}");

    // The session continues: the second task's prompt carries the first one's notes.
    let session = done["session"].as_str().expect("a session id").to_owned();
    let (err, text) = claude.tool(
        "waymark_run_task",
        json!({"task": "Save Ada once more", "session": session.clone()}),
    );
    assert!(!err, "{text}");
    let again = report(&text);
    assert_eq!((again["session"].as_str(), again["turn"].as_u64()), (Some(&*session), Some(2)));
    let last = navigator_requests(&llm).pop().expect("a navigator request");
    assert!(
        message_text(&last.body, 1).contains("Claude Code asked: Fill the name Ada and save"),
        "the notes of the session's first task go with the second"
    );
    // A session that does not exist (or is the user's own) is refused.
    let (err, text) =
        claude.tool("waymark_run_task", json!({"task": "x", "session": "no-such-session"}));
    assert!(err && text.contains("no-such-session"), "{text}");
}

fn a_card_the_panel_denies_is_an_error_and_nothing_is_sent_approved_it_goes_through(
    extension: &Path,
) {
    let navigator_calls = Arc::new(AtomicUsize::new(0));
    let calls = navigator_calls.clone();
    let llm = ScriptedLlm::start(move |req: &RecordedRequest| {
        if is_summary_call(req) {
            return ScriptedReply::text("no summary");
        }
        if let Some(r) = role_reply(req) {
            return r;
        }
        let page = message_text(&req.body, 1);
        match calls.fetch_add(1, Ordering::SeqCst) {
            // The first attempt of each task: type and send; then give up, or report.
            0 | 2 => {
                let (Some(message), Some(send)) =
                    (find_ref(&page, "textbox", "Message"), find_ref(&page, "button", "Send"))
                else {
                    return ScriptedReply::text("no form");
                };
                ScriptedReply::tool_calls([
                    ("type", json!({"ref": message, "text": "hello there"})),
                    ("click", json!({"ref": send})),
                ])
            }
            1 => ScriptedReply::tool_call(
                "done",
                json!({"answer": "The user did not let me send it.", "success": false}),
            ),
            _ => ScriptedReply::tool_call("done", json!({"answer": "Sent.", "success": true})),
        }
    })
    .expect("llm");
    let (w, panel) = on_the_page(extension, &llm, "/bridge.html");
    let claude = Client::spawn(&w, "claude-code");

    let run = claude.start("waymark_run_task", json!({"task": "Send the feedback hello there"}));
    let card = answer_card(&panel, "deny");
    assert!(card.starts_with("Claude Code wants to click “Send”"), "{card}");
    let (err, text) = claude.finish(run);
    assert!(err, "a denial is a tool error: {text}");
    assert!(text.starts_with("The user denied"), "{text}");
    assert_eq!(report(&text)["status"], "denied");
    assert!(posts(&w.site).is_empty(), "nothing was sent");

    let run = claude.start("waymark_run_task", json!({"task": "Send the feedback hello there"}));
    answer_card(&panel, "approve");
    let (err, text) = claude.finish(run);
    assert!(!err, "{text}");
    assert_eq!(report(&text)["status"], "done");
    let sent = wait_until("the submission", || posts(&w.site).into_iter().next());
    assert!(sent.contains("message=hello+there") && !sent.contains("hunter2"), "{sent}");
}

/// Waits for a confirmation card and answers it with `button`; its message.
fn answer_card(panel: &common::Panel, button: &str) -> String {
    let message = panel
        .page
        .wait_for(
            "(() => { const c = document.getElementById('intervention'); \
             return !c.hidden && c.dataset.kind === 'confirm' && \
             document.getElementById('intervention-message').textContent; })()",
            TASK_TIMEOUT,
        )
        .expect("a card");
    panel
        .page
        .eval(&format!("document.getElementById('intervention-{button}').click()"))
        .expect("click");
    message.as_str().unwrap_or_default().to_owned()
}

/// A model whose navigator waits for `gate` before each answer (`done`).
fn gated(gate: &Gate) -> ScriptedLlm {
    let gate = gate.clone();
    ScriptedLlm::start(move |req| {
        if is_summary_call(req) {
            return ScriptedReply::text("no summary");
        }
        if let Some(r) = role_reply(req) {
            return r;
        }
        gate.wait();
        ScriptedReply::tool_call("done", json!({"answer": "Looked.", "success": true}))
    })
    .expect("llm")
}

/// Waits until the model has been asked `n` navigator requests.
fn navigator_asked(llm: &ScriptedLlm, n: usize) {
    wait_until("the navigator's request", || (navigator_requests(llm).len() >= n).then_some(()));
}

fn stop_in_the_panel_ends_the_task_and_the_client_is_told(extension: &Path) {
    let gate = Gate::default();
    let llm = gated(&gate);
    let (w, panel) = on_the_page(extension, &llm, "/form.html");
    let claude = Client::spawn(&w, "claude-code");
    let run = claude.start("waymark_run_task", json!({"task": "Look at the form"}));
    navigator_asked(&llm, 1);
    panel.wait_text("task-prompt", "t.includes('Claude Code asked:')").expect("shown");
    panel.page.eval("document.getElementById('stop').click()").expect("stop");
    let (err, text) = claude.finish(run);
    gate.open();
    assert!(err, "{text}");
    assert!(text.contains("The user stopped the task"), "{text}");
    assert_eq!(report(&text)["status"], "stopped");
}

fn a_task_is_busy_while_another_runs(extension: &Path) {
    let gate = Gate::default();
    let llm = gated(&gate);
    let (w, panel) = on_the_page(extension, &llm, "/form.html");

    // The user's own task runs: a client's task is told so.
    panel.send("Look at the form").expect("send");
    navigator_asked(&llm, 1);
    let claude = Client::spawn(&w, "claude-code");
    let (err, text) = claude.tool("waymark_run_task", json!({"task": "Look too"}));
    assert!(err && text.contains("browser busy"), "{text}");
    assert!(text.contains("Waymark's own agent is running a task"), "{text}");
    gate.open();
    panel.answer().expect("the user's task ended");

    // A client's task runs: another client is told whose.
    let run = claude.start("waymark_run_task", json!({"task": "Look at the form"}));
    navigator_asked(&llm, 2);
    let cursor = Client::spawn(&w, "cursor");
    let (err, text) = cursor.tool("browser_snapshot", json!({}));
    assert!(err && text.contains("running a task for Claude Code"), "{text}");
    gate.open();
    let (err, text) = claude.finish(run);
    assert!(!err, "{text}");
}

fn a_worker_restarted_mid_task_is_reported_and_the_task_not_resumed(extension: &Path) {
    let gate = Gate::default();
    let llm = gated(&gate);
    let (w, panel) = on_the_page(extension, &llm, "/form.html");
    let claude = Client::spawn(&w, "claude-code");
    let run = claude.start("waymark_run_task", json!({"task": "Look at the form"}));
    navigator_asked(&llm, 1);
    let worker = w.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    w.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");
    let (err, text) = claude.finish(run);
    assert!(err && text.contains("may or may not have been done"), "{text}");
    w.attach_worker().expect("worker again");
    gate.open();
    let answer = panel.answer().expect("the task is shown as ended");
    assert!(answer.contains("did not resume it"), "{answer}");
    assert_eq!(navigator_requests(&llm).len(), 1, "the model was not asked again");
}

fn disconnecting_the_agent_stops_the_task_it_asked_for(extension: &Path) {
    let gate = Gate::default();
    let llm = gated(&gate);
    let (w, panel) = on_the_page(extension, &llm, "/form.html");
    let claude = Client::spawn(&w, "claude-code");
    let run = claude.start("waymark_run_task", json!({"task": "Look at the form"}));
    navigator_asked(&llm, 1);
    panel
        .page
        .eval("document.querySelector('#external-clients button').click()")
        .expect("disconnect");
    let (err, text) = claude.finish(run);
    assert!(err && text.contains("disconnected this agent"), "{text}");
    panel.wait_text("task-progress", "t.startsWith('Stopped after')").expect("the task stopped");
    gate.open();
    assert_eq!(navigator_requests(&llm).len(), 1, "the model was not asked again");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, a_task_finishes_with_findings_progress_and_a_session_to_continue),
        e2e!(
            extension,
            a_card_the_panel_denies_is_an_error_and_nothing_is_sent_approved_it_goes_through
        ),
        e2e!(extension, stop_in_the_panel_ends_the_task_and_the_client_is_told),
        e2e!(extension, a_task_is_busy_while_another_runs),
        e2e!(extension, a_worker_restarted_mid_task_is_reported_and_the_task_not_resumed),
        e2e!(extension, disconnecting_the_agent_stops_the_task_it_asked_for),
    ]
}
