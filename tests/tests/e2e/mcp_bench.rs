//! `cargo xtask bench mcp`: what the bridge adds to a call. An MCP client (rmcp's) calls
//! `browser_snapshot` on DOM-corpus pages and `browser_click` on the fixture form through
//! `waymark-host mcp` → socket → the host Chrome started → native messaging → the worker, and
//! each call is paired with the same page work done directly in the worker through the test
//! hook (`waymarkPageRequest`: the content-script round trip, DOM walk and serialisation, timed
//! inside the worker). The difference is the bridge's overhead (plus, for the click, the
//! policy's look at the live element). Ignored in normal runs: numbers, never assertions.

use crate::common;
use crate::mcp_support;
use common::{Setup, TASK_TIMEOUT, Waymark, find_ref};
use mcp_support::{Client, switched_on};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;
use std::time::Instant;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// Timed pairs per page (after one warm-up).
const RUNS: usize = 5;
/// Corpus pages measured (the first ones of the manifest, or `WAYMARK_BENCH_ONLY`).
const PAGES: usize = 12;
/// Timed click pairs.
const CLICKS: usize = 30;

fn percentile(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(client: &Client, tool: &'static str, args: Value) -> f64 {
    let started = Instant::now();
    let (err, text) = client.tool(tool, args);
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    assert!(!err, "{tool}: {text}");
    elapsed
}

/// The same page work inside the worker, timed there (ms).
fn hook_ms(sw: &waymark_tests::chromium::Page, tab: i64, request: &Value) -> f64 {
    let js = format!(
        "(async () => {{ const t = performance.now(); await waymarkPageRequest({tab}, {request}); \
         return performance.now() - t; }})()"
    );
    sw.eval_timeout(&js, TASK_TIMEOUT).expect("hook").as_f64().expect("ms")
}

fn selected_tab(client: &Client) -> i64 {
    let (err, text) = client.tool("browser_tabs", json!({"action": "list"}));
    assert!(!err, "{text}");
    let tabs: Vec<Value> = serde_json::from_str(text.lines().last().expect("json")).expect("tabs");
    tabs.iter().find(|t| t["selected"] == true).and_then(|t| t["id"].as_i64()).expect("selected")
}

#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn row(out: &mut String, what: &str, total: &[f64], dom: &[f64]) {
    let over: Vec<f64> = total.iter().zip(dom).map(|(t, d)| t - d).collect();
    let _ = writeln!(
        out,
        "| {what} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
        total.len(),
        percentile(total, 0.5),
        percentile(total, 0.95),
        percentile(dom, 0.5),
        percentile(dom, 0.95),
        percentile(&over, 0.5),
        percentile(&over, 0.95),
    );
}

#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn bench_mcp(ext: &Path) {
    let corpus = std::env::var_os("WAYMARK_DOM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/dom-corpus"));
    let manifest: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("manifest.json")).expect("corpus manifest"),
    )
    .expect("manifest");
    let only = std::env::var("WAYMARK_BENCH_ONLY").unwrap_or_default();
    let ids: Vec<String> = manifest
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .filter(|id| id.contains(&only))
        .take(PAGES)
        .collect();
    let llm = ScriptedLlm::start(|_| ScriptedReply::text("unused")).expect("llm");
    let site = FixtureServer::builder(&corpus).start().expect("corpus site");
    let w = Waymark::launch(ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
    // The form is served by the same site: a click on another origin would wait for a card.
    for file in ["form.html", "form.js"] {
        let body = std::fs::read(paths::fixtures_dir().join("site").join(file)).expect("fixture");
        w.site.add_page(format!("/{file}"), body);
    }
    let panel = w.panel().expect("panel");
    let tab = w.open(&format!("/{}", ids[0])).expect("tab");
    tab.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    switched_on(&w, &panel);
    let sw = w.attach_worker().expect("worker");
    sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", TASK_TIMEOUT)
        .expect("the test hook");
    let client = Client::spawn(&w, "bench");
    let tab_id = selected_tab(&client);
    let observe = json!({"op": "observe"});

    let (mut read, mut read_dom) = (Vec::new(), Vec::new());
    for id in &ids {
        tab.navigate(&w.site.url(&format!("/{id}"))).expect("navigate");
        tab.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
        ms(&client, "browser_snapshot", json!({}));
        hook_ms(&sw, tab_id, &observe);
        for _ in 0..RUNS {
            read.push(ms(&client, "browser_snapshot", json!({})));
            read_dom.push(hook_ms(&sw, tab_id, &observe));
        }
        let n = read.len();
        eprintln!(
            "{id}: {:.1} ms through the bridge, {:.1} ms alone",
            read[n - 1],
            read_dom[n - 1]
        );
    }

    tab.navigate(&w.site.url("/form.html")).expect("form");
    tab.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    let (_, snap) = client.tool("browser_snapshot", json!({}));
    let save = find_ref(&snap, "button", "Save").expect("Save");
    hook_ms(&sw, tab_id, &observe);
    let act = json!({"op": "act", "action": {"action": "click", "ref": save}});
    let (mut click, mut click_dom) = (Vec::new(), Vec::new());
    ms(&client, "browser_click", json!({"ref": save}));
    hook_ms(&sw, tab_id, &act);
    for _ in 0..CLICKS {
        click.push(ms(&client, "browser_click", json!({"ref": save})));
        click_dom.push(hook_ms(&sw, tab_id, &act));
    }

    let mut out = String::new();
    let _ = writeln!(out, "## The bridge for external agents (`cargo xtask bench mcp`)\n");
    let _ = writeln!(
        out,
        "Round trip at the MCP client (rmcp) through `waymark-host mcp`, the socket, the host \
         Chrome started, native messaging and the worker; next to the same page work done in \
         the worker alone (test hook, timed inside the worker). {} corpus pages × {RUNS} reads; \
         {CLICKS} clicks on the fixture form's Save. Host: `{}`. ms.\n",
        ids.len(),
        paths::host_binary().display()
    );
    let _ = writeln!(
        out,
        "| call | n | round trip median | p95 | page work alone median | p95 | overhead median | p95 |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    row(&mut out, "browser_snapshot (corpus)", &read, &read_dom);
    row(&mut out, "browser_click (incl. the policy's describe)", &click, &click_dom);
    println!("{out}");
    let path = paths::target_dir().join("bench-mcp.md");
    if let Err(e) = std::fs::write(&path, &out) {
        eprintln!("could not write {}: {e}", path.display());
    }
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(test_hooks, bench_mcp).only_when_asked()]
}
