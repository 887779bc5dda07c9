//! `cargo xtask bench sessions`: the session model at scale (context for 10,000 tasks, search
//! across 1,000 sessions of 50 tasks, bytes written per turn), in a release build.
//!
//! The measurements live in `wasm-core/examples/bench_sessions.rs` so that xtask itself does not
//! depend on (and rebuild) the core; this only runs it.

use crate::util;
use anyhow::Result;
use std::process::Command;

/// Builds and runs the benchmark; it prints a markdown table for BENCHMARKS.md.
pub fn run() -> Result<()> {
    util::run(
        Command::new(env!("CARGO"))
            .args([
                "run",
                "--release",
                "--quiet",
                "-p",
                "waymark-core",
                "--example",
                "bench_sessions",
            ])
            .current_dir(util::root()),
    )
}
