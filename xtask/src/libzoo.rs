//! The library zoo's packages: the published npm packages of the component libraries the
//! `libs` evaluation suite and the widget tests build their pages from, installed with
//! `npm ci` from the pinned `tests/fixtures/libzoo/package-lock.json` into
//! `<tools>/libzoo/` (kept across clones; no third-party code is committed). The pages'
//! entry files (`tests/fixtures/libzoo/src/`) are ours; the tests bundle them with the
//! installed esbuild when they start (`waymark_tests::libzoo`), so an edited entry needs no
//! new setup.

use crate::util::{self, run};
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::Command;

/// `<tools>/libzoo` (`waymark_tests::libzoo::dir` names the same folder).
pub fn dir() -> PathBuf {
    util::tools_dir().join("libzoo")
}

/// Installs the pinned packages unless the installed lock file equals the pinned one.
pub fn install() -> Result<()> {
    let source = util::root().join("tests").join("fixtures").join("libzoo");
    let lock = std::fs::read(source.join("package-lock.json"))
        .with_context(|| format!("reading {}", source.join("package-lock.json").display()))?;
    let dir = dir();
    let installed = std::fs::read(dir.join("package-lock.json")).unwrap_or_default();
    if installed == lock && dir.join("node_modules").join(".package-lock.json").is_file() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(source.join(file), dir.join(file))
            .with_context(|| format!("copying {file} to {}", dir.display()))?;
    }
    // `--ignore-scripts`: the pages need the packages' files, never their install scripts.
    run(Command::new("npm").current_dir(&dir).args([
        "ci",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--loglevel=error",
    ]))
}
