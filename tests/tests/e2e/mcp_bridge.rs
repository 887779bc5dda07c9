//! External agents through `waymark-host mcp`, end to end: rmcp's own MCP client spawns the
//! real `waymark-host mcp`, which reaches the real extension in real Chromium through the
//! bridge socket and the host Chrome started. Covers: switched off → a clear error; lists
//! tabs, reads a page (fenced, no password value), types; a submission to another origin waits
//! for the panel's card — denied, nothing is sent; approved, it goes through; the panel names
//! the client and Disconnect ends it; two clients at once; the worker restarted mid-session;
//! malformed and oversized MCP input; a socket no one else may open.

use crate::common;
use crate::mcp_support;
use common::{Panel, Setup, TASK_TIMEOUT, Waymark, find_ref};
use mcp_support::{Client, runtime_dir, set_external, sockets, switched_on, wait_until};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

fn launch(ext: &Path, llm: &ScriptedLlm) -> Waymark {
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    Waymark::launch(ext, Setup { llm, install_host: true, site }).expect("launch")
}

/// Waits for a confirmation card and answers it with `button` (approve or deny); its message.
fn answer_card(panel: &Panel, button: &str) -> String {
    let message = panel
        .page
        .wait_for(
            "(() => { const c = document.getElementById('intervention'); \
             return !c.hidden && c.dataset.kind === 'confirm' && \
             document.getElementById('intervention-message').textContent; })()",
            TASK_TIMEOUT,
        )
        .expect("a card");
    panel
        .page
        .eval(&format!("document.getElementById('intervention-{button}').click()"))
        .expect("click");
    message.as_str().unwrap_or_default().to_owned()
}

fn posts(site: &FixtureServer) -> Vec<String> {
    site.requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/collect"))
        .map(|r| r.body.clone())
        .collect()
}

fn nothing_scripted() -> ScriptedLlm {
    ScriptedLlm::start(|_| ScriptedReply::text("no model is used here")).expect("llm")
}

fn an_external_agent_reads_types_and_its_risky_click_waits_for_the_panel(extension: &Path) {
    let llm = nothing_scripted();
    let w = launch(extension, &llm);
    let panel = w.panel().expect("panel");
    let page = w.open("/bridge.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");

    // Off until the user switches it on: the error names the switch.
    let claude = Client::spawn(&w, "claude-code");
    let (err, text) = claude.tool("browser_tabs", json!({"action": "list"}));
    assert!(err && text.contains("External agents"), "{text}");

    switched_on(&w, &panel);
    let (err, tabs) = claude.tool("browser_tabs", json!({"action": "list"}));
    assert!(!err, "{tabs}");
    assert!(tabs.contains("/bridge.html") && tabs.contains("selected"), "{tabs}");
    panel.wait_text("external-line", "t === 'Claude Code is connected'").expect("named");

    let (err, snap) = claude.tool("browser_snapshot", json!({}));
    assert!(!err, "{snap}");
    assert!(snap.contains("<page_content id="), "fenced: {snap}");
    assert!(!snap.contains("hunter2-canary"), "a password value never leaves the page");
    let message = find_ref(&snap, "textbox", "Message").expect("Message ref");
    let send = find_ref(&snap, "button", "Send").expect("Send ref");

    let (err, typed) = claude.tool("browser_type", json!({"ref": message, "text": "hello there"}));
    assert!(!err, "{typed}");

    // Denied at the card: an error for the agent, nothing sent.
    let click = claude.start("browser_click", json!({"element": "Send", "ref": send}));
    let card = answer_card(&panel, "deny");
    assert!(card.starts_with("Claude Code wants to click “Send”"), "{card}");
    assert!(card.contains("feedback.localhost"), "the card names where it sends: {card}");
    let (err, denied) = claude.finish(click);
    assert!(err && denied.contains("denied by the user"), "{denied}");
    assert!(posts(&w.site).is_empty(), "nothing was sent");

    // Approved: it goes through.
    let click = claude.start("browser_click", json!({"element": "Send", "ref": send}));
    answer_card(&panel, "approve");
    let (err, done) = claude.finish(click);
    assert!(!err, "{done}");
    let sent = wait_until("the submission", || posts(&w.site).into_iter().next());
    assert!(sent.contains("message=hello+there"), "{sent}");
    assert!(!sent.contains("hunter2"), "{sent}");

    // The agent's actions are in the timeline.
    let steps = panel.steps().expect("steps");
    assert!(steps.iter().any(|s| s.contains("Claude Code")), "{steps:?}");

    // Disconnect ends it, and it stays disconnected.
    panel
        .page
        .eval("document.querySelector('#external-clients button').click()")
        .expect("disconnect");
    panel.page.wait_for("document.getElementById('external').hidden", TASK_TIMEOUT).expect("gone");
    let (err, text) = claude.tool("browser_snapshot", json!({}));
    assert!(err && text.contains("disconnected"), "{text}");

    // Switched off: a new client is told so.
    set_external(&panel, false);
    let dir = runtime_dir(&w);
    wait_until("the socket removed", || sockets(&dir).is_empty().then_some(()));
    let again = Client::spawn(&w, "claude-code");
    let (err, text) = again.tool("browser_snapshot", json!({}));
    assert!(err && text.contains("External agents"), "{text}");
}

fn two_clients_at_once_and_a_restarted_worker_reconnects(extension: &Path) {
    let llm = nothing_scripted();
    let w = launch(extension, &llm);
    let panel = w.panel().expect("panel");
    let page = w.open("/bridge.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    switched_on(&w, &panel);

    let claude = Client::spawn(&w, "claude-code");
    let cursor = Client::spawn(&w, "cursor");
    let (e1, a) = claude.tool("browser_snapshot", json!({}));
    let (e2, b) = cursor.tool("browser_snapshot", json!({}));
    assert!(!e1 && !e2, "{a}\n{b}");
    panel
        .wait_text("external-line", "t === 'Claude Code and Cursor are connected'")
        .expect("both named");

    // The worker restarts: the host Chrome started goes with it, a new one registers.
    let old = sockets(&runtime_dir(&w));
    let worker = w.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    w.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");
    w.attach_worker().expect("worker again");
    let dir = runtime_dir(&w);
    wait_until("a new socket", || {
        let now = sockets(&dir);
        (!now.is_empty() && now != old).then_some(())
    });
    let (err, text) = claude.tool("browser_snapshot", json!({}));
    assert!(!err, "a read is sent again on the new connection: {text}");
    let (err, shot) = cursor.tool("browser_take_screenshot", json!({}));
    assert!(!err && shot.starts_with("Screenshot of tab"), "{shot}");
    assert!(shot.contains("[image image/jpeg "), "an MCP image: {shot:?}");
}

/// Needs the built host only (the build check names the command when it is missing).
fn malformed_and_oversized_input_get_json_rpc_errors_and_the_server_goes_on(_built: &Path) {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().expect("dir");
    let mut child = std::process::Command::new(paths::host_binary())
        .arg("mcp")
        .env("WAYMARK_CONFIG_DIR", dir.path().join("config"))
        .env("WAYMARK_DATA_DIR", dir.path().join("data"))
        .env("WAYMARK_RUNTIME_DIR", dir.path().join("runtime"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = |v: String| {
        writeln!(stdin, "{v}").expect("write");
        stdin.flush().expect("flush");
    };
    let mut seen = Vec::new();
    let mut reply_to = |id: u64| -> Value {
        loop {
            let line = lines.next().expect("a line").expect("read");
            let v: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC only");
            if v["id"] == id {
                return v;
            }
            seen.push(v);
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "1"}}})
        .to_string(),
    );
    assert!(reply_to(1)["result"].is_object());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    // Not JSON at all: ignored (there is no id to answer; rmcp, like the other SDKs, answers
    // nothing rather than risk an error storm); JSON that is no message: an Invalid Request.
    send("{nope".into());
    send(json!({"jsonrpc": "2.0", "id": 9, "method": 42}).to_string());
    // A tool call with arguments of the wrong shape.
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "browser_click", "arguments": {"ref": {"no": 1}}}})
        .to_string(),
    );
    let r = reply_to(2);
    assert!(r["error"].is_object() || r["result"]["isError"] == true, "{r}");
    // Oversized text is refused before it goes anywhere.
    let big = "x".repeat(200_000);
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "browser_type", "arguments": {"ref": "1", "text": big}}})
        .to_string(),
    );
    let r = reply_to(3);
    assert!(r["error"].is_object() || r["result"]["isError"] == true, "{r}");
    // Still serving.
    send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}).to_string());
    let r = reply_to(4);
    let names: Vec<&str> = r["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for tool in ["browser_tabs", "browser_snapshot", "browser_click", "list_sessions"] {
        assert!(names.contains(&tool), "{names:?}");
    }
    assert!(
        seen.iter().any(|v| v["error"]["code"] == -32600),
        "the message that is no message got an Invalid Request: {seen:?}"
    );
    if let Err(e) = child.kill() {
        eprintln!("kill: {e}");
    }
    if let Err(e) = child.wait() {
        eprintln!("wait: {e}");
    }
}

/// Run by `a_second_user_cannot_open_the_socket` as another user: tries to connect to
/// `WAYMARK_PROBE_SOCKET` and says what happened (ignored in normal runs).
fn connect_as_another_user() {
    let Some(path) = std::env::var_os("WAYMARK_PROBE_SOCKET") else { return };
    match std::os::unix::net::UnixStream::connect(&path) {
        Ok(_) => println!("PROBE CONNECTED"),
        Err(e) => println!("PROBE DENIED: {e}"),
    }
}

/// Runs the helper above as user `nobody`, against `socket`.
fn probe_as_nobody(socket: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    // The test binary may sit under a home directory `nobody` cannot enter (CI's cached target
    // dir): run a world-readable copy, so only the socket's own protections are tested.
    let dir = tempfile::Builder::new().prefix("waymark-probe").tempdir().expect("probe dir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let probe = dir.path().join("probe");
    std::fs::copy(std::env::current_exe().expect("test binary"), &probe).expect("copy probe");
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = std::process::Command::new(&probe)
        .args(["--ignored", "--exact", "mcp_bridge::connect_as_another_user"])
        .env("WAYMARK_PROBE_SOCKET", socket)
        .uid(65534)
        .gid(65534)
        .output()
        .expect("run the probe as nobody");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn a_second_user_cannot_open_the_socket(extension: &Path) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let llm = nothing_scripted();
    let w = launch(extension, &llm);
    let panel = w.panel().expect("panel");
    switched_on(&w, &panel);
    let dir = runtime_dir(&w);
    let socket = sockets(&dir).into_iter().next().expect("socket");
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700, "the socket directory is the user's alone");
    assert_eq!(mode(&socket), 0o600, "the socket is the user's alone");
    let me = std::fs::metadata(&dir).expect("meta").uid();
    if me != 0 {
        // Only root can run a process as someone else; the modes above are what protects.
        eprintln!("not root: the second-user probe needs root, checked the modes only");
        return;
    }
    let denied = probe_as_nobody(&socket);
    assert!(denied.contains("PROBE DENIED") && denied.contains("ermission denied"), "{denied}");
    // The socket's own mode protects it even where its directories could be passed through.
    let work = w.work.path();
    let (work_mode, dir_mode) = (mode(work), mode(&dir));
    std::fs::set_permissions(work, std::fs::Permissions::from_mode(0o711)).expect("chmod");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711)).expect("chmod");
    let denied = probe_as_nobody(&socket);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(dir_mode)).expect("chmod");
    std::fs::set_permissions(work, std::fs::Permissions::from_mode(work_mode)).expect("chmod");
    assert!(denied.contains("PROBE DENIED") && denied.contains("ermission denied"), "{denied}");

    // doctor checks the bridge end to end: a ping through the socket to the extension and back.
    let doctor = std::process::Command::new(paths::host_binary())
        .args(["bridge", "ping"])
        .env("WAYMARK_CONFIG_DIR", w.work.path().join("config"))
        .env("WAYMARK_RUNTIME_DIR", &dir)
        .output()
        .expect("bridge ping");
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(doctor.status.success() && text.starts_with("ok: "), "{text}");
}

fn playwright_spellings_a_whole_form_in_one_call_and_closing_a_tab(extension: &Path) {
    let llm = nothing_scripted();
    let w = launch(extension, &llm);
    let panel = w.panel().expect("panel");
    let page = w.open("/form.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    switched_on(&w, &panel);
    let agent = Client::spawn(&w, "playwright-habits");

    // Tabs by position, as Playwright MCP names them.
    let (err, tabs) = agent.tool("browser_tabs", json!({"action": "select", "index": 0}));
    assert!(!err, "{tabs}");
    let (err, tabs) = agent.tool("browser_tabs", json!({"action": "select", "index": 9}));
    assert!(err && tabs.contains("no tab at index 9"), "{tabs}");

    let (err, snap) = agent.tool("browser_snapshot", json!({}));
    assert!(!err, "{snap}");
    let name = find_ref(&snap, "textbox", "Name").expect("Name ref");
    // A whole form in one call, with `target` for `ref`: each field is its own action.
    let (err, filled) = agent.tool(
        "browser_fill_form",
        json!({"fields": [{"name": "Name", "type": "textbox", "target": name.to_string(),
                           "value": "Ada Lovelace"}]}),
    );
    assert!(!err, "{filled}");
    let typed = page.eval("document.getElementById('name').value").expect("value");
    assert_eq!(typed, json!("Ada Lovelace"));
    // The first field that fails stops the rest, and the answer says what was done.
    let (err, stopped) = agent.tool(
        "browser_fill_form",
        json!({"fields": [{"name": "Name", "type": "textbox", "ref": name, "value": "Grace"},
                          {"name": "Ghost", "type": "textbox", "ref": 999, "value": "x"},
                          {"name": "Again", "type": "textbox", "ref": name, "value": "never"}]}),
    );
    assert!(err && stopped.starts_with("Ghost failed") && stopped.contains("Name: "), "{stopped}");
    let typed = page.eval("document.getElementById('name').value").expect("value");
    assert_eq!(typed, json!("Grace"), "the field after the failed one was not touched");

    // A new tab, closed with browser_close: the first one is left.
    let (err, opened) =
        agent.tool("browser_tabs", json!({"action": "new", "url": w.site.url("/bridge.html")}));
    assert!(!err, "{opened}");
    let (err, closed) = agent.tool("browser_close", json!({}));
    assert!(!err, "{closed}");
    let (err, tabs) = agent.tool("browser_tabs", json!({"action": "list"}));
    assert!(!err && !tabs.contains("/bridge.html") && tabs.contains("/form.html"), "{tabs}");
}

fn a_drag_moves_a_card_onto_a_column(ext: &Path) {
    let llm = nothing_scripted();
    let site = FixtureServer::builder(paths::fixtures_dir().join("zoo")).start().expect("zoo");
    let w = Waymark::launch(ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = w.panel().expect("panel");
    let page = w.open("/dnd.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    switched_on(&w, &panel);
    let agent = Client::spawn(&w, "claude-code");
    let (err, snap) = agent.tool("browser_snapshot", json!({}));
    assert!(!err, "{snap}");
    let card = find_ref(&snap, "draggable", "Write report").expect("card ref");
    let done = find_ref(&snap, "dropzone", "Done").expect("column ref");
    // Playwright MCP's argument names (`endTarget` for `endRef`); a card, if the policy asks
    // for one, is approved.
    let drag = agent.start(
        "browser_drag",
        json!({"startElement": "Write report", "startRef": card, "endElement": "Done",
               "endTarget": done.to_string()}),
    );
    let asked = "(() => { const c = document.getElementById('intervention'); \
                 return !c.hidden && c.dataset.kind === 'confirm'; })()";
    wait_until("the drag", || {
        if drag.is_finished() {
            return Some(());
        }
        if panel.page.eval(asked).is_ok_and(|v| v == json!(true)) {
            answer_card(&panel, "approve");
        }
        None
    });
    let (err, dragged) = agent.finish(drag);
    assert!(!err, "{dragged}");
    let moved = page
        .eval("[...document.querySelectorAll('[data-column=done] .card')].map((c) => c.dataset.id).join()")
        .expect("columns");
    assert_eq!(moved, json!("report"));
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, an_external_agent_reads_types_and_its_risky_click_waits_for_the_panel),
        e2e!(extension, two_clients_at_once_and_a_restarted_worker_reconnects),
        e2e!(extension, malformed_and_oversized_input_get_json_rpc_errors_and_the_server_goes_on),
        e2e!(plain, connect_as_another_user).only_when_asked(),
        e2e!(extension, a_second_user_cannot_open_the_socket),
        e2e!(extension, playwright_spellings_a_whole_form_in_one_call_and_closing_a_tab),
        e2e!(extension, a_drag_moves_a_card_onto_a_column),
    ]
}
