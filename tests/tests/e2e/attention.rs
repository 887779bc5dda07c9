//! The attention sound when the agent needs the user and no side panel is open: an offscreen
//! document (reason AUDIO_PLAYBACK) plays it, and only when the Sound setting is on. (With the
//! panel open, the panel plays it: `agent.rs::interventions_are_answered_in_the_side_panel_…`.)

use crate::common;
use common::{Gate, Panel, Setup, TASK_TIMEOUT, Waymark, role_of, role_reply};
use serde_json::json;
use std::path::Path;
use waymark_tests::chromium::TargetInfo;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

fn is_offscreen(t: &TargetInfo) -> bool {
    t.url.ends_with("/offscreen.html")
}

/// Sends `task`, closes the panel while the planner "thinks" (held at `planner`), and waits
/// for the question card to open (seen through the badge the worker sets).
fn question_with_the_panel_closed(
    wm: &Waymark,
    llm: &ScriptedLlm,
    planner: &Gate,
    panel: Panel,
    task: &str,
) {
    let before = llm.request_count();
    panel.send(task).expect("send");
    let mut n = before + 1;
    while !llm
        .wait_for_requests(n, TASK_TIMEOUT)
        .expect("requests")
        .iter()
        .skip(before)
        .any(|r| role_of(r) == "planner")
    {
        n += 1;
    }
    wm.browser.close_target(panel.page.target_id()).expect("close the panel");
    let sw = wm.attach_worker().expect("attach worker");
    sw.wait_for(
        "chrome.runtime.getContexts({}).then((all) => \
           !all.some((c) => (c.documentUrl || '').endsWith('/sidepanel.html')))",
        TASK_TIMEOUT,
    )
    .expect("the panel is gone");
    planner.open();
    sw.wait_for("chrome.action.getBadgeText({}).then((t) => t === '!')", TASK_TIMEOUT)
        .expect("the question card opened (badge)");
    sw.detach().expect("detach");
}

/// Reopens the panel and answers the open card; the task then finishes.
fn answer_in_a_new_panel(wm: &Waymark, expect: &str) -> Panel {
    let panel = wm.panel().expect("panel");
    panel
        .page
        .wait_for("!document.getElementById('intervention').hidden", TASK_TIMEOUT)
        .expect("card shown");
    panel.page.eval("document.getElementById('intervention-send').click()").expect("answer");
    panel.wait_text("answer", &format!("t === {}", json!(expect))).expect("task finished");
    panel
}

/// Whether a CDP event announces the offscreen document (its URL may arrive only with a later
/// `targetInfoChanged`).
fn offscreen_created(e: &waymark_tests::cdp::CdpEvent) -> bool {
    matches!(e.method.as_str(), "Target.targetCreated" | "Target.targetInfoChanged")
        && e.params["targetInfo"]["url"].as_str().is_some_and(|u| u.ends_with("/offscreen.html"))
}

/// How many distinct offscreen documents the events announce.
fn documents(events: &[waymark_tests::cdp::CdpEvent]) -> usize {
    let ids: std::collections::HashSet<&str> =
        events.iter().filter_map(|e| e.params["targetInfo"]["targetId"].as_str()).collect();
    ids.len()
}

fn an_offscreen_document_plays_the_sound_when_no_panel_is_open_and_sound_is_on(extension: &Path) {
    let finished = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = finished.clone();
    let planner = Gate::default();
    let held = planner.clone();
    let llm = ScriptedLlm::start(move |req| {
        if role_of(req) == "planner" {
            held.wait();
            return ScriptedReply::tool_call(
                "plan",
                json!({"questions": ["Which name exactly?"],
                       "steps": [{"phase": "working", "goal": "do it"}]}),
            );
        }
        if let Some(r) = role_reply(req) {
            return r;
        }
        let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        ScriptedReply::tool_call("done", json!({"answer": format!("Done {n}."), "success": true}))
    })
    .expect("scripted LLM");
    let site = FixtureServer::start(paths::fixtures_dir().join("site")).expect("fixture server");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    // Every target created from now on is recorded, however briefly it lives.
    wm.browser.call("Target.setDiscoverTargets", json!({"discover": true})).expect("discover");
    let _page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");

    // Sound on (the default): the card opens with no panel to play it, so the offscreen
    // document does, and it goes away once the card is answered.
    question_with_the_panel_closed(&wm, &llm, &planner, panel, "first task");
    let offscreen = wm.browser.wait_for_target(is_offscreen, TASK_TIMEOUT).expect("offscreen");
    let doc = wm.browser.attach(&offscreen.target_id).expect("attach offscreen");
    doc.wait_for("document.body.dataset.chimed === '1'", TASK_TIMEOUT).expect("tone started");
    doc.detach().expect("detach");
    let panel = answer_in_a_new_panel(&wm, "Done 1.");
    wm.browser
        .cdp()
        .wait_event(TASK_TIMEOUT, |e| {
            e.method == "Target.targetDestroyed"
                && e.params["targetId"].as_str() == Some(offscreen.target_id.as_str())
        })
        .expect("the offscreen document closes when the card is answered");
    assert!(!wm.browser.targets().expect("targets").iter().any(is_offscreen));
    let created = wm.browser.cdp().drain_events(offscreen_created);
    assert_eq!(documents(&created), 1, "one sound for one card: {created:?}");

    // Sound off: the same card with no panel open creates no offscreen document at all
    // (the badge still shows).
    panel
        .page
        .eval("document.querySelector('[data-setting=sound]').click()")
        .expect("switch the sound off");
    panel
        .page
        .wait_for("document.querySelector('[data-setting=sound]').checked === false", TASK_TIMEOUT)
        .expect("setting applied");
    question_with_the_panel_closed(&wm, &llm, &planner, panel, "second task");
    let panel = answer_in_a_new_panel(&wm, "Done 2.");
    assert!(
        wm.browser.cdp().events(offscreen_created).is_empty(),
        "no offscreen document with the sound off"
    );
    drop(panel);
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(
        extension,
        an_offscreen_document_plays_the_sound_when_no_panel_is_open_and_sound_is_on
    )]
}
