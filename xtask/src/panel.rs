//! Bundles the side panel's ES modules (`extension/sidepanel.js` and what it imports) into one
//! file, `extension/pkg-panel/sidepanel.js`, which `sidepanel.html` loads. One script instead
//! of a graph of a dozen small modules opens the panel ~20 ms sooner (`cargo xtask bench
//! panel`, BENCHMARKS.md): each module is a separate fetch and compile in Chrome's extension
//! loader before anything can run.

use crate::util::{self, run};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the bundle goes, inside the extension directory (generated, git-ignored).
const BUNDLE_DIR: &str = "pkg-panel";

/// Whether the bundle comes with a source map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceMap {
    /// `sidepanel.js.map` beside the bundle, linked from it (development builds).
    Linked,
    /// None (the store zip, unless `dist --sourcemaps` asks for one).
    Without,
}

/// Writes the bundle and returns its path. Not minified: the panel's JS is small, and a
/// readable bundle (with its source map) keeps the panel debuggable in DevTools.
pub fn bundle(extension_dir: &Path, map: SourceMap) -> Result<PathBuf> {
    let out = extension_dir.join(BUNDLE_DIR).join("sidepanel.js");
    let stale_map = out.with_extension("js.map");
    if map == SourceMap::Without && stale_map.exists() {
        std::fs::remove_file(&stale_map)
            .with_context(|| format!("removing {}", stale_map.display()))?;
    }
    run(Command::new(util::esbuild_bin())
        .arg(extension_dir.join("sidepanel.js"))
        .args(["--bundle", "--format=esm", "--target=chrome120", "--log-level=warning"])
        .args((map == SourceMap::Linked).then_some("--sourcemap"))
        .arg(format!("--outfile={}", out.display())))?;
    Ok(out)
}
