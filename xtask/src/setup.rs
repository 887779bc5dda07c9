//! Installs whatever the build and the tests need and is missing. Idempotent and quick when
//! everything is there, so every other command runs it first.

use crate::util::{self, output, run};
use anyhow::{Context, Result, bail};
use std::process::Command;

/// Must equal the `wasm-bindgen = "=X"` pin in the workspace Cargo.toml.
pub const WASM_BINDGEN_VERSION: &str = "0.2.130";
/// npm binaryen: Debian's v108 wasm-opt emits modules that break at run time.
pub const BINARYEN_VERSION: &str = "132.0.0";
/// npm esbuild: bundles the side panel's modules into one file (start-up, see BENCHMARKS.md).
pub const ESBUILD_VERSION: &str = "0.28.2";

/// Which optional parts to install.
pub struct Need {
    /// Debian Chromium (tests and `run`).
    pub chromium: bool,
    /// The evaluation's Python tools: the MiniWoB++ pages, the llama.cpp server and its
    /// small model (`cargo xtask eval`, and `test`, which runs the evaluation in CI).
    pub eval: bool,
}

/// Installs every missing tool.
pub fn all(need: Need) -> Result<()> {
    wasm_target()?;
    wasm_bindgen_cli()?;
    binaryen()?;
    esbuild()?;
    if need.chromium {
        chromium()?;
    }
    if need.eval {
        crate::python::all()?;
    }
    Ok(())
}

fn wasm_target() -> Result<()> {
    let installed =
        output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if !installed.lines().any(|l| l.trim() == "wasm32-unknown-unknown") {
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    Ok(())
}

fn wasm_bindgen_cli() -> Result<()> {
    let have = output(Command::new("wasm-bindgen").arg("--version")).unwrap_or_default();
    if have.split_whitespace().nth(1) != Some(WASM_BINDGEN_VERSION) {
        // Without --locked: the CLI's lock file pins crates that no longer build here.
        run(util::cargo().args([
            "install",
            "wasm-bindgen-cli",
            "--version",
            WASM_BINDGEN_VERSION,
        ]))?;
    }
    Ok(())
}

fn binaryen() -> Result<()> {
    npm_tool("binaryen", BINARYEN_VERSION, &util::binaryen_bin("wasm-opt"))
}

fn esbuild() -> Result<()> {
    npm_tool("esbuild", ESBUILD_VERSION, &util::esbuild_bin())
}

/// Installs the npm package `name@version` into its own folder of the tools directory unless
/// that version and its binary `bin` are there already.
fn npm_tool(name: &str, version: &str, bin: &std::path::Path) -> Result<()> {
    let dir = util::tools_dir().join(name);
    let wanted = format!("\"version\": \"{version}\"");
    let pkg = dir.join("node_modules").join(name).join("package.json");
    let have = std::fs::read_to_string(&pkg).unwrap_or_default();
    if have.contains(&wanted) && bin.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(format!("{name}@{version}")))
}

/// Path of the Chromium binary the tests and `run` use.
pub fn chromium_path() -> String {
    std::env::var("WAYMARK_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned())
}

fn chromium() -> Result<()> {
    if std::path::Path::new(&chromium_path()).exists() {
        return Ok(());
    }
    if !cfg!(target_os = "linux") {
        bail!("Chromium not found at {}; set WAYMARK_CHROMIUM", chromium_path());
    }
    let sudo = output(Command::new("id").arg("-u")).map(|u| u.trim() != "0").unwrap_or(true);
    let apt = |args: &[&str]| {
        let mut cmd = if sudo { Command::new("sudo") } else { Command::new("apt-get") };
        if sudo {
            cmd.arg("apt-get");
        }
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        run(&mut cmd)
    };
    apt(&["update", "-qq"])?;
    apt(&["install", "-y", "-qq", "chromium", "chromium-driver"])
}
