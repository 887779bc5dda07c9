//! Benchmark (run by `cargo xtask bench step`, ignored in normal test runs): the agent's own
//! overhead per step in real Chromium — from the navigator's reply received to the next
//! observation ready — on the fixture form, with the built extension (optimised wasm).

mod common;

use common::{Setup, TASK_TIMEOUT, Waymark, built_extension, find_ref, message_text, role_reply};
use serde_json::{Value, json};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;

/// Navigator steps per task: enough samples per task, under the default budget of 25.
const STEPS_PER_TASK: usize = 20;
/// Tasks run one after the other in the same browser.
const TASKS: usize = 3;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[test]
#[ignore = "benchmark: run with `cargo xtask bench step`"]
fn bench_step_overhead_in_chromium() {
    let Some(extension) = built_extension() else { return };
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
        let name = find_ref(&page, "textbox", "Name").expect("Name field");
        ScriptedReply::tool_call("type", json!({"ref": name, "text": format!("v{}", req.index)}))
    })
    .expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(&extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
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
        samples.extend(task_samples);
    }
    samples.sort_by(f64::total_cmp);
    own.sort_by(f64::total_cmp);
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
