//! `cargo xtask fuzz [--cases N] [--filter X] [--release]`: only the property tests over
//! hostile text (the `fuzz_*` tests of the page crate, the core and the host, generators in
//! `fuzzgen/`), with many cases each. `cargo xtask test` runs the same tests in its bounded pass
//! (256 cases each, `PROPTEST_CASES` unset); this is the long run. A failure is shrunk to a
//! minimal input and saved under the crate's `proptest-regressions/` (commit it: it is
//! replayed first on every later run), and gets a plain regression test beside the fix.

use crate::util::{self, run as sh};
use anyhow::{Context, Result, bail};
use std::time::Instant;

/// The crates with `fuzz_*` property tests (all in their library's unit tests).
const PACKAGES: &[&str] = &["waymark-page", "waymark-core", "waymark-host"];

/// Cases per property when `--cases` is not given.
const DEFAULT_CASES: u64 = 10_000;

/// What `cargo xtask fuzz` was asked for.
struct Options {
    cases: u64,
    /// The tests whose name contains `fuzz_` followed by this (`outbound`, `page_render`).
    filter: String,
    release: bool,
}

fn options(args: &[String]) -> Result<Options> {
    let mut opts = Options { cases: DEFAULT_CASES, filter: String::new(), release: false };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cases" => {
                let n = args.next().context("--cases needs a number")?;
                opts.cases = n.parse().with_context(|| format!("--cases {n}: not a number"))?;
            }
            "--filter" => opts.filter = args.next().context("--filter needs a name")?.clone(),
            "--release" => opts.release = true,
            other => bail!(
                "unknown fuzz option `{other}`; usage: cargo xtask fuzz [--cases N] [--filter X] [--release]"
            ),
        }
    }
    Ok(opts)
}

/// Runs the property tests with `--cases` cases each and reports how many inputs ran.
pub fn run(args: &[String]) -> Result<()> {
    let opts = options(args)?;
    let filter = format!("fuzz_{}", opts.filter);
    let test = |extra: &[&str]| {
        let mut cmd = util::cargo();
        cmd.arg("test");
        if opts.release {
            cmd.arg("--release");
        }
        for p in PACKAGES {
            cmd.args(["-p", p]);
        }
        cmd.args(["--lib", "--", &filter])
            .args(extra)
            .env("PROPTEST_CASES", opts.cases.to_string());
        cmd
    };
    let listed = util::output(&mut test(&["--list", "--format", "terse"]))
        .context("could not build or list the fuzz tests (run the command above to see why)")?;
    let properties = listed.lines().filter(|l| l.ends_with(": test")).count() as u64;
    if properties == 0 {
        bail!("no test matches `{filter}`");
    }
    let started = Instant::now();
    sh(&mut test(&[]))?;
    let secs = started.elapsed().as_secs_f64();
    // Costly properties run a fraction of the cases (`waymark_fuzzgen::costly`): the figure is
    // an upper bound, each property's own count is in its test.
    println!(
        "fuzz: {properties} properties × up to {} cases = up to {} inputs, no failure, in {secs:.0} s",
        opts.cases,
        properties * opts.cases
    );
    Ok(())
}
