//! Builds the unpacked extension and the host. The extension gets three builds of the Rust:
//! `pkg/` (waymark-worker, `--target web`: service worker and side panel), `pkg-content/`
//! (waymark-content, the content script alone: DOM walk and actions) and `pkg-wasm2js/` (the
//! same content build as plain JavaScript, for pages whose CSP blocks WebAssembly). The side
//! panel's modules are bundled into `pkg-panel/` (see `panel.rs`).

use crate::util::{self, run};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Build switches.
pub struct Options {
    /// Build the host with the release profile.
    pub release: bool,
    /// Compile waymark-worker's `test-hooks` feature into the service worker (and
    /// waymark-content's into the content script): the end-to-end tests and benchmarks drive
    /// the agent's tab code through it, and force crashes with it. Shipped builds (`run`,
    /// `build --release`) leave it out.
    pub test_hooks: bool,
}

/// The marker `all` writes into `extension/pkg/`: which flavour of the extension is built, so
/// the end-to-end tests can refuse (loudly) a build without the hooks they need instead of
/// waiting for a global that never appears.
pub const MARKER: &str = "waymark-build.json";

/// What a build produced, for `run` and for size reports.
pub struct Built {
    /// The unpacked extension directory.
    pub extension_dir: PathBuf,
    /// The host binary.
    pub host_bin: PathBuf,
}

/// Features rustc enables by default for wasm32 that wasm2js cannot translate.
/// The larger initial memory (32 MiB) keeps big pages from growing memory, which wasm2js does
/// by swapping its ArrayBuffer (see the glue patch in `wasm2js`).
const WASM2JS_RUSTFLAGS: &str = "-C target-feature=-reference-types,-multivalue,-bulk-memory,-nontrapping-fptoint,-sign-ext -C link-arg=--initial-memory=33554432";

/// Builds everything.
pub fn all(opts: Options) -> Result<Built> {
    let start = Instant::now();
    let extension_dir = extension(opts.test_hooks)?;
    // The store zip's packaging applied to this build: the first-run test loads it the way a
    // user loads the release zip (no manifest key, so the ID is not the fixed one).
    crate::dist::package_extension(&extension_dir, &test_zip())?;
    let host_bin = host(opts.release)?;
    eprintln!(
        "built in {:.1?}: host {} B ({})",
        start.elapsed(),
        size(&host_bin),
        host_bin.display()
    );
    Ok(Built { extension_dir, host_bin })
}

/// Where [`all`] writes the zip of the build it made (`tests/src/paths.rs` names the same file).
pub fn test_zip() -> PathBuf {
    util::target_dir().join("waymark-extension-test.zip")
}

/// Builds the unpacked extension in `extension/` (no host) and returns its directory.
pub fn extension(test_hooks: bool) -> Result<PathBuf> {
    let start = Instant::now();
    let extension_dir = util::root().join("extension");
    let source_hash = waymark_buildstamp::source_hash(&util::root())?;
    let web = wasm_web(&extension_dir, test_hooks)?;
    write_marker(&extension_dir, test_hooks, &source_hash)?;
    let content = wasm_content(&extension_dir, test_hooks)?;
    let js = wasm2js(&extension_dir)?;
    let panel = crate::panel::bundle(&extension_dir, crate::panel::SourceMap::Linked)?;
    eprintln!(
        "extension built in {:.1?}: wasm {} B, content wasm {} B, content wasm2js {} B, panel JS {} B",
        start.elapsed(),
        size(&web),
        size(&content),
        size(&js),
        size(&panel),
    );
    Ok(extension_dir)
}

/// Writes [`MARKER`] (read by `tests/src/e2e.rs`).
/// The source hash is the one of the tree when the build started: an edit made while it runs
/// leaves a marker the tests refuse.
fn write_marker(extension_dir: &Path, test_hooks: bool, source_hash: &str) -> Result<()> {
    let path = extension_dir.join("pkg").join(MARKER);
    let text = serde_json::json!({
        "test_hooks": test_hooks,
        "wasm_profile": wasm_profile(),
        "source_hash": source_hash,
    })
    .to_string();
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}

/// A file's size in bytes (0 when absent: size reports only).
pub fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// The cargo profile of the wasm builds: `wasm` (size-optimised, fat LTO) unless the developer
/// asks for the quick-to-rebuild `wasm-dev` through `WAYMARK_WASM_PROFILE`.
fn wasm_profile() -> String {
    std::env::var("WAYMARK_WASM_PROFILE").unwrap_or_else(|_| "wasm".to_owned())
}

/// Binaryen's optimisation level: full size optimisation for shipped builds (full speed for
/// the content script's), a quick pass for `wasm-dev` (binaryen's `-Oz` dominates an
/// incremental rebuild otherwise).
fn binaryen_opt(package: &str) -> &'static str {
    match (wasm_profile() == "wasm", package == CONTENT) {
        (false, _) => "-O1",
        (true, true) => "-O3",
        (true, false) => "-Oz",
    }
}

/// The service worker's and side panel's crate.
const WORKER: &str = "waymark-worker";
/// The content script's crate.
const CONTENT: &str = "waymark-content";

fn crate_wasm(target_dir: &Path, package: &str) -> PathBuf {
    let file = format!("{}.wasm", package.replace('-', "_"));
    target_dir.join("wasm32-unknown-unknown").join(wasm_profile()).join(file)
}

/// Stack placement for every wasm build: the stack goes first in linear memory, so an overflow
/// (a deep DOM on a real page) traps instead of silently overwriting the heap, and it is 4 MiB
/// rather than 1 MiB because page walks recurse.
const WASM_STACK_FLAGS: &str = "-C link-arg=--stack-first -C link-arg=-zstack-size=4194304";

fn cargo_wasm(
    target_dir: &Path,
    package: &str,
    rustflags: Option<&str>,
    test_hooks: bool,
) -> Result<()> {
    let mut cmd = util::cargo();
    cmd.args(["build", "-p", package, "--lib", "--target", "wasm32-unknown-unknown"])
        .args(["--profile", &wasm_profile(), "--target-dir"])
        .arg(target_dir);
    if test_hooks {
        cmd.args(["--features", "test-hooks"]);
    }
    if package == CONTENT {
        // The content script walks every element of the page on every step: optimise it for
        // speed (it is small enough; `cargo xtask bench dom` measured the difference).
        cmd.env("CARGO_PROFILE_WASM_OPT_LEVEL", "3");
    }
    let flags = match rustflags {
        Some(extra) => format!("{WASM_STACK_FLAGS} {extra}"),
        None => WASM_STACK_FLAGS.to_owned(),
    };
    cmd.env("RUSTFLAGS", flags);
    run(&mut cmd)
}

fn wasm_bindgen(input: &Path, target: &str, out_dir: &Path) -> Result<()> {
    if out_dir.exists() {
        std::fs::remove_dir_all(out_dir)
            .with_context(|| format!("clearing {}", out_dir.display()))?;
    }
    let mut cmd = Command::new("wasm-bindgen");
    cmd.args(["--target", target, "--out-dir"]).arg(out_dir).arg(input);
    if target != "web" {
        // Only the web builds' `.d.ts` are read: `cargo xtask check-js` types `sw.js`'s
        // imports with them (the store zip leaves them out).
        cmd.arg("--no-typescript");
    }
    if target == "web" {
        // `__wbg_reset_state()`: after a panic traps the wasm, the glue (`sw.js`, `content.js`)
        // starts a fresh instance of the same module in place; closures of the crashed one
        // throw instead of running on the new one's memory.
        cmd.arg("--experimental-reset-state-function");
    }
    run(&mut cmd)
}

/// The `--target web` build used by the service worker and the side panel.
fn wasm_web(extension_dir: &Path, test_hooks: bool) -> Result<PathBuf> {
    web_build(extension_dir, WORKER, "pkg", test_hooks)
}

/// The content script's own `--target web` build: only the DOM walk and actions.
fn wasm_content(extension_dir: &Path, test_hooks: bool) -> Result<PathBuf> {
    web_build(extension_dir, CONTENT, "pkg-content", test_hooks)
}

fn web_build(extension_dir: &Path, package: &str, dir: &str, test_hooks: bool) -> Result<PathBuf> {
    let target_dir = util::target_dir();
    cargo_wasm(&target_dir, package, None, test_hooks)?;
    let out_dir = extension_dir.join(dir);
    wasm_bindgen(&crate_wasm(&target_dir, package), "web", &out_dir)?;
    let wasm = out_dir.join(format!("{}_bg.wasm", package.replace('-', "_")));
    run(Command::new(util::binaryen_bin("wasm-opt"))
        .arg(&wasm)
        .args([binaryen_opt(package), "--strip-debug", "--strip-producers"])
        .args(WEB_FEATURES)
        .arg("-o")
        .arg(&wasm))?;
    Ok(wasm)
}

/// The features rustc's wasm32 target emits by default; wasm-opt must accept them.
const WEB_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-bulk-memory-opt",
    "--enable-sign-ext",
    "--enable-nontrapping-float-to-int",
    "--enable-reference-types",
    "--enable-multivalue",
    "--enable-mutable-globals",
];

/// The content build as plain JavaScript, for pages whose CSP blocks WebAssembly compiles
/// (only content scripts need it: extension pages allow `wasm-unsafe-eval`).
fn wasm2js(extension_dir: &Path) -> Result<PathBuf> {
    let target_dir = util::target_dir().join("wasm2js");
    cargo_wasm(&target_dir, CONTENT, Some(WASM2JS_RUSTFLAGS), false)?;
    let name = CONTENT.replace('-', "_");
    let work = target_dir.join("work");
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    // wasm-bindgen would read `target_features` and emit reference-types glue: drop it.
    let stripped = work.join(format!("{name}.wasm"));
    run(Command::new(util::binaryen_bin("wasm-opt"))
        .arg(crate_wasm(&target_dir, CONTENT))
        .args(["--strip-target-features", "--enable-bulk-memory", "--enable-bulk-memory-opt"])
        .args(["--enable-sign-ext", "--enable-nontrapping-float-to-int", "-o"])
        .arg(&stripped))?;
    let out_dir = extension_dir.join("pkg-wasm2js");
    wasm_bindgen(&stripped, "bundler", &out_dir)?;
    let bg = out_dir.join(format!("{name}_bg.wasm"));
    let lowered = work.join("lowered.wasm");
    // The prebuilt std still uses bulk memory, sign-ext and saturating conversions: lower them.
    run(Command::new(util::binaryen_bin("wasm-opt"))
        .arg(&bg)
        .args(["--enable-bulk-memory", "--enable-bulk-memory-opt", "--enable-sign-ext"])
        .args(["--enable-nontrapping-float-to-int", "--llvm-memory-copy-fill-lowering"])
        .args(["--signext-lowering", "--llvm-nontrapping-fptoint-lowering", binaryen_opt(CONTENT)])
        .arg("-o")
        .arg(&lowered))?;
    let js = out_dir.join(format!("{name}_bg.wasm.js"));
    run(Command::new(util::binaryen_bin("wasm2js"))
        .arg(&lowered)
        .args([binaryen_opt(CONTENT), "-o"])
        .arg(&js))?;
    std::fs::remove_file(&bg).with_context(|| format!("removing {}", bg.display()))?;
    // wasm2js grows memory by replacing its ArrayBuffer without detaching the old one; the
    // glue's "is my view stale?" checks (`byteLength === 0`, `detached`) would keep writing to
    // the old one and corrupt the heap (seen as dlmalloc assertions on big pages).
    let bg_glue = out_dir.join(format!("{name}_bg.js"));
    let glue = std::fs::read_to_string(&bg_glue)
        .with_context(|| format!("reading {}", bg_glue.display()))?;
    let glue = util::patch_required(
        &glue,
        "Memory0.byteLength === 0",
        "Memory0.buffer !== wasm.memory.buffer",
        &bg_glue,
    )?;
    let glue = util::patch_required(
        &glue,
        "cachedDataViewMemory0.buffer.detached === true",
        "cachedDataViewMemory0.buffer !== wasm.memory.buffer",
        &bg_glue,
    )?;
    std::fs::write(&bg_glue, glue).with_context(|| format!("writing {}", bg_glue.display()))?;
    let entry = out_dir.join(format!("{name}.js"));
    let glue =
        std::fs::read_to_string(&entry).with_context(|| format!("reading {}", entry.display()))?;
    let glue = util::patch_required(
        &glue,
        &format!("./{name}_bg.wasm\""),
        &format!("./{name}_bg.wasm.js\""),
        &entry,
    )?;
    std::fs::write(&entry, glue).with_context(|| format!("writing {}", entry.display()))?;
    Ok(js)
}

fn host(release: bool) -> Result<PathBuf> {
    let mut cmd = util::cargo();
    cmd.args(["build", "-p", "waymark-host", "--bin", "waymark-host"]);
    if release {
        cmd.arg("--release");
    }
    run(&mut cmd)?;
    let profile = if release { "release" } else { "debug" };
    Ok(util::target_dir().join(profile).join("waymark-host"))
}
