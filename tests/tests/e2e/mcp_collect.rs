//! `browser_collect` for external agents, end to end: an MCP client names the columns of the
//! fixture book listing once (`site/listing/next-*.html`); Waymark reads all three pages,
//! turning them through the same gate as the agent's clicks, and answers the table as JSON
//! (fenced summary first). No model is involved.

use crate::common;
use crate::mcp_support;
use common::{Setup, TASK_TIMEOUT, Waymark, find_ref};
use mcp_support::{Client, switched_on};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

fn an_external_agent_collects_a_three_page_listing_without_a_model(ext: &Path) {
    let llm = ScriptedLlm::start(|_| ScriptedReply::text("no model is used here")).expect("llm");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let w = Waymark::launch(ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = w.panel().expect("panel");
    let page = w.open("/listing/next-1.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    let client = Client::spawn(&w, "claude-code");
    switched_on(&w, &panel);

    let (err, snap) = client.tool("browser_snapshot", json!({}));
    assert!(!err, "{snap}");
    let example = find_ref(&snap, "link", "Book 02: Emma").expect("example ref");
    let (err, text) = client.tool(
        "browser_collect",
        json!({"ref": example.to_string(), "name": "books", "columns": [
            {"name": "title", "example": "Book 02: Emma"},
            {"name": "author", "example": "Author 2"}]}),
    );
    assert!(!err, "{text}");
    assert!(text.contains("<page_content id="), "the summary is fenced: {text}");
    assert!(text.contains("books: 22 rows × 2 columns (title, author) from 3 pages"), "{text}");
    let json_start = text.find("{\"name\":\"books\"").expect("the table as JSON");
    let table: Value = serde_json::from_str(
        text.get(json_start..).unwrap_or_default().lines().next().unwrap_or_default(),
    )
    .expect("table json");
    let rows = table["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 22);
    assert_eq!(rows[21]["values"], json!(["Book 22: Heidi", "Author 22"]));
    assert!(rows[21]["source"].as_str().is_some_and(|s| s.ends_with("/listing/next-3.html")));
    assert_eq!(llm.request_count(), 0, "no model call");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, an_external_agent_collects_a_three_page_listing_without_a_model)]
}
