//! Paths and process helpers shared by the xtask commands.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (parent of `xtask/`).
pub fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(Path::to_path_buf).unwrap_or(here)
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
