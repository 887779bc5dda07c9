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
