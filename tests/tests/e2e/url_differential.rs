//! The URL differential, end to end (issue 13, class 7): for every tricky URL — the policy's own
//! list (`wasm-core/src/safety/tricky_urls.txt`, when present) and this suite's
//! (`tests/fixtures/hostile/tricky_urls.txt`) — Waymark's `safety::origin_of` must name the
//! origin real Chromium computes (`new URL(u).origin` in a page, through CDP).
//!
//! Agreement: the same origin; or no origin on both sides (Chromium's `"null"` or a URL it
//! cannot parse ↔ `None`); or `None` from Waymark for a URL whose own scheme is not `http:` or
//! `https:` (`blob:`, `filesystem:`, `ws:`, `ftp:`, `file:`, `chrome:`…), which the agent never
//! acts on whatever Chromium's origin for it; or `None` for a URL the WHATWG parser rejects and
//! Chromium (laxer) accepts — refusing is never a leak. Anything else, in either direction,
//! fails, with the whole table printed. The parser underneath (`safety::browser_origin`, any
//! scheme) is compared too.

use serde_json::Value;
use std::path::Path;
use waymark_tests::chromium::{Browser, LaunchOptions};
use waymark_tests::e2e;
use waymark_tests::paths::{self, TempProfile};
use waymark_tests::trial::E2e;

/// The URLs of one list file: one per line as is, or a JSON string in double quotes; `#`
/// starts a comment line.
fn read_list(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            if l.starts_with('"') && l.ends_with('"') && l.len() > 1 {
                serde_json::from_str::<String>(l).unwrap_or_else(|e| panic!("{path:?}: {l}: {e}"))
            } else {
                l.to_owned()
            }
        })
        .collect()
}

/// What Chromium says about `url`: `(origin or "invalid", protocol, href)`.
fn chromium_view(page: &waymark_tests::chromium::Page, url: &str) -> (String, String, String) {
    let js = format!(
        "(() => {{ try {{ const u = new URL({}); return [u.origin, u.protocol, u.href]; }} \
         catch (e) {{ return ['invalid', '', '']; }} }})()",
        serde_json::to_string(url).expect("json")
    );
    let v = page.eval(&js).expect("evaluate new URL");
    let s = |i: usize| v.get(i).and_then(Value::as_str).unwrap_or_default().to_owned();
    (s(0), s(1), s(2))
}

fn waymark_and_chromium_agree_on_every_tricky_urls_origin() {
    let mut urls = read_list(&paths::workspace_root().join("wasm-core/src/safety/tricky_urls.txt"));
    let policy_list = urls.len();
    for u in read_list(&paths::fixtures_dir().join("hostile/tricky_urls.txt")) {
        if !urls.contains(&u) {
            urls.push(u);
        }
    }
    assert!(urls.len() >= 50, "at least 50 tricky URLs, got {}", urls.len());

    let profile = TempProfile::new().expect("profile");
    let browser = Browser::launch(LaunchOptions::new(profile.path())).unwrap_or_else(|e| {
        panic!(
            "Chromium: {e:#}\n\nRun `cargo xtask setup` (installs it), or set {}=1 to skip the \
             end-to-end tests (they are reported ignored)",
            e2e::SKIP_BROWSER
        )
    });
    let page = browser.new_page("about:blank").expect("page");

    let mut rows = Vec::new();
    let mut disagreements = Vec::new();
    for url in &urls {
        let ours = waymark_core::safety::origin_of(url);
        let whatwg = waymark_core::safety::browser_origin(url);
        let (chrome, protocol, href) = chromium_view(&page, url);
        let chrome_none = chrome == "null" || chrome == "invalid";
        let web = protocol == "http:" || protocol == "https:";
        let verdict = match &ours {
            Some(o) if *o == chrome => "agree",
            None if chrome_none => "agree (no origin)",
            None if !web => "agree (not a web page: refused)",
            // The WHATWG parser rejects what Chromium (laxer) accepts: refused, the safe side.
            None if whatwg.is_none() => "stricter (invalid under WHATWG: refused)",
            _ => "DISAGREE",
        };
        if verdict == "DISAGREE" {
            disagreements.push(format!("{url:?}: origin_of {ours:?}, Chromium {chrome} ({href})"));
        }
        // The parser underneath, for every scheme: WHATWG's origin is Chromium's, except where
        // Chromium keeps a tuple origin WHATWG calls opaque (file:, filesystem:, chrome:…) or
        // accepts what WHATWG rejects; origin_of refuses both (checked above).
        let parser = match &whatwg {
            Some(o) if *o == chrome => "same",
            None if chrome == "invalid" => "same (invalid)",
            Some(o) if o == "null" && !web => "known: Chromium keeps a tuple origin",
            None => "known: Chromium is laxer",
            Some(_) => "DIFFERENT",
        };
        if parser == "DIFFERENT" {
            disagreements
                .push(format!("{url:?}: browser_origin {whatwg:?}, Chromium {chrome} ({href})"));
        }
        rows.push(format!(
            "| `{}` | {} | {chrome} | {verdict} | {parser} |",
            url.escape_debug(),
            ours.as_deref().unwrap_or("none")
        ));
    }
    eprintln!(
        "\n{} URLs ({policy_list} from the policy's list)\n\n| URL | origin_of | Chromium | verdict | WHATWG parser |\n|---|---|---|---|---|",
        urls.len()
    );
    for row in &rows {
        eprintln!("{row}");
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(chromium, waymark_and_chromium_agree_on_every_tricky_urls_origin)]
}
