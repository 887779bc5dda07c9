//! Benchmark (run by `cargo xtask bench step`, ignored in normal test runs): one agent step in
//! real Chromium — from the navigator's reply received to the next observation ready — on the
//! fixture form, with the built extension (optimised wasm). Steps alternate between typing two
//! or three characters into the Name field and clicking Save (the page changes), reported
//! apart: each includes the wait for the page to settle, and what of it was Waymark's own work.

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark, find_ref, message_text, role_reply};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// Navigator steps per task: enough samples per task, under the default budget of 25.
const STEPS_PER_TASK: usize = 20;
/// Tasks run one after the other in the same browser.
const TASKS: usize = 3;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// `WAYMARK_EXTENSION_DIR=<an earlier build>` measures that build (before/after figures).
fn bench_step_overhead_in_chromium(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let page = message_text(&req.body, 1);
        // Lines of "Steps so far" (the shared context repeats them indented).
        let ok_steps = page
            .lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains("→ ok"))
            .count();
        let done = ok_steps >= STEPS_PER_TASK;
        if done {
            return ScriptedReply::tool_call("done", json!({"answer": "done", "success": true}));
        }
        // Even steps type, odd steps click (the samples are read back in that order).
        if ok_steps % 2 == 1 {
            let save = find_ref(&page, "button", "Save").expect("Save button");
            return ScriptedReply::tool_call("click", json!({"ref": save}));
        }
        let name = find_ref(&page, "textbox", "Name").expect("Name field");
        let text = format!("v{}", req.index % 100);
        ScriptedReply::tool_call("type", json!({"ref": name, "text": text}))
    })
    .expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let _page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    // A second port from the panel page records every state the worker sends.
    panel
        .page
        .eval(
            "(() => { const p = chrome.runtime.connect({ name: 'panel' }); \
             p.onMessage.addListener((s) => { window.__benchState = s; }); return true; })()",
        )
        .expect("listen");
    let mut samples: Vec<f64> = Vec::new();
    let mut own: Vec<f64> = Vec::new();
    let (mut typing, mut clicking) = (Vec::new(), Vec::new());
    for task in 0..TASKS {
        panel.send(&format!("Benchmark task {task}: type into the Name field")).expect("send");
        panel
            .page
            .wait_for(
                &format!(
                    "window.__benchState?.task?.prompt?.startsWith('Benchmark task {task}') \
                     && window.__benchState.task.running === false"
                ),
                TASK_TIMEOUT,
            )
            .expect("task finished");
        let state: Value = panel.page.eval("window.__benchState").expect("state");
        let task_samples: Vec<f64> = state["task"]["overhead_ms"]
            .as_array()
            .expect("overhead samples")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        let page: Vec<f64> = state["task"]["overhead_page_ms"]
            .as_array()
            .expect("page samples")
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        assert!(task_samples.len() >= STEPS_PER_TASK - 3, "{state}");
        own.extend(task_samples.iter().zip(&page).map(|(all, page)| all - page));
        for (i, ms) in task_samples.iter().enumerate() {
            if i % 2 == 0 { typing.push(*ms) } else { clicking.push(*ms) }
        }
        samples.extend(task_samples);
    }
    samples.sort_by(f64::total_cmp);
    own.sort_by(f64::total_cmp);
    typing.sort_by(f64::total_cmp);
    clicking.sort_by(f64::total_cmp);
    for (what, set, target) in [
        ("type 2–3 characters, then observe", &typing, 100.0),
        ("click Save (the page changes), then observe", &clicking, 120.0),
    ] {
        println!(
            "BENCH step: {what}: n={} median={:.1} ms p90={:.1} ms min={:.1} ms max={:.1} ms \
             (target: median ≤ {target:.0} ms)",
            set.len(),
            percentile(set, 0.5),
            percentile(set, 0.9),
            set[0],
            set[set.len() - 1],
        );
    }
    let median = percentile(&samples, 0.5);
    println!(
        "BENCH step overhead in Chromium (reply received → next observation ready): n={} \
         median={median:.2} ms p90={:.2} ms min={:.2} ms max={:.2} ms (target: median < 20 ms)",
        samples.len(),
        percentile(&samples, 0.9),
        samples[0],
        samples[samples.len() - 1],
    );
    println!(
        "BENCH of which outside the page calls (loop logic, journal writes, panel updates): \
         median={:.2} ms p90={:.2} ms",
        percentile(&own, 0.5),
        percentile(&own, 0.9),
    );
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, bench_step_overhead_in_chromium).only_when_asked()]
}
