//! `cargo xtask test-windows`: the bridge's Windows named pipe for real, under Wine. Cross-builds
//! `native-host/tests/bridge.rs` and the host for `x86_64-pc-windows-gnu` (mingw-w64) and runs
//! the test with Debian's `wine64`: the test plays the extension's worker on the host's stdio
//! while `waymark-host mcp` and `waymark-host bridge ping` connect over the pipe from processes
//! of their own.
//!
//! Debian's Wine 8.0 has no `bcryptprimitives.dll`, which Rust's standard library imports for
//! `ProcessPrng`; a five-line shim forwarding it to `RtlGenRandom` is built with mingw and put
//! beside the executables (Windows itself has the real one, and Wine 9 too).

use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::process::Command;

use crate::util::{cargo, output, root, run, target_dir};

const TRIPLE: &str = "x86_64-pc-windows-gnu";
const MINGW_GCC: &str = "x86_64-w64-mingw32-gcc";

/// The shim's source: `ProcessPrng` as Wine 8.0 lacks it.
const SHIM_C: &str = r#"#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    return SystemFunction036(data, (ULONG)length);
}
"#;

/// The shim's exports.
const SHIM_DEF: &str = "LIBRARY bcryptprimitives\nEXPORTS\nProcessPrng\n";

/// Installs what is missing, cross-builds the test and runs it under Wine.
pub fn test() -> Result<()> {
    tools()?;
    let exe = build_test()?;
    let shim = build_shim()?;
    let host_dir = target_dir().join(TRIPLE).join("debug");
    for dir in [exe.parent().context("the test's directory")?, host_dir.as_path()] {
        std::fs::copy(&shim, dir.join("bcryptprimitives.dll"))
            .with_context(|| format!("copying the shim into {}", dir.display()))?;
    }
    run(Command::new(wine()?)
        .arg(&exe)
        .current_dir(root().join("native-host"))
        .env("WINEDEBUG", "-all"))
}

/// The Rust target, mingw-w64 and Wine.
fn tools() -> Result<()> {
    let installed =
        output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if !installed.lines().any(|l| l.trim() == TRIPLE) {
        run(Command::new("rustup").args(["target", "add", TRIPLE]))?;
    }
    let mut packages = Vec::new();
    if output(Command::new(MINGW_GCC).arg("--version")).is_none() {
        packages.push("gcc-mingw-w64-x86-64");
    }
    if wine().is_err() {
        packages.push("wine64");
    }
    if !packages.is_empty() {
        if !cfg!(target_os = "linux") {
            bail!("{packages:?} are missing; install them or run this on Debian");
        }
        crate::setup::apt_install(&packages)?;
    }
    Ok(())
}

/// Debian's 64-bit Wine loader (`wine` alone also wants the 32-bit half).
fn wine() -> Result<PathBuf> {
    ["/usr/lib/wine/wine64", "/usr/bin/wine64"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .context("wine64 is not installed")
}

/// Builds the test and the host for Windows; the test's executable.
fn build_test() -> Result<PathBuf> {
    let out = cargo()
        .args(["test", "--no-run", "--message-format=json", "-p", "waymark-host"])
        .args(["--test", "bridge", "--target", TRIPLE])
        .output()
        .context("running cargo")?;
    if !out.status.success() {
        bail!("the Windows build failed:\n{}", String::from_utf8_lossy(&out.stderr));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "compiler-artifact" && v["target"]["name"] == "bridge")
        .find_map(|v| v["executable"].as_str().map(PathBuf::from))
        .context("cargo named no executable for tests/bridge.rs")
}

/// Builds the `ProcessPrng` shim; its path.
fn build_shim() -> Result<PathBuf> {
    let dir = target_dir().join("windows-shim");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let write = |name: &str, text: &str| -> Result<PathBuf> {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    };
    let (c, def) = (write("prng.c", SHIM_C)?, write("prng.def", SHIM_DEF)?);
    let dll = dir.join("bcryptprimitives.dll");
    run(Command::new(MINGW_GCC)
        .arg("-shared")
        .arg("-o")
        .arg(&dll)
        .arg(&c)
        .arg(&def)
        .arg("-ladvapi32"))?;
    Ok(dll)
}
