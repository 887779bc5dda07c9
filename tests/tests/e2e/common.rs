//! Shared set-up for Waymark's end-to-end tests: the built extension and host, a fresh profile
//! with the host registered, the fixture site, the scripted LLM, and handles on the side panel.

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use waymark_tests::chromium::{Browser, LaunchOptions, Page};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths::{self, TempProfile};

/// The extension's fixed ID (from the manifest key).
pub const EXTENSION_ID: &str = waymark_protocol::EXTENSION_ID;

/// Failure bound for anything the agent does in a test (never a timing assertion).
pub const TASK_TIMEOUT: Duration = Duration::from_secs(60);

/// The debug host binary `cargo xtask build` produces.
pub fn host_binary() -> PathBuf {
    paths::host_binary()
}

/// Everything one end-to-end test needs; dropped in reverse order of creation.
pub struct Waymark {
    /// The browser (dropped first).
    pub browser: Browser,
    /// The fixture site.
    pub site: FixtureServer,
    /// Where the host writes exports.
    pub export_dir: PathBuf,
    /// Host config dir (empty: all configuration comes from the environment).
    pub work: tempfile::TempDir,
    /// The browser profile.
    pub profile: TempProfile,
}

/// How to set a test up.
pub struct Setup<'a> {
    /// The scripted LLM the host talks to.
    pub llm: &'a ScriptedLlm,
    /// Register the native host in the profile (false = "host missing").
    pub install_host: bool,
    /// Fixture site with per-path headers already set.
    pub site: FixtureServer,
}

impl Waymark {
    /// The extension's service worker, attached for evaluation once it runs (a worker that
    /// Chrome stopped is started by the wait).
    pub fn attach_worker(&self) -> Result<Page> {
        let worker = self.browser.wait_for_extension_worker(TASK_TIMEOUT)?;
        self.browser.attach(&worker.target_id)
    }

    /// Launches Chromium with the extension and, if asked, the host registered for its profile.
    pub fn launch(extension: &Path, setup: Setup<'_>) -> Result<Self> {
        Self::launch_with_env(extension, setup, &[])
    }

    /// [`Self::launch`] with `extra` variables for the browser (and so its host) set after the
    /// test's own (a later one wins; an empty value reads as unset to the host).
    pub fn launch_with_env(
        extension: &Path,
        setup: Setup<'_>,
        extra: &[(&str, String)],
    ) -> Result<Self> {
        let profile = TempProfile::new()?;
        let work = tempfile::tempdir().context("temp dir")?;
        let export_dir = work.path().join("exports");
        let config_dir = work.path().join("config");
        std::fs::create_dir_all(&config_dir)?;
        if setup.install_host {
            let status = Command::new(host_binary())
                .args(["install", "--in-place", "--browser", "chromium", "--user-data-dir"])
                .arg(profile.path())
                .env("WAYMARK_CONFIG_DIR", &config_dir)
                .status()
                .context("running waymark-host install")?;
            if !status.success() {
                bail!("waymark-host install failed: {status}");
            }
        }
        let browser = launch_browser(extension, profile.path(), work.path(), setup.llm, extra)?;
        Ok(Self { browser, site: setup.site, export_dir, work, profile })
    }

    /// Quits the browser and starts it again on the same profile (what a user's browser restart
    /// does): extension storage survives, the in-memory service worker does not.
    pub fn restart(self, extension: &Path, llm: &ScriptedLlm) -> Result<Self> {
        let Self { browser, site, export_dir, work, profile } = self;
        browser.close(TASK_TIMEOUT)?;
        let browser = launch_browser(extension, profile.path(), work.path(), llm, &[])?;
        Ok(Self { browser, site, export_dir, work, profile })
    }

    /// Opens a fixture page in a new tab.
    pub fn open(&self, path: &str) -> Result<Page> {
        self.browser.new_page(&self.site.url(path))
    }

    /// Opens the side panel page (as a tab, which headless Chromium allows).
    pub fn panel(&self) -> Result<Panel> {
        let page =
            self.browser.new_page(&format!("chrome-extension://{EXTENSION_ID}/sidepanel.html"))?;
        page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT)?;
        Ok(Panel { page })
    }
}

/// Chromium with the extension on `profile`, the host configured through the environment.
fn launch_browser(
    extension: &Path,
    profile: &Path,
    work: &Path,
    llm: &ScriptedLlm,
    extra: &[(&str, String)],
) -> Result<Browser> {
    let mut options = LaunchOptions::new(profile)
        .extension(extension)
        .env("WAYMARK_LLM_BASE_URL", llm.base_url())
        .env("WAYMARK_LLM_MODEL", "scripted-model")
        .env("WAYMARK_LLM_API_KEY", "test-key")
        .env("WAYMARK_LLM_RETRY_BASE_MS", "50")
        .env("WAYMARK_CONFIG_DIR", work.join("config").display().to_string())
        .env("WAYMARK_DATA_DIR", work.join("data").display().to_string())
        .env("WAYMARK_EXPORT_DIR", work.join("exports").display().to_string())
        // The bridge's sockets: per test, never the user's own runtime directory.
        .env("WAYMARK_RUNTIME_DIR", work.join("runtime").display().to_string())
        .env("WAYMARK_LOG", "debug");
    for (name, value) in extra {
        options = options.env(*name, value.clone());
    }
    let browser = Browser::launch(options)?;
    browser.wait_for_extension_worker(TASK_TIMEOUT)?;
    Ok(browser)
}

/// The navigator's requests (they offer tools), without the background summary calls.
pub fn navigator_requests(llm: &ScriptedLlm) -> Vec<RecordedRequest> {
    llm.requests().into_iter().filter(|r| role_of(r) == "navigator").collect()
}

/// Whether a request is a background summary call (the session's summariser, told apart by its
/// system prompt: navigator calls in JSON-text mode offer no tools either).
pub fn is_summary_call(req: &RecordedRequest) -> bool {
    message_text(&req.body, 0).starts_with("You summarise one finished task")
}

/// The side panel, driven like a user would.
pub struct Panel {
    /// Its page.
    pub page: Page,
}

impl Panel {
    /// Types a task and presses Enter.
    pub fn send(&self, task: &str) -> Result<()> {
        let js = format!(
            "(() => {{ const p = document.getElementById('prompt'); p.value = {task}; \
             p.dispatchEvent(new KeyboardEvent('keydown', {{ key: 'Enter', bubbles: true }})); \
             return true; }})()",
            task = serde_json::to_string(task)?
        );
        self.page.eval(&js)?;
        Ok(())
    }

    /// Waits until the task's answer is shown and returns it.
    pub fn answer(&self) -> Result<String> {
        let v = self.page.wait_for(
            "(() => { const a = document.getElementById('answer'); \
             return a && !a.hidden && a.textContent; })()",
            TASK_TIMEOUT,
        )?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// Waits for a confirmation card, clicks Approve as the user would, waits until the card
    /// is gone and returns its message.
    pub fn approve_card(&self) -> Result<String> {
        let message = self.page.wait_for(
            "(() => { const c = document.getElementById('intervention'); \
             return !c.hidden && c.dataset.kind === 'confirm' && \
               document.getElementById('intervention-message').textContent; })()",
            TASK_TIMEOUT,
        )?;
        let message = message.as_str().unwrap_or_default().to_owned();
        self.page.eval("document.getElementById('intervention-approve').click()")?;
        let gone = format!(
            "(() => {{ const c = document.getElementById('intervention'); return c.hidden || \
             document.getElementById('intervention-message').textContent !== {}; }})()",
            serde_json::to_string(&message)?
        );
        self.page.wait_for(&gone, TASK_TIMEOUT)?;
        Ok(message)
    }

    /// The text of an element by id.
    pub fn text(&self, id: &str) -> Result<String> {
        let v = self.page.eval(&format!("document.getElementById('{id}').textContent"))?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// The steps shown in the timeline.
    pub fn steps(&self) -> Result<Vec<String>> {
        let v = self
            .page
            .eval("[...document.querySelectorAll('#steps li')].map((li) => li.textContent)")?;
        Ok(serde_json::from_value::<Vec<String>>(v).unwrap_or_default())
    }

    /// Waits until an element's text satisfies a JS predicate on `t`, returns the text.
    pub fn wait_text(&self, id: &str, predicate: &str) -> Result<String> {
        let js = format!(
            "(() => {{ const t = document.getElementById('{id}')?.textContent || ''; \
             return ({predicate}) ? t : false; }})()"
        );
        let v = self.page.wait_for(&js, TASK_TIMEOUT)?;
        Ok(v.as_str().unwrap_or_default().to_owned())
    }

    /// Waits until `js` evaluates to a truthy value in the panel, returns it (panics on the
    /// timeout, naming `js`).
    pub fn wait_js(&self, js: &str) -> Value {
        self.page.wait_for(js, TASK_TIMEOUT).unwrap_or_else(|e| panic!("waiting for {js}: {e:#}"))
    }

    /// Clicks the element `selector` picks once it is there and not hidden.
    pub fn click(&self, selector: &str) {
        let js = format!(
            "(() => {{ const b = document.querySelector({}); if (!b || b.hidden) return false; b.click(); return true; }})()",
            serde_json::to_string(selector).unwrap_or_default()
        );
        self.wait_js(&js);
    }

    /// The panel as shown at the side panel's width (400 px), light and dark: a screenshot
    /// each in `target/screenshots/panel/{name}-{theme}.png`, then axe-core (WCAG 2 A and AA)
    /// with no serious or critical violation. `scroll_to`: an element id to bring into view.
    pub fn shoot_accessible(&self, name: &str, scroll_to: Option<&str>) {
        let dir = paths::target_dir().join("screenshots").join("panel");
        std::fs::create_dir_all(&dir).expect("screenshot dir");
        if self.page.eval("typeof globalThis.axe === 'object'").ok() != Some(json!(true)) {
            let script = std::fs::read_to_string(paths::axe_script())
                .unwrap_or_else(|e| panic!("axe-core is missing ({e}); run `cargo xtask setup`"));
            self.page.eval(&format!("{script}\n;true")).expect("axe loads");
        }
        // A tab in the background is never painted: the panel comes to the front first.
        self.page.call("Page.bringToFront", json!({})).expect("panel to the front");
        for theme in ["light", "dark"] {
            let metrics =
                json!({"width": 400, "height": 860, "deviceScaleFactor": 1, "mobile": false});
            self.page.call("Emulation.setDeviceMetricsOverride", metrics).expect("viewport");
            let media = json!({"features": [{"name": "prefers-color-scheme", "value": theme}]});
            self.page.call("Emulation.setEmulatedMedia", media).expect("theme");
            if let Some(id) = scroll_to {
                let js = format!("document.getElementById('{id}').scrollIntoView(); true");
                self.page.eval(&js).expect("scroll");
            }
            let shot = dir.join(format!("{name}-{theme}.png"));
            self.page.screenshot(&shot).unwrap_or_else(|e| panic!("screenshot {name}: {e:#}"));
            let result = self
                .page
                .eval(
                    "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }).then((r) => \
                     r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') \
                     .map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })))",
                )
                .expect("axe runs");
            assert_eq!(
                result,
                json!([]),
                "{name} ({theme}): serious or critical accessibility violations"
            );
        }
    }

    /// Sets the value of the field `selector` picks once it is there.
    pub fn set_value(&self, selector: &str, value: &str) {
        let js = format!(
            "(() => {{ const i = document.querySelector({}); if (!i) return false; i.value = {}; return true; }})()",
            serde_json::to_string(selector).unwrap_or_default(),
            serde_json::to_string(value).unwrap_or_default()
        );
        self.wait_js(&js);
    }
}

/// The ref number of the element on the line `[N] {role} "{name}"` (or `[N] {role} {name}`:
/// names are quoted only when something follows them) of an observation.
pub fn find_ref(observation: &str, role: &str, name: &str) -> Option<u32> {
    // Names are quoted when states or a value follow them, bare otherwise.
    let quoted = format!("] {role} \"{name}\"");
    let bare = format!("] {role} {name}");
    observation.lines().find(|l| l.contains(&quoted) || l.ends_with(&bare)).and_then(|line| {
        let start = line.find('[')? + 1;
        let end = line[start..].find(']')? + start;
        line[start..end].parse().ok()
    })
}

/// The navigator a user would hope for on the form fixture (`site/form.html`): types "Ada" into
/// Name and clicks Save, then answers `answer` once the page says "Saved: Ada".
pub fn fill_the_form(req: &RecordedRequest, answer: &str) -> ScriptedReply {
    let page = message_text(&req.body, 1);
    if page.contains("Saved: Ada") {
        return ScriptedReply::tool_call("done", json!({"answer": answer, "success": true}));
    }
    let (Some(name), Some(save)) =
        (find_ref(&page, "textbox", "Name"), find_ref(&page, "button", "Save"))
    else {
        return ScriptedReply::text("I cannot find the form");
    };
    ScriptedReply::tool_calls([
        ("type", json!({"ref": name, "text": "Ada"})),
        ("click", json!({"ref": save})),
    ])
}

/// The `i`-th message's content of a recorded OpenAI request.
pub fn message_text(body: &Value, i: usize) -> String {
    body.pointer(&format!("/messages/{i}/content"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Which Waymark role sent a recorded request: `summariser` (see [`is_summary_call`]), else from
/// its system prompt `planner`, `validator` or `navigator`.
pub fn role_of(req: &waymark_tests::llm_server::RecordedRequest) -> &'static str {
    let system = message_text(&req.body, 0);
    if is_summary_call(req) {
        "summariser"
    } else if system.starts_with("You are Waymark's planner") {
        "planner"
    } else if system.starts_with("You are Waymark's validator") {
        "validator"
    } else {
        "navigator"
    }
}

/// The default answers of the planner (a one-step plan, no questions), the validator
/// (confirmed) and the background summariser, or `None` for navigator requests: scripts that test the navigator start with
/// `if let Some(r) = role_reply(req) { return r; }`.
pub fn role_reply(
    req: &waymark_tests::llm_server::RecordedRequest,
) -> Option<waymark_tests::llm_server::ScriptedReply> {
    use waymark_tests::llm_server::ScriptedReply;
    match role_of(req) {
        "planner" => Some(ScriptedReply::tool_call(
            "plan",
            serde_json::json!({"questions": [], "steps": [{"phase": "working", "goal": "do the task"}]}),
        )),
        "validator" => Some(ScriptedReply::tool_call(
            "verdict",
            serde_json::json!({"confirmed": true, "reason": "the page shows it"}),
        )),
        // Not a summary the session module can parse: it falls back to its extractive one.
        "summariser" => Some(ScriptedReply::text("no summary")),
        _ => None,
    }
}

/// Holds scripted replies until the test lets them go, one per [`Gate::open`]: a test can act
/// while the model "thinks" without guessing how long that takes. Bounded by [`TASK_TIMEOUT`]
/// so a broken test cannot hang (the reply then goes out anyway and the test's assertions fail).
#[derive(Clone, Default)]
pub struct Gate(std::sync::Arc<(std::sync::Mutex<u32>, std::sync::Condvar)>);

impl Gate {
    /// Waits (in the LLM script) until a permit is available, and takes it.
    pub fn wait(&self) {
        let (permits, changed) = &*self.0;
        let guard = permits.lock().unwrap_or_else(|p| p.into_inner());
        let (mut guard, _) = changed
            .wait_timeout_while(guard, TASK_TIMEOUT, |n| *n == 0)
            .unwrap_or_else(|p| p.into_inner());
        *guard = guard.saturating_sub(1);
    }

    /// Lets one waiting (or the next) reply go.
    pub fn open(&self) {
        let (permits, changed) = &*self.0;
        *permits.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        changed.notify_all();
    }
}

/// `session` as the storage items the worker writes (its meta and each turn), marked as the
/// current session: what the benchmarks and tests seed.
pub fn session_items(session: &waymark_core::session::Session) -> serde_json::Map<String, Value> {
    use waymark_core::session::Session;
    let mut items = serde_json::Map::new();
    items.insert("current_session".into(), json!(session.id));
    items.insert(
        Session::meta_key(&session.id),
        serde_json::to_value(session.meta()).expect("meta"),
    );
    for r in &session.records {
        items
            .insert(Session::turn_key(&session.id, r.turn), serde_json::to_value(r).expect("turn"));
    }
    items
}

/// Writes `items` into the extension's storage and stops its worker, which loads the current
/// session when it starts again.
pub fn seed_storage(wm: &Waymark, items: serde_json::Map<String, Value>) {
    let worker = wm.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    let sw = wm.browser.attach(&worker.target_id).expect("attach worker");
    let items = Value::Object(items);
    sw.eval(&format!("chrome.storage.local.set({items}).then(() => true)")).expect("seed");
    #[allow(clippy::unused_result_ok, reason = "the worker is stopped next anyway")]
    sw.detach().ok();
    wm.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");
}

/// A copy of the built extension without `unlimitedStorage`, so `chrome.storage.local` has its
/// real 10 MB quota (same key, same ID).
pub fn extension_with_quota(extension: &Path, into: &Path) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read dir").flatten() {
            let target = to.join(entry.file_name());
            if entry.file_type().expect("type").is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).expect("copy");
            }
        }
    }
    let dir = into.join("extension");
    copy(extension, &dir);
    let manifest_path = dir.join("manifest.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).expect("manifest"))
            .expect("manifest json");
    let permissions = manifest["permissions"].as_array_mut().expect("permissions");
    permissions.retain(|p| p != "unlimitedStorage");
    std::fs::write(&manifest_path, manifest.to_string()).expect("write manifest");
    dir
}

/// Every process below `ancestor` whose executable is `exe`.
pub fn descendants_running(ancestor: u32, exe: &Path) -> Vec<i32> {
    let parent = |pid: i32| -> Option<i32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let rest = &stat[stat.rfind(')')? + 2..];
        rest.split_whitespace().nth(1)?.parse().ok()
    };
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).ok().as_deref() == Some(exe))
        .filter(|pid| {
            let mut p = *pid;
            for _ in 0..16 {
                match parent(p) {
                    Some(pp) if pp == ancestor as i32 => return true,
                    Some(pp) if pp > 1 => p = pp,
                    _ => return false,
                }
            }
            false
        })
        .collect()
}
