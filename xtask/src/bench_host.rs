//! `cargo xtask bench host`: the native host's cold start, warm round trip, per-delta cost
//! and binary size, measured on a release build (see `native-host/tests/bench.rs`).

use crate::util::{self, run as sh};
use anyhow::Result;

/// Builds the release host and runs the ignored benchmark test, which prints the figures.
pub fn run() -> Result<()> {
    sh(util::cargo().args(["build", "-p", "waymark-host", "--release"]))?;
    sh(util::cargo().args(["test", "-p", "waymark-host", "--release", "--test", "bench"]).args([
        "--",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]))
}
