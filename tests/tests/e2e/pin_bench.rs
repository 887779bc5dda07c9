//! Benchmark (ignored in normal runs): what pinning an approved request costs a redo — the
//! raw `chrome.debugger` calls in the service worker (attach + `Fetch.enable`, detach), and
//! one click through the agent's own tab code (`waymarkPageRequest`) under a permit that
//! releases a URL, with and without its body pinned. Ordinary actions pin nothing and attach
//! no debugger, so `cargo xtask bench step` does not see any of this.
//!
//! `cargo test -p waymark-tests --test e2e -- --ignored pin_bench::`

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const ORDER: &str = r#"{"item":"blue teapot","qty":1}"#;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn p90(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() * 9 / 10]
}

fn bench_pinned_redo(ext: &Path) {
    let llm = ScriptedLlm::start(|_| ScriptedReply::tool_call("done", json!({"answer": "x"})))
        .expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("hostile")).start().expect("site");
    let port = site.addr().port();
    let shop = format!("http://shop.localhost:{port}");
    let wm = Waymark::launch(ext, Setup { llm: &llm, install_host: false, site }).expect("launch");
    let sw = wm.attach_worker().expect("worker");
    sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", TASK_TIMEOUT).expect("hook");
    let page = wm.browser.new_page(&format!("{shop}/fx-pin-benign.html")).expect("tab");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    let url = page.url().expect("url");
    let tab = sw
        .eval(&format!(
            "chrome.tabs.query({{}}).then((tabs) => tabs.find((t) => t.url === {}).id)",
            serde_json::to_string(&url).expect("json")
        ))
        .expect("tab")
        .as_i64()
        .expect("tab id");

    // The raw calls, 30 times.
    let raw = format!(
        r#"(async () => {{
          const t = {{ tabId: {tab} }}, up = [], down = [];
          for (let i = 0; i < 30; i++) {{
            const t0 = performance.now();
            await chrome.debugger.attach(t, '1.3');
            await chrome.debugger.sendCommand(t, 'Fetch.enable', {{ patterns: [{{ urlPattern: '*', requestStage: 'Request' }}] }});
            const t1 = performance.now();
            await chrome.debugger.detach(t);
            up.push(t1 - t0); down.push(performance.now() - t1);
          }}
          const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
          const p90 = (a) => a.sort((x, y) => x - y)[Math.floor(a.length * 0.9)];
          return {{ attach_enable_median_ms: med(up), attach_enable_p90_ms: p90(up), detach_median_ms: med(down) }};
        }})()"#
    );
    let v = sw.eval_timeout(&raw, TASK_TIMEOUT).expect("raw bench");
    println!("BENCH pin raw (n = 30): {v}");

    // One click through the tab code, released vs released and pinned.
    let observe = |_: ()| -> Value {
        sw.eval_timeout(
            &format!("waymarkPageRequest({tab}, {})", json!({"op": "observe", "budget": 100_000})),
            TASK_TIMEOUT,
        )
        .expect("observe")
    };
    let prompt = observe(())["prompt"].as_str().unwrap_or_default().to_owned();
    let line = prompt
        .lines()
        .find(|l| l.contains("] button") && l.contains("Continue"))
        .unwrap_or_else(|| panic!("no button in {prompt}"));
    let r: u64 =
        line[line.find('[').expect("[") + 1..line.find(']').expect("]")].parse().expect("ref");
    let order = format!("{shop}/api/place-order");
    let released = json!({"origins": [shop], "released": [order]});
    let mut pinned = released.clone();
    pinned["pinned"] = json!([{"url": order, "method": "POST", "kind": "xmlhttprequest",
        "body": {"type": "raw", "bytes": ORDER.as_bytes()}}]);
    let act = |permit: &Value| -> f64 {
        let request =
            json!({"op": "act", "action": {"action": "click", "ref": r}, "permit": permit});
        let t = Instant::now();
        let out = sw
            .eval_timeout(&format!("waymarkPageRequest({tab}, {request})"), TASK_TIMEOUT)
            .expect("act");
        assert_eq!(out["outcome"]["ok"], json!(true), "{out}");
        t.elapsed().as_secs_f64() * 1000.0
    };
    let (mut plain, mut pin) = (Vec::new(), Vec::new());
    for _ in 0..12 {
        plain.push(act(&released));
        pin.push(act(&pinned));
        // The pin's settle window ends: the next pinned click attaches afresh.
        std::thread::sleep(Duration::from_millis(3_000));
    }
    println!(
        "BENCH click under a released URL (n = 12): median {:.1} ms, p90 {:.1} ms; same, body pinned (attach + Fetch.enable + every request paused): median {:.1} ms, p90 {:.1} ms",
        median(plain.clone()),
        p90(plain),
        median(pin.clone()),
        p90(pin)
    );
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(test_hooks, bench_pinned_redo).only_when_asked()]
}
