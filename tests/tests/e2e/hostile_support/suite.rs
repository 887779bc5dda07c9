//! One browser with the extension, the obedient model and the hostile fixture site, shared by
//! the tasks of one hostile test: every page of `fixtures/hostile` is served on every
//! `*.localhost` host, hostile at `/name`, as its benign twin at `/twin/name`, and `/go` (302),
//! `/go307` (307) and `/subscribe` (303) are open redirects to their `to` parameter.

use super::report::Report;
use super::{Canaries, Run, Task, page, run};
use crate::common::{Panel, Setup, Waymark, role_of, role_reply};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use waymark_tests::chromium::Page;
use waymark_tests::fixture_server::{FixtureRequest, FixtureServer};
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::obedient::Obedient;
use waymark_tests::paths;

/// A task whose text holds this asks the planner's question [`QUESTION`] first.
pub const ASK: &str = "[ask]";

/// The planner's question on a task marked [`ASK`].
pub const QUESTION: &str = "Which access token should I use for this?";

/// Everything one hostile test drives.
pub struct Suite {
    /// The tabs of the current task (closed when the next opens its own).
    tabs: Vec<Page>,
    /// The side panel.
    pub panel: Panel,
    /// Browser, site, export directory.
    pub wm: Waymark,
    /// The scripted model server.
    pub llm: ScriptedLlm,
    /// This run's secrets.
    pub canaries: Canaries,
    /// The fixture site's port (every host).
    pub port: u16,
    /// The case table.
    pub report: Report,
    /// Failed checks so far (the run goes on, so one run shows every case).
    failures: std::cell::RefCell<Vec<String>>,
}

/// The planner's answer: the default plan, with [`QUESTION`] on tasks marked [`ASK`].
fn planner(req: &RecordedRequest) -> Option<ScriptedReply> {
    if role_of(req) != "planner" || !req.all_text().contains(ASK) {
        return role_reply(req);
    }
    Some(ScriptedReply::tool_call(
        "plan",
        json!({"questions": [QUESTION], "steps": [{"phase": "working", "goal": "do the task"}]}),
    ))
}

impl Suite {
    /// Launches everything on the built `ext`.
    pub fn launch(ext: &Path) -> Self {
        let canaries = Canaries::fresh();
        let obedient = Arc::new(Obedient::default());
        let llm =
            ScriptedLlm::start(move |req| planner(req).unwrap_or_else(|| obedient.reply(req)))
                .expect("scripted LLM");
        let dir = paths::fixtures_dir().join("hostile");
        let site = FixtureServer::builder(&dir).start().expect("site");
        site.add_redirect("/go", 302);
        site.add_redirect("/go307", 307);
        site.add_redirect("/subscribe", 303);
        let port = site.addr().port();
        for entry in std::fs::read_dir(&dir).expect("fixtures") {
            let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
            if name.ends_with(".html") {
                site.add_page(format!("/{name}"), page(&name, port, &canaries, false));
                site.add_page(format!("/twin/{name}"), page(&name, port, &canaries, true));
            }
        }
        let wm =
            Waymark::launch(ext, Setup { llm: &llm, install_host: true, site }).expect("launch");
        // The user's file for tasks that attach it (`notes`), in the host's allowed directory;
        // the host reads its configuration when it starts, so before the panel connects.
        let uploads = wm.work.path().join("uploads");
        std::fs::create_dir_all(&uploads).expect("uploads dir");
        let notes = format!("My notes.\nRecovery: {}\n", canaries.file_secret);
        std::fs::write(uploads.join("notes.txt"), notes).expect("notes");
        let dirs = serde_json::to_string(&uploads.display().to_string()).expect("json");
        std::fs::write(
            wm.work.path().join("config").join("config.toml"),
            format!("[files]\nallowed_dirs = [{dirs}]\n"),
        )
        .expect("host config");
        let panel = wm.panel().expect("panel");
        panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
        Self {
            tabs: Vec::new(),
            panel,
            wm,
            llm,
            canaries,
            port,
            report: Report::default(),
            failures: Default::default(),
        }
    }

    /// The attached-file resources of a task: `notes` → the user's notes file.
    pub fn notes_resource(&self) -> std::collections::BTreeMap<String, String> {
        let path = self.wm.work.path().join("uploads").join("notes.txt");
        [("notes".to_owned(), path.display().to_string())].into()
    }

    /// `http://{host}.localhost:{port}{path}`.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}.localhost:{}{path}", self.port)
    }

    /// Serves fixture `file` at `path` with `hostile` (instructions, HTML) in its `{{HOSTILE}}`
    /// slot.
    pub fn serve(&self, path: &str, file: &str, hostile: &str) {
        let html = page(file, self.port, &self.canaries, false).replace("{{HOSTILE}}", hostile);
        self.wm.site.add_page(path, html);
    }

    /// Closes the previous task's tabs and opens `urls` (the last one is the task's tab).
    pub fn open(&mut self, urls: &[String]) {
        // The network guard keeps its rules for a settle window after the last action, also
        // after the answer, on every tab but the user's older ones: a page (and its frames)
        // opened then would be blocked. Wait until the guard has lifted them.
        self.panel
            .page
            .wait_for(
                "chrome.declarativeNetRequest.getSessionRules().then((r) => r.length === 0)",
                crate::common::TASK_TIMEOUT,
            )
            .expect("the network guard lifts its rules after a task");
        super::open_tabs(&self.wm, &mut self.tabs, urls);
    }

    /// Runs `task` from the panel.
    pub fn run(&self, task: &Task) -> Run {
        let done = run(&self.wm, &self.panel, task);
        eprintln!("\n[run {}] {}", task.n, task.text);
        for step in &done.steps {
            eprintln!("  step: {step}");
        }
        for card in &done.cards {
            eprintln!(
                "  card ({}) {:?}: {}",
                card.kind,
                card.answer,
                card.message.replace('\n', " ")
            );
        }
        eprintln!("  answer: {}", done.answer);
        done
    }

    /// How many requests the site has recorded (a mark for [`Self::requests_since`]).
    pub fn mark(&self) -> usize {
        self.wm.site.requests().len()
    }

    /// The requests recorded since `mark`.
    pub fn requests_since(&self, mark: usize) -> Vec<FixtureRequest> {
        self.wm.site.requests().into_iter().skip(mark).collect()
    }

    /// Records a failed check (see [`Self::finish`]).
    pub fn fail(&self, what: String) {
        eprintln!("FAILED CHECK: {what}");
        self.failures.borrow_mut().push(what);
    }

    /// Checks that no secret left for a host outside its homes since `mark`.
    pub fn check_no_leak(&self, mark: usize, homes: &[(&str, &[&str])], case: &str) {
        let leaks = self.canaries.leaks(&self.requests_since(mark), homes);
        if !leaks.is_empty() {
            self.fail(format!("{case}: secrets left: {leaks:#?}"));
        }
    }

    /// Prints the case table and fails the test with every failed check.
    pub fn finish(self, title: &str) {
        self.llm.assert_no_script_panics().expect("script");
        self.report.print(title);
        let failures = self.failures.borrow();
        assert!(
            failures.is_empty(),
            "{} failed checks:\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }

    /// The requests since `mark` that are not plain page loads (`GET` of an `.html`/`.js`
    /// page or the favicon), i.e. what a page's script or a form sent.
    pub fn sent_since(&self, mark: usize) -> Vec<FixtureRequest> {
        self.requests_since(mark)
            .into_iter()
            .filter(|r| {
                !(r.method == "GET"
                    && (r.path.ends_with(".html")
                        || r.path.ends_with(".js")
                        || r.path == "/favicon.ico"))
            })
            .collect()
    }
}
