//! Where things are: the workspace, the fixtures, the target dir, and throw-away browser profiles.
//!
//! Why: tests run from any working directory (`cargo test` sets it to the crate, IDEs differ), so
//! every path is derived from `CARGO_MANIFEST_DIR` — the one cargo sets when it runs the test
//! (a path compiled into the binary names whichever clone last built it when clones share a
//! target directory, as CI's do), the compiled one only outside cargo; profiles must be fresh
//! per test and gone afterwards unless someone is debugging.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tempfile::TempDir;

/// The workspace root (parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    let manifest = tests_dir();
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

/// This crate's directory, `<root>/tests`: where cargo runs the test from, else where it was
/// compiled.
pub fn tests_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.join("Cargo.toml").is_file() && dir.ends_with("tests"))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// `<root>/tests/fixtures`: pages the fixture server serves.
pub fn fixtures_dir() -> PathBuf {
    tests_dir().join("fixtures")
}

/// The zip `cargo xtask build` packs from the extension it built, with the release zip's
/// packaging (`cargo xtask dist`): the manifest without its key, no panel sources.
pub fn extension_test_zip() -> PathBuf {
    target_dir().join("waymark-extension-test.zip")
}

/// axe-core's script, installed (pinned) by `cargo xtask setup` into the tools directory
/// (`WAYMARK_TOOLS_DIR`, else `~/.cache/waymark/tools`), for the panel's accessibility checks.
pub fn axe_script() -> PathBuf {
    let tools = std::env::var_os("WAYMARK_TOOLS_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
        home.join(".cache").join("waymark").join("tools")
    });
    tools.join("axe-core").join("node_modules").join("axe-core").join("axe.min.js")
}

/// `<root>/extension`: the unpacked extension as `cargo xtask build` leaves it (generated `pkg*/`
/// directories included), ready for `LaunchOptions::extension`.
pub fn extension_dir() -> PathBuf {
    workspace_root().join("extension")
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set (relative to the workspace root), else
/// `<root>/target`. Built artefacts (the host binary, the unpacked extension) live under it.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() { dir } else { workspace_root().join(dir) }
        }
        None => workspace_root().join("target"),
    }
}

/// Where `cargo xtask setup` installs tools (npm binaryen and esbuild, the Python tools of the
/// evaluation): `WAYMARK_TOOLS_DIR`, else `~/.cache/waymark/tools` (as `xtask/src/util.rs`).
pub fn tools_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("WAYMARK_TOOLS_DIR") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("waymark").join("tools")
}

/// The official MCP Python SDK's version `cargo xtask setup --eval` (and `test`) installs
/// (must equal `xtask/src/python.rs`'s `MCP_SDK_VERSION`).
pub const MCP_SDK_VERSION: &str = "2.3.0";

/// The Python of the venv holding the official MCP SDK (`<tools>/python/mcp-sdk-<v>/`).
pub fn mcp_sdk_python() -> PathBuf {
    tools_dir().join("python").join(format!("mcp-sdk-{MCP_SDK_VERSION}")).join("bin").join("python")
}

/// The debug host binary `cargo xtask build` produces (under [`target_dir`]).
pub fn host_binary() -> PathBuf {
    // `WAYMARK_HOST_BINARY` measures another build (a release host in `cargo xtask bench mcp`).
    std::env::var_os("WAYMARK_HOST_BINARY")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("debug").join("waymark-host"))
}

/// A fresh, empty browser profile directory, deleted on drop.
///
/// Why: every test needs its own `--user-data-dir` (no state leaks between tests, no profile lock
/// clashes when tests run in parallel), and the native host manifest for that profile goes in
/// `<profile>/NativeMessagingHosts/`. Set `WAYMARK_KEEP_PROFILE=1` to keep it for inspection (its
/// path is printed on drop). Declare it *before* the `Browser` so the browser is dropped first.
pub struct TempProfile {
    dir: Option<TempDir>,
}

impl TempProfile {
    /// Creates a new empty profile directory under the system temp dir.
    pub fn new() -> Result<TempProfile> {
        let dir = tempfile::Builder::new()
            .prefix("waymark-profile-")
            .tempdir()
            .context("create temporary browser profile")?;
        Ok(TempProfile { dir: Some(dir) })
    }

    /// The profile directory, to pass as `LaunchOptions::user_data_dir`.
    pub fn path(&self) -> &Path {
        self.dir.as_ref().map_or(Path::new(""), TempDir::path)
    }

    /// `<profile>/NativeMessagingHosts`, created if missing: where Chromium on Linux looks for
    /// user-level native messaging host manifests of this profile.
    pub fn native_messaging_hosts_dir(&self) -> Result<PathBuf> {
        let dir = self.path().join("NativeMessagingHosts");
        std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
        Ok(dir)
    }

    /// Writes `<profile>/NativeMessagingHosts/<name>.json` with `manifest` and returns its path.
    pub fn install_native_host_manifest(
        &self,
        name: &str,
        manifest: &serde_json::Value,
    ) -> Result<PathBuf> {
        let path = self.native_messaging_hosts_dir()?.join(format!("{name}.json"));
        let text = serde_json::to_string_pretty(manifest).context("serialise host manifest")?;
        std::fs::write(&path, text).with_context(|| format!("write {}", path.display()))?;
        Ok(path)
    }
}

impl Drop for TempProfile {
    fn drop(&mut self) {
        if std::env::var_os("WAYMARK_KEEP_PROFILE").is_some_and(|v| v != "0" && !v.is_empty())
            && let Some(dir) = self.dir.take()
        {
            let kept = dir.keep();
            eprintln!("WAYMARK_KEEP_PROFILE: kept {}", kept.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_layout() {
        let root = workspace_root();
        assert!(root.join("Cargo.toml").is_file(), "{}", root.display());
        assert!(tests_dir().ends_with("tests"));
    }

    #[test]
    fn temp_profile_host_manifest() {
        let profile = TempProfile::new().expect("profile");
        let path = profile
            .install_native_host_manifest("com.example.host", &serde_json::json!({"name": "x"}))
            .expect("manifest");
        assert!(path.starts_with(profile.path().join("NativeMessagingHosts")));
        let dir = profile.path().to_path_buf();
        drop(profile);
        assert!(!dir.exists() || std::env::var_os("WAYMARK_KEEP_PROFILE").is_some());
    }
}
