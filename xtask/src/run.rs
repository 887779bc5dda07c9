//! `cargo xtask test` and `cargo xtask run`.

use crate::util::{self, run as sh};
use crate::{build, setup};
use anyhow::Result;

/// Everything CI checks: formatting, clippy, then every test (end-to-end included).
pub fn test() -> Result<()> {
    setup::all(setup::Need { chromium: true })?;
    build::all(build::Options { release: false })?;
    sh(util::cargo().args(["fmt", "--all", "--check"]))?;
    sh(util::cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    sh(util::cargo().args(["test", "--workspace"]).env("WAYMARK_REQUIRE_BROWSER", "1"))
}

/// Builds, installs the host into a dedicated profile and opens Chromium on a demo page.
pub fn run(_headless: bool) -> Result<()> {
    anyhow::bail!("`cargo xtask run` is not built yet")
}
