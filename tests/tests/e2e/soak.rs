//! The multilingual soak: every page of the project's own fixtures (the i18n corpus in
//! `tests/fixtures/corpus-i18n` — Chinese, Japanese, Korean, Arabic, Hebrew, Hindi, Russian and
//! emoji-heavy pages, sources in its `manifest.json` — and the eval, site, zoo and harness
//! pages) and of the shared DOM corpus (`/work/shared/dom-corpus` or `WAYMARK_DOM_CORPUS`, a
//! trial of its own that `WAYMARK_SKIP_CORPUS=1` skips) goes through what a user does: a task in the
//! side panel whose model observes the page, extracts it and answers a finding quoting it; then
//! the session exported as markdown and JSON by the real host, and its JSONL transcript. One
//! browser for all pages, served from 127.0.0.1. No page may panic or fail anything: every task
//! finishes with its finding, every observation has the page, every export parses and holds
//! the finding.
//! `WAYMARK_SOAK_ONLY=text` soaks only the pages whose label contains `text` (local runs).

use crate::common;
use crate::soak_support;
use anyhow::{Context, Result, bail, ensure};
use common::{Panel, TASK_TIMEOUT, Waymark};
use serde_json::Value;
use soak_support::{FIXTURE_FOLDERS, Seen, SoakPage, TASK};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use waymark_tests::chromium::Page;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::ScriptedLlm;
use waymark_tests::paths;
use waymark_tests::trial::{Data, E2e};

/// How long a page gets to fire its load event before it is used as parsed.
const LOAD_BOUND: Duration = Duration::from_secs(15);

/// A little over the network guard's settle window (2.5 s).
const GUARD_SETTLE: Duration = Duration::from_secs(3);

/// What one page left behind for the transcript check after the browser closed.
struct Done {
    label: String,
    session: String,
    finding: String,
}

/// Which pages one soak goes through (two trials: the shared corpus may be left out alone).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pages {
    /// The i18n corpus and the project's own fixture pages.
    Fixtures,
    /// The shared DOM corpus, on its own origin.
    SharedCorpus,
}

fn every_fixture_and_i18n_page_survives_a_task_and_its_exports(extension: &Path) {
    soak(extension, Pages::Fixtures);
}

fn every_shared_corpus_page_survives_a_task_and_its_exports(extension: &Path) {
    soak(extension, Pages::SharedCorpus);
}

fn soak(extension: &Path, which: Pages) {
    let started = Instant::now();
    let fixtures = paths::fixtures_dir();
    let site = FixtureServer::builder(&fixtures)
        .with_header("/zoo/strict.html", "Content-Security-Policy", "script-src 'self'")
        .start()
        .expect("fixture server");
    let mut pages = Vec::new();
    let mut corpus = None;
    match which {
        Pages::Fixtures => {
            let i18n = soak_support::manifest_ids(&fixtures.join("corpus-i18n"));
            for id in i18n.expect("i18n manifest") {
                let url = site.url(&format!("/corpus-i18n/{id}"));
                pages.push(SoakPage { label: format!("i18n:{id}"), url });
            }
            for folder in FIXTURE_FOLDERS {
                for rel in soak_support::html_files(&fixtures, folder).expect("fixture pages") {
                    let url = site.url(&format!("/{rel}"));
                    pages.push(SoakPage { label: format!("fixtures:{rel}"), url });
                }
            }
        }
        Pages::SharedCorpus => {
            let dir = soak_support::shared_corpus_dir();
            let server = FixtureServer::builder(&dir).start().expect("corpus server");
            for id in soak_support::manifest_ids(&dir).expect("corpus manifest") {
                let url = server.url(&format!("/{id}"));
                pages.push(SoakPage { label: format!("corpus:{id}"), url });
            }
            corpus = Some(server);
        }
    }
    let only = std::env::var("WAYMARK_SOAK_ONLY").unwrap_or_default();
    pages.retain(|p| p.label.contains(&only));
    let i18n = pages.iter().filter(|p| p.label.starts_with("i18n:")).count();
    let whole_i18n = only.is_empty() && which == Pages::Fixtures;
    assert!(!whole_i18n || i18n >= 20, "the i18n corpus lists {i18n} pages");

    let log: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let llm = ScriptedLlm::start(soak_support::soak_model(log.clone())).expect("scripted LLM");
    let wm = soak_support::launch(extension, &llm, site).expect("launch");
    let worker = wm.attach_worker().expect("worker");
    let tab = wm.browser.new_page("about:blank").expect("page tab");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");

    let mut failures: Vec<String> = Vec::new();
    let mut done: Vec<Done> = Vec::new();
    let mut status = String::new();
    // Handles the model read per page (observation and extract): the pages hold no real
    // secret, so each is a value the classifier took for one, or a false concealment.
    let mut handles: Vec<(String, usize)> = Vec::new();
    for (n, page) in pages.iter().enumerate() {
        let task = format!("{TASK} (page {})", n + 1);
        let before = log.lock().unwrap_or_else(PoisonError::into_inner).len();
        let result = soak_one(&wm, &panel, &tab, page, &task, &mut status, &log);
        if let Some(seen) = log.lock().unwrap_or_else(PoisonError::into_inner).get(before) {
            let count = format!("{}{}", seen.observation, seen.extract).matches("⟨secret:").count();
            if count > 0 {
                eprintln!("soak: {} shows {count} handles", page.label);
                handles.push((page.label.clone(), count));
            }
        }
        match result {
            Ok(d) => done.push(d),
            Err(e) => {
                let console: Vec<String> = tab
                    .console_messages()
                    .into_iter()
                    .filter(|l| l.contains("waymark") || l.contains("panicked"))
                    .collect();
                failures.push(format!("{}: {e:#}\n{}", page.label, console.join("\n")));
                recover(&panel);
            }
        }
    }
    let panics: Vec<String> =
        worker.console_messages().into_iter().filter(|l| l.contains("panicked")).collect();
    assert!(panics.is_empty(), "the worker's wasm panicked:\n{}", panics.join("\n"));
    let tab_panics: Vec<String> =
        tab.console_messages().into_iter().filter(|l| l.contains("panicked")).collect();
    assert!(tab_panics.is_empty(), "a content script panicked:\n{}", tab_panics.join("\n"));

    // The host writes transcripts at the latest when it exits (the browser closes its pipe).
    let Waymark { browser, work, .. } = wm;
    browser.close(TASK_TIMEOUT).expect("close the browser");
    let sessions = work.path().join("data").join("sessions");
    for d in &done {
        if let Err(e) = transcript_holds(&sessions, d) {
            failures.push(format!("{}: transcript: {e:#}", d.label));
        }
    }
    drop(corpus);
    llm.assert_no_script_panics().expect("the model script held");
    eprintln!(
        "soak: {} pages ({i18n} i18n) × 5 steps (navigate, task: observe + extract + done, \
         markdown export, JSON export, JSONL transcript) in {:.1} s, {} failed; {} findings \
         stored with a value cut out as a secret",
        pages.len(),
        started.elapsed().as_secs_f64(),
        failures.len(),
        done.iter().filter(|d| d.finding.contains(REDACTED)).count()
    );
    let (corpus_pages, fixture_pages): (Vec<_>, Vec<_>) =
        handles.iter().partition(|(label, _)| label.starts_with("corpus:"));
    for (what, found) in [("shared DOM corpus", corpus_pages), ("fixtures and i18n", fixture_pages)]
    {
        eprintln!(
            "soak: {what}: {} handles on {} pages",
            found.iter().map(|(_, n)| n).sum::<usize>(),
            found.len()
        );
    }
    assert!(failures.is_empty(), "{} pages failed:\n{}", failures.len(), failures.join("\n\n"));
}

/// One page: load it, run the task in a new session, export it both ways and check both files.
fn soak_one(
    wm: &Waymark,
    panel: &Panel,
    tab: &Page,
    page: &SoakPage,
    task: &str,
    status: &mut String,
    log: &Mutex<Vec<Seen>>,
) -> Result<Done> {
    load(tab, &page.url)?;
    click(panel, "#new-session")?;
    panel.wait_text("session-meta", "t.startsWith('0 tasks')").context("a new session")?;
    let before = log.lock().unwrap_or_else(PoisonError::into_inner).len();
    panel.send(task)?;
    let outcome = panel
        .page
        .wait_for(
            &format!(
                "(() => {{ if (document.getElementById('task-prompt')?.textContent !== {task}) return false; \
                 const a = document.getElementById('answer'); \
                 if (a && !a.hidden && document.getElementById('task').dataset.running === 'false') \
                   return (a.className === 'ok' ? 'answer ' : 'failed ') + a.textContent; \
                 const e = document.getElementById('panel-error'); \
                 if (e && !e.hidden && e.textContent.trim()) return 'error ' + e.textContent; \
                 const c = document.getElementById('intervention'); \
                 if (c && !c.hidden) return 'card ' + document.getElementById('intervention-title').textContent \
                   + ': ' + document.getElementById('intervention-message').textContent; \
                 return false; }})()",
                task = serde_json::to_string(task)?
            ),
            TASK_TIMEOUT,
        )
        .with_context(|| {
            let shown = |id: &str| panel.text(id).unwrap_or_default();
            format!(
                "the task's end (panel: {:?}; steps: {:?}; prompt: {:?})",
                shown("task-progress"),
                shown("steps"),
                shown("task-prompt")
            )
        })?;
    let outcome = outcome.as_str().unwrap_or_default().to_owned();
    let Some(answer) = outcome.strip_prefix("answer ") else {
        bail!("the task ended with {outcome}")
    };
    let seen = {
        let log = log.lock().unwrap_or_else(PoisonError::into_inner);
        ensure!(log.len() == before + 1, "{} navigator tasks for one page", log.len() - before);
        log.last().cloned().unwrap_or_default()
    };
    // A word of the address concealed as a secret's handle (`twitter.com`, beside a link id
    // taken for a secret) is a false concealment: the page must be named as it is.
    ensure!(
        seen.observation.contains(&page.url),
        "the observation lacks the page:\n{}",
        seen.observation
    );
    ensure!(
        seen.observation.lines().filter(|l| !l.trim().is_empty()).count() > 3,
        "an empty observation:\n{}",
        seen.observation
    );
    ensure!(answer.contains(&seen.finding), "answer {answer:?}, finding {:?}", seen.finding);

    let md_path = export(panel, "#export", ".md", status)?;
    let json_path = export(panel, "#export-json", ".json", status)?;
    for path in [&md_path, &json_path] {
        ensure!(
            path.starts_with(&wm.export_dir),
            "exported outside the folder: {}",
            path.display()
        );
    }
    // The session stores the answer with what its ledger takes for secrets cut out (a key-like
    // token the page showed, in any spelling); the exports and the transcript hold that.
    let json = std::fs::read_to_string(&json_path).context("reading the JSON export")?;
    let doc: Value = serde_json::from_str(&json).context("the JSON export parses")?;
    ensure!(doc["tasks"].as_array().map(Vec::len) == Some(1), "one task in {json}");
    let stored = doc["tasks"][0]["answer"].as_str().context("the JSON export's answer")?;
    ensure!(
        is_cut_from(stored, &seen.finding),
        "the JSON holds {stored:?}, not the finding {:?}",
        seen.finding
    );
    let md = std::fs::read_to_string(&md_path).context("reading the markdown export")?;
    let md_form = stored.replace(REDACTED, "\\[redacted\\]");
    ensure!(md.contains(&md_form), "the markdown lacks {md_form:?}:\n{md}");
    let session = doc["id"].as_str().context("the JSON export's session id")?.to_owned();
    Ok(Done { label: page.label.clone(), session, finding: stored.to_owned() })
}

/// How the session marks a value it cut out.
const REDACTED: &str = "[redacted]";

/// Whether `stored` is `finding`, or `finding` with some spans replaced by [`REDACTED`].
fn is_cut_from(stored: &str, finding: &str) -> bool {
    let mut pieces = stored.split(REDACTED);
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = finding.strip_prefix(first) else { return false };
    if stored == finding {
        return true;
    }
    for piece in pieces {
        match rest.split_once(piece) {
            Some((_, after)) => rest = after,
            None => return false,
        }
    }
    stored.contains(REDACTED)
        && first.starts_with(soak_support::FINDING_PREFIX)
        && (rest.is_empty() || stored.ends_with(REDACTED))
}

/// Opens `url` in the tab. A page whose load event never comes (a saved page waiting on its
/// unreachable third-party frames) is used once its document is parsed, as a user would. The
/// network guard keeps a finished task's rules for its settle window (`SETTLE_MS` in
/// `wasm-worker/src/netguard.rs`, 2.5 s), which refuse another origin in the task's tab: a
/// navigation refused so is tried again once after that window.
fn load(tab: &Page, url: &str) -> Result<()> {
    let mut outcome = tab.navigate_timeout(url, LOAD_BOUND);
    if let Err(e) = &outcome
        && format!("{e:#}").contains("ERR_BLOCKED_BY_CLIENT")
    {
        eprintln!("soak: {url} refused within the guard's settle window; trying again after it");
        std::thread::sleep(GUARD_SETTLE);
        outcome = tab.navigate_timeout(url, LOAD_BOUND);
    }
    let Err(e) = outcome else { return Ok(()) };
    let state = tab
        .wait_for(
            &format!(
                "location.href === {} && document.readyState !== 'loading' && document.readyState",
                serde_json::to_string(url)?
            ),
            TASK_TIMEOUT,
        )
        .with_context(|| format!("navigation: {e:#}"))?;
    eprintln!("soak: {url} has no load event after {LOAD_BOUND:?}; used at readyState {state}");
    Ok(())
}

/// Clicks an export button and returns the file the panel says it wrote (a status that differs
/// from the last one and ends with `extension`). "Include tracked values" is ticked first: the
/// finding is page text, which an export otherwise redacts.
fn export(panel: &Panel, button: &str, extension: &str, status: &mut String) -> Result<PathBuf> {
    panel.page.eval(
        "(() => { const b = document.getElementById('export-values'); if (!b.checked) b.click(); \
         return b.checked; })()",
    )?;
    click(panel, button)?;
    let predicate = format!(
        "t !== {} && t.endsWith({})",
        serde_json::to_string(status.as_str())?,
        serde_json::to_string(extension)?
    );
    let text = panel
        .wait_text("export-status", &predicate)
        .with_context(|| format!("{button} written"))?;
    text.clone_into(status);
    Ok(PathBuf::from(text.trim_start_matches("Exported to ")))
}

/// The session's transcript: every line parses, and one holds the finding.
fn transcript_holds(sessions: &Path, d: &Done) -> Result<()> {
    let path = sessions.join(format!("{}.jsonl", d.session));
    let bound = Instant::now() + Duration::from_secs(10);
    while !path.is_file() && Instant::now() < bound {
        std::thread::sleep(Duration::from_millis(100));
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
    let mut found = false;
    for (i, line) in text.lines().enumerate() {
        let v: Value = serde_json::from_str(line).with_context(|| format!("line {}", i + 1))?;
        found |= v.to_string().contains(&d.finding);
    }
    ensure!(found, "no line holds {:?}:\n{text}", d.finding);
    Ok(())
}

fn click(panel: &Panel, selector: &str) -> Result<()> {
    let js = format!(
        "(() => {{ const b = document.querySelector({}); if (!b) return false; b.click(); return true; }})()",
        serde_json::to_string(selector)?
    );
    panel.page.wait_for(&js, TASK_TIMEOUT).with_context(|| format!("clicking {selector}"))?;
    Ok(())
}

/// After a failed page: stops a task still running so the next page starts clean.
fn recover(panel: &Panel) {
    #[allow(clippy::let_underscore_must_use, reason = "best effort; the next page reports its own state")]
    let _ = panel.page.eval(
        "(() => { for (const id of ['stop', 'intervention-stop']) { const b = document.getElementById(id); \
         if (b && !b.hidden && !b.disabled) b.click(); } return true; })()",
    );
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, every_fixture_and_i18n_page_survives_a_task_and_its_exports),
        e2e!(extension, every_shared_corpus_page_survives_a_task_and_its_exports)
            .with_data(Data::Corpus),
    ]
}
