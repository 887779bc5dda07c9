//! The observation over every page of the shared DOM corpus (`/work/shared/dom-corpus`, or
//! `WAYMARK_DOM_CORPUS`), served from 127.0.0.1: no page may fail, and no password value may
//! appear (each page gets a filled password field, and its own password fields are filled).
//! Without the corpus the test fails, saying where it looked; `WAYMARK_SKIP_CORPUS=1` skips it
//! (reported ignored like every end-to-end skip, see `waymark_tests::trial`).

use crate::perception_support;
use perception_support::Zoo;
use serde_json::Value;
use std::path::Path;
use std::path::PathBuf;
use waymark_tests::e2e;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::trial::{Data, E2e};

const CANARY: &str = "pw-canary-7731";

/// The corpus folder; a failure when the folder has no `manifest.json` (`WAYMARK_SKIP_CORPUS`
/// skips the test before it starts).
fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("WAYMARK_DOM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/dom-corpus"));
    assert!(
        dir.join("manifest.json").is_file(),
        "no DOM corpus at {} (no manifest.json): point WAYMARK_DOM_CORPUS at a copy of the \
         shared corpus and run `cargo test -p waymark-tests --test e2e -- perception_corpus` again, or \
         set {}=1 to skip this test (it is reported ignored)",
        dir.display(),
        e2e::SKIP_CORPUS
    );
    dir
}

fn every_corpus_page_is_observed_without_secrets(extension: &Path) {
    let dir = corpus_dir();
    let manifest: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("manifest json");
    let site = FixtureServer::builder(&dir).start().expect("corpus server");
    let zoo = Zoo::launch_serving(extension, site).expect("launch");
    let first = manifest.first().and_then(|e| e["id"].as_str()).expect("a page");
    let (page, tab) = zoo.open_url(&zoo.site.url(&format!("/{first}"))).expect("tab");
    let fill = format!(
        "(() => {{ const i = document.createElement('input'); i.type = 'password'; \
         document.body && document.body.prepend(i); \
         document.querySelectorAll('input[type=password]').forEach((p) => p.value = '{CANARY}'); \
         return true; }})()"
    );
    let mut failures: Vec<String> = Vec::new();
    let mut elements = 0;
    // WAYMARK_CORPUS_LIMIT=N checks only the first N pages (quick local iterations).
    let limit = std::env::var("WAYMARK_CORPUS_LIMIT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let only = std::env::var("WAYMARK_CORPUS_ONLY").unwrap_or_default();
    for entry in manifest
        .iter()
        .filter(|e| e["id"].as_str().is_some_and(|id| id.contains(&only)))
        .take(limit)
    {
        let id = entry["id"].as_str().expect("id");
        let url = zoo.site.url(&format!("/{id}"));
        if let Err(e) = page.navigate(&url) {
            failures.push(format!("{id}: navigation: {e:#}"));
            continue;
        }
        #[allow(
            clippy::let_underscore_must_use,
            reason = "pages without fields to fill reject the script; the observation below is what is checked"
        )]
        let _ = page.eval(&fill);
        match zoo.observe(tab) {
            Ok((text, observation)) => {
                if text.contains(CANARY) || observation.to_string().contains(CANARY) {
                    failures.push(format!("{id}: the password value leaked"));
                }
                let page_line = text.lines().nth(1).unwrap_or_default();
                if !page_line.starts_with("page: ")
                    || observation["url"].as_str() != Some(url.as_str())
                {
                    failures.push(format!("{id}: wrong page: {}", observation["url"]));
                }
                elements += text
                    .lines()
                    .filter(|l| {
                        l.starts_with('[') && !l.starts_with("[frame") && !l.starts_with("[/frame")
                    })
                    .count();
            }
            Err(e) => {
                // A content-script panic says why on the page's console.
                let console: Vec<String> =
                    page.console_messages().into_iter().filter(|l| l.contains("waymark")).collect();
                failures.push(format!("{id}: {e:#}\n{}", console.join("\n")))
            }
        }
    }
    eprintln!("{} corpus pages observed, {elements} interactive elements", manifest.len());
    assert!(manifest.len() >= 100 || limit < usize::MAX, "the corpus has {} pages", manifest.len());
    assert!(failures.is_empty(), "{} pages failed:\n{}", failures.len(), failures.join("\n"));
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(test_hooks, every_corpus_page_is_observed_without_secrets).with_data(Data::Corpus)]
}
