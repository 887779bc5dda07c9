//! Benchmark (run by `cargo xtask bench panel`, ignored in normal test runs): how soon the side
//! panel is interactive — the prompt box enabled and the session drawn — after it opens on a
//! session of 200 tasks stored in `chrome.storage.local`.
//!
//! The panel page records `performance.now()` (from its own navigation start) when it has drawn
//! the first state that carries the session (`document.body.dataset.readyMs`). Three cases: the
//! service worker already running (the usual case: the user closes and reopens the panel), and
//! the worker stopped first (Chrome stops idle workers after 30 s), which adds its start-up and
//! the load of the session from storage; and the first opening after a browser restart.

use crate::common;
use common::{EXTENSION_ID, Panel, Setup, TASK_TIMEOUT, Waymark};
use serde_json::{Map, Value, json};
use std::path::Path;
use waymark_core::record::TaskOutcome;
use waymark_core::session::{Session, TaskRecord};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::ScriptedLlm;
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// Tasks in the seeded session.
const TASKS: u32 = 200;
/// Openings measured with the worker running.
const WARM_RUNS: usize = 20;
/// Openings measured after stopping the worker.
const COLD_RUNS: usize = 20;
/// Openings measured as the first one after a browser restart.
const RESTART_RUNS: usize = 5;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// A session of `TASKS` realistic turns, as the storage items the worker writes.
fn seeded_items() -> Map<String, Value> {
    let now = 1_790_000_000_000.0;
    let mut session = Session::new("benchsession200".into(), now);
    for i in 1..=TASKS {
        let outcome = TaskOutcome {
            answer: format!(
                "Compared the offers on page {i}: the cheapest is Plan {i} at ${}.99 a month, \
                 with 2 GB of storage and e-mail support.",
                i % 40 + 3
            ),
            success: i % 17 != 0,
            error: None,
            steps: vec![],
            step_count: 4,
            elapsed_ms: 8_000.0,
            ending: Default::default(),
        };
        let task = format!("Find the cheapest plan on offer page {i} and note its storage");
        let mut record = TaskRecord::from_outcome(0, &task, &outcome, now + f64::from(i));
        record.structured_data.insert("cheapest_plan".into(), format!("Plan {i}"));
        record.structured_data.insert("price".into(), format!("${}.99", i % 40 + 3));
        record.toc_line = format!("Offer page {i}: Plan {i} cheapest at ${}.99", i % 40 + 3);
        session.push(record);
    }
    session.set_title("Cheapest plans across 200 offer pages", TASKS, true);
    let mut items = common::session_items(&session);
    // A user with 200 tasks went through (or skipped) the first-run guide long ago.
    items.insert("panel:guide".into(), json!({"step": "sample", "done": true}));
    items
}

/// One opening: ms from navigation start to interactive, the part of it after
/// `DOMContentLoaded` (the panel's own work), and when the worker's live state first arrived.
struct Opening {
    ready: f64,
    own: f64,
    live: Option<f64>,
}

/// Opens one of the extension's pages in a new tab straight on its URL and attaches afterwards,
/// as Chrome opens the side panel: no DevTools session slows the page while it loads.
fn open_extension_page(wm: &Waymark, page: &str) -> waymark_tests::chromium::Page {
    let url = format!("chrome-extension://{EXTENSION_ID}/{page}");
    let created = wm.browser.call("Target.createTarget", json!({ "url": url })).expect("open");
    wm.browser.attach(created["targetId"].as_str().expect("target id")).expect("attach")
}

/// Opens the panel, waits until it is interactive with the whole session and has the worker's
/// live state.
fn open_once(wm: &Waymark) -> Opening {
    let panel = Panel { page: open_extension_page(wm, "sidepanel.html") };
    let ready = panel
        .page
        .wait_for(
            &format!(
                "(() => {{ const ms = document.body.dataset.readyMs; \
                 return ms && !document.getElementById('prompt').disabled && \
                   document.querySelectorAll('#toc li').length === {TASKS} && Number(ms); }})()"
            ),
            TASK_TIMEOUT,
        )
        .expect("panel interactive with the session");
    let parts = panel
        .page
        .eval(
            "[performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd, \
              Number(document.body.dataset.stateMs), \
              ['responseEnd', 'domInteractive'].map(k => performance.getEntriesByType('navigation')[0][k] | 0), \
              performance.getEntriesByType('resource').map(r => r.name.split('/').pop() + ':' + (r.startTime | 0) + '-' + (r.responseEnd | 0)).join(' ')]",
        )
        .expect("parts");
    eprintln!(
        "dcl {:.1} ms, first state {:.1} ms, ready {:.1} ms; {} {}",
        parts[0], parts[1], ready, parts[2], parts[3]
    );
    let live = panel
        .page
        .wait_for(
            "document.body.dataset.liveMs !== undefined && Number(document.body.dataset.liveMs)",
            TASK_TIMEOUT,
        )
        .expect("live state")
        .as_f64();
    wm.browser.close_target(panel.page.target_id()).expect("close panel");
    let ready = ready.as_f64().expect("ms");
    Opening { ready, own: ready - parts[0].as_f64().unwrap_or(0.0), live }
}

/// The browser's own part, under the same conditions: DOMContentLoaded of the extension's
/// smallest page (`offscreen.html`: a line of HTML and two tiny modules).
fn floor_once(wm: &Waymark) -> f64 {
    let page = open_extension_page(wm, "offscreen.html");
    let dcl = page
        .wait_for(
            "document.readyState === 'complete' && \
             performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd",
            TASK_TIMEOUT,
        )
        .expect("floor page loaded");
    wm.browser.close_target(page.target_id()).expect("close");
    // When this was the extension's last page (the worker stopped), its renderer exits: the
    // next opening must start cold, so wait for that exit.
    let extension_left = wm
        .browser
        .targets()
        .expect("targets")
        .iter()
        .any(|t| t.extension_id() == Some(EXTENSION_ID) && t.target_id != page.target_id());
    if !extension_left {
        wm.browser
            .wait_for_no_extension_renderer(TASK_TIMEOUT)
            .expect("the extension's renderer exits with its last page");
    }
    dcl.as_f64().unwrap_or_default()
}

fn report(label: &str, samples: &mut [f64]) -> String {
    if samples.is_empty() {
        return format!("| {label} | 0 | | | | |");
    }
    samples.sort_by(f64::total_cmp);
    format!(
        "| {label} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
        samples.len(),
        percentile(samples, 0.5),
        percentile(samples, 0.95),
        samples[0],
        samples[samples.len() - 1]
    )
}

fn bench_panel_startup_with_200_tasks(extension: &Path) {
    let llm = ScriptedLlm::always_text("unused").expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let worker = wm.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    let sw = wm.browser.attach(&worker.target_id).expect("attach worker");
    let items = Value::Object(seeded_items());
    let bytes = items.to_string().len();
    sw.eval(&format!("chrome.storage.local.set({items}).then(() => true)")).expect("seed");
    #[allow(clippy::unused_result_ok, reason = "the worker is stopped next anyway")]
    sw.detach().ok();
    // The worker loads the current session when it starts: stop it so it loads the seeded one.
    wm.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");

    let mut cold = Vec::new();
    let mut cold_floor = Vec::new();
    for _ in 0..COLD_RUNS {
        cold_floor.push(floor_once(&wm));
        cold.push(open_once(&wm));
        let worker = wm.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
        if let Ok(sw) = wm.browser.attach(&worker.target_id) {
            eprintln!(
                "worker start-up: {}",
                sw.eval("globalThis.waymarkStartup").unwrap_or_default()
            );
            #[allow(clippy::unused_result_ok, reason = "the worker is stopped next anyway")]
            sw.detach().ok();
        }
        wm.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");
    }
    open_once(&wm); // wakes the worker; not measured
    let mut warm = Vec::new();
    let mut warm_floor = Vec::new();
    for _ in 0..WARM_RUNS {
        warm_floor.push(floor_once(&wm));
        warm.push(open_once(&wm));
    }
    // First opening after the browser started again (the worker not running, the extension's
    // files and code caches as the restart left them); a user opens the panel a moment after.
    let mut restarted = Vec::new();
    let mut wm = wm;
    for _ in 0..RESTART_RUNS {
        wm = wm.restart(extension, &llm).expect("restart");
        // Event-less on purpose: the case measured is a user who opens the panel a moment
        // after the browser came up, not one racing its start-up work; this pause is that
        // moment (there is no "start-up done" event to wait for instead).
        std::thread::sleep(std::time::Duration::from_secs(1));
        restarted.push(open_once(&wm));
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "\nSide panel interactive (prompt enabled, {TASKS}-task session drawn), ms; session in"
    );
    println!("storage: {} KiB; load average: {}\n", bytes / 1024, load.trim());
    println!("| worker | measured from | runs | median | p95 | min | max |");
    println!("|---|---|---|---|---|---|---|");
    let pick = |v: &[Opening], f: fn(&Opening) -> f64| -> Vec<f64> { v.iter().map(f).collect() };
    let cases = [("running", &warm), ("stopped first", &cold), ("browser restarted", &restarted)];
    for (label, runs) in cases {
        println!(
            "{}",
            report(&format!("{label} | navigation start"), &mut pick(runs, |o| o.ready))
        );
        println!("{}", report(&format!("{label} | DOMContentLoaded"), &mut pick(runs, |o| o.own)));
        let live_label = format!("{label} (live state from the worker) | navigation start");
        let mut live: Vec<f64> = runs.iter().filter_map(|o| o.live).collect();
        println!("{}", report(&live_label, &mut live));
    }
    for (label, floor) in [("running", &mut warm_floor), ("stopped first", &mut cold_floor)] {
        let floor_label =
            format!("{label} (floor: offscreen.html, DOMContentLoaded) | navigation start");
        println!("{}", report(&floor_label, floor));
    }
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, bench_panel_startup_with_200_tasks).only_when_asked()]
}
