//! The live task view shows the model's text as it streams in: the scripted LLM streams a
//! reply's words slowly, and the side panel shows them, growing, before the step's actions run;
//! once the call ends the text goes away and the step list takes over.
//!
//! A screenshot of the streaming state goes to `target/screenshots/panel/` (git-ignored).

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark, message_text};
use common::{fill_the_form, role_reply};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{LlmServerOptions, RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const TASK: &str = "Fill in the name Ada and save the form";

/// The words the navigator streams before its first actions (fewer than the panel's 600
/// characters, so every state shown is a prefix of it).
const THINKING: &str = "Reading the form first. I will type the name Ada into the Name box \
                        and then press Save so that the page stores it.";

/// Fills and saves with a few words of reasoning first, then reports once the page says so.
fn thinking_form_filler(req: &RecordedRequest) -> ScriptedReply {
    if let Some(reply) = role_reply(req) {
        return reply;
    }
    let reply = fill_the_form(req, "Saved Ada.");
    if message_text(&req.body, 1).contains("Saved: Ada") {
        reply
    } else {
        reply.with_text(THINKING)
    }
}

/// Records, in the panel page, every state the task view shows (the live text if visible,
/// its `aria-live`, the number of steps, whether the answer is shown), once per DOM update:
/// a `MutationObserver` sees each update as it happens, so none is missed between two looks
/// and nothing is sampled on a timer.
const RECORD_STATES: &str = "(() => { \
    const state = () => { const l = document.getElementById('live-text'); \
      const a = document.getElementById('answer'); \
      return { live: l.hidden ? null : l.textContent, live_attr: l.getAttribute('aria-live'), \
               steps: document.querySelectorAll('#steps li').length, answered: !a.hidden }; }; \
    window.__states = [state()]; \
    const note = () => { const s = state(); const last = window.__states[window.__states.length - 1]; \
      if (JSON.stringify(s) !== JSON.stringify(last)) window.__states.push(s); }; \
    new MutationObserver(note).observe(document.body, \
      { subtree: true, childList: true, characterData: true, attributes: true }); \
    return true; })()";

fn streamed_model_text_shows_in_the_live_view_before_the_step_runs(extension: &Path) {
    // Slow chunks: the reasoning takes a few seconds to stream, word by word.
    let options = LlmServerOptions { chunk_delay: Duration::from_millis(150) };
    let llm = ScriptedLlm::start_with(options, thinking_form_filler).expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let _page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("open panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");

    // Every state the panel shows from now on is recorded by the page itself.
    panel.page.eval(RECORD_STATES).expect("record the panel's states");
    panel.send(TASK).expect("send task");

    // A screenshot of the streaming state, once the text is long enough to show.
    let streaming = panel
        .page
        .wait_for(
            "(() => { const l = document.getElementById('live-text'); \
             return !document.getElementById('answer').hidden || (!l.hidden && \
               l.textContent.length > 40 && !document.querySelector('#steps li')); })()",
            TASK_TIMEOUT,
        )
        .is_ok_and(|_| panel.text("live-text").is_ok_and(|t| t.len() > 40));
    if streaming {
        let dir = paths::target_dir().join("screenshots").join("panel");
        #[allow(
            clippy::let_underscore_must_use,
            reason = "a screenshot is for people; the test does not depend on it"
        )]
        let _ = panel.page.screenshot(dir.join("live-text.png"));
    }
    assert_eq!(panel.answer().expect("answer"), "Saved Ada.");
    let states = panel.page.eval("window.__states").expect("recorded states");
    let states = states.as_array().cloned().unwrap_or_default();
    let mut seen_before_steps: Vec<String> = Vec::new();
    for s in &states {
        assert_eq!(s["live_attr"], "off", "the step list announces, not the streaming text");
        if let Some(live) = s["live"].as_str()
            && s["steps"] == 0
            && seen_before_steps.last().map(String::as_str) != Some(live)
        {
            seen_before_steps.push(live.to_owned());
        }
    }
    let last = states.last().cloned().unwrap_or_default();
    assert_eq!(last["answered"], true, "{last}");

    // The words appeared while the model was still writing: several growing prefixes of its
    // text, before any step ran.
    assert!(seen_before_steps.len() >= 2, "live text seen: {seen_before_steps:?}");
    for live in &seen_before_steps {
        assert!(!live.is_empty() && THINKING.starts_with(live.as_str()), "{live:?}");
    }
    assert!(seen_before_steps.windows(2).all(|w| w[1].starts_with(w[0].as_str())));
    assert!(seen_before_steps[0].len() < THINKING.len(), "{seen_before_steps:?}");
    // Once the task is done the live text is gone and the steps and answer remain.
    assert_eq!(last["live"], Value::Null, "{last}");
    assert_eq!(panel.text("live-text").expect("live text"), "");
    assert_eq!(panel.answer().expect("answer"), "Saved Ada.");
    let steps = panel.steps().expect("steps");
    assert_eq!(steps.len(), 2, "{steps:?}");
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, streamed_model_text_shows_in_the_live_view_before_the_step_runs)]
}
