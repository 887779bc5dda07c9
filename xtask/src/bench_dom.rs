//! `cargo xtask bench dom`: builds the extension, then runs the DOM observation benchmark
//! (`tests/examples/bench_dom.rs`: headless Chromium, shared DOM corpus + widget zoo +
//! MiniWoB++ pages, wasm and wasm2js, o200k token counts) and prints its markdown report for
//! BENCHMARKS.md, with Waymark ÷ the floor (a TreeWalker and one `getComputedStyle` read per
//! element) and ÷ Playwright's `ariaSnapshot`, measured in the same run (renderer CPU per call;
//! playwright-core comes from npm into the tools directory on first use).

use crate::util::{self, run};
use crate::{build, setup};
use anyhow::Result;

/// Runs the benchmark; the report goes to stdout and `target/bench-dom.md`.
pub fn dom() -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: false })?;
    build::all(build::Options { release: false, test_hooks: true })?;
    run(util::cargo().args(["run", "--quiet", "-p", "waymark-tests", "--example", "bench_dom"]))
}
