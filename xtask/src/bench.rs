//! `cargo xtask bench step`: the agent's own overhead per step, from the model's reply
//! received to the next observation ready, excluding the model and the page's own reaction.
//!
//! Two measurements: the real one, in Chromium with the built extension on the fixture form
//! (wasm service worker, journal writes in `chrome.storage.local`, content-script round trips,
//! the DOM walk), and the loop's pure Rust logic natively against instant fakes, which tells
//! how much of the total is the core itself. Then how late the event-driven waits end after
//! what they wait for, and what a navigation costs (`waits::bench`).

use crate::util::{self, run as sh};
use crate::{build, setup};
use anyhow::{Result, bail};

/// Runs the step benchmark and prints the medians (also the lines to paste into BENCHMARKS.md).
pub fn step() -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: false })?;
    build::all(build::Options { release: false, test_hooks: true })?;
    eprintln!("== native: the loop's logic against instant fakes (release build)");
    sh(util::cargo()
        .args(["test", "-p", "waymark-core", "--release", "--lib", "bench_step_overhead"])
        .args(["--", "--ignored", "--nocapture"]))?;
    eprintln!("== native: secrets as handles (concealing each prompt, revealing a typed handle)");
    sh(util::cargo()
        .args(["test", "-p", "waymark-core", "--release", "--lib", "bench_handle_overhead"])
        .args(["--", "--ignored", "--nocapture"]))?;
    eprintln!("== Chromium: the built extension on the fixture form");
    sh(util::cargo()
        .args(["test", "-p", "waymark-tests", "--test", "e2e"])
        .args(["--", "--ignored", "--nocapture", "agent_bench::"])
        .env_remove("WAYMARK_SKIP_BROWSER"))?;
    eprintln!("== Chromium: how late waits end, and navigations (tests/tests/e2e/waits.rs)");
    sh(util::cargo()
        .args(["test", "-p", "waymark-tests", "--test", "e2e"])
        .args(["--", "--ignored", "--nocapture", "waits::bench"])
        .env_remove("WAYMARK_SKIP_BROWSER"))
}

/// `cargo xtask bench panel`: how soon the side panel is interactive on a 200-task session,
/// with the service worker running and after stopping it (see `tests/tests/e2e/panel_bench.rs`).
pub fn panel() -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: false })?;
    build::all(build::Options { release: false, test_hooks: true })?;
    sh(util::cargo()
        .args(["test", "-p", "waymark-tests", "--test", "e2e"])
        .args(["--", "--ignored", "--nocapture", "panel_bench::"])
        .env_remove("WAYMARK_SKIP_BROWSER"))
}

/// `cargo xtask bench tokens`: o200k tokens of every request of a 10-step task on three corpus
/// pages, by part and role, and of session memory as the session grows (see
/// `tests/tests/e2e/token_bench.rs`); the tables also go to `target/bench-tokens.md`.
pub fn tokens() -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: false })?;
    build::all(build::Options { release: false, test_hooks: true })?;
    let out = util::cargo()
        .args(["test", "-p", "waymark-tests", "--test", "e2e"])
        .args(["--", "--ignored", "--nocapture", "token_bench::"])
        .env_remove("WAYMARK_SKIP_BROWSER")
        .stderr(std::process::Stdio::inherit())
        .output()?;
    let report = String::from_utf8_lossy(&out.stdout);
    print!("{report}");
    if !out.status.success() {
        bail!("the token benchmark failed ({})", out.status);
    }
    let tables: String =
        report.lines().skip_while(|l| !l.starts_with("## ")).map(|l| format!("{l}\n")).collect();
    let path = util::target_dir().join("bench-tokens.md");
    std::fs::write(&path, tables)?;
    eprintln!("written to {}", path.display());
    Ok(())
}

/// `cargo xtask bench mcp`: what the bridge for external agents adds to a read and a click
/// (see `tests/tests/e2e/mcp_bench.rs`).
/// Both ends of the bridge are the release host, as users run it.
pub fn mcp() -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: false })?;
    build::all(build::Options { release: false, test_hooks: true })?;
    sh(util::cargo().args(["build", "-p", "waymark-host", "--release"]))?;
    let host = util::target_dir().join("release").join("waymark-host");
    sh(util::cargo()
        .args(["test", "-p", "waymark-tests", "--test", "e2e"])
        .args(["--", "--ignored", "--nocapture", "mcp_bench::"])
        .env("WAYMARK_HOST_BINARY", host)
        .env_remove("WAYMARK_SKIP_BROWSER"))
}

/// `cargo xtask bench workflow`: a saved workflow's replay against the live run it was recorded
/// from, with the scripted model answering after 1.5 s per call (see
/// `tests/tests/e2e/workflow_bench.rs`).
pub fn workflow() -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: false })?;
    build::all(build::Options { release: false, test_hooks: true })?;
    sh(util::cargo()
        .args(["test", "-p", "waymark-tests", "--test", "e2e"])
        .args(["--", "--ignored", "--nocapture", "workflow_bench::"])
        .env_remove("WAYMARK_SKIP_BROWSER"))
}

/// `cargo xtask bench collect`: a 10-page listing read with `collect` (columns named once)
/// against a model call per page (see `tests/tests/e2e/collect_bench.rs`).
pub fn collect() -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: false })?;
    build::all(build::Options { release: false, test_hooks: true })?;
    sh(util::cargo()
        .args(["test", "-p", "waymark-tests", "--test", "e2e"])
        .args(["--", "--ignored", "--nocapture", "collect_bench::"])
        .env_remove("WAYMARK_SKIP_BROWSER"))
}

/// Dispatches `cargo xtask bench <name>`.
pub fn run(name: Option<&str>) -> Result<()> {
    match name {
        Some("step") => step(),
        Some("panel") => panel(),
        Some("tokens") => tokens(),
        Some("mcp") => mcp(),
        Some("workflow") => workflow(),
        Some("collect") => collect(),
        other => {
            bail!(
                "unknown benchmark {other:?}; try `cargo xtask bench step`, `panel`, `tokens`, \
                 `mcp`, `workflow` or `collect`"
            )
        }
    }
}
