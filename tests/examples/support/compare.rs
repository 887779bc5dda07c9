//! Waymark's walk against two fixed references measured on the same page in the same run, so
//! the ratios hold on a shared, loaded machine where absolute times do not:
//!
//! * **the floor**: a `TreeWalker` over every element of the body with one `getComputedStyle`
//!   read each (what any walk that looks at styles must pay at least);
//! * **Playwright's ARIA snapshot** (`ariaSnapshot`, default mode), from playwright-core's own
//!   injected script (npm, pinned), evaluated in the page the way Playwright evaluates it.
//!
//! What is measured is the renderer's main-thread CPU per call (CDP `Performance` metrics in
//! thread ticks), so Waymark's figure includes everything its observe request costs in the
//! page (the content script's request handling and the reply's serialisation), not only the
//! walk. Each tool: one cold call, then warm calls, interleaved so load hits all three alike.

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use waymark_tests::chromium::Page;

/// The playwright-core version the comparison installs (npm).
pub const PLAYWRIGHT_CORE_VERSION: &str = "1.65.1";

/// Warm calls per tool and page (after one cold call).
pub const WARM: usize = 5;

const BOUND: Duration = Duration::from_secs(60);

/// playwright-core's injected script, extracted from the installed package (`node` reads the
/// string literal out of its bundle: the package ships it only inside its server code).
pub fn aria_source(tools: &Path) -> Result<String> {
    let dir = tools.join("playwright-core");
    let pkg = dir.join("node_modules").join("playwright-core");
    let have = std::fs::read_to_string(pkg.join("package.json")).unwrap_or_default();
    if !have.contains(&format!("\"version\": \"{PLAYWRIGHT_CORE_VERSION}\"")) {
        std::fs::create_dir_all(&dir)?;
        let status = std::process::Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg(format!("playwright-core@{PLAYWRIGHT_CORE_VERSION}"))
            .status()
            .context("npm")?;
        if !status.success() {
            bail!("npm install playwright-core failed ({status})");
        }
    }
    let out: PathBuf = dir.join("injected.js");
    let script = r#"
const fs = require('fs');
const [bundle, out] = process.argv.slice(1);
const lines = fs.readFileSync(bundle, 'utf8').split('\n');
const at = lines.findIndex((l) => l.includes('generated/injectedScriptSource.ts"()'));
if (at < 0) throw new Error('no injected script source in ' + bundle);
const line = lines.slice(at + 1, at + 5).find((l) => /^\s*\w+ = '/.test(l));
fs.writeFileSync(out, eval(line.slice(line.indexOf('=') + 1).trim().replace(/;$/, '')));
"#;
    let status = std::process::Command::new("node")
        .arg("-e")
        .arg(script)
        .arg(pkg.join("lib").join("coreBundle.js"))
        .arg(&out)
        .status()
        .context("node")?;
    if !status.success() {
        bail!("extracting playwright-core's injected script failed ({status})");
    }
    Ok(std::fs::read_to_string(&out)?)
}

/// One page's figures: renderer CPU per call in ms (cold call first), and the elements the
/// floor visited.
#[derive(Default, Clone)]
pub struct Cpu {
    pub waymark: Vec<f64>,
    pub aria: Vec<f64>,
    pub floor: Vec<f64>,
    pub elements: u64,
}

fn median_of(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() { f64::NAN } else { v[v.len() / 2] }
}

impl Cpu {
    /// Median of the warm calls.
    pub fn warm(v: &[f64]) -> f64 {
        median_of(v.get(1..).unwrap_or_default())
    }
}

/// The floor: every element of the body, one computed style read each.
const FLOOR_JS: &str = "(() => { const w = document.createTreeWalker(document.body, \
     NodeFilter.SHOW_ELEMENT); let n = 0, x = 0; for (let e = w.currentNode; e; e = w.nextNode()) \
     { x += getComputedStyle(e).display.length; n++; } return n + (x & 0); })()";

/// The main thread's CPU so far, in ms.
fn cpu_ms(tab: &Page) -> Result<f64> {
    let metrics = tab.call("Performance.getMetrics", json!({}))?;
    metrics["metrics"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["name"] == "TaskDuration"))
        .and_then(|m| m["value"].as_f64())
        .map(|s| s * 1000.0)
        .ok_or_else(|| anyhow!("no TaskDuration metric"))
}

/// Starts measuring the tab's CPU in thread ticks (once per tab).
pub fn enable(tab: &Page) -> Result<()> {
    tab.call("Performance.enable", json!({"timeDomain": "threadTicks"}))?;
    Ok(())
}

fn timed(tab: &Page, call: impl FnOnce() -> Result<Value>) -> Result<(f64, Value)> {
    let before = cpu_ms(tab)?;
    let value = call()?;
    Ok((cpu_ms(tab)? - before, value))
}

/// Measures the three tools on the page loaded in `tab` (Waymark through the worker's test
/// hook on `tab_id`, top frame only, as the references read only the top document).
pub fn page(sw: &Page, tab: &Page, tab_id: i32, aria_source: &str) -> Result<Cpu> {
    let install = format!(
        "(() => {{ const module = {{}}; {aria_source}\n window.__pwInjected = new \
         (module.exports.InjectedScript())(globalThis, {{ isUnderTest: false, sdkLanguage: \
         'javascript', testIdAttributeName: 'data-testid', stableRafCount: 1, browserName: \
         'chromium', customEngines: [] }}); return true; }})()"
    );
    tab.eval(&install).context("installing playwright's injected script")?;
    let observe = json!({"op": "content", "frame": 0, "request": {"op": "observe"}});
    let waymark_js = format!("waymarkPageRequest({tab_id}, {observe}).then((o) => o.items.length)");
    let aria_js = "window.__pwInjected.ariaSnapshot(document.body, { mode: 'default' }).length";
    let mut out = Cpu::default();
    for _ in 0..=WARM {
        let (ms, _) = timed(tab, || sw.eval_timeout(&waymark_js, BOUND))?;
        out.waymark.push(ms);
        let (ms, _) = timed(tab, || tab.eval_timeout(aria_js, BOUND))?;
        out.aria.push(ms);
        let (ms, n) = timed(tab, || tab.eval_timeout(FLOOR_JS, BOUND))?;
        out.floor.push(ms);
        out.elements = n.as_u64().unwrap_or(0);
    }
    Ok(out)
}

/// Ratios over a set of pages, as printed in the report.
pub struct Ratios {
    pub pages: usize,
    /// Waymark's median warm CPU ÷ ARIA's (medians over pages).
    pub aria_median: f64,
    /// Median over pages of Waymark ÷ ARIA on each page.
    pub aria_per_page: f64,
    /// Per element on pages of ≥ 300 elements: Waymark ÷ ARIA, Waymark ÷ floor (medians of
    /// µs per element over those pages).
    pub aria_per_element: f64,
    pub floor_per_element: f64,
    pub big_pages: usize,
    pub waymark_ms: f64,
    pub aria_ms: f64,
    pub floor_ms: f64,
}

/// The ratios of `pages`.
pub fn ratios(pages: &[Cpu]) -> Ratios {
    let w: Vec<f64> = pages.iter().map(|p| Cpu::warm(&p.waymark)).collect();
    let a: Vec<f64> = pages.iter().map(|p| Cpu::warm(&p.aria)).collect();
    let f: Vec<f64> = pages.iter().map(|p| Cpu::warm(&p.floor)).collect();
    let per_page: Vec<f64> = w.iter().zip(&a).map(|(w, a)| w / a).collect();
    let big: Vec<&Cpu> = pages.iter().filter(|p| p.elements >= 300).collect();
    let per_el = |pick: fn(&Cpu) -> &Vec<f64>| -> f64 {
        median_of(
            &big.iter()
                .map(|p| Cpu::warm(pick(p)) * 1000.0 / p.elements as f64)
                .collect::<Vec<_>>(),
        )
    };
    let (wp, ap, fp) = (per_el(|p| &p.waymark), per_el(|p| &p.aria), per_el(|p| &p.floor));
    Ratios {
        pages: pages.len(),
        aria_median: median_of(&w) / median_of(&a),
        aria_per_page: median_of(&per_page),
        aria_per_element: wp / ap,
        floor_per_element: wp / fp,
        big_pages: big.len(),
        waymark_ms: median_of(&w),
        aria_ms: median_of(&a),
        floor_ms: median_of(&f),
    }
}
