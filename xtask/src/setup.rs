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

/// npm axe-core: the accessibility checker the panel test runs on every screenshot.
pub const AXE_CORE_VERSION: &str = "4.10.3";

/// npm typescript: type-checks the extension's hand-written JS (`checkJs`, see
/// `extension/jsconfig.json`). The last 5.x line: 7.x is the Go port with other flags.
pub const TYPESCRIPT_VERSION: &str = "5.9.3";

/// npm @types/chrome, installed beside typescript: the `chrome.*` API the JS calls.
pub const TYPES_CHROME_VERSION: &str = "0.3.7";

/// npm eslint: lints every hand-written script (`eslint.config.mjs` at the root), after the
/// type check. The 10.x line (flat configuration only; Node 20.19 or later).
pub const ESLINT_VERSION: &str = "10.15.0";

/// npm @eslint/js, installed beside eslint: its `recommended` rules.
pub const ESLINT_JS_VERSION: &str = "10.0.1";

/// npm globals, installed beside eslint: which names each place a script runs in defines.
pub const GLOBALS_VERSION: &str = "17.14.0";

/// Which optional parts to install.
pub struct Need {
    /// Debian Chromium (tests and `run`).
    pub chromium: bool,
    /// The evaluation's tools: the MiniWoB++ pages, the llama.cpp server and its small model,
    /// the library zoo's npm packages (`cargo xtask eval`, and `test`, which runs the
    /// evaluation in CI).
    pub eval: bool,
}

/// Installs every missing tool.
pub fn all(need: Need) -> Result<()> {
    wasm_target()?;
    wasm_bindgen_cli()?;
    binaryen()?;
    esbuild()?;
    npm_tool("axe-core", AXE_CORE_VERSION, &util::axe_script())?;
    typescript()?;
    eslint()?;
    if need.chromium {
        chromium()?;
    }
    if need.eval {
        crate::python::all()?;
        crate::libzoo::install()?;
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

/// typescript and @types/chrome in one folder, so `tsc --typeRoots` finds the types beside it.
fn typescript() -> Result<()> {
    npm_tool_with(
        ("typescript", TYPESCRIPT_VERSION),
        &[("@types/chrome", TYPES_CHROME_VERSION)],
        &util::tsc_bin(),
    )
}

/// eslint with the rules and globals `eslint.config.mjs` reads, in one folder (the config finds
/// them through `WAYMARK_ESLINT_MODULES`, see `crate::checkjs`).
fn eslint() -> Result<()> {
    npm_tool_with(
        ("eslint", ESLINT_VERSION),
        &[("@eslint/js", ESLINT_JS_VERSION), ("globals", GLOBALS_VERSION)],
        &util::eslint_bin(),
    )
}

/// Installs the npm package `name@version` into its own folder of the tools directory unless
/// that version and its binary `bin` are there already.
fn npm_tool(name: &str, version: &str, bin: &std::path::Path) -> Result<()> {
    npm_tool_with((name, version), &[], bin)
}

/// [`npm_tool`] with companion packages installed into the same folder (each pinned too).
fn npm_tool_with(
    (name, version): (&str, &str),
    companions: &[(&str, &str)],
    bin: &std::path::Path,
) -> Result<()> {
    let dir = util::tools_dir().join(name);
    let installed = |pkg: &str, version: &str| {
        let manifest = dir.join("node_modules").join(pkg).join("package.json");
        std::fs::read_to_string(&manifest)
            .unwrap_or_default()
            .contains(&format!("\"version\": \"{version}\""))
    };
    if installed(name, version)
        && companions.iter().all(|&(pkg, v)| installed(pkg, v))
        && bin.exists()
    {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    run(Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(format!("{name}@{version}"))
        .args(companions.iter().map(|(pkg, v)| format!("{pkg}@{v}"))))
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
    apt_install(&["chromium", "chromium-driver"])
}

/// Installs Debian packages (through sudo when not root).
pub(crate) fn apt_install(packages: &[&str]) -> Result<()> {
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
    let mut args = vec!["install", "-y", "-qq"];
    args.extend_from_slice(packages);
    apt(&args)
}

/// A host build target of `cargo xtask dist` and how this machine treats it.
pub struct HostTarget {
    /// Rust target triple.
    pub triple: &'static str,
    /// File name of the released binary (also what the side panel's install command names).
    pub artifact: &'static str,
    /// Built here (`true`) or only type-checked with `cargo check --target` (CI builds it on
    /// its own runner, see `.github/workflows/release.yml`).
    pub build_here: bool,
    /// C cross compiler (Debian package, binary) a build needs: `ring` compiles C and the
    /// linker must match the target.
    pub cross: Option<(&'static str, &'static str)>,
    /// The C compiler for `ring` when the target needs one named but not a cross linker (the
    /// native musl build: the system gcc compiles ring's freestanding C; Rust links musl in).
    pub c_compiler: Option<&'static str>,
    /// A fully static binary (no `PT_INTERP`, no `DT_NEEDED`), checked after the build.
    pub static_binary: bool,
}

/// Every host the releases ship. Linux and Windows are built on this Debian machine (Windows
/// with mingw-w64, Linux aarch64 with Debian's cross gcc); macOS needs Apple's SDK, so here it
/// is only checked. Linux hosts are static musl binaries: they need no glibc at all, so they
/// start on any distribution whose kernel Rust supports (3.2 or newer), whatever its libc.
pub const HOST_TARGETS: &[HostTarget] = &[
    HostTarget {
        triple: "x86_64-unknown-linux-musl",
        artifact: "waymark-host-linux-x86_64",
        build_here: true,
        cross: None,
        c_compiler: Some("gcc"),
        static_binary: true,
    },
    HostTarget {
        triple: "aarch64-unknown-linux-musl",
        artifact: "waymark-host-linux-aarch64",
        build_here: true,
        cross: Some(("gcc-aarch64-linux-gnu", "aarch64-linux-gnu-gcc")),
        c_compiler: None,
        static_binary: true,
    },
    HostTarget {
        triple: "x86_64-pc-windows-gnu",
        artifact: "waymark-host-windows-x86_64.exe",
        build_here: true,
        cross: Some(("gcc-mingw-w64-x86-64", "x86_64-w64-mingw32-gcc")),
        c_compiler: None,
        static_binary: false,
    },
    HostTarget {
        triple: "x86_64-apple-darwin",
        artifact: "waymark-host-macos-x86_64",
        build_here: false,
        cross: None,
        c_compiler: None,
        static_binary: false,
    },
    HostTarget {
        triple: "aarch64-apple-darwin",
        artifact: "waymark-host-macos-arm64",
        build_here: false,
        cross: None,
        c_compiler: None,
        static_binary: false,
    },
];

/// What `cargo xtask dist` needs besides the extension's tools: the Rust targets of every host
/// and the C cross compilers of those built here. Only `dist` installs them, so `test` and CI
/// stay as quick as before.
pub fn dist_tools() -> Result<()> {
    let installed =
        output(Command::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    let missing: Vec<&str> = HOST_TARGETS
        .iter()
        .map(|t| t.triple)
        .filter(|t| !installed.lines().any(|l| l.trim() == *t))
        .collect();
    if !missing.is_empty() {
        run(Command::new("rustup").args(["target", "add"]).args(&missing))?;
    }
    let mut packages: Vec<&str> = HOST_TARGETS
        .iter()
        .filter(|t| t.build_here)
        .filter_map(|t| t.cross)
        .filter(|(_, gcc)| output(Command::new(gcc).arg("--version")).is_none())
        .map(|(package, _)| package)
        .collect();
    packages.dedup();
    if !packages.is_empty() {
        if !cfg!(target_os = "linux") {
            bail!("cross compilers {packages:?} are missing; install them or build on Linux");
        }
        apt_install(&packages)?;
    }
    Ok(())
}
