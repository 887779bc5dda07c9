//! Sessions end to end in real Chromium: follow-up tasks get earlier findings, the session
//! survives a service-worker kill and a browser restart on the same profile, search finds a turn
//! of an older session and jumps to it, deletion asks first, and export writes markdown and JSON.

use crate::common;
use common::{Panel, Setup, TASK_TIMEOUT, Waymark, is_summary_call, message_text};
use serde_json::json;
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const FIND: &str = "Find the cheapest plan";
const TITLE_TASK: &str = "What is this page called?";
const RECALL: &str = "Which plan was the cheapest one you found earlier, and what did it cost?";
const AFTER_KILL: &str = "List every task of this session so far";
const OTHER: &str = "Read the page heading";

fn done(answer: &str) -> ScriptedReply {
    ScriptedReply::tool_call("done", json!({"answer": answer, "success": true}))
}

fn summary(summary: &str, data: serde_json::Value, toc: &str, title: &str) -> ScriptedReply {
    ScriptedReply::text(
        json!({"summary": summary, "data": data, "toc": toc, "title": title}).to_string(),
    )
}

/// The model: answers each task at once; for follow-ups it asserts (a failed assertion is a
/// recorded script panic) that the prompt carries the earlier findings.
fn script(req: &RecordedRequest) -> ScriptedReply {
    let user = message_text(&req.body, 1);
    if is_summary_call(req) {
        return if user.contains(&format!("The task (turn 1): {FIND}")) {
            summary(
                "The cheapest plan is Basic at $7 per month.",
                json!({"cheapest_plan": "Basic", "cheapest_price": "$7"}),
                "Cheapest plan: Basic at $7",
                "Plan prices",
            )
        } else if user.contains(OTHER) {
            summary(
                "The heading reads Your profile.",
                json!({}),
                "Heading: Your profile",
                "Profile heading",
            )
        } else {
            // Keeps the title while the topic continues: the script proposes the same one.
            summary("Answered a follow-up.", json!({}), "Follow-up answered", "Plan prices")
        };
    }
    // The task is the last "New task: …" (after the session context) or "Task: …" line.
    let task = user
        .lines()
        .filter_map(|l| l.strip_prefix("New task: ").or_else(|| l.strip_prefix("Task: ")))
        .next_back()
        .unwrap_or_default();
    let has_context = user.contains("Earlier tasks in this session");
    if task == FIND {
        assert!(!has_context, "the first task has no session context: {user}");
        return done("The cheapest plan is Basic at $7 per month. Pro costs $15.");
    }
    if task == TITLE_TASK {
        assert!(user.contains(&format!("Turn 1 (done): {FIND}")), "turn 1 missing: {user}");
        return done("The page is called Profile form.");
    }
    if task == RECALL {
        assert!(user.contains("cheapest_plan = Basic;"), "turn 1 data missing: {user}");
        assert!(user.contains("cheapest_price = $7;"), "turn 1 data missing: {user}");
        assert!(user.contains("Findings: The cheapest plan is Basic at $7 per month."), "{user}");
        return done("Earlier I found Basic, at $7 per month.");
    }
    if task == AFTER_KILL {
        for t in [FIND, TITLE_TASK, RECALL] {
            assert!(user.contains(t), "{t} missing after the worker restart: {user}");
        }
        return done("Three tasks: the plan, the page name and the recall.");
    }
    if task == OTHER {
        assert!(!has_context, "a new session starts without context: {user}");
        return done("The heading reads Your profile.");
    }
    panic!("unexpected navigator prompt: {user}");
}

fn site() -> FixtureServer {
    FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("fixture server")
}

/// Sends a task and waits until the panel shows an answer containing `expect`.
fn run(panel: &Panel, task: &str, expect: &str) {
    panel.send(task).expect("send");
    let predicate = format!("t.includes({})", serde_json::to_string(expect).expect("json"));
    panel.wait_text("answer", &predicate).expect("answer shown");
}

fn toc(panel: &Panel) -> Vec<String> {
    let v =
        panel.page.eval("[...document.querySelectorAll('#toc li')].map((li) => li.textContent)");
    serde_json::from_value(v.expect("toc")).unwrap_or_default()
}

fn wait_js(panel: &Panel, js: &str) -> serde_json::Value {
    panel.page.wait_for(js, TASK_TIMEOUT).unwrap_or_else(|e| panic!("waiting for {js}: {e:#}"))
}

fn click(panel: &Panel, selector: &str) {
    let js = format!(
        "(() => {{ const b = document.querySelector({}); if (!b) return false; b.click(); return true; }})()",
        serde_json::to_string(selector).expect("json")
    );
    wait_js(panel, &js);
}

fn a_session_remembers_survives_restarts_is_searchable_and_exports(extension: &Path) {
    let llm = ScriptedLlm::start(script).expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let _page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");

    // Three tasks; the third refers to what the first found (asserted by the script).
    run(&panel, FIND, "Basic at $7");
    run(&panel, TITLE_TASK, "Profile form");
    // The first turn's model summary (its TOC line) arrived before the recall.
    wait_js(
        &panel,
        "document.querySelector('#toc li')?.textContent.includes('Cheapest plan: Basic at $7')",
    );
    run(&panel, RECALL, "Basic, at $7");
    panel.wait_text("session-title", "t === 'Plan prices'").expect("title from the summariser");
    wait_js(&panel, "document.querySelectorAll('#toc li').length === 3");
    let summary_calls = llm.requests().iter().filter(|r| is_summary_call(r)).count();
    assert!(summary_calls >= 2, "one summary call per task ({summary_calls})");

    // A killed service worker loses nothing: a new panel wakes it and it reloads the session.
    let worker = wm.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    wm.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");
    let panel = wm.panel().expect("panel after the kill");
    panel.wait_text("session-title", "t === 'Plan prices'").expect("title after the kill");
    wait_js(&panel, "document.querySelectorAll('#toc li').length === 3");
    run(&panel, AFTER_KILL, "Three tasks");
    wait_js(&panel, "document.querySelectorAll('#toc li').length === 4");
    wait_js(
        &panel,
        "document.querySelectorAll('#toc li')[3]?.textContent.includes('Follow-up answered')",
    );

    // A browser restart on the same profile keeps the session, its TOC and its title history.
    let wm = wm.restart(extension, &llm).expect("restart");
    let _page = wm.open("/form.html").expect("open fixture again");
    let panel = wm.panel().expect("panel after the restart");
    panel.wait_text("session-title", "t === 'Plan prices'").expect("title after the restart");
    wait_js(&panel, "document.querySelectorAll('#toc li').length === 4");
    let toc = toc(&panel);
    assert!(toc[0].contains("1. Cheapest plan: Basic at $7"), "{toc:?}");
    let history = panel.page.eval("document.getElementById('session-title').title").expect("title");
    assert!(history.as_str().is_some_and(|h| h.contains("Plan prices (turn 1)")), "{history}");

    // A new session; then search finds the old session's turn and jumps there.
    click(&panel, "#new-session");
    panel.wait_text("session-meta", "t.startsWith('0 tasks')").expect("new session");
    run(&panel, OTHER, "Your profile");
    panel.wait_text("session-title", "t === 'Profile heading'").expect("new title");
    wait_js(&panel, "document.querySelectorAll('#session-list li').length === 2");
    panel
        .page
        .eval(
            "(() => { document.getElementById('search').value = 'cheapest basic'; \
             document.getElementById('search-form').requestSubmit(); return true; })()",
        )
        .expect("search");
    let first_hit = wait_js(
        &panel,
        "(() => { const b = document.querySelector('#search-results li button'); \
         return b && b.textContent; })()",
    );
    assert_eq!(first_hit.as_str(), Some("Plan prices · turn 1"), "{first_hit}");
    let snippet = panel.text("search-results").expect("results");
    assert!(snippet.contains("cheapest plan is Basic"), "{snippet}");
    click(&panel, "#search-results li button");
    panel.wait_text("session-title", "t === 'Plan prices'").expect("jumped to the old session");
    let turn = panel.wait_text("turn-task", "t.startsWith('Turn 1: ')").expect("turn shown");
    assert_eq!(turn, format!("Turn 1: {FIND}"));
    let nav = panel.text("turn-nav").expect("neighbours");
    assert!(nav.contains("2. "), "next turn offered: {nav}");
    assert!(panel.text("turn-data").expect("data").contains("cheapest_price: $7"));

    // Export the old session as markdown and JSON.
    click(&panel, "#export");
    let md_status = panel.wait_text("export-status", "t.endsWith('.md')").expect("md written");
    click(&panel, "#export-json");
    let json_status =
        panel.wait_text("export-status", "t.endsWith('.json')").expect("json written");
    let md_path = std::path::PathBuf::from(md_status.trim_start_matches("Exported to "));
    let json_path = std::path::PathBuf::from(json_status.trim_start_matches("Exported to "));
    for path in [&md_path, &json_path] {
        assert!(path.starts_with(&wm.export_dir), "{}", path.display());
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        assert!(name.starts_with("browse-session-"), "{name}");
    }
    let md = std::fs::read_to_string(&md_path).expect("read md");
    assert!(md.starts_with("# Plan prices\n"), "{md}");
    assert!(md.contains(&format!("## Task 1: {FIND}")), "{md}");
    assert!(md.contains("- Summary: The cheapest plan is Basic at $7 per month."), "{md}");
    assert!(md.contains("- **cheapest_price**: $7"), "{md}");
    assert!(md.contains(&format!("## Task 4: {AFTER_KILL}")), "{md}");
    assert!(
        md.contains("## Suggested follow-up") && md.contains("```text\nI used the Waymark"),
        "{md}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).expect("read json"))
            .expect("json");
    assert_eq!(doc["title"], "Plan prices");
    assert_eq!(doc["tasks"].as_array().map(Vec::len), Some(4));
    assert_eq!(doc["tasks"][0]["structured_data"]["cheapest_plan"], "Basic");
    assert_eq!(doc["tasks"][2]["answer"], "Earlier I found Basic, at $7 per month.");

    // Deleting asks first; "Keep" keeps, "Delete" deletes.
    let delete_other = "#session-list li:not(.current) button[data-action=delete]";
    click(&panel, delete_other);
    panel.wait_text("confirm-text", "t.includes('Profile heading')").expect("confirmation");
    click(&panel, "#confirm-no");
    wait_js(&panel, "document.getElementById('confirm-delete').hidden");
    assert_eq!(
        panel.page.eval("document.querySelectorAll('#session-list li').length").ok(),
        Some(json!(2))
    );
    click(&panel, delete_other);
    panel.wait_text("confirm-text", "t.includes('Profile heading')").expect("confirmation again");
    click(&panel, "#confirm-yes");
    wait_js(&panel, "document.querySelectorAll('#session-list li').length === 1");
    panel.wait_text("session-title", "t === 'Plan prices'").expect("current session kept");

    llm.assert_no_script_panics().expect("the model received the earlier findings");
}

/// Storage refusing the session's writes (as when the quota is exhausted): the user sees why, the
/// turn stays in memory, and the next successful write stores it; nothing stored earlier is lost.
/// (Only session keys are refused: the agent's write-ahead journal rightly refuses to start a
/// task it cannot journal, which is its own test's business.)
fn a_refused_storage_write_is_shown_and_the_turn_is_stored_later(extension: &Path) {
    let llm = ScriptedLlm::start(|req: &RecordedRequest| {
        if is_summary_call(req) {
            return ScriptedReply::text("no summary today");
        }
        let user = message_text(&req.body, 1);
        let task = user
            .lines()
            .filter_map(|l| l.strip_prefix("New task: ").or_else(|| l.strip_prefix("Task: ")))
            .next_back()
            .unwrap_or_default()
            .to_owned();
        done(&format!("Answer to {task}."))
    })
    .expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let _page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    run(&panel, "alpha task", "Answer to alpha task.");
    wait_js(&panel, "document.querySelectorAll('#toc li').length === 1");

    let worker = wm.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    let sw = wm.browser.attach(&worker.target_id).expect("attach worker");
    sw.eval(
        "globalThis.__realSet = chrome.storage.local.set.bind(chrome.storage.local); \
         chrome.storage.local.set = (items) => Object.keys(items).some((k) => k.startsWith('session:')) \
           ? Promise.reject(new Error('QUOTA_BYTES quota exceeded')) : globalThis.__realSet(items); \
         true",
    )
    .expect("make storage refuse writes");
    run(&panel, "beta task", "Answer to beta task.");
    let error =
        panel.wait_text("storage-error", "t.includes('Could not save turn 2')").expect("shown");
    assert!(
        error.contains("QUOTA_BYTES") && error.contains("nothing saved earlier was lost"),
        "{error}"
    );
    assert_eq!(toc(&panel).len(), 2, "the turn is kept in memory");

    sw.eval("chrome.storage.local.set = globalThis.__realSet; true").expect("restore storage");
    run(&panel, "gamma task", "Answer to gamma task.");
    wait_js(&panel, "document.getElementById('storage-error').hidden");

    // A fresh worker reads everything back from storage: the refused turn was written later.
    wm.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");
    let panel = wm.panel().expect("panel after the kill");
    wait_js(&panel, "document.querySelectorAll('#toc li').length === 3");
    let toc = toc(&panel);
    assert!(toc[1].contains("beta task") && toc[2].contains("gamma task"), "{toc:?}");
}

/// A stored turn that this Waymark cannot read (a newer one wrote it, or it is damaged), and
/// a session header it cannot read, are reported in the panel and stay in storage exactly as
/// they were; the next task is stored after the unreadable turn: nothing is overwritten.
fn an_unreadable_turn_is_reported_kept_and_never_overwritten(extension: &Path) {
    use waymark_core::record::TaskOutcome;
    use waymark_core::session::{Session, TaskRecord};
    let llm = ScriptedLlm::start(|req| {
        if is_summary_call(req) {
            return ScriptedReply::text("no summary");
        }
        common::role_reply(req).unwrap_or_else(|| done("Read."))
    })
    .expect("llm");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let mut session = Session::new("damaged".into(), 1_790_000_000_000.0);
    for i in 1..=3 {
        let outcome = TaskOutcome {
            answer: format!("Answer {i}."),
            success: true,
            error: None,
            steps: vec![],
            step_count: 1,
            elapsed_ms: 1_000.0,
            ending: Default::default(),
        };
        session.push(TaskRecord::from_outcome(i, &format!("Task {i}"), &outcome, 1.0));
    }
    let mut items = common::session_items(&session);
    let damaged = json!({"turn": 2, "task": {"written by": "a newer Waymark"}});
    items.insert(Session::turn_key("damaged", 2), damaged.clone());
    // And another session whose header cannot be read.
    items.insert(Session::meta_key("other"), json!({"id": 7}));
    common::seed_storage(&wm, items);

    let panel = wm.panel().expect("panel");
    let told = panel
        .wait_text("storage-error", "t.includes('could not be read')")
        .expect("the unreadable turn is reported");
    assert!(told.starts_with("Task 2 of this session could not be read"), "{told}");
    assert!(told.contains("1 stored session could not be read"), "{told}");
    panel.wait_text("host-status", "t.includes('connected')").expect("host");
    let _tab = wm.open("/article.html").expect("page");
    panel.send("Read the page heading").expect("send");
    assert_eq!(panel.answer().expect("answer"), "Read.");

    let worker = wm.attach_worker().expect("worker");
    let read = |key: String| {
        worker
            .wait_for(
                &format!("chrome.storage.local.get('{key}').then((r) => r['{key}'] ?? null)"),
                TASK_TIMEOUT,
            )
            .unwrap_or_else(|e| panic!("{key}: {e:#}"))
    };
    assert_eq!(read(Session::turn_key("damaged", 2)), damaged, "the unreadable turn is untouched");
    let fourth = read(Session::turn_key("damaged", 4));
    assert_eq!(fourth["task"], json!("Read the page heading"), "the new task is turn 4");
    assert_eq!(read(Session::turn_key("damaged", 3))["task"], json!("Task 3"));
    assert_eq!(read(Session::meta_key("other")), json!({"id": 7}), "the header is untouched");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, a_session_remembers_survives_restarts_is_searchable_and_exports),
        e2e!(extension, a_refused_storage_write_is_shown_and_the_turn_is_stored_later),
        e2e!(extension, an_unreadable_turn_is_reported_kept_and_never_overwritten),
    ]
}
