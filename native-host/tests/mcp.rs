//! `waymark-host mcp` through the MCP protocol: JSON-RPC lines on stdio, as Claude Code
//! speaks it. Lists sessions, reads a table of contents and a turn, searches, exports.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};

use serde_json::{Value, json};

struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Mcp {
    fn spawn(data_dir: &std::path::Path, home: &std::path::Path) -> Self {
        let mut child = Command::new(common::BIN)
            .arg("mcp")
            .env_clear()
            .env("HOME", home)
            .env("WAYMARK_CONFIG_DIR", home.join("config"))
            .env("WAYMARK_DATA_DIR", data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self { child, stdin, lines }
    }

    fn send(&mut self, v: &Value) {
        writeln!(self.stdin, "{v}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// The response to request `id` (notifications in between are skipped).
    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.recv_timeout(common::WAIT).expect("a response line");
            let v: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC only");
            assert_eq!(v["jsonrpc"], "2.0", "{v}");
            if v["id"] == id {
                return v;
            }
        }
    }

    fn tool(&mut self, id: u64, name: &str, args: Value) -> (bool, String) {
        let r = self.call(id, "tools/call", json!({"name": name, "arguments": args}));
        let result = &r["result"];
        assert!(result.is_object(), "{r}");
        let text = result["content"][0]["text"].as_str().expect("text content").to_owned();
        (result["isError"].as_bool().unwrap_or(false), text)
    }
}

impl Drop for Mcp {
    #[allow(
        clippy::let_underscore_must_use,
        reason = "cleanup: what is being stopped may be gone already"
    )]
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn write_session(dir: &std::path::Path) {
    let sessions = dir.join("sessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let lines = [
        json!({"ts": "2026-01-01T10:00:00.000Z", "session_id": "trip-1", "kind": "session_start", "title": "Lisbon flights"}),
        json!({"ts": "2026-01-01T10:00:01.000Z", "session_id": "trip-1", "kind": "turn", "role": "user", "text": "find the three cheapest flights to Lisbon"}),
        json!({"ts": "2026-01-01T10:00:05.000Z", "session_id": "trip-1", "kind": "tool", "name": "click", "params": {"ref": 12}, "output": "clicked Search", "success": true}),
        json!({"ts": "2026-01-01T10:01:00.000Z", "session_id": "trip-1", "kind": "summary", "text": "Found 3 flights; cheapest is TP1350 at €89.", "findings": {"cheapest": "TP1350 €89"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(sessions.join("trip-1.jsonl"), text).expect("write");
    std::fs::write(sessions.join("other.jsonl"), format!("{}\n", json!({"ts": "2025-12-01T00:00:00.000Z", "kind": "turn", "role": "user", "text": "weather"}))).expect("write");
}

#[test]
fn mcp_lists_sessions_and_reads_a_turn() {
    let home = tempfile::tempdir().expect("tempdir");
    let data = home.path().join("data");
    write_session(&data);
    let mut mcp = Mcp::spawn(&data, home.path());

    let init = mcp.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-03-26", "capabilities": {},
               "clientInfo": {"name": "waymark-test", "version": "0"}}),
    );
    assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
    mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let tools = mcp.call(2, "tools/list", json!({}));
    let mut names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    for session_tool in
        ["export_session", "get_turn", "list_sessions", "search_sessions", "session_toc"]
    {
        assert!(names.contains(&session_tool), "{names:?}");
    }
    // The browser tools sit beside them (tested end to end in tests/tests/mcp_bridge.rs).
    assert!(names.iter().filter(|n| n.starts_with("browser_")).count() >= 14, "{names:?}");
    // A saved workflow runs by name with its inputs.
    let run_workflow = tools["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "run_workflow"))
        .expect("run_workflow listed");
    assert_eq!(run_workflow["inputSchema"]["required"], json!(["name"]), "{run_workflow}");
    assert!(run_workflow["inputSchema"]["properties"]["inputs"].is_object(), "{run_workflow}");

    let (err, text) = mcp.tool(3, "list_sessions", json!({}));
    assert!(!err);
    let list: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(list[0]["id"], "trip-1", "most recent first: {list}");
    assert_eq!(list[0]["title"], "Lisbon flights");
    assert_eq!(list[0]["events"], 4);
    assert_eq!(list.as_array().expect("list").len(), 2);

    let (_, text) = mcp.tool(4, "session_toc", json!({"session_id": "trip-1"}));
    let toc: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(toc[2]["kind"], "tool");
    assert!(toc[1]["preview"].as_str().expect("preview").contains("cheapest flights"));

    let (err, text) = mcp.tool(5, "get_turn", json!({"session_id": "trip-1", "index": 3}));
    assert!(!err);
    let turn: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(turn["findings"]["cheapest"], "TP1350 €89");

    let (_, text) = mcp.tool(6, "search_sessions", json!({"query": "tp1350"}));
    let hits: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(hits[0]["session_id"], "trip-1");
    assert_eq!(hits[0]["index"], 3);

    let (_, md) = mcp.tool(7, "export_session", json!({"session_id": "trip-1"}));
    assert!(md.starts_with("# Lisbon flights") && md.contains("**cheapest**: TP1350 €89"), "{md}");

    let (err, text) =
        mcp.tool(8, "get_turn", json!({"session_id": "../../etc/passwd", "index": 0}));
    assert!(err, "{text}");
    assert!(text.contains("invalid session id"), "{text}");
    let (err, _) = mcp.tool(9, "get_turn", json!({"session_id": "trip-1", "index": 99}));
    assert!(err);
}
