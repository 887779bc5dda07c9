//! The request table in `native-host/README.md` is generated from the protocol types, so the
//! documentation cannot drift from what the host serves. `WAYMARK_BLESS=1 cargo test -p
//! waymark-host --test readme` rewrites it after a protocol change.
#![allow(
    clippy::string_slice,
    reason = "assertions cut prompts and fixtures at ASCII markers the test itself found"
)]

use std::path::PathBuf;

use waymark_protocol::RequestType;

const BEGIN: &str = "<!-- requests:begin (generated from waymark_protocol::RequestType; `WAYMARK_BLESS=1 cargo test -p waymark-host --test readme` rewrites it) -->";
const END: &str = "<!-- requests:end -->";

/// The table as the types define it.
fn table() -> String {
    let mut out = String::from(
        "| type | payload | reply data | errors | what it does |\n|---|---|---|---|---|\n",
    );
    for kind in RequestType::ALL {
        let (payload, reply) = kind.types();
        let errors: Vec<String> = kind.errors().iter().map(|c| format!("`{c}`")).collect();
        let purpose = kind.purpose().split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(&format!(
            "| `{}` | `{payload}` | `{reply}` | {} | {purpose} |\n",
            kind.as_str(),
            errors.join(", ")
        ));
    }
    out
}

#[test]
fn readme_request_table_matches_the_protocol_types() {
    // The clone cargo runs the test in (a compiled-in path may name another clone that shares
    // the target directory).
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let path = dir.join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let start = readme.find(BEGIN).expect("the README has the begin marker") + BEGIN.len();
    let end = readme.find(END).expect("the README has the end marker");
    assert!(start <= end, "markers out of order");
    let want = format!("\n{}", table());
    if readme[start..end] == want {
        return;
    }
    if std::env::var_os("WAYMARK_BLESS").is_some() {
        let updated = format!("{}{want}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).expect("rewriting README.md");
        return;
    }
    panic!(
        "native-host/README.md's request table is out of date; run \
         `WAYMARK_BLESS=1 cargo test -p waymark-host --test readme`. Expected:\n{want}"
    );
}

const TOOLS_BEGIN: &str = "<!-- mcp-tools:begin (generated from waymark_host::mcp::SessionsServer::tool_list; `WAYMARK_BLESS=1 cargo test -p waymark-host --test readme` rewrites it) -->";
const TOOLS_END: &str = "<!-- mcp-tools:end -->";

/// The MCP tool table as the server lists its tools: name, arguments (`?`: optional) and the
/// first sentence of the description.
fn tool_table() -> String {
    let mut out = String::from("| tool | arguments | what it does |\n|---|---|---|\n");
    let mut tools = waymark_host::mcp::SessionsServer::tool_list();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    for tool in tools {
        let required: Vec<&str> = tool
            .input_schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        let args: Vec<String> = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|p| {
                p.keys()
                    .map(|k| {
                        if required.contains(&k.as_str()) {
                            format!("`{k}`")
                        } else {
                            format!("`{k}`?")
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let description = tool.description.as_deref().unwrap_or_default();
        let words = description.split_whitespace().collect::<Vec<_>>().join(" ");
        let first = match words.split_once(". ") {
            Some((first, _)) => format!("{first}."),
            None => words,
        };
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            tool.name,
            if args.is_empty() { "—".to_owned() } else { args.join(", ") },
            first.trim().replace('|', "\\|")
        ));
    }
    out
}

#[test]
fn readme_mcp_tool_table_matches_the_tools() {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let path = dir.join("..").join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let start =
        readme.find(TOOLS_BEGIN).expect("the README has the tools marker") + TOOLS_BEGIN.len();
    let end = readme.find(TOOLS_END).expect("the README has the tools end marker");
    assert!(start <= end, "markers out of order");
    let want = format!("\n{}", tool_table());
    if readme[start..end] == want {
        return;
    }
    if std::env::var_os("WAYMARK_BLESS").is_some() {
        let updated = format!("{}{want}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).expect("rewriting README.md");
        return;
    }
    panic!(
        "README.md's MCP tool table is out of date; run \
         `WAYMARK_BLESS=1 cargo test -p waymark-host --test readme`. Expected:\n{want}"
    );
}
