//! Paths and process helpers shared by the xtask commands.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (parent of `xtask/`), found when the command runs: `cargo run` sets
/// `CARGO_MANIFEST_DIR` for the clone it was invoked in, whereas a path compiled into the
/// binary would point at whichever clone last built it when clones share a target directory.
pub fn root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let start =
        manifest_dir.or_else(|| std::env::current_dir().ok()).unwrap_or_else(|| PathBuf::from("."));
    workspace_root_above(&start).unwrap_or(start)
}

/// The nearest folder at or above `from` whose `Cargo.toml` declares the workspace.
fn workspace_root_above(from: &Path) -> Option<PathBuf> {
    from.ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|toml| toml.lines().any(|l| l.trim() == "[workspace]"))
        })
        .map(Path::to_path_buf)
}

/// Replaces `from` with `to` in generated code, failing when `from` is missing: a patch that
/// silently does nothing after a tool upgrade would ship the bug it was written to fix.
pub fn patch_required(text: &str, from: &str, to: &str, file: &Path) -> Result<String> {
    if !text.contains(from) {
        bail!(
            "{}: the generated code no longer contains `{from}`; the build's patch must be \
             updated for this tool version",
            file.display()
        );
    }
    Ok(text.replace(from, to))
}

/// Cargo's target directory, honouring `CARGO_TARGET_DIR` (CI points it at a cache).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() { dir } else { root().join(dir) }
        }
        None => root().join("target"),
    }
}

/// Where installed tools (npm binaryen and esbuild) live, kept across clones so CI stays warm.
pub fn tools_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("WAYMARK_TOOLS_DIR") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("waymark").join("tools")
}

/// Path of a binary installed by npm binaryen (`wasm-opt`, `wasm2js`).
pub fn binaryen_bin(name: &str) -> PathBuf {
    tools_dir().join("binaryen").join("node_modules").join(".bin").join(name)
}

/// Path of the npm esbuild binary (bundles the side panel).
pub fn esbuild_bin() -> PathBuf {
    tools_dir().join("esbuild").join("node_modules").join(".bin").join("esbuild")
}

/// The npm TypeScript compiler (checks the extension's JS, see `crate::checkjs`).
pub fn tsc_bin() -> PathBuf {
    tools_dir().join("typescript").join("node_modules").join(".bin").join("tsc")
}

/// The npm ESLint (lints the hand-written scripts, see `crate::checkjs`).
pub fn eslint_bin() -> PathBuf {
    eslint_modules().join(".bin").join("eslint")
}

/// The `node_modules` folder of ESLint and the packages its configuration reads.
pub fn eslint_modules() -> PathBuf {
    tools_dir().join("eslint").join("node_modules")
}

/// The `@types` folder installed beside TypeScript (`@types/chrome` and what it needs).
pub fn tsc_type_roots() -> PathBuf {
    tools_dir().join("typescript").join("node_modules").join("@types")
}

/// The axe-core script the panel test injects (`tests/src/paths.rs` names the same file).
pub fn axe_script() -> PathBuf {
    tools_dir().join("axe-core").join("node_modules").join("axe-core").join("axe.min.js")
}

/// Runs a command, echoing it, and fails with its exit status.
pub fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {}", show(cmd));
    let status = cmd.status().with_context(|| format!("could not start {}", show(cmd)))?;
    if !status.success() {
        bail!("`{}` failed with {status}", show(cmd));
    }
    Ok(())
}

/// Runs a command and returns its stdout, or `None` when it cannot start or fails.
pub fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        s.push(' ');
        s.push_str(&arg.to_string_lossy());
    }
    s
}

/// `cargo` as the one running this xtask.
pub fn cargo() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root());
    cmd
}
