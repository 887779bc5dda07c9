//! `cargo xtask test` and `cargo xtask run`.

use crate::util::{self, run as sh};
use crate::{build, demo_server, setup};
use anyhow::{Context, Result};
use std::process::Command;

/// Everything CI checks: formatting, clippy (native and wasm), then every test, end-to-end
/// tests in real Chromium included, and the evaluation against the real llama.cpp server.
pub fn test() -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: true })?;
    build::all(build::Options { release: false, test_hooks: true })?;
    // The panel's message types as the Rust types generate them (`extension/types/`), then the
    // extension's JS against them, the DOM, Chrome and the wasm's types.
    sh(util::cargo().args([
        "test",
        "-p",
        "waymark-core",
        "--features",
        "ts",
        "--lib",
        "panel::types",
    ]))?;
    crate::checkjs::run()?;
    sh(util::cargo().args(["fmt", "--all", "--check"]))?;
    sh(util::cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    sh(util::cargo()
        .args(["clippy", "-p", "waymark-core", "--features", "ts", "--all-targets"])
        .args(["--", "-D", "warnings"]))?;
    sh(util::cargo()
        .args([
            "clippy",
            "-p",
            "waymark-page",
            "-p",
            "waymark-core",
            "-p",
            "waymark-worker",
            "-p",
            "waymark-content",
            "--lib",
        ])
        .args(["--target", "wasm32-unknown-unknown", "--", "-D", "warnings"]))?;
    // The test hooks (compiled into the build the tests use, never into a shipped one).
    sh(util::cargo()
        .args(["clippy", "-p", "waymark-worker", "-p", "waymark-content", "--lib"])
        .args(["--features", "test-hooks"])
        .args(["--target", "wasm32-unknown-unknown", "--", "-D", "warnings"]))?;
    // Chromium and the build are there now, so no end-to-end test may be skipped for want of
    // them; a skip the user asks for otherwise (the corpus one) is reported by the e2e binary's
    // harness as ignored, with the reason, and counted in its summary line.
    sh(util::cargo().args(["test", "--workspace"]).env_remove("WAYMARK_SKIP_BROWSER"))?;
    // The evaluation against a real OpenAI-compatible server (llama.cpp, installed and cached
    // by setup): one MiniWoB task, one step — the real wire, the page's own reward, a clean
    // end (the end-to-end test `eval_llama` covers the fixture site the same way).
    crate::eval::harness(&[
        "--llama".into(),
        "--suite".into(),
        "miniwob".into(),
        "--tasks".into(),
        "click-button".into(),
        "--max-steps".into(),
        "1".into(),
        "--time-budget".into(),
        "300".into(),
    ])
}

/// Builds, installs the host into a dedicated Chromium profile and opens Chromium with the
/// extension on a demo page. The LLM comes from the environment (see the README).
pub fn run(force_headless: bool) -> Result<()> {
    setup::all(setup::Need { chromium: true, eval: false })?;
    let built = build::all(build::Options { release: true, test_hooks: false })?;
    let profile = profile_dir();
    std::fs::create_dir_all(&profile).with_context(|| format!("creating {}", profile.display()))?;
    sh(Command::new(&built.host_bin)
        .args(["install", "--in-place", "--browser", "chromium", "--user-data-dir"])
        .arg(&profile))?;
    let doctor = Command::new(&built.host_bin)
        .args(["doctor", "--browser", "chromium", "--user-data-dir"])
        .arg(&profile)
        .status();
    if !doctor.map(|s| s.success()).unwrap_or(false) {
        eprintln!(
            "\nwaymark: the checks above need attention. Without a reachable model the side \
             panel will say so: set OPENAI_API_KEY, ANTHROPIC_API_KEY or WAYMARK_LLM_BASE_URL \
             (default: a local Ollama at http://127.0.0.1:11434/v1) and run again.\n"
        );
    }
    let server = demo_server::start(util::root().join("tests/fixtures/site"))?;
    let url = format!("{}/form.html", server.origin);
    let headless = force_headless
        || (std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none());
    let mut chromium = Command::new(setup::chromium_path());
    chromium
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--load-extension={}", built.extension_dir.display()))
        .arg(format!("--disable-extensions-except={}", built.extension_dir.display()))
        .args(["--no-first-run", "--no-default-browser-check", "--disable-component-update"]);
    if headless {
        chromium.args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-port=9222",
        ]);
    }
    chromium.arg(&url);
    // Chromium's own chatter goes to a log: the last lines here are what the user needs.
    let log = profile.join("chromium.log");
    let file =
        std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
    chromium.stdout(file.try_clone().context("the log file")?).stderr(file);
    let mut child = chromium.spawn().context("starting Chromium")?;
    eprintln!("\nwaymark: Chromium is open on {url}");
    eprintln!("waymark: profile {}", profile.display());
    eprintln!("waymark: Chromium's own output goes to {}", log.display());
    if headless {
        eprintln!(
            "waymark: no display was found, so Chromium runs headless (no window, no toolbar \
             icon): from a machine with a screen, open chrome://inspect, add 127.0.0.1:9222 \
             (forward the port over ssh if needed) and inspect \
             chrome-extension://{DEV_EXTENSION_ID}/sidepanel.html, the side panel as a page; \
             or run with a display (DISPLAY / WAYLAND_DISPLAY set, or under xvfb-run)"
        );
    } else {
        eprintln!("waymark: click the Waymark toolbar icon (or Alt+Shift+W) for the side panel");
    }
    eprintln!("waymark: stop with Ctrl+C here (or close Chromium)");
    let status = child.wait().context("waiting for Chromium")?;
    if !status.success() {
        anyhow::bail!("Chromium ended with {status}; see {}", log.display());
    }
    Ok(())
}

/// The ID the manifest's development key gives the extension (README, "Add Waymark to your
/// everyday browser").
const DEV_EXTENSION_ID: &str = "ogjdpjphojlionhjhkgahnohakjimaoo";

fn profile_dir() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("WAYMARK_PROFILE_DIR") {
        return dir.into();
    }
    let home =
        std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".local/share/waymark/chromium-profile")
}
