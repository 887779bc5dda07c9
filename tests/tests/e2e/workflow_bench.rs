//! `cargo xtask bench workflow`: a task done live with the model against the same task replayed
//! as a saved workflow, in Chromium with the built extension and host. The scripted model
//! answers every call after a realistic 1.5 s (`ScriptedReply::delayed`); the task fills the
//! fixture shop's order form (a name, a date, a select, a checkbox), goes on to the review page
//! and reads it back (six actions over two pages, no card). Wall time is from the user's
//! Send (or Run) to the answer shown in the side panel. Ignored in normal runs: numbers, never
//! assertions about speed.

use crate::common;
use common::{
    Panel, Setup, TASK_TIMEOUT, Waymark, find_ref, is_summary_call, message_text, role_reply,
};
use serde_json::json;
use std::path::Path;
use std::time::Instant;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// What each model call costs in time.
const MODEL_MS: u64 = 1500;
/// Live runs measured.
const LIVE_RUNS: usize = 3;
/// Replays measured.
const REPLAYS: usize = 5;

const TASK: &str = "Order a teapot for Ada Lovelace, delivered 2026-03-14, with Express shipping and gift wrap, then read me the review";

fn model(req: &RecordedRequest) -> ScriptedReply {
    let reply = role_reply(req).unwrap_or_else(|| navigator(req));
    reply.delayed(MODEL_MS)
}

fn navigator(req: &RecordedRequest) -> ScriptedReply {
    let text = message_text(&req.body, 1);
    if text.contains("Review your order") {
        return if text.contains("<step_output") {
            ScriptedReply::tool_call(
                "done",
                json!({"answer": "Read the review: Ada Lovelace, Express, gift wrapped.", "success": true}),
            )
        } else {
            ScriptedReply::tool_call("extract", json!({}))
        };
    }
    let refs = (
        find_ref(&text, "textbox", "Full name"),
        find_ref(&text, "textbox", "Delivery date"),
        find_ref(&text, "combobox", "Shipping"),
        find_ref(&text, "checkbox", "Gift wrap"),
        find_ref(&text, "button", "Continue"),
    );
    let (Some(name), Some(date), Some(shipping), Some(gift), Some(go)) = refs else {
        return ScriptedReply::tool_call("done", json!({"answer": "lost", "success": false}));
    };
    ScriptedReply::tool_calls([
        ("type", json!({"ref": name, "text": "Ada Lovelace"})),
        ("type", json!({"ref": date, "text": "2026-03-14"})),
        ("select_option", json!({"ref": shipping, "option": "Express"})),
        ("check", json!({"ref": gift})),
        ("click", json!({"ref": go})),
    ])
}

fn wait_js(panel: &Panel, js: &str) {
    panel.page.wait_for(js, TASK_TIMEOUT).unwrap_or_else(|e| panic!("waiting for {js}: {e:#}"));
}

fn click(panel: &Panel, selector: &str) {
    let js = format!(
        "(() => {{ const b = document.querySelector({}); if (!b || b.hidden) return false; b.click(); return true; }})()",
        serde_json::to_string(selector).expect("json")
    );
    wait_js(panel, &js);
}

/// The number of tasks the session lists.
fn turns(panel: &Panel) -> u64 {
    panel
        .page
        .eval("document.querySelectorAll('#toc li').length")
        .ok()
        .and_then(|v| v.as_u64())
        .unwrap_or(0)
}

/// Waits until the task started after `turns` tasks is recorded and its answer (containing
/// `expect`) is shown; returns the answer.
fn wait_answer(panel: &Panel, expect: &str, turns: u64) -> String {
    let predicate = format!(
        "t.includes({}) && document.querySelectorAll('#toc li').length > {turns}",
        serde_json::to_string(expect).expect("json"),
    );
    panel.wait_text("answer", &predicate).expect("answer")
}

fn task_calls(llm: &ScriptedLlm) -> usize {
    llm.requests().iter().filter(|r| !is_summary_call(r)).count()
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bench_workflow_replay_against_the_live_run(extension: &Path) {
    let llm = ScriptedLlm::start(model).expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");

    let mut live = Vec::new();
    let mut live_calls = Vec::new();
    for _ in 0..LIVE_RUNS {
        let _tab = wm.open("/wf/order.html").expect("shop");
        let calls = task_calls(&llm);
        let before = turns(&panel);
        let started = Instant::now();
        panel.send(TASK).expect("send");
        wait_answer(&panel, "Read the review", before);
        live.push(started.elapsed().as_secs_f64() * 1000.0);
        live_calls.push(task_calls(&llm) - calls);
    }
    click(&panel, "#save-workflow");
    wait_js(&panel, "!document.getElementById('workflow-editor').hidden");
    click(&panel, "#workflow-save");
    wait_js(&panel, "document.querySelectorAll('#workflow-list li').length === 1");
    click(&panel, "#workflows-close");

    let mut replay = Vec::new();
    let mut replay_calls = Vec::new();
    let mut steps = 0;
    for _ in 0..REPLAYS {
        let _tab = wm.open("/wf/order.html").expect("shop");
        click(&panel, "#workflows-open");
        click(&panel, "#workflow-list li button[data-action=run]");
        let calls = llm.request_count();
        let before = turns(&panel);
        let started = Instant::now();
        click(&panel, "#workflow-list li .run-form button[type=submit]");
        let answer = wait_answer(&panel, "Ran the workflow", before);
        replay.push(started.elapsed().as_secs_f64() * 1000.0);
        replay_calls.push(llm.request_count() - calls);
        steps = panel.steps().expect("steps").len();
        assert!(
            answer.contains("Ada Lovelace, delivery 2026-03-14, Express shipping, gift wrapped"),
            "{answer}"
        );
    }
    let (l, r) = (median(&live), median(&replay));
    println!("\n## Workflow replay vs the live run (model latency {MODEL_MS} ms per call)\n");
    println!("| run | runs | actions | model calls | wall time median (ms) | min | max |");
    println!("|---|---|---|---|---|---|---|");
    let max = |v: &[f64]| v.iter().copied().fold(f64::MIN, f64::max);
    let min = |v: &[f64]| v.iter().copied().fold(f64::MAX, f64::min);
    println!(
        "| live, with the model | {LIVE_RUNS} | 6 | {} | {l:.0} | {:.0} | {:.0} |",
        live_calls[0],
        min(&live),
        max(&live)
    );
    println!(
        "| workflow replay | {REPLAYS} | {steps} | {} | {r:.0} | {:.0} | {:.0} |",
        replay_calls.iter().max().unwrap_or(&0),
        min(&replay),
        max(&replay)
    );
    println!(
        "\nreplay is {:.1}× faster than the live run; model calls {} → {}",
        l / r,
        live_calls[0],
        replay_calls.iter().max().unwrap_or(&0)
    );
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, bench_workflow_replay_against_the_live_run).only_when_asked()]
}
