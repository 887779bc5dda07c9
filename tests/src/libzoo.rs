//! The library zoo: pages built from the published npm packages of widely used component
//! libraries (React, Vue and web-component ecosystems), for the `libs` evaluation suite and
//! the widget tests. `cargo xtask setup --eval` installs the pinned packages
//! (`tests/fixtures/libzoo/package-lock.json`) into `<tools>/libzoo/`; [`serve`] bundles our
//! small entry files (`tests/fixtures/libzoo/src/`) with the installed esbuild and serves the
//! pages (`tests/fixtures/libzoo/*.html`) with the bundles under `/build/`.
//!
//! Every page reads its widgets' state back through the library's own API (a React state, a
//! Vue ref, an element's `value`) and posts it to the site, so a check never trusts what
//! Waymark reports.

use crate::fixture_server::FixtureServer;
use crate::paths;
use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::process::Command;

/// Where `cargo xtask setup --eval` installs the packages (`xtask/src/libzoo.rs`).
pub fn dir() -> PathBuf {
    paths::tools_dir().join("libzoo")
}

/// The zoo's pages and entry files.
pub fn root() -> PathBuf {
    paths::fixtures_dir().join("libzoo")
}

/// Whether the pinned packages are installed (the installed lock equals the pinned one).
pub fn installed() -> bool {
    let pinned = std::fs::read(root().join("package-lock.json")).unwrap_or_default();
    let have = std::fs::read(dir().join("package-lock.json")).unwrap_or_default();
    !pinned.is_empty() && pinned == have && dir().join("node_modules/.package-lock.json").is_file()
}

/// For an end-to-end test: fails, naming the command, when the zoo is not installed (a run
/// that leaves the evaluation's tools out skips such tests before they start).
pub fn require() {
    assert!(
        installed(),
        "the library zoo is not installed in {}: run `cargo xtask setup --eval` (or set {}=1)",
        dir().display(),
        crate::eval::SKIP_EVAL_TOOLS
    );
}

/// The esbuild `cargo xtask setup` installs.
fn esbuild() -> PathBuf {
    paths::tools_dir().join("esbuild").join("node_modules").join(".bin").join("esbuild")
}

/// Bundles every entry of `src/` into a fresh folder and returns its files (name, bytes).
pub fn build() -> Result<Vec<(String, Vec<u8>)>> {
    if !installed() {
        bail!("the library zoo is not installed: run `cargo xtask setup --eval`");
    }
    let out = tempfile::Builder::new().prefix("waymark-libzoo-").tempdir()?;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(root().join("src"))
        .context("reading the zoo's entry files")?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "js" || x == "jsx"))
        .collect();
    entries.sort();
    let status = Command::new(esbuild())
        .args(&entries)
        .args([
            "--bundle",
            "--format=esm",
            "--jsx=automatic",
            "--log-level=error",
            "--define:process.env.NODE_ENV=\"production\"",
            "--define:__VUE_OPTIONS_API__=true",
            "--define:__VUE_PROD_DEVTOOLS__=false",
            "--define:__VUE_PROD_HYDRATION_MISMATCH_DETAILS__=false",
            "--alias:vue=vue/dist/vue.esm-bundler.js",
            "--loader:.woff=file",
            "--loader:.woff2=file",
            "--loader:.ttf=file",
            "--loader:.eot=file",
            "--loader:.svg=dataurl",
            "--loader:.png=file",
            "--loader:.gif=file",
        ])
        .arg(format!("--outdir={}", out.path().display()))
        // The entries live in the repository, the packages in the tools cache.
        .env("NODE_PATH", dir().join("node_modules"))
        .status()
        .context("running esbuild (run `cargo xtask setup`)")?;
    if !status.success() {
        bail!("esbuild could not bundle the library zoo's entries ({status})");
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(out.path())? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        files.push((name, std::fs::read(&path)?));
    }
    Ok(files)
}

/// Builds the bundles and serves the zoo: its pages from the repository, the bundles under
/// `/build/`.
pub fn serve() -> Result<FixtureServer> {
    let mut builder = FixtureServer::builder(root());
    for (name, bytes) in build()? {
        builder = builder.with_page(format!("/build/{name}"), bytes);
    }
    builder.start()
}
