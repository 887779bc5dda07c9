//! `cargo xtask eval --suite NAME [--tasks a,b] [--runs N] [--role-model ROLE=MODEL]
//! [--oracle | --llama | --base-url URL --model NAME] [--max-steps N] [--time-budget S]`:
//! installs what the suites need, builds the extension and host (the same build as `test`),
//! and runs `waymark-eval` (tests/src/bin) with the arguments. Results go to `<target>/eval/`.

use crate::util::{self, run};
use crate::{build, setup};
use anyhow::Result;

/// Runs the evaluation with `args` (everything after `eval`).
pub fn eval(args: &[String]) -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: needs_python(args) })?;
    if args.iter().any(|a| a.split(',').any(|s| s == "libs")) {
        crate::libzoo::install()?;
    }
    build::all(build::Options { release: false, test_hooks: true })?;
    harness(args)
}

/// Runs `waymark-eval` with `args` on the current build (for `test`, which has just built).
pub fn harness(args: &[String]) -> Result<()> {
    run(util::cargo()
        .args(["run", "--quiet", "-p", "waymark-tests", "--bin", "waymark-eval", "--"])
        .args(args))
}

/// MiniWoB's pages and the llama.cpp server come from PyPI; an evaluation of the fixture
/// sites against a provider needs neither.
fn needs_python(args: &[String]) -> bool {
    args.iter().any(|a| a == "--llama" || a.contains("miniwob"))
}
