//! Whether an end-to-end test runs, on which build.
//!
//! Why: a test that returns early when nothing is built passes without testing anything, and a
//! green `cargo test` then says nothing about the extension. So an end-to-end test whose
//! prerequisites are missing **fails**, naming the command that provides them; it is skipped
//! only when the run asks for it ([`SKIP_BROWSER`] for every test that needs Chromium,
//! [`SKIP_CORPUS`] for the tests over the shared DOM corpus, `WAYMARK_SKIP_EVAL_TOOLS` for those
//! that need the evaluation's tools), and the harness reports each such test as *ignored*, with
//! the reason (see [`crate::trial`]).

use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

use crate::paths;

/// `WAYMARK_SKIP_BROWSER=1`: skip every test that needs Chromium, for machines without it or a
/// quick `cargo test` of the native code.
pub const SKIP_BROWSER: &str = "WAYMARK_SKIP_BROWSER";

/// `WAYMARK_SKIP_CORPUS=1`: skip the tests over the shared DOM corpus, for machines without a
/// copy of it.
pub const SKIP_CORPUS: &str = "WAYMARK_SKIP_CORPUS";

/// `WAYMARK_EXTENSION_DIR=<dir>`: run the tests on another build (an earlier one, for
/// before/after figures), checked for its files and hooks; its sources are not beside it, so
/// its source hash is not compared with this tree's.
pub const EXTENSION_DIR: &str = "WAYMARK_EXTENSION_DIR";

/// The command that builds what the end-to-end tests need (extension with the test hooks,
/// host).
pub const BUILD_COMMAND: &str = "cargo xtask build --test-hooks";

/// The build marker `cargo xtask build` writes into `extension/pkg/` (see `xtask/src/build.rs`).
pub const BUILD_MARKER: &str = "waymark-build.json";

/// What a test needs of the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// The unpacked extension and the host, any flavour.
    Extension,
    /// The same with waymark-worker's `test-hooks` feature (`globalThis.waymarkPageRequest` in the
    /// service worker).
    TestHooks,
}

/// Whether the environment variable `var` asks for a skip (set, not empty, not `0`).
pub fn skip_requested(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Where the sources of a build under test are, so whether its source hash can be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sources {
    /// The tree the build sits in (`<root>/extension`): the hashes must match.
    Beside,
    /// Elsewhere ([`EXTENSION_DIR`], e.g. an earlier build copied aside): the user chose it.
    Elsewhere,
}

/// The extension the tests run on: [`EXTENSION_DIR`] if set, else the tree's own build.
pub fn extension_under_test() -> (PathBuf, Sources) {
    match std::env::var_os(EXTENSION_DIR) {
        Some(dir) => (PathBuf::from(dir), Sources::Elsewhere),
        None => (paths::extension_dir(), Sources::Beside),
    }
}

/// Checks that `extension` (and the host) hold a build that satisfies `needs`.
pub fn check_build(extension: &Path, host: &Path, needs: Needs) -> Result<PathBuf> {
    check_build_from(extension, host, needs, Sources::Beside)
}

/// [`check_build`] for a build whose `sources` may be elsewhere (then its hash is not checked).
pub fn check_build_from(
    extension: &Path,
    host: &Path,
    needs: Needs,
    sources: Sources,
) -> Result<PathBuf> {
    let files = [
        "pkg/waymark_worker_bg.wasm",
        "pkg-content/waymark_content_bg.wasm",
        "pkg-wasm2js/waymark_content_bg.wasm.js",
        "pkg-panel/sidepanel.js",
    ];
    let missing: Vec<&str> = files.into_iter().filter(|f| !extension.join(f).is_file()).collect();
    if !missing.is_empty() {
        bail!(
            "the extension in {} is not built (missing {})",
            extension.display(),
            missing.join(", ")
        );
    }
    if !host.is_file() {
        bail!("the native host is not built (no {})", host.display());
    }
    let marker = read_marker(extension);
    let root = extension.parent().unwrap_or(extension);
    let now = waymark_buildstamp::source_hash(root)?;
    let hash = marker.as_ref().and_then(|m| m.source_hash.as_deref());
    if sources == Sources::Beside && hash != Some(now.as_str()) {
        bail!(
            "the extension in {} was built from other sources than the tree beside it (a stale \
             build: {} holds no source hash, or not this tree's {now})",
            extension.display(),
            extension.join("pkg").join(BUILD_MARKER).display()
        );
    }
    if needs == Needs::TestHooks && !marker.is_some_and(|m| m.test_hooks) {
        bail!(
            "the extension in {} was built without the test hooks this test drives it through \
             (`cargo xtask build` and `run` leave them out; {} says so)",
            extension.display(),
            extension.join("pkg").join(BUILD_MARKER).display()
        );
    }
    Ok(extension.to_path_buf())
}

/// The build marker `cargo xtask build` writes (`xtask/src/build.rs`): which flavour is built,
/// from which sources.
#[derive(serde::Deserialize)]
struct BuildMarker {
    test_hooks: bool,
    /// [`waymark_buildstamp::source_hash`] of the tree the build was made from.
    #[serde(default)]
    source_hash: Option<String>,
}

/// The build marker, `None` when there is none or it cannot be read (an old build).
fn read_marker(extension: &Path) -> Option<BuildMarker> {
    let text = std::fs::read_to_string(extension.join("pkg").join(BUILD_MARKER)).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_needs_a_marker_with_this_trees_hash_and_the_hooks_the_test_drives() {
        let dir = tempfile::tempdir().expect("dir");
        let ext = &dir.path().join("extension");
        for f in [
            "pkg/waymark_worker_bg.wasm",
            "pkg-content/waymark_content_bg.wasm",
            "pkg-wasm2js/waymark_content_bg.wasm.js",
            "pkg-panel/sidepanel.js",
        ] {
            let path = ext.join(f);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, "").expect("write");
        }
        std::fs::write(ext.join("sw.js"), "// source").expect("source");
        let host = ext.join("host");
        assert!(check_build(ext, &host, Needs::Extension).is_err(), "no host");
        std::fs::write(&host, "").expect("host");
        let marker = |hooks: bool, hash: &str| {
            std::fs::write(
                ext.join("pkg").join(BUILD_MARKER),
                format!(r#"{{"test_hooks": {hooks}, "source_hash": "{hash}"}}"#),
            )
            .expect("marker");
        };
        let e = check_build(ext, &host, Needs::Extension).expect_err("no marker");
        assert!(format!("{e}").contains("stale"), "{e}");
        std::fs::write(ext.join("pkg").join(BUILD_MARKER), r#"{"test_hooks": true}"#)
            .expect("marker");
        assert!(check_build(ext, &host, Needs::Extension).is_err(), "a marker without a hash");
        // The host binary and the build outputs are not sources; `sw.js` is.
        let hash = waymark_buildstamp::source_hash(dir.path()).expect("hash");
        marker(false, &hash);
        assert!(check_build(ext, &host, Needs::Extension).is_ok());
        let e = check_build(ext, &host, Needs::TestHooks).expect_err("no hooks");
        assert!(format!("{e}").contains("without the test hooks"), "{e}");
        marker(true, &hash);
        assert!(check_build(ext, &host, Needs::TestHooks).is_ok());
        std::fs::write(ext.join("sw.js"), "// edited after the build").expect("edit");
        let e = check_build(ext, &host, Needs::TestHooks).expect_err("stale");
        assert!(format!("{e}").contains("stale"), "{e}");
        // A build chosen elsewhere (an earlier one copied aside) is not compared with this tree,
        // but still needs its files and the hooks.
        assert!(check_build_from(ext, &host, Needs::TestHooks, Sources::Elsewhere).is_ok());
        marker(false, "an earlier tree's hash");
        let e = check_build_from(ext, &host, Needs::TestHooks, Sources::Elsewhere)
            .expect_err("no hooks");
        assert!(format!("{e}").contains("without the test hooks"), "{e}");
    }
}
