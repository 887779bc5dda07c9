//! Where the content script's DOM walk spends its time: runs the `measure` request on a few
//! corpus pages under V8's sampling profiler (CDP `Profiler` on the tab) and prints self time
//! per function (DOM built-ins, wasm-bindgen glue, wasm code), the figures that guide
//! `cargo xtask bench dom` work.
//!
//! Run after a build: `cargo run -p waymark-tests --example profile_dom [page-substring…]`
//! (default: a few of the heaviest corpus pages).

use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;
use waymark_tests::chromium::{Browser, LaunchOptions};
use waymark_tests::e2e;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::paths::{self, TempProfile};

const BOUND: Duration = Duration::from_secs(120);
const RUNS: u32 = 5;

fn main() -> Result<()> {
    let corpus = std::env::var_os("WAYMARK_DOM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/dom-corpus"));
    let manifest: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json"))?)?;
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    let wanted = if wanted.is_empty() {
        ["reddit.com.html", "toc-missing", "lifehacker-post-comment-load", "youtube", "nytimes-1"]
            .map(str::to_owned)
            .to_vec()
    } else {
        wanted
    };
    let ids: Vec<String> = manifest
        .iter()
        .filter_map(|e| e["id"].as_str())
        .filter(|id| wanted.iter().any(|w| id.contains(w.as_str())))
        .map(str::to_owned)
        .collect();
    e2e::check_build(&paths::extension_dir(), &paths::host_binary(), e2e::Needs::TestHooks)
        .with_context(|| format!("run `{}` first", e2e::BUILD_COMMAND))?;
    let profile = TempProfile::new()?;
    let browser = Browser::launch(
        LaunchOptions::new(profile.path())
            .extension(paths::extension_dir())
            .arg("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
    )?;
    let worker = browser.wait_for_extension_worker(BOUND)?;
    let sw = browser.attach(&worker.target_id)?;
    sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", BOUND)?;
    let page = browser.new_page("about:blank")?;
    page.eval("document.title = 'waymark-profile'")?;
    let tab = sw
        .eval_timeout("new Promise((ok) => setTimeout(ok, 300)).then(() => chrome.tabs.query({title: 'waymark-profile'})).then((t) => t[0].id)", BOUND)?
        .as_i64()
        .ok_or_else(|| anyhow!("no tab"))?;
    // `WAYMARK_PROFILE_DIR=<dir>` profiles pages of another folder (named as arguments,
    // e.g. MiniWoB's `miniwob/click-button.html`) with whole observe requests: the fixed
    // cost per call rather than the walk.
    let other = std::env::var_os("WAYMARK_PROFILE_DIR").map(PathBuf::from);
    let ids = if other.is_some() { wanted.clone() } else { ids };
    let site = FixtureServer::builder(other.as_ref().unwrap_or(&corpus)).start()?;
    let mut total: HashMap<String, f64> = HashMap::new();
    let mut total_ms = 0.0;
    for id in &ids {
        page.navigate(&site.url(&format!("/{id}")))?;
        let request = |runs: u32| json!({"op": "content", "frame": 0, "request": {"op": "measure", "runs": runs}});
        // Warm: load the content script and walk once outside the profile.
        sw.eval_timeout(&format!("waymarkPageRequest({tab}, {})", request(1)), BOUND)?;
        page.call("Profiler.enable", json!({}))?;
        page.call("Profiler.setSamplingInterval", json!({"interval": 50}))?;
        page.call("Profiler.start", json!({}))?;
        if other.is_some() {
            let observe = json!({"op": "content", "frame": 0, "request": {"op": "observe"}});
            for _ in 0..200 {
                sw.eval_timeout(
                    &format!("waymarkPageRequest({tab}, {observe}).then(() => 1)"),
                    BOUND,
                )?;
            }
        }
        let m = sw.eval_timeout(&format!("waymarkPageRequest({tab}, {})", request(RUNS)), BOUND)?;
        let prof = page.call("Profiler.stop", json!({}))?;
        let runs: Vec<f64> = m["runs_ms"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        let self_ms = self_times(&prof["profile"]).context("profile")?;
        if self_ms.is_empty() {
            println!("empty profile: {}", &prof.to_string().chars().take(300).collect::<String>());
        }
        let sum: f64 = runs.iter().sum();
        total_ms += sum;
        println!(
            "\n== {id}: runs {:?} ms, {} elements visited",
            runs.iter().map(|r| (r * 10.0).round() / 10.0).collect::<Vec<_>>(),
            m["visited"]
        );
        print_top(&self_ms, 25);
        for (k, v) in self_ms {
            *total.entry(k).or_default() += v;
        }
    }
    println!("\n== all pages ({total_ms:.0} ms measured)");
    print_top(&total, 45);
    Ok(())
}

fn print_top(map: &HashMap<String, f64>, n: usize) {
    let mut v: Vec<(&String, &f64)> = map.iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(a.1));
    let sum: f64 = map.values().sum();
    for (name, ms) in v.into_iter().take(n) {
        println!("{ms:9.1} ms {:5.1}%  {name}", ms * 100.0 / sum.max(1e-9));
    }
}

/// Self time per function (`name @ file`), in ms, from a CDP `Profiler.Profile`.
fn self_times(profile: &Value) -> Option<HashMap<String, f64>> {
    let nodes = profile["nodes"].as_array()?;
    let mut name_of: HashMap<u64, String> = HashMap::new();
    for node in nodes {
        let frame = &node["callFrame"];
        let url = frame["url"].as_str().unwrap_or_default();
        let file = url.rsplit('/').next().unwrap_or_default();
        let name = frame["functionName"].as_str().unwrap_or_default();
        let name = if name.is_empty() { "(anonymous)" } else { name };
        name_of.insert(node["id"].as_u64()?, format!("{name} @ {file}"));
    }
    let samples = profile["samples"].as_array()?;
    let deltas = profile["timeDeltas"].as_array()?;
    let mut out: HashMap<String, f64> = HashMap::new();
    // Each sample's time is the delta to the next sample.
    for (i, s) in samples.iter().enumerate() {
        let dt = deltas.get(i + 1).and_then(Value::as_f64).unwrap_or(0.0) / 1000.0;
        let name = s.as_u64().and_then(|id| name_of.get(&id)).cloned().unwrap_or_default();
        *out.entry(name).or_default() += dt;
    }
    Some(out)
}
