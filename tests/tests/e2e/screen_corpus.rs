//! Measurement (ignored in normal runs; `cargo test -p waymark-tests --test e2e -- --ignored
//! screen_corpus::`): the screen check (`waymark_page::observation::screen`) over the
//! soak's pages — the i18n corpus, the project's fixtures and the shared DOM corpus — for its
//! false hides and its cost. Each page is observed twice: with its tab in the background (the
//! check cannot capture it: the style rules alone decide) and with its tab active (captured
//! and judged). Lines the first has and the second lacks are what the pixels dropped; every
//! one is printed to be judged by a person (0 of them may be text a person can read), with
//! how many pages asked for the check and the median observe time of both ways.
//! `WAYMARK_SOAK_ONLY=text` measures only the pages whose label contains `text`.

use crate::common;
#[allow(dead_code, reason = "the soak's page lists only; its model and checks are the soak's")]
use crate::soak_support;
use std::path::Path;
use waymark_tests::trial::{Data, E2e};

use common::{Setup, TASK_TIMEOUT, Waymark, role_reply};
use serde_json::{Value, json};
use soak_support::{FIXTURE_FOLDERS, SoakPage};
use std::collections::HashSet;
use std::time::{Duration, Instant};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;

fn observe(sw: &waymark_tests::chromium::Page, tab: i64) -> Option<(Value, Duration)> {
    let started = Instant::now();
    let reply = sw
        .eval_timeout(
            &format!("waymarkPageRequest({tab}, {})", json!({"op": "observe", "budget": 100_000})),
            TASK_TIMEOUT,
        )
        .map_err(|e| eprintln!("observe: {e:#}"))
        .ok()?;
    Some((reply, started.elapsed()))
}

fn lines(reply: &Value) -> HashSet<String> {
    reply["prompt"].as_str().unwrap_or_default().lines().map(str::to_owned).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn screen_check_over_the_soak_pages(ext: &Path) {
    let fixtures = paths::fixtures_dir();
    let site = FixtureServer::builder(&fixtures).start().expect("fixture server");
    let mut pages = Vec::new();
    for id in soak_support::manifest_ids(&fixtures.join("corpus-i18n")).expect("i18n manifest") {
        pages.push(SoakPage {
            label: format!("i18n:{id}"),
            url: site.url(&format!("/corpus-i18n/{id}")),
        });
    }
    for folder in FIXTURE_FOLDERS {
        for rel in soak_support::html_files(&fixtures, folder).expect("fixture pages") {
            pages.push(SoakPage {
                label: format!("fixtures:{rel}"),
                url: site.url(&format!("/{rel}")),
            });
        }
    }
    let dir = soak_support::shared_corpus_dir();
    let corpus = FixtureServer::builder(&dir).start().expect("corpus server");
    for id in soak_support::manifest_ids(&dir).expect("corpus manifest") {
        pages.push(SoakPage { label: format!("corpus:{id}"), url: corpus.url(&format!("/{id}")) });
    }
    let only = std::env::var("WAYMARK_SOAK_ONLY").unwrap_or_default();
    pages.retain(|p| p.label.contains(&only));
    let llm = ScriptedLlm::start(|req| {
        role_reply(req).unwrap_or_else(|| ScriptedReply::tool_call("done", json!({"answer": "x"})))
    })
    .expect("scripted LLM");
    let wm = Waymark::launch(ext, Setup { llm: &llm, install_host: false, site }).expect("launch");
    let sw = wm.attach_worker().expect("worker");
    sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", TASK_TIMEOUT).expect("hook");
    let tab_page = wm.browser.new_page("about:blank").expect("tab");
    tab_page.eval("document.title = 'measured'").expect("title");
    let other = wm.browser.new_page("about:blank").expect("other tab");
    other.eval("document.title = 'other'").expect("title");
    let id = |title: &str| {
        sw.eval(&format!(
            "chrome.tabs.query({{}}).then((tabs) => tabs.find((t) => t.title === '{title}').id)"
        ))
        .ok()
        .and_then(|v| v.as_i64())
        .expect("tab id")
    };
    let (tab, other_id) = (id("measured"), id("other"));
    let (mut asked, mut judged, mut failed) = (0, 0, 0);
    let (mut plain_ms, mut checked_ms, mut style_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut hides: Vec<(String, String)> = Vec::new();
    for page in &pages {
        // A page that never fires its load event is read as parsed, as the soak does.
        if let Err(e) = tab_page.navigate(&page.url) {
            eprintln!("{}: no load event, read as parsed: {e:#}", page.label);
        }
        let activate = |id: i64| {
            sw.eval(&format!("chrome.tabs.update({id}, {{active: true}}).then(() => true)")).ok()
        };
        activate(other_id);
        let Some((background, style_time)) = observe(&sw, tab) else {
            eprintln!("{}: not observed", page.label);
            failed += 1;
            continue;
        };
        activate(tab);
        let Some((active, time)) = observe(&sw, tab) else {
            failed += 1;
            continue;
        };
        let screen = &active["observation"]["screen"];
        if screen.is_null() {
            plain_ms.push(time.as_secs_f64() * 1000.0);
            continue;
        }
        asked += 1;
        checked_ms.push(time.as_secs_f64() * 1000.0);
        style_ms.push(style_time.as_secs_f64() * 1000.0);
        if screen["confirmed"]["dropped"].as_u64().unwrap_or(0) > 0 {
            judged += 1;
            let shown = lines(&active);
            for line in lines(&background) {
                if !shown.contains(&line) && !line.starts_with('(') && !line.starts_with("view:") {
                    hides.push((page.label.clone(), line));
                }
            }
        }
    }
    drop(corpus);
    eprintln!("\npages: {}, read failures: {failed}", pages.len());
    eprintln!("pages that asked for the screen check: {asked}; with a line dropped: {judged}");
    eprintln!(
        "observe median: plain pages {:.1} ms (n={}); checked pages {:.1} ms captured vs {:.1} \
         ms in the background (n={})",
        median(plain_ms.clone()),
        plain_ms.len(),
        median(checked_ms.clone()),
        median(style_ms.clone()),
        checked_ms.len()
    );
    eprintln!("dropped lines ({}):", hides.len());
    for (label, line) in &hides {
        eprintln!("  {label}: {line}");
    }
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, screen_check_over_the_soak_pages)
            .with_data(Data::Corpus)
            .only_when_asked(),
    ]
}
