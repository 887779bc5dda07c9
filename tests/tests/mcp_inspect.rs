//! The read-only browser tools beside the snapshot, end to end through rmcp's client and the
//! real `waymark-host mcp`: `browser_network_requests` lists what the tab fetched — the page's
//! API key in an address reaches the agent as a handle, never its characters — and
//! `browser_console_messages` lists what the page logged (the same key as a handle),
//! `browser_resize` sizes the real window (the page sees it); `browser_extract` leaves out
//! text a person cannot see, as the snapshot does.

mod common;
mod mcp_support;

use common::{Setup, TASK_TIMEOUT, Waymark, built_extension};
use mcp_support::{Client, switched_on};
use serde_json::json;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;

const KEY: &str = "sk-live-Q7mZ2vX9bN4kR8tW3yH6jD5c";

#[test]
fn requests_and_console_are_listed_with_secrets_as_handles_and_the_window_is_resized() {
    let llm = ScriptedLlm::start(|_| ScriptedReply::text("no model is used here")).expect("llm");
    let Some(ext) = built_extension() else { return };
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let w = Waymark::launch(&ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
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
    assert!(!err && !errors.contains("deprecated") && errors.contains("refresh failed"), "{errors}");
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
