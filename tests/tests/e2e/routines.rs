//! Routines end to end in real Chromium with the real extension and host: a saved workflow is
//! scheduled from the panel; its alarm (fired by the test through `chrome.alarms`, as the
//! browser fires it) runs it in a background tab without the model and without taking the
//! user's tab; the run's findings are compared with the previous run's and a Chrome
//! notification says when the price drops below the limit (only then); a routine whose
//! workflow is gone fails and says so once, not at every run. A card raised in a run waits for
//! the user, with a notification, and the run goes on once they approve it.

use crate::common;
use common::{Panel, Setup, TASK_TIMEOUT, Waymark, message_text, role_reply};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// The stored routines.
fn routines(worker: &waymark_tests::chromium::Page) -> Value {
    worker
        .eval("chrome.storage.local.get('routines').then((r) => r.routines ?? [])")
        .expect("routines")
}

/// Waits until the routine has `runs` runs in its stored history; the routine.
fn wait_runs(worker: &waymark_tests::chromium::Page, runs: usize) -> Value {
    let js = format!(
        "chrome.storage.local.get('routines').then((r) => {{ const x = (r.routines ?? [])[0]; \
         return x && x.history.length >= {runs} ? x : null; }})"
    );
    worker.wait_for(&js, TASK_TIMEOUT).unwrap_or_else(|e| panic!("waiting for {runs} runs: {e:#}"))
}

fn notifications(worker: &waymark_tests::chromium::Page) -> Value {
    worker.eval("chrome.notifications.getAll().then((n) => Object.keys(n))").expect("notes")
}

fn fire(worker: &waymark_tests::chromium::Page, id: &str) {
    let js =
        format!("chrome.alarms.create('routine:{id}', {{ when: Date.now() }}).then(() => true)");
    worker.eval(&js).expect("alarm");
}

/// Waymark with the fixture site and the host, its panel connected; the shop page's address.
fn launch(extension: &std::path::Path, llm: &ScriptedLlm) -> (Waymark, Panel, String) {
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let page_url = site.url("/routine/price.html");
    let wm = Waymark::launch(extension, Setup { llm, install_host: true, site }).expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    (wm, panel, page_url)
}

fn import(panel: &Panel, workflow: &Value) {
    panel.click("#workflows-open");
    panel.click("#workflow-import-box summary");
    panel.set_value("#workflow-import-json", &workflow.to_string());
    panel.click("#workflow-import");
    let name = workflow["name"].as_str().expect("name");
    panel.wait_text("workflows-notice", &format!("t.includes('{name}')")).expect("imported");
}

/// Schedules the first workflow of the list every day at 08:00 with this condition.
fn schedule(panel: &Panel, notify: &str, key: &str, limit: &str) {
    panel.click("#workflow-list li button[data-action=schedule]");
    let form = "#workflow-list li .routine-form";
    panel.wait_js(&format!(
        "(() => {{ const f = document.querySelector('{form}'); \
             f.querySelector('[id$=-notify]').value = '{notify}'; \
             f.querySelector('[id$=-key]').value = '{key}'; \
             f.querySelector('[id$=-limit]').value = '{limit}'; \
             f.requestSubmit(); return true; }})()"
    ));
    panel.wait_text("routines-notice", "t.includes('runs every day at 08:00')").expect("saved");
}

fn a_scheduled_workflow_runs_in_the_background_and_tells_when_the_price_drops(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        role_reply(req).unwrap_or_else(|| ScriptedReply::text("no model is needed here"))
    })
    .expect("scripted LLM");
    let (wm, panel, page_url) = launch(extension, &llm);
    let shop = wm.open("/routine/price.html").expect("the shop");

    // A workflow that reads the page, imported as a user would import one.
    let workflow = json!({
        "schema_version": 1, "id": "price", "name": "Teapot price", "task": "Read the teapot's price",
        "steps": [{"intent": "Read the price", "page": page_url, "action": {"do": "extract"}}],
    });
    import(&panel, &workflow);

    // Scheduled from the panel: every day at 08:00, tell me when the price drops below 40.
    schedule(&panel, "below", "page", "40");
    let shown = panel.wait_js("document.querySelector('#routine-list li')?.textContent");
    assert!(
        shown.to_string().contains("every day at 08:00 · tells you when page drops below 40"),
        "{shown}"
    );
    let worker = wm.attach_worker().expect("attach worker");
    let id = routines(&worker)[0]["id"].as_str().expect("id").to_owned();
    let alarm = worker
        .eval(&format!("chrome.alarms.get('routine:{id}').then((a) => a ? a.scheduledTime : 0)"))
        .expect("alarm");
    assert!(alarm.as_f64().unwrap_or(0.0) > 0.0, "the alarm is set: {alarm}");

    // The alarm fires: the run happens in a new background tab; the user's tab stays theirs.
    let active_before = worker
        .eval("chrome.tabs.query({active: true, lastFocusedWindow: true}).then((t) => t[0].id)")
        .expect("active");
    let calls_before = llm.requests().len();
    fire(&worker, &id);
    let first = wait_runs(&worker, 1);
    let run = &first["history"][0];
    assert_eq!(run["ending"], json!("done"), "{first}");
    assert_eq!(run["tokens"], json!(0), "a workflow replay calls no model: {first}");
    assert!(run["findings"]["page"].as_str().unwrap_or("").contains("45.00"), "{first}");
    let active_after = worker
        .eval("chrome.tabs.query({active: true, lastFocusedWindow: true}).then((t) => t[0].id)")
        .expect("active");
    assert_eq!(active_before, active_after, "the run never took the user's tab");
    let shop_tabs = worker
        .eval(&format!(
            "chrome.tabs.query({{}}).then((t) => t.filter((x) => x.url === '{page_url}').length)"
        ))
        .expect("tabs");
    assert_eq!(shop_tabs, json!(1), "only the user's own tab is left: the run closed its tab");
    let not_told = notifications(&worker);
    assert!(!not_told.to_string().contains(&id), "45 is not below 40: {not_told}");

    // The price drops: the next run tells the user, with what changed.
    shop.eval("localStorage.setItem('price', '39.99'); true").expect("price");
    fire(&worker, &id);
    let second = wait_runs(&worker, 2);
    assert_eq!(second["history"][1]["ending"], json!("done"), "{second}");
    let told = worker
        .wait_for(
            &format!("chrome.notifications.getAll().then((n) => n['routine:{id}'] ? Object.keys(n) : null)"),
            TASK_TIMEOUT,
        )
        .expect("the drop is told");
    assert!(told.to_string().contains(&format!("routine:{id}")), "told: {told}");
    let changes = second["history"][1]["changes"].to_string();
    assert!(changes.contains("45.00") && changes.contains("39.99"), "{changes}");
    assert_eq!(
        llm.requests().len() - calls_before,
        llm.requests().iter().skip(calls_before).filter(|r| role_reply(r).is_some()).count(),
        "no navigator call: the workflow replays without the model"
    );
    let listed = panel.wait_js("(() => { const t = document.querySelector('#routine-list .routine-runs')?.textContent ?? ''; return t.includes('39.99') ? t : null; })()",
    );
    assert!(listed.to_string().contains("done: page:"), "{listed}");
    // The routine list with its runs, as shown: a screenshot each theme, axe-core clean.
    panel.shoot_accessible("routines", Some("routines"));

    // Its workflow is deleted: the routine fails, says so once, then stays quiet.
    worker
        .eval(&format!("chrome.notifications.clear('routine:{id}').then(() => true)"))
        .expect("clear");
    panel.click("#workflow-list li button[data-action=delete]");
    panel.wait_js("!document.getElementById('workflow-confirm-delete').hidden");
    panel.click("#workflow-confirm-yes");
    panel.wait_text("workflows-notice", "t.includes('Deleted')").expect("deleted");
    fire(&worker, &id);
    let third = wait_runs(&worker, 3);
    assert_eq!(third["history"][2]["ending"], json!("failed"), "{third}");
    assert!(third["history"][2]["answer"].to_string().contains("no longer saved"), "{third}");
    worker
        .wait_for(
            &format!("chrome.notifications.getAll().then((n) => n['routine:{id}'] ? true : null)"),
            TASK_TIMEOUT,
        )
        .expect("the failure is told");
    worker
        .eval(&format!("chrome.notifications.clear('routine:{id}').then(() => true)"))
        .expect("clear");
    fire(&worker, &id);
    wait_runs(&worker, 4);
    assert!(!notifications(&worker).to_string().contains(&id), "told once, not at every run");
    llm.assert_no_script_panics().expect("script ok");
}

fn a_card_in_a_run_waits_for_the_user_with_a_notification(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        role_reply(req).unwrap_or_else(|| ScriptedReply::text("no model is needed here"))
    })
    .expect("scripted LLM");
    let (wm, panel, page_url) = launch(extension, &llm);
    // An imported workflow's first run asks about each step it does: a card in the run.
    let workflow = json!({
        "schema_version": 1, "id": "watch", "name": "Watch the teapot", "task": "Watch the price",
        "steps": [{"intent": "Start watching", "page": page_url, "action": {"do": "click"},
                   "target": {"role": "button", "name": "Watch the price", "heading": "Teapot"}}],
    });
    import(&panel, &workflow);
    schedule(&panel, "every_run", "", "");
    let worker = wm.attach_worker().expect("attach worker");
    let id = routines(&worker)[0]["id"].as_str().expect("id").to_owned();
    fire(&worker, &id);

    // The run waits at the card, and the user is told.
    worker
        .wait_for(
            "chrome.notifications.getAll().then((n) => n['waymark-intervention'] ? true : null)",
            TASK_TIMEOUT,
        )
        .unwrap_or_else(|e| panic!("the card is told: {e:#}; routines: {}", routines(&worker)));
    assert!(routines(&worker)[0]["history"].as_array().expect("history").is_empty(), "waiting");
    let run_tab = format!(
        "chrome.tabs.query({{}}).then((t) => t.filter((x) => x.url === '{page_url}').map((x) => x.active))"
    );
    assert_eq!(worker.eval(&run_tab).expect("tabs"), json!([false]), "a tab that never took focus");
    let card = panel.approve_card().expect("the card waits in the panel");
    assert!(card.contains("Watch the price"), "{card}");
    let done = wait_runs(&worker, 1);
    assert_eq!(done["history"][0]["ending"], json!("done"), "{done}");
    let left = worker
        .wait_for(&format!("{run_tab}.then((t) => t.length === 0 ? 'closed' : null)"), TASK_TIMEOUT)
        .expect("the run's tab is closed once it ended");
    assert_eq!(left, json!("closed"));
    llm.assert_no_script_panics().expect("script ok");
}

fn a_task_in_words_runs_on_schedule_with_the_model_on_its_start_page(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(reply) = role_reply(req) {
            return reply;
        }
        if message_text(&req.body, 1).contains("Extract the page's text") {
            ScriptedReply::tool_call(
                "done",
                json!({"answer": "The teapot costs €45.00.", "success": true}),
            )
        } else {
            ScriptedReply::tool_call("extract", json!({}))
        }
    })
    .expect("scripted LLM");
    let (wm, panel, page_url) = launch(extension, &llm);
    panel.click("#workflows-open");
    panel.click("#routine-task-box summary");
    panel.set_value("#routine-task-prompt", "Read the teapot's price");
    panel.set_value("#routine-task-url", &page_url);
    panel.set_value("#routine-task-every", "weekday");
    panel.wait_js(
        "(() => { document.getElementById('routine-task-form').requestSubmit(); return true; })()",
    );
    panel.wait_text("routines-notice", "t.includes('runs on weekdays at 08:00')").expect("saved");
    let worker = wm.attach_worker().expect("attach worker");
    let id = routines(&worker)[0]["id"].as_str().expect("id").to_owned();
    fire(&worker, &id);
    let done = wait_runs(&worker, 1);
    let run = &done["history"][0];
    assert_eq!(run["ending"], json!("done"), "{done}");
    assert!(run["answer"].to_string().contains("€45.00"), "{done}");
    assert!(run["findings"]["page"].as_str().unwrap_or("").contains("45.00"), "{done}");
    assert!(run["tokens"].as_u64().unwrap_or(0) > 0, "the model's tokens are counted: {done}");
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, a_scheduled_workflow_runs_in_the_background_and_tells_when_the_price_drops),
        e2e!(extension, a_card_in_a_run_waits_for_the_user_with_a_notification),
        e2e!(extension, a_task_in_words_runs_on_schedule_with_the_model_on_its_start_page),
    ]
}
