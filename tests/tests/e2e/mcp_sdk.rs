//! External agents through a client nobody here wrote: the official MCP Python SDK (`mcp`,
//! pinned, installed by `cargo xtask setup --eval` and `cargo xtask test`) starts the real
//! `waymark-host mcp` as it starts any stdio server — with the SDK's default, minimal
//! environment (HOME, PATH, …; no `WAYMARK_*`, no `XDG_RUNTIME_DIR`) and the newest protocol
//! it negotiates — and reaches the real extension in real Chromium, whose host found its
//! bridge directory from the same HOME alone. Covers: `doctor` and the tool error before the
//! switch (nothing registered, where), tools listed, a snapshot, a click whose card the panel
//! approves (with progress saying it waits), `waymark_run_task`, a card nobody answers (the
//! call times out after the user's setting and the card goes), and switched off.

use crate::common;
use crate::mcp_support;
use common::{
    Panel, Setup, TASK_TIMEOUT, Waymark, fill_the_form, find_ref, is_summary_call, role_reply,
};
use mcp_support::{set_external, sockets, wait_until};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// The SDK's Python, or a failure saying how to install it.
fn sdk_python() -> PathBuf {
    let python = paths::mcp_sdk_python();
    assert!(
        python.exists(),
        "the MCP Python SDK {} is not installed at {}: run `cargo xtask setup --eval`",
        paths::MCP_SDK_VERSION,
        python.display()
    );
    python
}

/// What any process started from a desktop would have, and nothing else.
fn minimal_env(cmd: &mut Command, home: &Path) {
    cmd.env_clear().env("HOME", home).env("PATH", std::env::var("PATH").unwrap_or_default());
    for name in ["USER", "LOGNAME", "SHELL", "TERM"] {
        if let Ok(v) = std::env::var(name) {
            cmd.env(name, v);
        }
    }
}

/// The SDK client, driven one JSON line at a time (see `mcp_support/sdk_client.py`).
struct SdkClient {
    child: Child,
    lines: Receiver<Value>,
    protocol: String,
}

impl SdkClient {
    fn spawn(home: &Path, name: &str) -> Self {
        let script = paths::workspace_root().join("tests/tests/e2e/mcp_support/sdk_client.py");
        let mut cmd = Command::new(sdk_python());
        minimal_env(&mut cmd, home);
        let mut child = cmd
            .arg(script)
            .arg(paths::host_binary())
            .arg(name)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the SDK client");
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&line).expect("the client prints JSON");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let mut client = Self { child, lines, protocol: String::new() };
        let ready = client.next();
        assert_eq!(ready["ready"], true, "{ready}");
        client.protocol = ready["protocol"].as_str().unwrap_or_default().to_owned();
        client
    }

    fn send(&mut self, command: &Value) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{command}").expect("write");
        stdin.flush().expect("flush");
    }

    fn next(&self) -> Value {
        self.lines.recv_timeout(TASK_TIMEOUT * 2).expect("the SDK client answers")
    }

    /// Starts a tool call; [`Self::next`] is its result.
    fn start(&mut self, name: &str, args: Value) {
        self.send(&json!({"op": "call", "name": name, "args": args}));
    }

    /// A tool call: (is an error, its text, its progress).
    fn call(&mut self, name: &str, args: Value) -> (bool, String, Vec<Value>) {
        self.start(name, args);
        Self::result(&self.next())
    }

    fn result(v: &Value) -> (bool, String, Vec<Value>) {
        let progress = v["progress"].as_array().cloned().unwrap_or_default();
        (v["error"] == true, v["text"].as_str().unwrap_or_default().to_owned(), progress)
    }
}

impl Drop for SdkClient {
    #[allow(clippy::let_underscore_must_use, reason = "cleanup: the process may be gone")]
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `waymark-host doctor`'s line about external agents, run in the minimal environment.
fn doctor_line(home: &Path) -> String {
    let mut cmd = Command::new(paths::host_binary());
    minimal_env(&mut cmd, home);
    let out = cmd.arg("doctor").output().expect("doctor");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find(|l| l.contains("external agents:"))
        .unwrap_or_else(|| panic!("no line about external agents: {text}"))
        .to_owned()
}

/// The progress values only grow (the MCP spec).
fn assert_increasing(progress: &[Value]) {
    let values: Vec<f64> = progress.iter().filter_map(|p| p["progress"].as_f64()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
}

fn card_shown(panel: &Panel) -> String {
    let message = panel
        .page
        .wait_for(
            "(() => { const c = document.getElementById('intervention'); \
             return !c.hidden && c.dataset.kind === 'confirm' && \
             document.getElementById('intervention-message').textContent; })()",
            TASK_TIMEOUT,
        )
        .expect("a card");
    message.as_str().unwrap_or_default().to_owned()
}

fn posts(site: &FixtureServer) -> usize {
    site.requests().into_iter().filter(|r| r.path.starts_with("/collect")).count()
}

fn scripted() -> ScriptedLlm {
    ScriptedLlm::start(|req| {
        if is_summary_call(req) {
            return ScriptedReply::text(
                json!({"summary": "Saved Ada.", "data": {"saved_name": "Ada"}, "toc": "Saved Ada"})
                    .to_string(),
            );
        }
        if let Some(r) = role_reply(req) {
            return r;
        }
        fill_the_form(req, "Saved Ada.")
    })
    .expect("llm")
}

fn the_official_python_sdk_with_its_default_environment_drives_the_browser(ext: &Path) {
    let llm = scripted();
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let home = tempfile::tempdir().expect("home");
    // The browser (and the host it starts) runs with this HOME and no bridge override: both
    // sides find the bridge from HOME alone.
    let extra =
        [("HOME", home.path().display().to_string()), ("WAYMARK_RUNTIME_DIR", String::new())];
    let w = Waymark::launch_with_env(ext, Setup { llm: &llm, install_host: true, site }, &extra)
        .expect("launch");
    let bridge = home.path().join(".local/state/waymark/bridge");
    let panel = w.panel().expect("panel");
    let page = w.open("/bridge.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");

    // Before the switch, doctor and the tool both say nothing registered, and where.
    let line = doctor_line(home.path());
    assert!(
        line.contains("no browser has registered") && line.contains(&bridge.display().to_string()),
        "{line}"
    );
    let mut claude = SdkClient::spawn(home.path(), "claude-code");
    assert_eq!(claude.protocol, "2026-07-28", "the SDK's newest protocol, without a handshake");
    let (err, text, _) = claude.call("browser_snapshot", json!({}));
    assert!(err && text.contains("no browser has registered"), "{text}");
    assert!(text.contains(&bridge.display().to_string()), "{text}");

    set_external(&panel, true);
    wait_until("the bridge socket", || sockets(&bridge).into_iter().next());
    let line = doctor_line(home.path());
    assert!(line.contains("answers end to end"), "{line}");

    claude.send(&json!({"op": "tools"}));
    let tools = claude.next();
    for tool in ["browser_snapshot", "browser_click", "browser_type", "waymark_run_task"] {
        assert!(tools["tools"].as_array().is_some_and(|t| t.contains(&json!(tool))), "{tools}");
    }
    let (err, snap, _) = claude.call("browser_snapshot", json!({}));
    assert!(!err && snap.contains("<page_content id="), "{snap}");
    // The newest protocol has no handshake: the name comes from the requests themselves.
    panel.wait_text("external-line", "t === 'Claude Code is connected'").expect("named");
    let message = find_ref(&snap, "textbox", "Message").expect("Message ref");
    let send = find_ref(&snap, "button", "Send").expect("Send ref");
    let (err, typed, _) = claude.call("browser_type", json!({"ref": message, "text": "hi"}));
    assert!(!err, "{typed}");

    // A card the user approves: the call says it waits, then goes through.
    claude.start("browser_click", json!({"element": "Send", "ref": send}));
    let card = card_shown(&panel);
    assert!(card.starts_with("Claude Code wants to click “Send”"), "{card}");
    panel.page.eval("document.getElementById('intervention-approve').click()").expect("approve");
    let (err, done, progress) = SdkClient::result(&claude.next());
    assert!(!err, "{done}");
    let waiting = progress.iter().filter_map(|p| p["message"].as_str());
    assert!(
        waiting.clone().any(|m| m.starts_with("waiting for your approval in the Waymark panel")),
        "{progress:?}"
    );
    assert_increasing(&progress);
    wait_until("the submission", || (posts(&w.site) == 1).then_some(()));

    // A whole task through Waymark's own agent.
    let form = w.site.url("/form.html");
    let (err, text, _) = claude.call("browser_navigate", json!({"url": form}));
    assert!(!err, "{text}");
    let (err, text, progress) =
        claude.call("waymark_run_task", json!({"task": "Fill the name Ada and save"}));
    assert!(!err && text.starts_with("Task done in"), "{text}");
    assert!(!progress.is_empty(), "a step's progress");
    assert_increasing(&progress);

    // A card nobody answers: the call fails after the user's approval timeout, and the card
    // is withdrawn (nothing sent).
    let config = home.path().join(".config/waymark");
    std::fs::create_dir_all(&config).expect("config dir");
    std::fs::write(config.join("config.toml"), "[agents]\napproval_timeout_secs = 2\n")
        .expect("config");
    drop(claude);
    let mut claude = SdkClient::spawn(home.path(), "claude-code");
    let back = w.site.url("/bridge.html");
    let (err, text, _) = claude.call("browser_navigate", json!({"url": back}));
    assert!(!err, "{text}");
    let (err, snap, _) = claude.call("browser_snapshot", json!({}));
    assert!(!err, "{snap}");
    let send = find_ref(&snap, "button", "Send").expect("Send ref");
    claude.start("browser_click", json!({"element": "Send", "ref": send}));
    card_shown(&panel);
    let (err, text, _) = SdkClient::result(&claude.next());
    assert!(err && text.starts_with("timed out") && text.contains("within 2 s"), "{text}");
    panel
        .page
        .wait_for("document.getElementById('intervention').hidden", TASK_TIMEOUT)
        .expect("the card is withdrawn");
    assert_eq!(posts(&w.site), 1, "nothing more was sent");

    // Switched off: both say so.
    set_external(&panel, false);
    wait_until("the socket removed", || sockets(&bridge).is_empty().then_some(()));
    let line = doctor_line(home.path());
    assert!(line.contains("switched off"), "{line}");
    let (err, text, _) = claude.call("browser_snapshot", json!({}));
    assert!(err && text.contains("switched off"), "{text}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, the_official_python_sdk_with_its_default_environment_drives_the_browser)]
}
