//! Set-up and the model of the soak (`soak.rs`): which pages it visits, a browser whose host
//! captures transcripts and whose pages cannot reach past 127.0.0.1, and the scripted model that
//! observes, extracts and reports a finding quoting the page.

use crate::common::{self, Waymark, message_text, role_reply};
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, PoisonError};
use waymark_tests::chromium::{Browser, LaunchOptions};
use waymark_tests::e2e;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths::{self, TempProfile};

/// The task typed for every page (followed by the page's number, which tells its answer from
/// the previous page's).
pub const TASK: &str = "Soak: read this page, extract it and report its opening words";

/// How every finding starts (the rest is page text).
pub const FINDING_PREFIX: &str = "Soak finding:";

/// Folders of `tests/fixtures` whose pages the soak visits besides the i18n corpus: the pages
/// Waymark is meant to work on. `hostile/` and `netguard/` are left to their own tests: they are
/// built to make Waymark refuse or ask, which a soak that wants every task to finish would
/// have to script around page by page.
pub const FIXTURE_FOLDERS: [&str; 4] = ["eval", "site", "zoo", "harness"];

/// One page to visit.
pub struct SoakPage {
    /// Shown in failures (`corpus:readability/qq.html`, `fixtures:zoo/modal.html`).
    pub label: String,
    /// Its URL on a 127.0.0.1 server.
    pub url: String,
}

/// The ids (paths under the folder) listed in `<dir>/manifest.json`.
pub fn manifest_ids(dir: &Path) -> Result<Vec<String>> {
    let path = dir.join("manifest.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let entries: Vec<Value> = serde_json::from_str(&text).context("manifest json")?;
    entries
        .iter()
        .map(|e| e["id"].as_str().map(str::to_owned).context("an entry without an id"))
        .collect()
}

/// The `.html` files of one fixtures folder and its subfolders, sorted, relative to `fixtures/`.
pub fn html_files(fixtures: &Path, folder: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut dirs = vec![fixtures.join(folder)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "html")
                && let Ok(rel) = path.strip_prefix(fixtures)
            {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The shared DOM corpus folder, a failure naming the fix when it is missing (the trials that
/// read it are skipped before they start when `WAYMARK_SKIP_CORPUS` asks for it).
pub fn shared_corpus_dir() -> PathBuf {
    let dir = std::env::var_os("WAYMARK_DOM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/dom-corpus"));
    assert!(
        dir.join("manifest.json").is_file(),
        "no DOM corpus at {} (no manifest.json): point WAYMARK_DOM_CORPUS at a copy of the \
         shared corpus, or set {}=1 to skip the tests over it (they are reported ignored)",
        dir.display(),
        e2e::SKIP_CORPUS
    );
    dir
}

/// What the model saw and said for one task.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// The navigator's first prompt (task and observation).
    pub observation: String,
    /// The extract tool's result.
    pub extract: String,
    /// The finding it answered.
    pub finding: String,
}

/// The scripted model: on its first navigator call it extracts the page, on the next (the
/// prompt lists step 1) it answers a finding quoting the page's first words; planner,
/// validator and summariser get the common defaults. What it saw goes to `log`, newest last.
pub fn soak_model(log: Arc<Mutex<Vec<Seen>>>) -> impl Fn(&RecordedRequest) -> ScriptedReply {
    move |req: &RecordedRequest| {
        if let Some(reply) = role_reply(req) {
            return reply;
        }
        let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
        let user = message_text(&req.body, 1);
        match extract_output(&user) {
            None => {
                log.push(Seen { observation: user, ..Seen::default() });
                ScriptedReply::tool_call("extract", json!({}))
            }
            Some(extract) => {
                let seen = log.last_mut();
                let finding =
                    finding_from(&extract, seen.as_ref().map_or("", |s| s.observation.as_str()));
                if let Some(seen) = seen {
                    seen.extract = extract;
                    seen.finding = finding.clone();
                }
                ScriptedReply::tool_call("done", json!({"answer": finding, "success": true}))
            }
        }
    }
}

/// What step 1 (the extract) returned, as the navigator's prompt shows it: a long output in
/// full in its `step_output` fence, a one-line output on the step's line; `None` before step 1.
fn extract_output(prompt: &str) -> Option<String> {
    let steps = prompt.split_once("Steps so far:")?.1;
    let step = steps.lines().find_map(|l| l.strip_prefix("1. "))?;
    if let Some((_, rest)) = prompt.split_once("Output of step 1 (") {
        let body: Vec<&str> = rest
            .lines()
            .skip_while(|l| !l.starts_with("<step_output "))
            .skip(1)
            .take_while(|l| !l.starts_with("</step_output "))
            .collect();
        return Some(body.join("\n"));
    }
    let outcome = step.split_once(" → ").map_or("", |(_, o)| o);
    Some(outcome.split_once(": ").map_or("", |(_, o)| o).to_owned())
}

/// `Soak finding: ` and up to eight words of `text` (or of `fallback` when `text` has none)
/// made only of letters, each cut to twelve characters: page text in any script that no export
/// escapes. Lines holding a web address are passed over: the session keeps code-like tokens
/// read from a page (a URL's path) out of its notes, and the finding is compared verbatim.
/// Cut by characters, never bytes.
pub fn finding_from(text: &str, fallback: &str) -> String {
    let words = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.contains("://") && !l.contains("www."))
            .flat_map(|l| l.split(|c: char| !c.is_alphabetic()))
            .filter(|w| w.chars().count() >= 2)
            .map(|w| w.chars().take(12).collect())
            .take(8)
            .collect()
    };
    let mut picked = words(text);
    if picked.is_empty() {
        picked = words(fallback);
    }
    format!("{FINDING_PREFIX} {}", picked.join(" "))
}

/// Chromium with the extension and the host registered; the host writes exports and
/// transcripts under `work`; page requests beyond 127.0.0.1 fail at once (saved pages
/// reference the whole web). Mirrors `common::Waymark::launch` plus those two settings.
pub fn launch(extension: &Path, llm: &ScriptedLlm, site: FixtureServer) -> Result<Waymark> {
    let profile = TempProfile::new()?;
    let work = tempfile::tempdir().context("temp dir")?;
    let export_dir = work.path().join("exports");
    let config_dir = work.path().join("config");
    std::fs::create_dir_all(&config_dir)?;
    let status = Command::new(paths::host_binary())
        .args(["install", "--in-place", "--browser", "chromium", "--user-data-dir"])
        .arg(profile.path())
        .env("WAYMARK_CONFIG_DIR", &config_dir)
        .status()
        .context("running waymark-host install")?;
    if !status.success() {
        bail!("waymark-host install failed: {status}");
    }
    let dir = |name: &str| work.path().join(name).display().to_string();
    let options = LaunchOptions::new(profile.path())
        .extension(extension)
        .arg("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
        .env("WAYMARK_LLM_BASE_URL", llm.base_url())
        .env("WAYMARK_LLM_MODEL", "scripted-model")
        .env("WAYMARK_LLM_API_KEY", "test-key")
        .env("WAYMARK_LLM_RETRY_BASE_MS", "50")
        .env("WAYMARK_CONFIG_DIR", dir("config"))
        .env("WAYMARK_DATA_DIR", dir("data"))
        .env("WAYMARK_EXPORT_DIR", dir("exports"))
        .env("WAYMARK_RUNTIME_DIR", dir("runtime"))
        .env("WAYMARK_TRANSCRIPTS", "on")
        .env("WAYMARK_LOG", "info");
    let browser = Browser::launch(options)?;
    browser.wait_for_extension_worker(common::TASK_TIMEOUT)?;
    Ok(Waymark { browser, site, export_dir, work, profile })
}
