//! `cargo xtask bench dom`: how long the content script takes from request to serialised
//! observation inside the page, on the shared DOM corpus plus the widget zoo, in headless
//! Chromium with the built extension; the wasm build, then the wasm2js build (every page served
//! with a CSP that blocks WebAssembly). Also: o200k tokens per page and per interactive element,
//! interactive elements found, the same counts for the reference tools' outputs in
//! `dom-bench-samples`, and the content script's wasm size and instantiate time.
//!
//! Writes a markdown report to stdout (and `target/bench-dom.md`), with the load average.
//! For quick iterations: `WAYMARK_BENCH_ONLY=<substring>` limits the pages,
//! `WAYMARK_BENCH_WASM_ONLY=1` skips the wasm2js pass, `WAYMARK_BENCH_DUMP=<dir>` writes each
//! page's serialisation there, `WAYMARK_EXTENSION_DIR=<dir>` measures another build (before/after).
//! `tests/examples/profile_dom.rs` shows where the time goes.
//!
//! On the corpus and on MiniWoB++ task pages it also measures, in the same run, the
//! renderer's CPU per call of Waymark, the floor and Playwright's ARIA snapshot
//! (`support/compare.rs`) and prints the ratios (`WAYMARK_BENCH_COMPARE=0` skips them).

use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use waymark_tests::chromium::{Browser, LaunchOptions, Page};
use waymark_tests::e2e;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::paths::{self, TempProfile};

#[path = "support/compare.rs"]
mod compare;

const RUNS: u32 = 5;
const BOUND: Duration = Duration::from_secs(60);

struct PageResult {
    id: String,
    median_ms: f64,
    visited: u64,
    elements: u64,
    tokens: usize,
    /// Renderer CPU per call against the references (when compared).
    cpu: Option<compare::Cpu>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { 0.0 } else { v[v.len() / 2] }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i]
}

struct Bench {
    browser: Browser,
    sw: Page,
    tab_page: Page,
    tab: i32,
    _profile: TempProfile,
}

impl Bench {
    fn launch() -> Result<Self> {
        if std::env::var_os("WAYMARK_EXTENSION_DIR").is_none() {
            // The default build must have the hook this benchmark drives (an earlier build
            // given by WAYMARK_EXTENSION_DIR may predate the marker).
            e2e::check_build(&extension_dir(), &paths::host_binary(), e2e::Needs::TestHooks)
                .with_context(|| format!("run `{}` first", e2e::BUILD_COMMAND))?;
        }
        let profile = TempProfile::new()?;
        let options = LaunchOptions::new(profile.path())
            .extension(extension_dir())
            .arg("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1");
        let browser = Browser::launch(options)?;
        let worker = browser.wait_for_extension_worker(BOUND)?;
        let sw = browser.attach(&worker.target_id)?;
        sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", BOUND)?;
        let tab_page = browser.new_page("about:blank")?;
        tab_page.eval("document.title = 'waymark-bench'")?;
        let tab = sw
            .eval_timeout("new Promise((ok) => setTimeout(ok, 300)).then(() => chrome.tabs.query({title: 'waymark-bench'})).then((t) => t[0].id)", BOUND)?
            .as_i64()
            .ok_or_else(|| anyhow!("no bench tab"))? as i32;
        Ok(Self { browser, sw, tab_page, tab, _profile: profile })
    }

    fn measure(&self, url: &str, prepare: Option<&str>) -> Result<Value> {
        self.tab_page.navigate(url)?;
        if let Some(js) = prepare {
            self.tab_page.eval(js)?;
        }
        let request =
            json!({"op": "content", "frame": 0, "request": {"op": "measure", "runs": RUNS}});
        self.sw.eval_timeout(&format!("waymarkPageRequest({}, {request})", self.tab), BOUND)
    }
}

/// How a set of pages is read: the references' script when they are compared, and JavaScript
/// run on each page once it has loaded (a MiniWoB episode's start).
#[derive(Clone, Copy, Default)]
struct Pass<'a> {
    aria: Option<&'a str>,
    prepare: Option<&'a str>,
}

fn run_pages(
    bench: &Bench,
    site: &FixtureServer,
    ids: &[String],
    bpe: &tiktoken_rs::CoreBPE,
    pass: Pass<'_>,
) -> Vec<PageResult> {
    let mut out = Vec::new();
    for id in ids {
        match bench.measure(&site.url(&format!("/{id}")), pass.prepare) {
            Ok(m) => {
                let mut runs: Vec<f64> = m["runs_ms"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_f64).collect())
                    .unwrap_or_default();
                if runs.len() > 1 {
                    runs.remove(0); // cold run (first walk after load)
                }
                let text = m["text"].as_str().unwrap_or_default();
                if let Some(dir) = std::env::var_os("WAYMARK_BENCH_DUMP") {
                    let file = PathBuf::from(dir).join(id.replace('/', "__") + ".txt");
                    if let Err(e) = std::fs::write(&file, text) {
                        eprintln!("could not dump {}: {e}", file.display());
                    }
                }
                let cpu = pass.aria.and_then(|aria| {
                    compare::page(&bench.sw, &bench.tab_page, bench.tab, aria)
                        .map_err(|e| eprintln!("{id}: comparison: {e:#}"))
                        .ok()
                });
                out.push(PageResult {
                    id: id.clone(),
                    median_ms: median(&mut runs),
                    visited: m["visited"].as_u64().unwrap_or(0),
                    elements: m["elements"].as_u64().unwrap_or(0),
                    tokens: bpe.encode_ordinary(text).len(),
                    cpu,
                });
            }
            Err(e) => eprintln!("{id}: {e:#}"),
        }
    }
    out
}

#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn summary(report: &mut String, label: &str, results: &[PageResult]) {
    let mut medians: Vec<f64> = results.iter().map(|r| r.median_ms).collect();
    let worst = medians.iter().cloned().fold(0.0, f64::max);
    let mut per_el: Vec<f64> = results
        .iter()
        .filter(|r| r.visited >= 300)
        .map(|r| r.median_ms * 1000.0 / r.visited as f64)
        .collect();
    let mut tok_per_el: Vec<f64> = results
        .iter()
        .filter(|r| r.elements > 0)
        .map(|r| r.tokens as f64 / r.elements as f64)
        .collect();
    let _ = writeln!(
        report,
        "| {label} | {} | {:.2} ms | {:.2} ms | {:.2} ms | {:.1} ms | {:.1} µs ({} pages) | {:.1} | {} |",
        results.len(),
        median(&mut medians.clone()),
        percentile(&mut medians.clone(), 0.90),
        percentile(&mut medians, 0.95),
        worst,
        median(&mut per_el),
        per_el.len(),
        median(&mut tok_per_el),
        results.iter().map(|r| r.elements).sum::<u64>(),
    );
}

/// Interactive elements in a reference tool's output (ARIA snapshot roles, or `[N]` indices).
#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn reference_counts(dir: &Path, bpe: &tiktoken_rs::CoreBPE) -> String {
    const ROLES: &[&str] = &[
        "link",
        "button",
        "textbox",
        "checkbox",
        "radio",
        "combobox",
        "tab",
        "menuitem",
        "option",
        "switch",
        "slider",
        "searchbox",
        "spinbutton",
        "listbox",
    ];
    let mut out = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    names.sort();
    for page in names {
        let name = page.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let read = |f: &str| std::fs::read_to_string(page.join(f)).unwrap_or_default();
        let aria = read("pw_aria.txt");
        let aria_n = aria
            .lines()
            .filter(|l| {
                let t = l.trim_start().trim_start_matches("- ");
                ROLES.iter().any(|r| {
                    t.starts_with(&format!("{r} ")) || t.starts_with(&format!("{r}:")) || t == *r
                })
            })
            .count();
        let bu = read("bu05_full.txt");
        let bu_n = bu
            .split('[')
            .skip(1)
            .filter(|part| {
                part.split_once("]<")
                    .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
            .count();
        let _ = writeln!(
            out,
            "| {name} | {} / {aria_n} | {} / {bu_n} |",
            bpe.encode_ordinary(&aria).len(),
            bpe.encode_ordinary(&bu).len(),
        );
    }
    out
}

/// MiniWoB++ task pages compared (the first of the evaluation's default tasks).
const MINIWOB_PAGES: usize = 20;

/// The ratios against the floor and Playwright's ARIA snapshot (`support/compare.rs`).
#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn compare_report(report: &mut String, corpus: &[PageResult], miniwob: &[PageResult]) {
    let _ = writeln!(
        report,
        "\n### Against the floor and Playwright's ARIA snapshot (renderer CPU per call, same run)\n\n\
         Warm calls: median of {} per page after one cold call; the three tools interleaved. \
         Floor: a TreeWalker over the body's elements with one `getComputedStyle` read each. \
         ARIA: playwright-core {} `ariaSnapshot(body, {{mode: 'default'}})` in the page. \
         Waymark: one observe request of the top frame through the worker.\n",
        compare::WARM,
        compare::PLAYWRIGHT_CORE_VERSION,
    );
    let _ = writeln!(
        report,
        "| pages | n | Waymark ms | ARIA ms | floor ms | Waymark ÷ ARIA (medians) | Waymark ÷ ARIA (median of per-page ratios) | ÷ ARIA per element (pages ≥ 300 elements) | ÷ floor per element (same pages) |\n|---|---|---|---|---|---|---|---|---|"
    );
    let all: Vec<compare::Cpu> =
        corpus.iter().chain(miniwob).filter_map(|r| r.cpu.clone()).collect();
    for (label, set) in [
        ("corpus", corpus.iter().filter_map(|r| r.cpu.clone()).collect::<Vec<_>>()),
        ("MiniWoB", miniwob.iter().filter_map(|r| r.cpu.clone()).collect()),
        ("all", all),
    ] {
        if set.is_empty() {
            continue;
        }
        let r = compare::ratios(&set);
        let _ = writeln!(
            report,
            "| {label} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} ({} pages) | {:.1} |",
            r.pages,
            r.waymark_ms,
            r.aria_ms,
            r.floor_ms,
            r.aria_median,
            r.aria_per_page,
            r.aria_per_element,
            r.big_pages,
            r.floor_per_element,
        );
    }
}

/// Fresh pages whose first content-script request is timed.
const FRESH_PAGE_RUNS: usize = 9;

/// The extension under test: the built one, or `WAYMARK_EXTENSION_DIR` (e.g. a copy of an
/// earlier build, for before/after figures).
fn extension_dir() -> PathBuf {
    std::env::var_os("WAYMARK_EXTENSION_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(paths::extension_dir)
}

/// The machine's load average (the machine is shared: figures are read against it).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn main() -> Result<()> {
    let corpus = std::env::var_os("WAYMARK_DOM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/dom-corpus"));
    let samples = corpus.with_file_name("dom-bench-samples");
    let manifest: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("manifest.json")).context("corpus manifest")?,
    )?;
    // Quick iterations: WAYMARK_BENCH_ONLY=substring limits the pages, WAYMARK_BENCH_WASM_ONLY=1
    // skips the wasm2js pass. The figures for BENCHMARKS.md come from a run without either.
    let only = std::env::var("WAYMARK_BENCH_ONLY").unwrap_or_default();
    let wasm_only = std::env::var_os("WAYMARK_BENCH_WASM_ONLY").is_some();
    let corpus_ids: Vec<String> = manifest
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .filter(|id| id.contains(&only))
        .collect();
    let zoo_dir = paths::fixtures_dir().join("zoo");
    let mut zoo_ids: Vec<String> = std::fs::read_dir(&zoo_dir)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".html") && n.contains(&only))
        .collect();
    zoo_ids.sort();
    let bpe = tiktoken_rs::o200k_base().map_err(|e| anyhow!("o200k: {e}"))?;
    let bench = Bench::launch()?;

    let mut report = String::new();
    let _ = writeln!(report, "## DOM observation (`cargo xtask bench dom`)\n");
    let _ = writeln!(
        report,
        "Time from request to serialised whole-page observation inside the page (walk + serialise, no token budget), median of {} warm runs per page, then across pages. µs/element: DOM elements visited, pages with ≥ 300. Tokens: o200k of the whole-page serialisation.\n",
        RUNS - 1
    );
    let _ = writeln!(
        report,
        "| build / pages | n | median | p90 | p95 | worst | µs per element (300+) | tokens per interactive element (median) | interactive elements |"
    );
    let _ = writeln!(report, "|---|---|---|---|---|---|---|---|---|");
    let started = Instant::now();
    let load_before = load_average();
    let corpus_site = FixtureServer::builder(&corpus).start()?;
    let zoo_site = FixtureServer::builder(&zoo_dir).start()?;
    let aria = if std::env::var("WAYMARK_BENCH_COMPARE").is_ok_and(|v| v == "0") {
        None
    } else {
        Some(compare::aria_source(&paths::tools_dir())?)
    };
    compare::enable(&bench.tab_page)?;
    let compared = Pass { aria: aria.as_deref(), prepare: None };
    let corpus_wasm = run_pages(&bench, &corpus_site, &corpus_ids, &bpe, compared);
    let zoo_wasm = run_pages(&bench, &zoo_site, &zoo_ids, &bpe, Pass::default());
    let miniwob_dir = waymark_tests::eval::miniwob::html_dir();
    let miniwob = match (&aria, miniwob_dir.is_dir()) {
        (Some(_), true) => {
            let site = FixtureServer::builder(&miniwob_dir).start()?;
            let start = waymark_tests::eval::miniwob::start_episode_js("bench", 600_000);
            let ids: Vec<String> = waymark_tests::eval::miniwob::DEFAULT_TASKS
                .iter()
                .take(MINIWOB_PAGES)
                .filter(|t| t.contains(&only))
                .map(|t| format!("miniwob/{t}.html"))
                .collect();
            run_pages(&bench, &site, &ids, &bpe, Pass { prepare: Some(&start), ..compared })
        }
        _ => Vec::new(),
    };
    summary(&mut report, "wasm, corpus", &corpus_wasm);
    summary(&mut report, "wasm, zoo", &zoo_wasm);
    if !miniwob.is_empty() {
        summary(&mut report, "wasm, MiniWoB", &miniwob);
    }
    let all: Vec<PageResult> = corpus_wasm
        .iter()
        .chain(&zoo_wasm)
        .map(|r| PageResult { id: r.id.clone(), cpu: None, ..*r })
        .collect();
    summary(&mut report, "wasm, all", &all);
    let strict = |dir: &Path| {
        FixtureServer::builder(dir)
            .with_header("/", "Content-Security-Policy", "script-src 'self' 'unsafe-inline'")
            .start()
    };
    if !wasm_only {
        let corpus_js = run_pages(&bench, &strict(&corpus)?, &corpus_ids, &bpe, Pass::default());
        let zoo_js = run_pages(&bench, &strict(&zoo_dir)?, &zoo_ids, &bpe, Pass::default());
        let all_js: Vec<PageResult> = corpus_js
            .iter()
            .chain(&zoo_js)
            .map(|r| PageResult { id: r.id.clone(), cpu: None, ..*r })
            .collect();
        summary(&mut report, "wasm2js, all", &all_js);
    }
    eprintln!("measured in {:.0?}", started.elapsed());
    let _ = writeln!(
        report,
        "\nLoad average (1/5/15 min) before / after: {load_before} / {}; {} cores.",
        load_average(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
    );

    if aria.is_some() {
        compare_report(&mut report, &corpus_wasm, &miniwob);
    }

    // Per-page figures for the pages the reference tools were sampled on.
    let _ = writeln!(report, "\n### Against the reference tools (pages of dom-bench-samples)\n");
    let _ = writeln!(
        report,
        "| page | Waymark tokens / interactive | Playwright ARIA snapshot tokens / interactive | browser-use 0.5 tokens / interactive |"
    );
    let _ = writeln!(report, "|---|---|---|---|");
    eprintln!("counting the reference tools' tokens");
    let refs = reference_counts(&samples, &bpe);
    eprintln!("content script size and start-up");
    for line in refs.lines() {
        let name =
            line.trim_start_matches("| ").split(" |").next().unwrap_or_default().replace("__", "/");
        let ours = corpus_wasm.iter().find(|r| r.id == name);
        let ours =
            ours.map(|r| format!("{} / {}", r.tokens, r.elements)).unwrap_or_else(|| "-".into());
        let rest = line.split_once(" | ").map(|x| x.1).unwrap_or_default();
        let _ = writeln!(report, "| {name} | {ours} | {rest}");
    }

    // The content script's wasm: size gzipped and instantiate time in a page.
    // Earlier builds (before waymark-content) loaded the whole core in the content script.
    let (wasm_rel, js_rel) = if extension_dir().join("pkg-content").is_dir() {
        ("pkg-content/waymark_content_bg.wasm", "pkg-wasm2js/waymark_content_bg.wasm.js")
    } else {
        ("pkg/waymark_core_bg.wasm", "pkg-wasm2js/waymark_core_bg.wasm.js")
    };
    let wasm = extension_dir().join(wasm_rel);
    let bytes = std::fs::read(&wasm).context("built wasm")?;
    // gzip reads the file itself: piping it through stdin while gzip's output fills its pipe
    // unread deadlocks once the wasm is larger than the pipe buffers.
    let gz = std::process::Command::new("gzip").arg("-9c").arg(&wasm).output()?.stdout.len();
    let js_size = std::fs::metadata(extension_dir().join(js_rel)).map(|m| m.len()).unwrap_or(0);
    bench.tab_page.navigate(&zoo_site.url("/forms.html"))?;
    let instantiate = bench.tab_page.eval(
        "(async () => { const r = await fetch(URL_PLACEHOLDER); const buf = await r.arrayBuffer(); \
         const times = []; for (let i = 0; i < 5; i++) { const t = performance.now(); \
         const m = await WebAssembly.compile(buf); times.push(performance.now() - t); } \
         times.sort((a, b) => a - b); return times[2]; })()"
            .replace("URL_PLACEHOLDER", &serde_json::to_string(&format!("chrome-extension://{}/{wasm_rel}", waymark_protocol::EXTENSION_ID))?)
            .as_str(),
    );
    // A fresh document each time (its content script starts cold), median of the runs: one
    // sample of a cold start is mostly noise on a shared machine.
    let (first_ms, next_ms) = {
        let probe = json!({"op": "content", "frame": 0, "request": {"op": "probe"}});
        let js = format!(
            "(async () => {{ const t = performance.now(); await waymarkPageRequest({}, {probe}); const a = performance.now() - t; const t2 = performance.now(); await waymarkPageRequest({}, {probe}); return [a, performance.now() - t2]; }})()",
            bench.tab, bench.tab
        );
        let (mut first, mut next) = (Vec::new(), Vec::new());
        for run in 0..FRESH_PAGE_RUNS {
            bench.tab_page.navigate(&zoo_site.url(&format!("/react.html?fresh={run}")))?;
            let pair = bench.sw.eval_timeout(&js, BOUND)?;
            first.push(pair[0].as_f64().unwrap_or(f64::NAN));
            next.push(pair[1].as_f64().unwrap_or(f64::NAN));
        }
        (median(&mut first), median(&mut next))
    };
    let _ = writeln!(report, "\n### Content script size and start-up\n");
    let _ = writeln!(report, "| what | value |\n|---|---|");
    let _ = writeln!(
        report,
        "| content script wasm ({wasm_rel}) | {} KiB, {} KiB gzipped |",
        bytes.len() / 1024,
        gz / 1024
    );
    let _ = writeln!(report, "| content script wasm2js fallback | {} KiB |", js_size / 1024);
    let _ = writeln!(
        report,
        "| WebAssembly.compile in a page (median of 5) | {} ms |",
        instantiate
            .map(|v| format!("{:.1}", v.as_f64().unwrap_or(-1.0)))
            .unwrap_or_else(|e| format!("n/a: {e}"))
    );
    let _ = writeln!(
        report,
        "| first request on a fresh page (inject + load + instantiate + probe) vs next request, median of {FRESH_PAGE_RUNS} pages | {first_ms:.1} ms vs {next_ms:.1} ms |",
    );

    let _ = writeln!(
        report,
        "\n### Slowest pages (wasm)\n\n| page | ms | DOM elements | interactive | tokens |\n|---|---|---|---|---|"
    );
    let mut slow: Vec<&PageResult> = all.iter().collect();
    slow.sort_by(|a, b| b.median_ms.total_cmp(&a.median_ms));
    for r in slow.iter().take(8) {
        let _ = writeln!(
            report,
            "| {} | {:.1} | {} | {} | {} |",
            r.id, r.median_ms, r.visited, r.elements, r.tokens
        );
    }
    println!("{report}");
    let out = paths::target_dir().join("bench-dom.md");
    std::fs::write(&out, &report)?;
    eprintln!("written to {}", out.display());
    drop(bench.browser);
    Ok(())
}
