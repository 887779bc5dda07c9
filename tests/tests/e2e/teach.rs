//! Teach by showing, end to end in real Chromium with the real extension and host: the user
//! presses Record in the panel and does a sign-up themselves with real input (CDP mouse and
//! keyboard events, which the page sees as trusted): an address typed in the address bar, a
//! name, an email, a choice, a note in an editor, a password, a checkbox and the Join button. Stop opens the editor
//! with the steps and inputs named after their fields; the password was never read, and its
//! step is the user's own at each run. The saved workflow replays with other values and no
//! model call, hands the page over for the password, and its form post needs no card because
//! the demonstration made the same one. Events a page script makes are never recorded.

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::chromium::Page;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const PASSWORD: &str = "hunter2-shown";

/// Waits until the page has loaded `path` and is complete.
fn wait_at(page: &Page, path: &str) {
    let js = format!("location.pathname === '{path}' && document.readyState === 'complete'");
    page.wait_for(&js, TASK_TIMEOUT).unwrap_or_else(|e| panic!("waiting for {path}: {e:#}"));
}

fn recorded_steps(panel: &common::Panel) -> Vec<String> {
    let steps = panel
        .page
        .eval("[...document.querySelectorAll('#recording-steps li')].map((li) => li.textContent)")
        .expect("steps");
    serde_json::from_value(steps).expect("step list")
}

/// Waits until the panel lists `n` recorded steps.
fn wait_steps(panel: &common::Panel, n: usize) -> Vec<String> {
    let js = format!("document.querySelectorAll('#recording-steps li').length >= {n}");
    if let Err(e) = panel.page.wait_for(&js, TASK_TIMEOUT) {
        panic!("waiting for {n} recorded steps (have {:#?}): {e:#}", recorded_steps(panel));
    }
    recorded_steps(panel)
}

fn a_sign_up_shown_with_real_input_becomes_a_workflow_that_replays_without_the_model(
    extension: &Path,
) {
    let llm = ScriptedLlm::start(|_| ScriptedReply::text("no model is needed here")).expect("llm");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    let page = wm.open("/teach/start.html").expect("start page");
    wait_at(&page, "/teach/start.html");
    page.call("Page.bringToFront", json!({})).expect("the page is the user's tab");

    panel.click("#workflows-open");
    panel.click("#record-start");
    panel.wait_text("recording-status", "t.includes('Recording')").expect("recording");
    page.call("Page.bringToFront", json!({})).expect("back to the page");

    // The address typed in the address bar.
    let signup = wm.site.url("/teach/signup.html");
    page.call("Page.navigate", json!({"url": signup, "transitionType": "typed"})).expect("typed");
    wait_at(&page, "/teach/signup.html");
    wait_steps(&panel, 1);
    // As a person would, the test waits until the panel says the new page is being recorded.
    panel.wait_text("recording-status", "!t.includes('wait for the page')").expect("armed");
    // A page script's own events are never the user's.
    page.eval(
        "document.getElementById('terms').click(); \
         document.getElementById('full').value = 'Mallory'; \
         document.getElementById('full').dispatchEvent(new Event('change', {bubbles: true})); \
         const note = document.getElementById('note'); note.focus(); note.innerText = 'spam'; \
         note.blur(); note.innerText = ''; true",
    )
    .expect("scripted events");
    page.eval(
        "document.getElementById('terms').checked = false; \
         document.getElementById('full').value = ''; true",
    )
    .expect("reset");
    page.click("#full").expect("click the name");
    page.insert_text("Ada Lovelace").expect("type the name");
    page.click("#email").expect("click the email");
    page.insert_text("ada@example.com").expect("type the email");
    page.focus("#topic").expect("focus the topic");
    page.press_key("ArrowDown").expect("choose Poetry");
    // An editor (`contenteditable`): its text counts when focus leaves it.
    page.click("#note").expect("click the note");
    page.insert_text("Hello from Ada").expect("type the note");
    page.click("#pw").expect("click the password");
    page.insert_text(PASSWORD).expect("type the password");
    page.click("#terms").expect("tick the rules");
    page.click("#join").expect("join");
    let joined = wm.site.wait_posts("/teach/joined", 1, TASK_TIMEOUT).expect("the sign-up");
    assert_eq!(joined.len(), 1, "the demonstration signed up once");
    let steps = wait_steps(&panel, 8);
    assert_eq!(steps.len(), 8, "{steps:#?}");
    assert!(
        steps[0].starts_with("Go to ") && steps[0].contains("/teach/signup.html"),
        "{steps:#?}"
    );
    assert!(steps[1].contains("“Ada Lovelace”") && steps[1].contains("Full name"), "{steps:#?}");
    assert!(steps[3].contains("“Poetry”") && steps[3].contains("Topic"), "{steps:#?}");
    assert!(
        steps[4].contains("“Hello from Ada”") && steps[4].contains("A note to the club"),
        "{steps:#?}"
    );
    assert!(steps[5].starts_with("You type your password into textbox “Password”"), "{steps:#?}");
    assert!(!steps.iter().any(|s| s.contains(PASSWORD)), "{steps:#?}");
    assert!(steps[6].starts_with("Check ") && steps[6].contains("club rules"), "{steps:#?}");
    assert!(steps[7].starts_with("Click ") && steps[7].contains("Join"), "{steps:#?}");

    panel.shoot_accessible("recording", Some("recording"));
    panel.click("#record-stop");
    panel.wait_text("workflow-editor-heading", "t.includes('what you showed')").expect("editor");
    panel.shoot_accessible("recording-editor", Some("workflow-editor"));
    let params = panel
        .page
        .eval("[...document.querySelectorAll('#workflow-params .param-name')].map((i) => i.value)")
        .expect("inputs");
    assert_eq!(params, json!(["full_name", "email", "topic", "a_note_to_the_club"]));
    panel.set_value("#workflow-name", "Join the club");
    panel.click("#workflow-save");
    panel.wait_text("workflows-notice", "t.includes('Saved “Join the club”')").expect("saved");

    // Nothing Waymark stored holds the password.
    let worker = wm.attach_worker().expect("worker");
    let stored = worker.eval("chrome.storage.local.get(null).then((all) => JSON.stringify(all))");
    let stored = stored.expect("storage").as_str().unwrap_or_default().to_owned();
    assert!(!stored.contains(PASSWORD), "the password reached storage");
    assert!(stored.contains("Join the club"), "the workflow is stored");

    // Run with other values (and the password, asked at the run).
    page.call("Page.bringToFront", json!({})).expect("the page is the user's tab");
    let before = llm.request_count();
    panel.click("#workflow-list li button[data-action=run]");
    for (name, value) in [
        ("full_name", "Grace Hopper"),
        ("email", "grace@example.com"),
        ("a_note_to_the_club", "Hello from Grace"),
    ] {
        panel.set_value(&format!("#workflow-list li .run-form input[name={name}]"), value);
    }
    panel.click("#workflow-list li .run-form button[type=submit]");
    // The password is the user's: the run hands the page over at that step.
    let card = panel
        .page
        .wait_for(
            "(() => { const c = document.getElementById('intervention'); \
             return !c.hidden && c.dataset.kind === 'take_over' && \
               document.getElementById('intervention-message').textContent; })()",
            TASK_TIMEOUT,
        )
        .expect("the hand-over card");
    let card = card.as_str().unwrap_or_default().to_owned();
    assert!(card.contains("type your password into textbox “Password”"), "{card}");
    page.call("Page.bringToFront", json!({})).expect("the user takes the tab");
    page.click("#pw").expect("click the password");
    page.insert_text("s3cret-run").expect("type the password");
    panel.click("#intervention-send");
    let answer = panel.answer().unwrap_or_else(|e| {
        let shown = panel
            .page
            .eval(
                "JSON.stringify({progress: document.getElementById('task-progress')?.textContent, \
                 steps: [...document.querySelectorAll('#steps li')].map((li) => li.textContent), \
                 card: document.getElementById('intervention').hidden ? null : \
                   document.getElementById('intervention-message').textContent, \
                 error: document.getElementById('workflows-error').textContent})",
            )
            .unwrap_or_default();
        panic!("the run did not end ({shown}): {e:#}")
    });
    assert!(answer.starts_with("Ran the workflow"), "{answer}");
    let bodies = wm.site.wait_posts("/teach/joined", 2, TASK_TIMEOUT).expect("the run's sign-up");
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    let run = &bodies[1];
    for part in [
        "full=Grace+Hopper",
        "email=grace%40example.com",
        "topic=Poetry",
        "pw=s3cret-run",
        "terms=yes",
    ] {
        assert!(run.contains(part), "{part} in {run}");
    }
    assert_eq!(llm.request_count(), before, "no model call in the run");
    let card: Value =
        panel.page.eval("document.getElementById('intervention').hidden").expect("card");
    assert_eq!(card, json!(true), "the sign-up the demonstration made needs no card");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(
        extension,
        a_sign_up_shown_with_real_input_becomes_a_workflow_that_replays_without_the_model
    )]
}
