//! Secrets as handles for external agents (issue 26, item 5): an MCP client is a model too.
//! rmcp's own client drives the real `waymark-host mcp` against the real extension in real
//! Chromium, on a page that shows an API key, an access token, a card number and a one-time
//! code (fresh values each run). Whatever the client reads — the snapshot, extract output, the
//! tab list, the answers to its actions, its refusals — holds none of their characters, only
//! handles; typing the key's handle into the page's own private field puts the key there, and
//! the same handle is refused in the site's public feed, in a frame of another site and in an
//! address. Before this, every snapshot carried all four secrets in the clear.

use crate::common;
use crate::mcp_support;
use common::{Setup, TASK_TIMEOUT, Waymark, find_ref};
use mcp_support::{Client, switched_on};
use serde_json::json;
use std::hash::{BuildHasher, RandomState};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// Fresh secrets for one run.
struct Secrets {
    api_key: String,
    token: String,
    card: String,
    otp: String,
}

fn random() -> u64 {
    RandomState::new().hash_one(std::time::SystemTime::now())
}

fn alnum(n: usize) -> String {
    const ALNUM: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    (0..n).map(|_| ALNUM[(random() % ALNUM.len() as u64) as usize] as char).collect()
}

/// 16 digits starting with 4, the last one the Luhn check digit.
fn card() -> String {
    let mut digits: Vec<u32> = vec![4];
    digits.extend((0..14).map(|_| (random() % 10) as u32));
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| if i % 2 == 0 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d })
        .sum();
    digits.push((10 - sum % 10) % 10);
    digits.iter().filter_map(|d| char::from_digit(*d, 10)).collect()
}

impl Secrets {
    fn fresh() -> Self {
        Self {
            api_key: format!("sk-live-{}", alnum(24)),
            token: format!("ghp_{}", alnum(36)),
            card: card(),
            otp: format!("{:06}", 100_000 + random() % 900_000),
        }
    }

    /// The distinctive characters of each secret (8 of them, or the whole code): what must
    /// never reach the client, in any part of its answers.
    fn cores(&self) -> Vec<(&'static str, String)> {
        vec![
            ("api key", self.api_key["sk-live-".len()..].chars().take(12).collect()),
            ("token", self.token["ghp_".len()..].chars().take(12).collect()),
            ("card", self.card[4..12].to_owned()),
            ("one-time code", self.otp.clone()),
        ]
    }

    /// `text` must show none of the secrets.
    fn assert_absent(&self, what: &str, text: &str) {
        for (name, core) in self.cores() {
            assert!(!text.contains(&core), "{what} shows the {name} ({core}): {text}");
        }
    }
}

fn vault(s: &Secrets, port: u16) -> String {
    let grouped: Vec<&str> =
        s.card.as_bytes().chunks(4).filter_map(|c| str::from_utf8(c).ok()).collect();
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Vault: code {otp}</title></head>
<body>
  <h1>Developer settings</h1>
  <p>Your API key: {key}</p>
  <p>Access token: {token}</p>
  <p>Card on file: {card}</p>
  <p>Your one-time code is {otp}</p>
  <form method="post" action="/collect-key">
    <label for="deploy">Deploy key</label><input id="deploy" name="deploy">
    <button>Save key</button>
  </form>
  <form method="post" action="/collect-feed">
    <label for="feed">Team feed</label><textarea id="feed" name="feed"></textarea>
    <button>Share</button>
  </form>
  <iframe title="Paste" src="http://localhost:{port}/paste-frame.html"></iframe>
</body></html>"#,
        otp = s.otp,
        key = s.api_key,
        token = s.token,
        card = grouped.join(" "),
    )
}

const PASTE_FRAME: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Paste</title></head><body><label for="note">Paste note</label><input id="note" name="note">
</body></html>"#;

/// The handle on the snapshot's line that holds `label`.
fn handle_after(snapshot: &str, label: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(label))
        .unwrap_or_else(|| panic!("{label}: {snapshot}"));
    let start = line.find("⟨secret:").unwrap_or_else(|| panic!("no handle for {label}: {line}"));
    let rest = &line[start..];
    let end = rest.find('⟩').map(|i| i + '⟩'.len_utf8()).expect("a closed handle");
    rest[..end].to_owned()
}

/// The ref of the element on the line holding `name` (frames' refs are `f1:3`).
fn ref_on_line(snapshot: &str, name: &str) -> String {
    let line =
        snapshot.lines().find(|l| l.contains(name)).unwrap_or_else(|| panic!("{name}: {snapshot}"));
    let start = line.find('[').expect("a ref") + 1;
    let end = line[start..].find(']').expect("a ref") + start;
    line[start..end].to_owned()
}

fn an_external_agent_reads_secrets_only_as_handles_and_types_them_only_where_they_may_go(
    ext: &Path,
) {
    let llm = ScriptedLlm::start(|_| ScriptedReply::text("no model is used here")).expect("llm");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let secrets = Secrets::fresh();
    let port = site.addr().port();
    site.add_page("/vault.html", vault(&secrets, port));
    site.add_page("/paste-frame.html", PASTE_FRAME);
    let w = Waymark::launch(ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = w.panel().expect("panel");
    let page = w.open("/vault.html").expect("page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("loaded");
    let claude = Client::spawn(&w, "claude-code");
    switched_on(&w, &panel);

    // What it reads: handles, never the characters.
    let (err, snap) = claude.tool("browser_snapshot", json!({}));
    assert!(!err, "{snap}");
    secrets.assert_absent("the snapshot", &snap);
    let key = handle_after(&snap, "Your API key");
    assert!(key.contains("api key"), "{key}");
    for label in ["Access token", "Card on file", "one-time code is"] {
        handle_after(&snap, label);
    }
    let (err, extract) = claude.tool("browser_extract", json!({}));
    assert!(!err, "{extract}");
    secrets.assert_absent("extract output", &extract);
    assert!(extract.contains("⟨secret:"), "{extract}");
    let (err, tabs) = claude.tool("browser_tabs", json!({"action": "list"}));
    assert!(!err, "{tabs}");
    secrets.assert_absent("the tab list", &tabs);

    // The key's handle into its own site's private field: the page gets the key; the client
    // is told it typed the handle.
    let deploy = find_ref(&snap, "textbox", "Deploy key").expect("Deploy key ref");
    let (err, typed) =
        claude.tool("browser_type", json!({"ref": deploy.to_string(), "text": key.clone()}));
    assert!(!err, "{typed}");
    secrets.assert_absent("the typing's answer", &typed);
    let value = page.eval("document.getElementById('deploy').value").expect("value");
    assert_eq!(value.as_str(), Some(secrets.api_key.as_str()), "the page got the real key");

    // The same handle where other people read it, in another site's frame, in an address:
    // refused, and the refusals hold no secret either.
    let feed = find_ref(&snap, "textbox", "Team feed").expect("Team feed ref");
    let (err, public) =
        claude.tool("browser_type", json!({"ref": feed.to_string(), "text": key.clone()}));
    assert!(err && public.contains("other people can read"), "{public}");
    secrets.assert_absent("the public-field refusal", &public);
    let note = ref_on_line(&snap, "Paste note");
    let (err, elsewhere) = claude.tool("browser_type", json!({"ref": note, "text": key.clone()}));
    assert!(err && elsewhere.contains("may be typed only on"), "{elsewhere}");
    secrets.assert_absent("the other-site refusal", &elsewhere);
    let (err, address) = claude.tool(
        "browser_navigate",
        json!({"url": format!("http://localhost:{port}/collect?k={key}")}),
    );
    assert!(err && address.contains("never put into an address"), "{address}");
    let feed_text = page.eval("document.getElementById('feed').value").expect("feed");
    assert_eq!(feed_text.as_str(), Some(""), "nothing typed in the feed");
    assert!(
        w.site.requests().iter().all(|r| !r.path.starts_with("/collect")),
        "nothing was sent: {:?}",
        w.site.requested_paths()
    );
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(
        extension,
        an_external_agent_reads_secrets_only_as_handles_and_types_them_only_where_they_may_go
    )]
}
