//! The bridge between real processes, without a browser: the test plays the extension's
//! worker on a host's native-messaging stdio (it opens the bridge and answers calls), while
//! `waymark-host mcp` and `waymark-host bridge ping` connect from processes of their own over
//! the platform's endpoint (a Unix socket, a Windows named pipe). Covers a `run_task` whose
//! progress becomes MCP progress notifications and whose denied report is a tool error, a
//! ping from another process, and a client with the wrong secret refused.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};

use common::{BIN, Host, WAIT};
use serde_json::{Value, json};

/// Opens the bridge on a fresh host; returns it and its runtime directory.
fn open_bridge() -> (Host, tempfile::TempDir) {
    let runtime = tempfile::tempdir().expect("runtime dir");
    let rt = runtime.path().join("rt");
    let mut host =
        Host::builder().env("WAYMARK_RUNTIME_DIR", rt.to_string_lossy().into_owned()).spawn();
    host.request(1, "bridge.open", json!({"label": "test browser"}));
    let deadline = std::time::Instant::now() + WAIT;
    while !registered(&rt) {
        assert!(std::time::Instant::now() < deadline, "the bridge never registered");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    (host, runtime)
}

fn registered(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|d| {
        d.filter_map(Result::ok).any(|e| e.path().extension().is_some_and(|x| x == "json"))
    })
}

/// A `waymark-host` subcommand with the host's config (and so its secret) and runtime dir.
fn command(host: &Host, runtime: &Path, config: &Path) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env("WAYMARK_CONFIG_DIR", config)
        .env("WAYMARK_DATA_DIR", host.dir.path().join("data"))
        .env("WAYMARK_RUNTIME_DIR", runtime.join("rt"))
        .env("WAYMARK_LOG", "debug");
    cmd
}

/// The next event of the bridge (skipping replies to other requests).
fn next_event(host: &Host, name: &str) -> Value {
    loop {
        let v = host.next();
        if v["event"] == name {
            return v;
        }
    }
}

/// Answers call `call` as the worker would, with `result`.
fn answer(host: &mut Host, id: u64, call: &Value, result: Value) {
    host.request(id, "bridge.answer", json!({"call": call, "result": result}));
    assert_eq!(host.reply(id)["ok"], true);
}

/// `waymark-host mcp` speaking JSON-RPC lines.
struct Mcp {
    child: Child,
    lines: Receiver<Value>,
}

impl Mcp {
    /// Spawned, with the handshake of protocol 2025-06-18 done as `claude-code`.
    fn spawn(cmd: Command) -> Self {
        let mut mcp = Self::spawn_bare(cmd);
        mcp.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "1"}}}));
        assert!(mcp.until(|v| v["id"] == 1)["result"].is_object());
        mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    /// Spawned, nothing sent yet.
    fn spawn_bare(mut cmd: Command) -> Self {
        let mut child = cmd
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp");
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC only");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Self { child, lines }
    }

    fn send(&mut self, v: Value) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{v}").expect("write");
        stdin.flush().expect("flush");
    }

    /// The first message that satisfies `f` (others are skipped).
    fn until(&self, f: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self.lines.recv_timeout(WAIT).expect("an MCP message in time");
            if f(&v) {
                return v;
            }
        }
    }
}

impl Drop for Mcp {
    #[allow(clippy::let_underscore_must_use, reason = "cleanup: the process may be gone")]
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_task_call_crosses_the_bridge_with_progress_and_its_denial_is_a_tool_error() {
    let (mut host, runtime) = open_bridge();
    let config = host.dir.path().join("config");
    let mut mcp = Mcp::spawn(command(&host, runtime.path(), &config));
    mcp.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "waymark_run_task", "_meta": {"progressToken": "p1"},
        "arguments": {"task": "Send the form", "session": "s7"}}}));

    let client = next_event(&host, "bridge.client");
    assert_eq!(
        (client["name"].as_str(), client["connected"].as_bool()),
        (Some("Claude Code"), Some(true))
    );
    let call = next_event(&host, "bridge.call");
    assert_eq!(
        call["request"],
        json!({"tool": "run_task", "prompt": "Send the form", "session": "s7"})
    );
    let id = call["call"].clone();

    host.request(
        10,
        "bridge.progress",
        json!({"call": id, "step": 1, "message": "Step 1: Click “Send” (not done)"}),
    );
    assert_eq!(host.reply(10)["ok"], true);
    let progress = mcp.until(|v| v["method"] == "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(progress["params"]["progress"], 1.0);
    assert_eq!(progress["params"]["message"], "Step 1: Click “Send” (not done)");
    // The browser's step number repeats (a card, then the step it guarded): the progress
    // values still grow, as the MCP spec wants.
    host.request(
        13,
        "bridge.progress",
        json!({"call": id, "step": 1, "message": "Step 1: Click “Send” (done)"}),
    );
    assert_eq!(host.reply(13)["ok"], true);
    let progress = mcp.until(|v| v["method"] == "notifications/progress");
    assert_eq!(progress["params"]["progress"], 2.0, "{progress}");

    let report = json!({"status": "denied", "answer": "Not sent.", "session": "s7", "turn": 2,
                        "steps": 1, "summary": "", "findings": {}});
    answer(
        &mut host,
        11,
        &id,
        json!({"outcome": "ok", "text": "The user denied it.", "task": report}),
    );
    let result = mcp.until(|v| v["id"] == 2);
    assert_eq!(result["result"]["isError"], true, "{result}");
    let content = result["result"]["content"].as_array().expect("content");
    assert_eq!(content[0]["text"], "The user denied it.");
    let json: Value =
        serde_json::from_str(content[1]["text"].as_str().expect("json")).expect("report");
    assert_eq!((json["status"].as_str(), json["session"].as_str()), (Some("denied"), Some("s7")));

    // Progress for a call no one waits for any more is refused, not passed on.
    host.request(12, "bridge.progress", json!({"call": id, "step": 2, "message": "late"}));
    assert_eq!(host.reply(12)["error"]["code"], "bridge_gone");
}

#[test]
fn a_ping_from_another_process_goes_through_and_a_wrong_secret_is_refused() {
    let (mut host, runtime) = open_bridge();
    let config = host.dir.path().join("config");
    let ping = command(&host, runtime.path(), &config)
        .args(["bridge", "ping"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn ping");
    let call = next_event(&host, "bridge.call");
    assert_eq!(call["request"], json!({"tool": "ping"}));
    answer(&mut host, 2, &call["call"], json!({"outcome": "ok", "text": "pong"}));
    let out = ping.wait_with_output().expect("ping output");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.starts_with("ok: test browser answers"), "{text}");

    // A secret other than the one the host holds (the file was replaced after it read it):
    // refused before any call reaches the worker.
    let secret = runtime.path().join("rt").join("bridge.secret");
    assert_eq!(std::fs::read_to_string(&secret).expect("the secret beside the sockets").len(), 64);
    std::fs::write(&secret, "0".repeat(64)).expect("secret");
    let out = command(&host, runtime.path(), &config)
        .args(["bridge", "ping"])
        .output()
        .expect("ping with the wrong secret");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success() && text.contains("rejected this process's secret"), "{text}");
    host.request(3, "echo", json!({"payload": "still here"}));
    let seen = host.until_reply(3);
    assert!(
        seen.iter().all(|v| v["event"] != "bridge.call"),
        "the refused client's call never reached the worker: {seen:?}"
    );
}

/// On Windows a client checks which process serves the pipe before it sends the secret: a
/// pipe served by another process than the registered host (a squatter) is refused.
#[cfg(windows)]
#[test]
fn a_pipe_served_by_another_process_than_the_registered_host_is_refused() {
    use waymark_host::bridge::endpoint;
    use waymark_host::bridge::registry::{self, Registration};
    let (_host, runtime) = open_bridge();
    let found: Vec<Registration> = registry::list(&runtime.path().join("rt"));
    let reg = found.into_iter().next().expect("the registration");
    assert!(reg.pipe.as_deref().is_some_and(|p| p.starts_with(r"\\.\pipe\waymark-bridge-")));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    let wrong = Registration { pid: reg.pid + 1, ..reg.clone() };
    let err = rt.block_on(endpoint::connect(&wrong)).err().expect("refused");
    assert!(err.to_string().contains("the secret was not sent"), "{err}");
    assert!(rt.block_on(endpoint::connect(&reg)).is_ok(), "the registered host serves it");
}

#[test]
fn a_task_call_the_client_cancels_closes_its_connection() {
    let (host, runtime) = open_bridge();
    let config = host.dir.path().join("config");
    let mut mcp = Mcp::spawn(command(&host, runtime.path(), &config));
    mcp.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "waymark_run_task", "arguments": {"task": "Order it"}}}));
    let client = next_event(&host, "bridge.client");
    next_event(&host, "bridge.call");
    mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": 2, "reason": "the user pressed Esc"}}));
    // The worker hears the agent go (and stops the task it asked for).
    let gone = next_event(&host, "bridge.client");
    assert_eq!(
        (gone["client"].clone(), gone["connected"].as_bool()),
        (client["client"].clone(), Some(false))
    );
}

#[test]
fn a_call_waiting_at_a_card_says_so_then_times_out_and_goes_away() {
    let (mut host, runtime) = open_bridge();
    let config = host.dir.path().join("config");
    std::fs::create_dir_all(&config).expect("config dir");
    std::fs::write(config.join("config.toml"), "[agents]\napproval_timeout_secs = 1\n")
        .expect("config");
    let mut mcp = Mcp::spawn(command(&host, runtime.path(), &config));
    mcp.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "browser_click", "_meta": {"progressToken": 5},
        "arguments": {"element": "Send", "ref": "3"}}}));
    let client = next_event(&host, "bridge.client");
    let call = next_event(&host, "bridge.call");
    host.request(
        10,
        "bridge.progress",
        json!({"call": call["call"], "step": 0, "awaiting_user": true,
               "message": "waiting for your approval in the Waymark panel: Claude Code wants \
                           to click “Send”"}),
    );
    assert_eq!(host.reply(10)["ok"], true);
    let progress = mcp.until(|v| v["method"] == "notifications/progress");
    assert_eq!(progress["params"]["progress"], 1.0);
    let message = progress["params"]["message"].as_str().expect("message");
    assert!(message.starts_with("waiting for your approval in the Waymark panel"), "{message}");
    // Nobody answers the card: the call ends as timed out…
    let result = mcp.until(|v| v["id"] == 2);
    assert_eq!(result["result"]["isError"], true, "{result}");
    let text = result["result"]["content"][0]["text"].as_str().expect("text");
    assert!(text.starts_with("timed out") && text.contains("within 1 s"), "{text}");
    assert!(text.contains("agents.approval_timeout_secs"), "names the setting: {text}");
    // …and the agent's connection closes, so the worker withdraws the card.
    let gone = next_event(&host, "bridge.client");
    assert_eq!(
        (gone["client"].clone(), gone["connected"].as_bool()),
        (client["client"].clone(), Some(false))
    );
}

#[test]
fn a_client_on_the_newest_protocol_is_named_from_its_requests() {
    let (host, runtime) = open_bridge();
    let config = host.dir.path().join("config");
    let mut mcp = Mcp::spawn_bare(command(&host, runtime.path(), &config));
    // Protocol 2026-07-28 has no handshake: every request carries who sends it.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "cursor", "version": "3"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    mcp.send(json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                    "params": {"_meta": meta}}));
    let discovered = mcp.until(|v| v["id"] == 1);
    assert!(discovered["result"].is_object(), "{discovered}");
    mcp.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "browser_snapshot", "arguments": {}, "_meta": meta}}));
    let client = next_event(&host, "bridge.client");
    assert_eq!(client["name"], "Cursor", "{client}");
}
