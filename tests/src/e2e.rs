//! Whether an end-to-end test runs, on which build, and the count of the ones that did not.
//!
//! Why: a test that returns early when nothing is built passes without testing anything, and a
//! green `cargo test` then says nothing about the extension. So an end-to-end test whose
//! prerequisites are missing **fails**, naming the command that provides them; it is skipped
//! only when the run asks for it ([`SKIP_BROWSER`] for every test that needs Chromium,
//! [`SKIP_CORPUS`] for the DOM corpus test alone), and every skip is recorded in a ledger shared
//! by the whole `cargo test` run (all test binaries), so the run can say how many it skipped:
//! each skip prints the running count (past the output capture), and `cargo xtask test`
//! prints the total at the end.

use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::paths;

/// `WAYMARK_SKIP_BROWSER=1`: skip (and count) every test that needs Chromium, for machines
/// without it or a quick `cargo test` of the native code.
pub const SKIP_BROWSER: &str = "WAYMARK_SKIP_BROWSER";

/// `WAYMARK_SKIP_CORPUS=1`: skip (and count) the test over the shared DOM corpus, for machines
/// without a copy of it.
pub const SKIP_CORPUS: &str = "WAYMARK_SKIP_CORPUS";

/// The ledger file the skips of one run go to; `cargo xtask test` sets it (and reads it back).
/// Without it, the ledger is per `cargo test` process: `<target>/waymark-skips/<cargo pid>.log`.
pub const SKIP_LEDGER: &str = "WAYMARK_SKIP_LEDGER";

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

/// The ledger of this run's skips.
pub fn ledger_path() -> PathBuf {
    if let Some(path) = std::env::var_os(SKIP_LEDGER) {
        return PathBuf::from(path);
    }
    // Test binaries are children of the `cargo test` that runs them all.
    let run = std::os::unix::process::parent_id();
    paths::target_dir().join("waymark-skips").join(format!("cargo-{run}.log"))
}

/// Records that the current test is skipped because of `var`, and says so on stderr past the
/// test harness's output capture, with the run's count so far. Returns that count.
pub fn record_skip(var: &str, what: &str) -> usize {
    let test = std::thread::current().name().unwrap_or("(unnamed test)").to_owned();
    let binary = std::env::args()
        .next()
        .and_then(|a| Path::new(&a).file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let ledger = ledger_path();
    let count = append_line(&ledger, &format!("{binary}\t{test}\t{var}")).unwrap_or_else(|e| {
        // A skip that cannot be counted must not pass silently either.
        panic!("{var} is set, but the skip of {test} cannot be recorded: {e:#}")
    });
    // Straight to the process's stderr: `eprintln!` is captured for passing tests.
    #[allow(
        clippy::let_underscore_must_use,
        reason = "a closed stderr has no one to tell; the ledger counts the skip"
    )]
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED end-to-end test {test} ({binary}): {what}, because {var} is set; \
         {count} skipped so far in this run (ledger {})",
        ledger.display()
    );
    count
}

/// Appends `line` to the ledger and returns its number of lines.
fn append_line(ledger: &Path, line: &str) -> Result<usize> {
    if let Some(dir) = ledger.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(ledger)
        .with_context(|| format!("opening {}", ledger.display()))?;
    // One `write` per line: appends from parallel tests never interleave within a line.
    file.write_all(format!("{line}\n").as_bytes())
        .with_context(|| format!("writing {}", ledger.display()))?;
    let text =
        std::fs::read_to_string(ledger).with_context(|| format!("reading {}", ledger.display()))?;
    Ok(text.lines().count())
}

/// Whether a test that launches Chromium (and nothing else of ours) runs: `false` when
/// [`SKIP_BROWSER`] asks to skip (recorded).
pub fn browser_test() -> bool {
    if skip_requested(SKIP_BROWSER) {
        record_skip(SKIP_BROWSER, "needs Chromium");
        return false;
    }
    true
}

/// The built unpacked extension for a test, `None` when [`SKIP_BROWSER`] asks to skip
/// (recorded). Panics, naming the command to run, when the build is missing or lacks what the
/// test needs.
pub fn built_extension(needs: Needs) -> Option<PathBuf> {
    if !browser_test() {
        return None;
    }
    match check_build(&paths::extension_dir(), &paths::host_binary(), needs) {
        Ok(dir) => Some(dir),
        Err(e) => panic!(
            "{e:#}\n\nRun `{BUILD_COMMAND}` and then this test again, or `cargo xtask test` for \
             everything; set {SKIP_BROWSER}=1 to skip the end-to-end tests (they are counted)."
        ),
    }
}

/// Checks that `extension` (and the host) hold a build that satisfies `needs`.
pub fn check_build(extension: &Path, host: &Path, needs: Needs) -> Result<PathBuf> {
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
    if marker.as_ref().and_then(|m| m.source_hash.as_deref()) != Some(now.as_str()) {
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
    fn the_ledger_counts_every_skip() {
        let dir = tempfile::tempdir().expect("dir");
        let ledger = dir.path().join("sub").join("skips.log");
        assert_eq!(append_line(&ledger, "a\tone\tX").expect("first"), 1);
        assert_eq!(append_line(&ledger, "a\ttwo\tX").expect("second"), 2);
    }

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
    }
}
