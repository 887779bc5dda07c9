//! `cargo xtask dist [--sourcemaps] [--skip-hosts]`: the release artifacts in `dist/`.
//!
//! * `waymark-extension-<version>.zip`: store-ready (no test hooks, no source maps unless
//!   `--sourcemaps`, the manifest without the development `key`, no unbundled panel sources);
//! * one host binary per [`HOST_TARGETS`] entry built here (Linux x86_64 and aarch64 as static
//!   musl binaries, checked to load no shared library; Windows x86_64), the others (macOS)
//!   type-checked with `cargo check --target`; CI builds them on
//!   their own runners (`.github/workflows/release.yml`);
//! * `<artifact>.sha256` beside each file and one `SHA256SUMS` (the `sha256sum -c` format);
//! * a size report, printed and written to `dist/SIZES.txt`.

use crate::setup::{self, HOST_TARGETS, HostTarget};
use crate::util::{self, run};
use crate::{build, panel};
use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The version every artifact carries: the workspace's, which `extension/manifest.json` must
/// repeat (checked, so a release never ships two versions that disagree).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The cargo profile of released hosts (`Cargo.toml`): release, stripped.
const HOST_PROFILE: &str = "dist";

/// `dist` switches.
pub struct Options {
    /// Ship the panel bundle's source map in the zip.
    pub sourcemaps: bool,
    /// Only the extension (a quick check of the zip).
    pub skip_hosts: bool,
}

/// Builds every artifact into `dist/`.
pub fn run_dist(opts: &Options) -> Result<()> {
    setup::all(setup::Need { chromium: false, eval: false })?;
    if !opts.skip_hosts {
        setup::dist_tools()?;
    }
    let out = util::root().join("dist");
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("clearing {}", out.display()))?;
    }
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let extension_dir = build::extension(false)?;
    let map = if opts.sourcemaps { panel::SourceMap::Linked } else { panel::SourceMap::Without };
    panel::bundle(&extension_dir, map)?;
    let zip = out.join(format!("waymark-extension-{VERSION}.zip"));
    let listing = package_extension(&extension_dir, &zip)?;
    let mut artifacts = vec![zip];
    let mut checked = Vec::new();
    if !opts.skip_hosts {
        for target in HOST_TARGETS {
            if target.build_here {
                artifacts.push(host(target, &out)?);
            } else {
                check_host(target)?;
                checked.push(target.triple);
            }
        }
    }
    checksums(&out, &artifacts)?;
    let report = size_report(&listing, &artifacts, &checked);
    eprintln!("\n{report}");
    std::fs::write(out.join("SIZES.txt"), &report).context("writing dist/SIZES.txt")?;
    eprintln!("dist: artifacts in {}", out.display());
    Ok(())
}

/// One file of the zip and its size, for the report.
pub struct Entry {
    /// Path inside the zip.
    pub name: String,
    /// Uncompressed size in bytes.
    pub bytes: u64,
}

/// Whether an extension file belongs in the store zip: the built `pkg*/` code, the glue and
/// the pages; not the panel's module sources (bundled into `pkg-panel/`), not the build
/// marker (a test aid), not source maps, type declarations, the type checker's
/// `jsconfig.json` or dot files.
pub fn ships(relative: &str, with_maps: bool) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    if name.starts_with('.') || name.ends_with(".d.ts") || name == build::MARKER {
        return false;
    }
    if name.ends_with(".map") {
        return with_maps;
    }
    if relative == "sidepanel.js" || relative == "jsconfig.json" || relative.starts_with("panel/") {
        return false;
    }
    match relative.split_once('/') {
        None => true,
        Some((dir, _)) => dir.starts_with("pkg"),
    }
}

/// The extension manifest as the store wants it: the development `key` (which pins the
/// unpacked ID) removed; fails when its version is not [`VERSION`].
pub fn store_manifest(text: &str) -> Result<String> {
    let mut manifest: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(text).context("extension/manifest.json is not a JSON object")?;
    manifest.remove("key");
    match manifest.get("version").and_then(serde_json::Value::as_str) {
        Some(v) if v == VERSION => {}
        other => bail!(
            "extension/manifest.json has version {other:?} but the workspace is {VERSION}; \
             make them equal before a release"
        ),
    }
    Ok(serde_json::to_string_pretty(&manifest)? + "\n")
}

/// Writes the store zip of `extension_dir` to `zip_path`; returns what it holds.
pub fn package_extension(extension_dir: &Path, zip_path: &Path) -> Result<Vec<Entry>> {
    let with_maps = extension_dir.join("pkg-panel/sidepanel.js.map").exists();
    let mut files = Vec::new();
    collect(extension_dir, extension_dir, &mut files)?;
    files.sort();
    let file = std::fs::File::create(zip_path)
        .with_context(|| format!("creating {}", zip_path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut listing = Vec::new();
    for relative in files.iter().filter(|f| ships(f, with_maps)) {
        let path = extension_dir.join(relative);
        let mut bytes =
            std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        if relative == "manifest.json" {
            bytes = store_manifest(&String::from_utf8(bytes)?)?.into_bytes();
        }
        zip.start_file(relative.as_str(), options)?;
        zip.write_all(&bytes)?;
        listing.push(Entry { name: relative.clone(), bytes: bytes.len() as u64 });
    }
    zip.finish()?;
    for needed in ["manifest.json", "sw.js", "sidepanel.html", "pkg-panel/sidepanel.js"] {
        if !listing.iter().any(|e| e.name == needed) {
            bail!("the extension zip lacks {needed}: build the extension first");
        }
    }
    Ok(listing)
}

/// Every file under `dir`, as `/`-separated paths relative to `root`.
fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect(root, &path, out)?;
        } else {
            let relative = path.strip_prefix(root)?;
            let parts: Vec<String> =
                relative.components().map(|c| c.as_os_str().to_string_lossy().into()).collect();
            out.push(parts.join("/"));
        }
    }
    Ok(())
}

/// Builds the host for `target` with the `dist` profile and copies it into `out`.
fn host(target: &HostTarget, out: &Path) -> Result<PathBuf> {
    let mut cmd = util::cargo();
    cmd.args(["build", "-p", "waymark-host", "--bin", "waymark-host", "--locked"]).args([
        "--profile",
        HOST_PROFILE,
        "--target",
        target.triple,
    ]);
    if let Some((_, gcc)) = target.cross {
        let var = target.triple.to_uppercase().replace('-', "_");
        cmd.env(format!("CARGO_TARGET_{var}_LINKER"), gcc);
        cmd.env(format!("CC_{}", target.triple.replace('-', "_")), gcc);
    }
    if let Some(cc) = target.c_compiler {
        cmd.env(format!("CC_{}", target.triple.replace('-', "_")), cc);
    }
    run(&mut cmd)?;
    let exe = if target.triple.contains("windows") { "waymark-host.exe" } else { "waymark-host" };
    let built = util::target_dir().join(target.triple).join(HOST_PROFILE).join(exe);
    if target.static_binary {
        crate::elf::require_static(&built)?;
    }
    let dest = out.join(target.artifact);
    std::fs::copy(&built, &dest)
        .with_context(|| format!("copying {} to {}", built.display(), dest.display()))?;
    Ok(dest)
}

/// Type-checks every Rust crate of the host for a target this machine cannot build for
/// (macOS: its C needs Apple's SDK). `ring`'s build script compiles C even for `cargo check`,
/// which links nothing: its C compiler and archiver are set to `true` for this target, so the
/// check covers the Rust alone, and the C is compiled for real on the macOS runners
/// (`.github/workflows/release.yml`).
fn check_host(target: &HostTarget) -> Result<()> {
    let triple = target.triple.replace('-', "_");
    run(util::cargo()
        .args(["check", "-p", "waymark-host", "--bin", "waymark-host", "--locked"])
        .args(["--target", target.triple])
        .env(format!("CC_{triple}"), "true")
        .env(format!("AR_{triple}"), "true"))
}

/// Lowercase hex SHA-256 of a file.
pub fn sha256_hex(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}

/// `<file>.sha256` beside each artifact and `SHA256SUMS` with all of them.
fn checksums(out: &Path, artifacts: &[PathBuf]) -> Result<()> {
    let mut all = String::new();
    for path in artifacts {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let line = format!("{}  {name}\n", sha256_hex(path)?);
        std::fs::write(out.join(format!("{name}.sha256")), &line)
            .with_context(|| format!("writing the checksum of {name}"))?;
        all.push_str(&line);
    }
    std::fs::write(out.join("SHA256SUMS"), all).context("writing SHA256SUMS")
}

fn size_report(listing: &[Entry], artifacts: &[PathBuf], checked: &[&str]) -> String {
    let mut s = format!("Waymark {VERSION} release artifacts\n\n");
    for path in artifacts {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        s.push_str(&format!("{:>10} B  {name}\n", build::size(path)));
    }
    for triple in checked {
        s.push_str(&format!("   checked    {triple} (built by CI on its own runner)\n"));
    }
    let total: u64 = listing.iter().map(|e| e.bytes).sum();
    s.push_str(&format!("\nextension zip contents ({total} B uncompressed):\n"));
    let mut by_size: Vec<&Entry> = listing.iter().collect();
    by_size.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
    for e in by_size {
        s.push_str(&format!("{:>10} B  {}\n", e.bytes, e.name));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zip_ships_built_code_and_pages_only() {
        for yes in [
            "manifest.json",
            "sw.js",
            "sidepanel.html",
            "sidepanel.css",
            "icon-128.png",
            "pkg/waymark_worker_bg.wasm",
            "pkg-panel/sidepanel.js",
            "pkg-wasm2js/waymark_content_bg.wasm.js",
        ] {
            assert!(ships(yes, false), "{yes}");
        }
        for no in [
            "sidepanel.js",
            "panel/task.js",
            "jsconfig.json",
            "pkg/waymark-build.json",
            "pkg-panel/sidepanel.js.map",
            "pkg/.gitignore",
            "pkg/waymark_worker.d.ts",
            "node_modules/x/y.js",
        ] {
            assert!(!ships(no, false), "{no}");
        }
        assert!(ships("pkg-panel/sidepanel.js.map", true));
    }

    #[test]
    fn the_store_manifest_has_no_key_and_the_workspace_version() {
        let text = format!(r#"{{"name":"Waymark","version":"{VERSION}","key":"MIIB"}}"#);
        let out = store_manifest(&text).expect("manifest");
        assert!(!out.contains("\"key\"") && out.contains(VERSION));
        assert!(store_manifest(r#"{"version":"0.0.0-other","key":"k"}"#).is_err());
    }

    #[test]
    fn the_real_manifest_is_releasable() {
        let text = std::fs::read_to_string(util::root().join("extension/manifest.json"))
            .expect("manifest");
        store_manifest(&text).expect("the manifest's version matches the workspace");
    }
}
