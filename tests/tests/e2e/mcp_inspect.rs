//! The read-only browser tools beside the snapshot, end to end through rmcp's client and the
//! real `waymark-host mcp`: `browser_network_requests` lists what the tab fetched — the page's
//! API key in an address reaches the agent as a handle, never its characters — and
//! `browser_console_messages` lists what the page logged (the same key as a handle),
//! `browser_resize` sizes the real window (the page sees it); `browser_extract` leaves out
//! text a person cannot see, as the snapshot does. A dialog the page opens during an action is
//! answered Cancel and quoted; `browser_handle_dialog` does the action again with OK.

use crate::common;
use crate::mcp_support;
use common::{Setup, TASK_TIMEOUT, Waymark, find_ref};
use mcp_support::{Client, switched_on};
use serde_json::json;
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const KEY: &str = "sk-live-Q7mZ2vX9bN4kR8tW3yH6jD5c";

fn requests_and_console_are_listed_with_secrets_as_handles_and_the_window_is_resized(ext: &Path) {
    let llm = ScriptedLlm::start(|_| ScriptedReply::text("no model is used here")).expect("llm");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let w = Waymark::launch(ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = w.panel().expect("panel");
    let page = w.open("/requests.html").expect("page");
    page.wait_for(
        "document.getElementById('status').textContent === 'Quota checked.'",
        TASK_TIMEOUT,
    )
    .expect("the page's own calls ended");
    switched_on(&w, &panel);
    let agent = Client::spawn(&w, "claude-code");

    // The snapshot first (it reads the key as page text), then the requests.
    let (err, snap) = agent.tool("browser_snapshot", json!({}));
    assert!(!err && !snap.contains(KEY), "{snap}");
    let (err, listed) = agent.tool("browser_network_requests", json!({}));
    assert!(!err, "{listed}");
    assert!(!listed.contains(KEY), "the key's characters never reach the agent: {listed}");
    assert!(listed.contains("/api/quota?key=⟨secret:"), "a handle in its place: {listed}");
    assert!(listed.contains("GET 404 "), "the quota call's status: {listed}");
    assert!(listed.contains("/article.html (xmlhttprequest)"), "{listed}");
    assert!(
        listed.contains("GET 200 ") && listed.contains("/requests.html (main_frame)"),
        "{listed}"
    );
    assert!(listed.contains("<page_content id="), "fenced: {listed}");

    // The console: the page's logs, its warning, its uncaught error and its rejected promise,
    // fenced, with the key as a handle; debug output only when asked for.
    let (err, console) = agent.tool("browser_console_messages", json!({}));
    assert!(!err, "{console}");
    assert!(!console.contains(KEY), "the key's characters never reach the agent: {console}");
    assert!(
        console.contains("[info] quota client ready with key ⟨secret:")
            && console.contains(r#"{"retries":2}"#),
        "{console}"
    );
    assert!(console.contains("[warning] the v1 quota endpoint is deprecated"), "{console}");
    assert!(console.contains("[error] Uncaught TypeError: quota widget crashed"), "{console}");
    assert!(console.contains("[error] Unhandled rejection: Error: refresh failed"), "{console}");
    assert!(!console.contains("cache miss") && console.contains("<page_content id="), "{console}");
    let (err, errors) = agent.tool("browser_console_messages", json!({"level": "error"}));
    assert!(
        !err && !errors.contains("deprecated") && errors.contains("refresh failed"),
        "{errors}"
    );
    let (err, all) = agent.tool("browser_console_messages", json!({"level": "debug"}));
    assert!(!err && all.contains("[debug] quota cache miss"), "{all}");

    // `extract` applies the walk's rules for text a person cannot see: faded out, white on
    // white and scaled-away instructions are left out as the snapshot leaves them out.
    let (err, text) = agent.tool("browser_extract", json!({}));
    assert!(!err && text.contains("Developer settings"), "{text}");
    for hidden in ["faded out", "white on white", "scaled away"] {
        assert!(!text.contains(hidden), "{hidden} reached the agent: {text}");
        assert!(!snap.contains(hidden), "{hidden} in the snapshot: {snap}");
    }

    // A resize the page sees.
    let (err, resized) = agent.tool("browser_resize", json!({"width": 900, "height": 700}));
    assert!(!err, "{resized}");
    assert!(resized.contains("900×700"), "{resized}");
    let width = page.eval("window.outerWidth").expect("width");
    assert_eq!(width, json!(900), "{resized}");
    let (err, refused) = agent.tool("browser_resize", json!({"width": 5, "height": 700}));
    assert!(err && refused.contains("320–7680"), "{refused}");
}

fn dialogs_are_answered_cancel_and_ok_only_when_the_agent_asks(ext: &Path) {
    let llm = ScriptedLlm::start(|_| ScriptedReply::text("no model is used here")).expect("llm");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let w = Waymark::launch(ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = w.panel().expect("panel");
    let page = w.open("/dialogs.html").expect("page");
    switched_on(&w, &panel);
    let agent = Client::spawn(&w, "claude-code");
    let status = || page.eval("document.getElementById('status').textContent").expect("status");

    let (err, snap) = agent.tool("browser_snapshot", json!({}));
    assert!(!err, "{snap}");
    let nothing = agent.tool("browser_handle_dialog", json!({"accept": true}));
    assert!(nothing.0 && nothing.1.contains("no dialog is waiting"), "{}", nothing.1);

    // The confirm is answered Cancel at once (the page never stops), and quoted as page data.
    let (err, clicked) = agent.tool(
        "browser_click",
        json!({"ref": find_ref(&snap, "button", "Archive").expect("Archive")}),
    );
    assert!(!err, "{clicked}");
    assert!(clicked.contains("a confirm dialog “Archive the draft?"), "{clicked}");
    assert!(clicked.contains("Waymark answered Cancel"), "{clicked}");
    let fence_end = clicked.rfind("</page_content id=").expect("fenced");
    assert!(clicked.find("also delete the account").expect("quoted") < fence_end, "{clicked}");
    assert_eq!(status(), json!("Kept."));

    // OK: the click is done again with that answer.
    let (err, ok) = agent.tool("browser_handle_dialog", json!({"accept": true}));
    assert!(!err, "{ok}");
    assert!(ok.contains("Waymark answered OK"), "{ok}");
    assert_eq!(status(), json!("Archived."));

    // A prompt gets the text asked for; an alert is acknowledged and needs nothing more.
    let (err, renamed) = agent.tool(
        "browser_click",
        json!({"ref": find_ref(&snap, "button", "Rename").expect("Rename")}),
    );
    assert!(!err && renamed.contains("a prompt “New name?”"), "{renamed}");
    assert_eq!(
        page.eval("document.getElementById('title').textContent").expect("t"),
        json!("Draft")
    );
    let (err, named) =
        agent.tool("browser_handle_dialog", json!({"accept": true, "promptText": "Final"}));
    assert!(!err, "{named}");
    assert_eq!(
        page.eval("document.getElementById('title').textContent").expect("t"),
        json!("Final")
    );
    let (err, about) = agent
        .tool("browser_click", json!({"ref": find_ref(&snap, "button", "About").expect("About")}));
    assert!(!err && about.contains("an alert “Draft editor 2.0”"), "{about}");
    assert!(!about.contains("call browser_handle_dialog"), "{about}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(
            extension,
            requests_and_console_are_listed_with_secrets_as_handles_and_the_window_is_resized
        ),
        e2e!(extension, dialogs_are_answered_cancel_and_ok_only_when_the_agent_asks),
    ]
}
