//! What one request to a page costs the page itself, by channel: the renderer's main-thread CPU
//! per call (CDP `Performance` metrics in thread ticks, as `bench_dom`'s comparison counts it)
//! of Waymark's whole observe request, and of empty round trips through each way the worker
//! can reach a content script, beside the empty `Runtime.evaluate` that the references pay.
//!
//! `cargo run -q -p waymark-tests --example channel_cost [miniwob-task]` after a build with test
//! hooks (default task `click-button`; `WAYMARK_EXTENSION_DIR=<dir>` measures another build).
//! The empty round trips use a listener this example installs in the isolated world.

use anyhow::{Result, anyhow};
use serde_json::json;
use std::time::Duration;
use waymark_tests::chromium::{Browser, LaunchOptions, Page};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::paths::{self, TempProfile};

const BOUND: Duration = Duration::from_secs(60);
/// Calls of each kind, interleaved.
const CALLS: usize = 40;

fn cpu_ms(tab: &Page) -> Result<f64> {
    let metrics = tab.call("Performance.getMetrics", json!({}))?;
    metrics["metrics"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["name"] == "TaskDuration"))
        .and_then(|m| m["value"].as_f64())
        .map(|s| s * 1000.0)
        .ok_or_else(|| anyhow!("no TaskDuration metric"))
}

fn main() -> Result<()> {
    let extension = std::env::var_os("WAYMARK_EXTENSION_DIR")
        .map(Into::into)
        .unwrap_or_else(paths::extension_dir);
    let profile = TempProfile::new()?;
    let browser = Browser::launch(
        LaunchOptions::new(profile.path())
            .extension(extension)
            .arg("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
    )?;
    let worker = browser.wait_for_extension_worker(BOUND)?;
    let sw = browser.attach(&worker.target_id)?;
    sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", BOUND)?;
    let page = browser.new_page("about:blank")?;
    page.eval("document.title = 'waymark-channel'")?;
    let tab = sw
        .eval_timeout("new Promise((ok) => setTimeout(ok, 300)).then(() => chrome.tabs.query({title: 'waymark-channel'})).then((t) => t[0].id)", BOUND)?
        .as_i64()
        .ok_or_else(|| anyhow!("no tab"))?;
    let task = std::env::args().nth(1).unwrap_or_else(|| "click-button".to_owned());
    let site = FixtureServer::builder(waymark_tests::eval::miniwob::html_dir()).start()?;
    page.navigate(&site.url(&format!("/miniwob/{task}.html")))?;
    page.eval(&waymark_tests::eval::miniwob::start_episode_js("bench", 600_000))?;
    page.call("Performance.enable", json!({"timeDomain": "threadTicks"}))?;
    let observe = json!({"op": "content", "frame": 0, "request": {"op": "observe"}});
    let hook = format!("waymarkPageRequest({tab}, {observe}).then((o) => o.items.length)");
    sw.eval_timeout(&hook, BOUND)?;
    // An empty listener in the isolated world, for the round trips alone.
    let target = format!("{{tabId: {tab}, frameIds: [0]}}");
    sw.eval_timeout(
        &format!(
            "chrome.scripting.executeScript({{target: {target}, injectImmediately: true, func: () => {{
              chrome.runtime.onMessage.addListener((m, s, reply) => {{ if (m === 'probe') reply(1); }});
              chrome.runtime.onConnect.addListener((port) => {{
                if (port.name === 'probe') port.onMessage.addListener(() => port.postMessage(1)); }});
            }} }}).then(() => 1)"
        ),
        BOUND,
    )?;
    sw.eval_timeout(
        &format!("globalThis.probePort = chrome.tabs.connect({tab}, {{frameId: 0, name: 'probe'}}); globalThis.probeWaiting = []; probePort.onMessage.addListener(() => probeWaiting.shift()()); 1"),
        BOUND,
    )?;
    let kinds: Vec<(&str, Option<String>)> = vec![
        ("Waymark observe request (test hook, top frame)", Some(hook)),
        (
            "executeScript, an empty function",
            Some(format!("chrome.scripting.executeScript({{target: {target}, injectImmediately: true, func: () => 1}}).then((r) => r.length)")),
        ),
        (
            "tabs.sendMessage, an empty reply",
            Some(format!("chrome.tabs.sendMessage({tab}, 'probe', {{frameId: 0}})")),
        ),
        (
            "a message on an open port, an empty reply",
            Some("new Promise((ok) => { probeWaiting.push(ok); probePort.postMessage(1); }).then(() => 1)".to_owned()),
        ),
        ("CDP Runtime.evaluate of `1` in the page (what the references pay)", None),
    ];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); kinds.len()];
    for _ in 0..CALLS {
        for (i, (_, js)) in kinds.iter().enumerate() {
            let before = cpu_ms(&page)?;
            match js {
                Some(js) => sw.eval_timeout(js, BOUND)?,
                None => page.eval("1")?,
            };
            cpu[i].push(cpu_ms(&page)? - before);
        }
    }
    println!("| {task}: renderer CPU per call | median | p25 | p75 |\n|---|---|---|---|");
    for ((name, _), mut v) in kinds.iter().zip(cpu) {
        v.sort_by(f64::total_cmp);
        let at = |q: usize| v[(v.len() - 1) * q / 4];
        println!("| {name} | {:.3} ms | {:.3} | {:.3} |", at(2), at(1), at(3));
    }
    Ok(())
}
