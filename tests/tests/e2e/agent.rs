//! The agent loop end to end in real Chromium with the scripted LLM: a multi-step task with a
//! plan (malformed output and an unknown ref on the way), a stuck loop, the interventions
//! answered in the side panel, pause / step / take over / stop, and a service worker killed
//! mid-task that resumes without repeating what it did.

use crate::common;
use common::{
    Gate, Panel, Setup, TASK_TIMEOUT, Waymark, find_ref, message_text, role_of, role_reply,
};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const TASK: &str = "Fill the name field with Ada and press Save";

fn site() -> FixtureServer {
    FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("fixture server")
}

fn launch(extension: &Path, llm: &ScriptedLlm) -> Waymark {
    Waymark::launch(extension, Setup { llm, install_host: true, site: site() }).expect("launch")
}

fn page_text(req: &RecordedRequest) -> String {
    message_text(&req.body, 1)
}

fn refs(req: &RecordedRequest) -> (u32, u32) {
    let page = page_text(req);
    (
        find_ref(&page, "textbox", "Name").expect("Name field in the observation"),
        find_ref(&page, "button", "Save").expect("Save button in the observation"),
    )
}

fn done(answer: &str) -> ScriptedReply {
    ScriptedReply::tool_call("done", json!({"answer": answer, "success": true}))
}

/// Navigator requests so far, counted by the script itself.
#[derive(Clone, Default)]
struct Counter(Arc<AtomicUsize>);
impl Counter {
    fn next(&self) -> usize {
        self.0.fetch_add(1, Ordering::SeqCst)
    }
}

fn click(panel: &Panel, id: &str) {
    panel
        .page
        .eval(&format!("document.getElementById('{id}').click()"))
        .unwrap_or_else(|e| panic!("click #{id}: {e:#}"));
}

/// Waits for an intervention card whose title satisfies `predicate` (JS on `t`).
fn wait_card(panel: &Panel, predicate: &str) -> String {
    panel
        .page
        .wait_for(
            &format!(
                "(() => {{ const c = document.getElementById('intervention'); \
                 const t = document.getElementById('intervention-title').textContent; \
                 return !c.hidden && ({predicate}) ? t : false; }})()"
            ),
            TASK_TIMEOUT,
        )
        .expect("intervention card")
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn answer_card(panel: &Panel, text: &str) {
    panel
        .page
        .eval(&format!(
            "document.getElementById('intervention-answer').value = {}",
            serde_json::to_string(text).expect("json")
        ))
        .expect("type answer");
    click(panel, "intervention-send");
}

fn page_seen(page: &waymark_tests::chromium::Page) -> String {
    page.eval("JSON.stringify([window.__seen, document.getElementById('status').textContent])")
        .expect("page state")
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn multi_step_task_with_a_plan_recovers_from_bad_output_and_refuses_unknown_refs(extension: &Path) {
    let n = Counter::default();
    let llm = ScriptedLlm::start(move |req| {
        if role_of(req) == "planner" {
            return ScriptedReply::tool_call(
                "plan",
                json!({"questions": [], "steps": [
                    {"phase": "filling", "goal": "Type Ada into Name"},
                    {"phase": "submitting", "goal": "Press Save"}]}),
            );
        }
        if let Some(r) = role_reply(req) {
            return r;
        }
        let (name, save) = refs(req);
        match n.next() {
            0 => ScriptedReply::text("Let me think about {\"actions\": [{\"name\": \"type\", "),
            1 => ScriptedReply::tool_call("click", json!({"ref": 999})),
            2 => ScriptedReply::tool_calls([
                ("type", json!({"ref": name, "text": "Ada"})),
                ("click", json!({"ref": save})),
            ]),
            _ => done("Saved the name Ada."),
        }
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.page.eval("document.getElementById('mode').value = 'json'").expect("json mode");
    panel.send(TASK).expect("send");
    let answer = panel.answer().expect("answer");

    // JSON mode: the same schema as the session export's task record.
    let record: serde_json::Value = serde_json::from_str(&answer).expect("JSON output");
    assert_eq!(record["summary"], "Saved the name Ada.");
    assert_eq!(record["success"], true);
    assert_eq!(record["actions"].as_array().map(Vec::len), Some(3), "{record}");
    assert!(record["elapsed_ms"].as_f64().is_some_and(|ms| ms > 0.0), "{record}");

    let plan =
        panel.page.eval("[...document.querySelectorAll('#plan li')].map(l => l.textContent)");
    assert_eq!(
        plan.expect("plan"),
        json!(["[filling] Type Ada into Name", "[submitting] Press Save"])
    );
    let steps = panel.steps().expect("steps");
    assert!(steps[0].contains("[999] — failed: there is no element [999]"), "{steps:?}");
    assert_eq!(page_seen(&page), r#"[{"inputs":1,"changes":1,"clicks":1},"Saved: Ada"]"#);

    let requests = llm.requests();
    let roles: Vec<&str> = requests.iter().map(role_of).filter(|r| *r != "summariser").collect();
    // Garbage, its re-ask (the unknown ref), the fill and save, done; then the validator.
    assert_eq!(roles, ["planner", "navigator", "navigator", "navigator", "navigator", "validator"]);
    assert!(page_text(&requests[2]).contains("previous answer could not be used"));
    assert!(page_text(&requests[3]).contains("Plan:\n1. [filling] Type Ada into Name"));
    // The refusal reaches the model, once: no shared context repeats the step list.
    assert_eq!(page_text(&requests[3]).matches("no element [999]").count(), 1);
    llm.assert_no_script_panics().expect("script ok");
}

fn a_stuck_loop_is_nudged_replanned_and_then_the_user_is_asked(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let (name, _) = refs(req);
        ScriptedReply::tool_call("type", json!({"ref": name, "text": "Ada"}))
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.send(TASK).expect("send");
    let title = wait_card(&panel, "t.includes('stuck')");
    assert_eq!(title, "Waymark is stuck");
    let message = panel.text("intervention-message").expect("message");
    assert!(
        message.contains("the same action was repeated on an unchanged page")
            || message.contains("the page has not changed"),
        "{message}"
    );
    click(&panel, "intervention-stop");
    let answer = panel.answer().expect("answer");
    assert!(answer.starts_with("Stopped by you"), "{answer}");

    let requests = llm.requests();
    let roles: Vec<&str> = requests.iter().map(role_of).filter(|r| *r != "summariser").collect();
    assert_eq!(roles.iter().filter(|r| **r == "planner").count(), 2, "a new plan: {roles:?}");
    let navigator: Vec<String> =
        requests.iter().filter(|r| role_of(r) == "navigator").map(page_text).collect();
    assert!(navigator.iter().any(|t| t.contains("You seem to be stuck")), "nudged");
    let navigator_calls = navigator.len();
    assert_eq!(
        panel.steps().expect("steps").len(),
        navigator_calls,
        "one action per answer, and nothing ran after the user was asked"
    );
    assert!(page_seen(&page).contains("\"clicks\":0"));
}

fn interventions_are_answered_in_the_side_panel_with_attention_signals(extension: &Path) {
    let n = Counter::default();
    let llm = ScriptedLlm::start(move |req| {
        if role_of(req) == "planner" {
            return ScriptedReply::tool_call(
                "plan",
                json!({"questions": ["Which name exactly?", "Press Save afterwards?"],
                       "steps": [{"phase": "filling", "goal": "fill"},
                                 {"phase": "submitting", "goal": "save"}]}),
            );
        }
        if let Some(r) = role_reply(req) {
            return r;
        }
        let (name, save) = refs(req);
        let progress = |p: serde_json::Value| ("progress", p);
        match n.next() {
            0 => ScriptedReply::tool_calls([
                progress(json!({"evaluation": "Starting", "phase": "filling"})),
                ("type", json!({"ref": name, "text": "Ada"})),
            ]),
            1 => ScriptedReply::tool_calls([
                progress(json!({"evaluation": "Name entered", "phase": "submitting",
                                "sub_goal_done": "Name entered"})),
                ("click", json!({"ref": save})),
            ]),
            _ => ScriptedReply::tool_calls([
                progress(
                    json!({"evaluation": "It might be saved, I am not sure", "confidence": 0.4}),
                ),
                ("done", json!({"answer": "Saved the name Ada.", "success": true})),
            ]),
        }
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    // Sub-goal cards off: the model's sub-goal report then asks nothing.
    panel
        .page
        .eval("(() => { const b = document.querySelector('[data-setting=sub_goal]'); b.click(); return b.checked; })()")
        .expect("switch sub-goal cards off");
    panel.send(TASK).expect("send");

    assert_eq!(wait_card(&panel, "t === 'Before I start'"), "Before I start");
    let questions = panel.page.eval(
        "[...document.querySelectorAll('#intervention-questions li')].map(l => l.textContent)",
    );
    assert_eq!(
        questions.expect("questions"),
        json!(["Which name exactly?", "Press Save afterwards?"])
    );
    // The user is in another tab: badge, notification and sound.
    let worker = wm.attach_worker().expect("attach worker");
    assert_eq!(worker.eval("chrome.action.getBadgeText({})").expect("badge"), json!("!"));
    let notes = worker.eval("chrome.notifications.getAll().then(n => Object.keys(n))");
    assert_eq!(notes.expect("notifications"), json!(["waymark-intervention"]));
    let chimes = panel.page.wait_for("document.body.dataset.chimes", TASK_TIMEOUT);
    assert_eq!(chimes.expect("chime"), json!("1"));
    answer_card(&panel, "1. Ada 2. yes");

    assert_eq!(wait_card(&panel, "t.startsWith('Checkpoint')"), "Checkpoint: filling → submitting");
    answer_card(&panel, "");
    assert_eq!(wait_card(&panel, "t === 'Waymark is unsure'"), "Waymark is unsure");
    let doubt = panel.text("intervention-message").expect("doubt");
    assert!(doubt.contains("It might be saved"), "{doubt}");
    answer_card(&panel, "");
    assert_eq!(panel.answer().expect("answer"), "Saved the name Ada.");
    assert_eq!(worker.eval("chrome.action.getBadgeText({})").expect("badge"), json!(""));

    let requests = llm.requests();
    let navigator: Vec<String> =
        requests.iter().filter(|r| role_of(r) == "navigator").map(page_text).collect();
    assert!(navigator[0].contains("The user added: 1. Ada 2. yes"), "{}", navigator[0]);
    assert_eq!(navigator.len(), 3, "no card made the agent skip or repeat a step");
    assert_eq!(page_seen(&page), r#"[{"inputs":1,"changes":1,"clicks":1},"Saved: Ada"]"#);
    let stored = worker.eval("chrome.storage.local.get('settings:interventions')");
    assert_eq!(stored.expect("settings")["settings:interventions"]["sub_goal"], json!(false));
}

fn step_mode_take_over_pause_and_stop_from_the_side_panel(extension: &Path) {
    let n = Counter::default();
    let thinking = Gate::default();
    let held = thinking.clone();
    let llm = ScriptedLlm::start(move |req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let (name, save) = refs(req);
        match n.next() {
            0 => ScriptedReply::tool_call("type", json!({"ref": name, "text": "Ada"})),
            1 => ScriptedReply::tool_call("type", json!({"ref": name, "text": "Ada L"})),
            // Held until the test has pressed Pause while the model "thinks".
            2 => {
                held.wait();
                ScriptedReply::tool_calls([
                    ("type", json!({"ref": name, "text": "Ada Lovelace"})),
                    ("click", json!({"ref": save})),
                ])
            }
            _ => done("should not be reached: the user stopped"),
        }
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.page.eval("document.getElementById('step-mode').checked = true").expect("step mode");
    panel.send(TASK).expect("send");

    // Step mode: one step, then paused.
    panel
        .wait_text("task-progress", "t.startsWith('Paused · step 1')")
        .expect("paused after step 1");
    assert_eq!(panel.steps().expect("steps").len(), 1);
    click(&panel, "step");
    panel
        .wait_text("task-progress", "t.startsWith('Paused · step 2')")
        .expect("paused after step 2");
    assert_eq!(panel.steps().expect("steps").len(), 2);

    // Take over: the user edits the page; the agent learns about it when handed back.
    click(&panel, "take-over");
    panel.wait_text("task-progress", "t.startsWith('You have control')").expect("user has control");
    page.eval("document.getElementById('name').value = 'Ada (typed by the user)'")
        .expect("user types");
    click(&panel, "resume");

    // Pause while the model answers: the action in flight finishes and is reported, and the
    // loop holds at the next safe point (between the two actions of that answer).
    llm.wait_for_requests(4, TASK_TIMEOUT).expect("third navigator call");
    click(&panel, "pause");
    panel
        .wait_text("task-progress", "t.startsWith('Pausing after this action…')")
        .expect("the pause is taken while the model thinks");
    thinking.open();
    panel.wait_text("task-progress", "t.startsWith('Paused · step 3')").expect("paused in step 3");
    let steps = panel.steps().expect("steps");
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert!(steps[2].starts_with("Type “Ada Lovelace”"), "{steps:?}");
    click(&panel, "stop");
    let answer = panel.answer().expect("answer");
    assert!(answer.starts_with("Stopped by you after 3 steps"), "{answer}");
    assert_eq!(panel.steps().expect("steps").len(), 3, "nothing ran after Stop");
    assert_eq!(llm.requests().iter().filter(|r| role_of(r) == "navigator").count(), 3);
    let third = page_text(&llm.requests()[3]);
    assert!(third.contains("The user took over and may have changed the page"), "{third}");
    assert!(third.contains("value=\"Ada (typed by the user)\""), "{third}");
    assert_eq!(page_seen(&page), r#"[{"inputs":3,"changes":3,"clicks":0},"Not saved yet."]"#);
}

/// How long the model "thinks" in the Stop test: far longer than Stop may take.
const SLOW_MODEL_MS: u64 = 20_000;

/// Failure bound for the task to end once Stop is clicked during a model call (not a
/// benchmark: the call is dropped at once, so anything near this bound means it was not).
const STOP_BOUND: std::time::Duration = std::time::Duration::from_secs(1);

fn stop_during_a_slow_model_call_ends_the_task_at_once_and_cancels_the_call(extension: &Path) {
    let llm = ScriptedLlm::start(move |req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let (name, _) = refs(req);
        ScriptedReply::tool_call("type", json!({"ref": name, "text": "Ada"})).delayed(SLOW_MODEL_MS)
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.send(TASK).expect("send");

    // The planner answered; the navigator's call is now held by the "slow" model.
    let navigator = (1..)
        .find_map(|n| {
            let requests = llm.wait_for_requests(n, TASK_TIMEOUT).expect("model calls");
            requests.iter().find(|r| role_of(r) == "navigator").map(|r| r.index)
        })
        .expect("the navigator's call arrived");
    panel.wait_text("task-progress", "t.startsWith('Working')").expect("the task is running");

    let clicked = std::time::Instant::now();
    click(&panel, "stop");
    let heading = panel
        .page
        .wait_for(
            "(() => { const t = document.getElementById('task-progress').textContent; \
             return document.getElementById('task').dataset.running === 'false' && t; })()",
            STOP_BOUND,
        )
        .unwrap_or_else(|e| panic!("the task did not end within {STOP_BOUND:?} of Stop: {e:#}"));
    let took = clicked.elapsed();
    let heading = heading.as_str().unwrap_or_default().to_owned();
    assert!(heading.starts_with("Stopped after 1 step"), "{heading}");
    let answer = panel.answer().expect("answer");
    assert!(
        answer.starts_with("Stopped by you after 1 step while the model was answering"),
        "{answer}"
    );
    assert!(panel.steps().expect("steps").is_empty(), "nothing of the held answer ran");

    // The host dropped the upstream request (the extension sent llm.cancel): the model's
    // server saw the connection closed long before it would have answered.
    llm.wait_for_close(navigator, TASK_TIMEOUT).expect("the held call's connection was closed");
    let navigator_calls = llm.requests().iter().filter(|r| role_of(r) == "navigator").count();
    assert_eq!(navigator_calls, 1, "the cancelled call was not sent again");
    assert_eq!(page_seen(&page), r#"[{"inputs":0,"changes":0,"clicks":0},"Not saved yet."]"#);
    eprintln!("Stop to Stopped: {took:?}");
}

fn a_worker_killed_mid_task_resumes_from_the_last_completed_step(extension: &Path) {
    let n = Counter::default();
    let llm = ScriptedLlm::start(move |req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let (name, save) = refs(req);
        match n.next() {
            0 => ScriptedReply::tool_call("type", json!({"ref": name, "text": "Ada"})),
            // The worker is stopped while this reply is pending; it is never delivered.
            1 => ScriptedReply::tool_call("click", json!({"ref": save})).delayed(20_000),
            2 => ScriptedReply::tool_call("click", json!({"ref": save})),
            _ => done("Saved the name Ada."),
        }
    })
    .expect("scripted LLM");
    let wm = launch(extension, &llm);
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.send(TASK).expect("send");
    llm.wait_for_requests(3, TASK_TIMEOUT).expect("second navigator call in flight");
    let worker = wm.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    wm.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");

    // The panel reconnects, which starts the worker again; it resumes from its journal.
    let answer = panel.answer().expect("answer after the restart");
    assert_eq!(answer, "Saved the name Ada.");
    let notes = panel.page.eval("document.getElementById('notes').textContent").expect("notes");
    assert!(notes.as_str().unwrap_or_default().contains("resumed this task"), "{notes}");
    // Typed once (before the kill), clicked once (after): nothing was repeated.
    assert_eq!(page_seen(&page), r#"[{"inputs":1,"changes":1,"clicks":1},"Saved: Ada"]"#);
    let roles: Vec<&str> =
        llm.requests().iter().map(role_of).filter(|r| *r != "summariser").collect();
    assert_eq!(
        roles,
        ["planner", "navigator", "navigator", "navigator", "navigator", "validator"],
        "one plan only: the resumed task kept it"
    );
    let resumed = page_text(&llm.requests()[3]);
    assert!(resumed.contains("1. Type “Ada” into “Name”"), "{resumed}");
    let steps = panel.steps().expect("steps");
    assert_eq!(steps.len(), 2, "{steps:?}");
    let _ = &worker;
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(
            extension,
            multi_step_task_with_a_plan_recovers_from_bad_output_and_refuses_unknown_refs
        ),
        e2e!(extension, a_stuck_loop_is_nudged_replanned_and_then_the_user_is_asked),
        e2e!(extension, interventions_are_answered_in_the_side_panel_with_attention_signals),
        e2e!(extension, step_mode_take_over_pause_and_stop_from_the_side_panel),
        e2e!(extension, stop_during_a_slow_model_call_ends_the_task_at_once_and_cancels_the_call),
        e2e!(extension, a_worker_killed_mid_task_resumes_from_the_last_completed_step),
    ]
}
