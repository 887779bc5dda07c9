//! Crashes end to end in real Chromium (issue 25): no page text stops Waymark, and a panic in
//! its own wasm is not the end.
//!
//! * A page whose text glues URLs to multi-byte characters (`“https://…”`, `链接：https://…`,
//!   `«https://…»`, `→https://…`, emoji) once panicked the worker; a task on it finishes.
//! * A panic forced in the worker's wasm mid-task (waymark-worker's `test-hooks` feature,
//!   `globalThis.waymarkForcePanic`): a fresh instance takes over, the task is recorded as
//!   interrupted and not run again, the panel says so with a report, the next task runs.
//! * A panic forced in a content script (`{op: "panic"}`, test builds only): the request fails
//!   as a crash, the next one runs on a fresh instance.
//!
//! The recovery time is printed (`worker recovered in … ms`), never asserted.

use crate::common;
use common::{
    Panel, Setup, TASK_TIMEOUT, Waymark, descendants_running, find_ref, message_text, role_of,
    role_reply,
};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::chromium::Page;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// Each spelling that broke the outbound scanner's URL slicing, one per line of the page.
const GLUED: [&str; 6] = [
    "See “https://docs.example.com/setup” for the steps.",
    "链接：https://docs.example.com/zh/setup",
    "Voir «https://docs.example.com/fr/setup» pour la suite.",
    "Next →https://docs.example.com/next",
    "Links 🔗https://docs.example.com/emoji",
    "Waving 👋🏽https://docs.example.com/wave",
];

/// The form fixture, plus `/glued.html` with every glued spelling.
fn site() -> FixtureServer {
    let lines: String = GLUED.iter().map(|l| format!("<p>{l}</p>\n")).collect();
    FixtureServer::builder(paths::fixtures_dir().join("site"))
        .with_page(
            "/glued.html",
            format!(
                "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Setup links</title>\
                 <h1>Setup links</h1>\n{lines}</html>"
            ),
        )
        .start()
        .expect("fixture server")
}

fn done(answer: &str) -> ScriptedReply {
    ScriptedReply::tool_call("done", json!({"answer": answer, "success": true}))
}

/// The task a navigator request works on (the last `Task:` line).
fn task_of(req: &RecordedRequest) -> String {
    message_text(&req.body, 1)
        .lines()
        .filter_map(|l| l.strip_prefix("New task: ").or_else(|| l.strip_prefix("Task: ")))
        .next_back()
        .unwrap_or_default()
        .to_owned()
}

fn launch(extension: &Path, llm: &ScriptedLlm) -> Waymark {
    Waymark::launch(extension, Setup { llm, install_host: true, site: site() }).expect("launch")
}

fn wait_answer(panel: &Panel, expect: &str) -> String {
    let predicate = format!("t.includes({})", json!(expect));
    panel.wait_text("answer", &predicate).unwrap_or_else(|e| {
        let shown = panel.text("answer").unwrap_or_default();
        panic!("waiting for an answer with {expect:?} (shown: {shown:?}): {e:#}")
    })
}

/// The worker, attached once its test hooks are registered (its start has finished).
fn worker(wm: &Waymark) -> Page {
    let sw = wm.attach_worker().expect("attach worker");
    sw.wait_for("typeof globalThis.waymarkForcePanic === 'function'", TASK_TIMEOUT)
        .expect("test hooks (build with `cargo xtask build --test-hooks`)");
    sw
}

fn tab_id(sw: &Page, url: &str) -> i64 {
    let js = format!(
        "chrome.tabs.query({{}}).then((tabs) => (tabs.find((t) => t.url === {}) || {{}}).id)",
        json!(url)
    );
    sw.eval(&js).expect("tabs").as_i64().expect("the tab's id")
}

fn page_seen(page: &Page) -> String {
    page.eval("JSON.stringify([window.__seen, document.getElementById('status').textContent])")
        .expect("page state")
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn a_page_with_urls_glued_to_multibyte_characters_is_read_and_its_task_finishes(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let page = message_text(&req.body, 1);
        // Quoted back as the page glues them: the answer goes through the same scanners.
        match GLUED.iter().all(|l| page.contains(l)) {
            true => done(&format!("The guide: {} {}", GLUED[0], GLUED[1])),
            false => ScriptedReply::text("the page did not show every link"),
        }
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let _page = wm.open("/glued.html").expect("open page");
    let panel = wm.panel().expect("panel");
    panel.send("Which setup guide does this page link to?").expect("send");
    let answer = wait_answer(&panel, "The guide:");
    assert!(answer.contains("“https://docs.example.com/setup”"), "{answer}");
    assert!(answer.contains("链接：https://docs.example.com/zh/setup"), "{answer}");
    assert!(
        panel.page.eval("document.getElementById('crash').hidden").expect("crash") == json!(true)
    );
    llm.assert_no_script_panics().expect("script ok");
}

fn a_worker_panic_mid_task_interrupts_that_task_and_the_next_one_runs(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        if task_of(req) == "second task" {
            return done("Second task done.");
        }
        let page = message_text(&req.body, 1);
        let name = find_ref(&page, "textbox", "Name").expect("Name field");
        let save = find_ref(&page, "button", "Save").expect("Save button");
        if page.contains("Type “Ada”") {
            // The worker crashes while this reply is pending; it is never acted on.
            ScriptedReply::tool_call("click", json!({"ref": save})).delayed(20_000)
        } else {
            ScriptedReply::tool_call("type", json!({"ref": name, "text": "Ada"}))
        }
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    let sw = worker(&wm);
    panel.send("Fill the name field with Ada and press Save").expect("send");
    // Planner, the navigator's `type`, then the navigator call the crash interrupts.
    llm.wait_for_requests(3, TASK_TIMEOUT).expect("second navigator call in flight");
    let host = common::host_binary().canonicalize().expect("host binary");
    let hosts_before = descendants_running(wm.browser.pid(), &host);
    assert_eq!(hosts_before.len(), 1, "{hosts_before:?}");

    // A panic inside a future, where the worker's work runs.
    let recovered = sw
        .eval_timeout(
            "(async () => { const before = globalThis.waymarkStartup.started_ms; \
               const at = performance.now(); waymarkForcePanic('task'); \
               for (;;) { await new Promise((r) => setTimeout(r, 5)); \
                 const s = globalThis.waymarkStartup; \
                 if (s.started_ms !== before) return s.started_ms - at; } })()",
            TASK_TIMEOUT,
        )
        .expect("a fresh instance started");
    eprintln!(
        "worker recovered in {:.1} ms (panic to a started instance)",
        recovered.as_f64().unwrap_or(-1.0)
    );

    // The panel (still connected: its port was handed to the new instance) says what happened.
    let notice =
        panel.wait_text("crash-text", "t.includes('crashed while running')").expect("crash notice");
    assert!(notice.contains("“Fill the name field with Ada and press Save”"), "{notice}");
    assert!(notice.contains("not run again"), "{notice}");
    let report = panel.text("crash-report").expect("report");
    assert!(report.contains("Error: forced by a test inside a future (test-hooks)"), "{report}");
    assert!(report.contains("Where: wasm-worker/src/tab/test_hooks.rs:"), "{report}");
    assert!(
        report.contains(&format!("Page: {}", wm.site.url("/").trim_end_matches('/'))),
        "{report}"
    );
    assert!(!report.contains("form.html") && !report.contains("Ada"), "no page content: {report}");
    let answer = wait_answer(&panel, "Interrupted — may or may not have been done");
    assert!(answer.contains("It had done 1 action"), "{answer}");
    let heading = panel.text("task-progress").unwrap_or_default();
    eprintln!("interrupted task shown as: {heading:?}");
    assert!(heading.starts_with("Interrupted after"), "{heading}");

    // Stored as a turn of the session, its journal gone: no later start resumes it.
    let stored = panel
        .page
        .wait_for(
            "chrome.storage.local.get(null).then((all) => !('task:active' in all) && \
             Object.values(all).find((v) => v && typeof v.answer === 'string' && \
               v.answer.startsWith('Interrupted — may or may not have been done')))",
            TASK_TIMEOUT,
        )
        .expect("the interrupted turn is stored");
    assert_eq!(stored["success"], json!(false));

    // The next task runs on the fresh instance.
    panel.send("second task").expect("send");
    assert_eq!(wait_answer(&panel, "Second task done."), "Second task done.");

    // The crashed instance closed its native port: its host exited, the new one has its own.
    let started = std::time::Instant::now();
    let hosts_after = loop {
        let now = descendants_running(wm.browser.pid(), &host);
        if !now.contains(&hosts_before[0]) || started.elapsed() > TASK_TIMEOUT {
            break now;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(!hosts_after.contains(&hosts_before[0]), "the old host still runs: {hosts_after:?}");
    assert_eq!(hosts_after.len(), 1, "{hosts_after:?}");

    // Typed once before the crash, never clicked: nothing ran twice or after the crash.
    assert_eq!(page_seen(&page), r#"[{"inputs":1,"changes":1,"clicks":0},"Not saved yet."]"#);
    let first: Vec<_> = llm
        .requests()
        .into_iter()
        .filter(|r| role_of(r) == "navigator" && task_of(r) != "second task")
        .collect();
    assert_eq!(first.len(), 2, "the interrupted task asked the model nothing more");
    panel.page.eval("document.getElementById('crash-dismiss').click()").expect("dismiss");
    panel
        .page
        .wait_for("document.getElementById('crash').hidden", TASK_TIMEOUT)
        .expect("dismissed");
    llm.assert_no_script_panics().expect("script ok");
}

fn a_content_script_panic_fails_that_request_and_the_next_one_runs_on_a_fresh_instance(
    extension: &Path,
) {
    let llm = ScriptedLlm::start(|_| done("unused")).expect("scripted LLM");
    let wm = launch(extension, &llm);
    let page = wm.open("/form.html").expect("open fixture");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    let sw = worker(&wm);
    let tab = tab_id(&sw, &wm.site.url("/form.html"));
    let request = |r: Value| {
        sw.eval_timeout(
            &format!(
                "waymarkPageRequest({tab}, {r}).then((v) => ({{ok: v}}), \
                 (e) => ({{name: e.name, message: e.message}}))"
            ),
            TASK_TIMEOUT,
        )
        .expect("page request")
    };
    let observe = || {
        let reply = request(json!({"op": "observe"}));
        reply["ok"]["prompt"].as_str().unwrap_or_default().to_owned()
    };
    let before = observe();
    assert!(find_ref(&before, "textbox", "Name").is_some(), "{before}");

    let crashed = request(json!({"op": "content", "frame": 0, "request": {"op": "panic"}}));
    assert_eq!(crashed["name"], json!("ScriptFailed"), "{crashed}");
    let message = crashed["message"].as_str().unwrap_or_default();
    assert!(message.contains("it crashed (forced by a test in the content script"), "{message}");
    assert!(message.contains("may or may not have been done"), "{message}");

    // The next requests run on a fresh instance of the content script.
    let after = observe();
    let name = find_ref(&after, "textbox", "Name").expect("Name field after the crash");
    let typed =
        request(json!({"op": "act", "action": {"action": "type", "ref": name, "text": "Ada"}}));
    assert_eq!(typed["ok"]["outcome"]["ok"], json!(true), "{typed}");
    assert_eq!(page_seen(&page), r#"[{"inputs":1,"changes":1,"clicks":0},"Not saved yet."]"#);
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(
            test_hooks,
            a_page_with_urls_glued_to_multibyte_characters_is_read_and_its_task_finishes
        ),
        e2e!(test_hooks, a_worker_panic_mid_task_interrupts_that_task_and_the_next_one_runs),
        e2e!(
            test_hooks,
            a_content_script_panic_fails_that_request_and_the_next_one_runs_on_a_fresh_instance
        ),
    ]
}
