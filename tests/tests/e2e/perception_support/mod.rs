//! Shared set-up of the perception tests: the widget zoo on two origins and a handle on the
//! service worker's `waymarkPageRequest` hook (waymark-worker's `test-hooks` feature, in the
//! builds of `cargo xtask test` and `cargo xtask build --test-hooks`; the tests check the build
//! has it through the harness: their trials are `e2e!(test_hooks, …)`).
//!
//! Why the hook: it runs one request through `TabPage` — the very code the agent loop calls for
//! `observe` and `act` (frame injection, frame merge, ref routing, tab actions) — only without
//! the model. Scripting an LLM conversation per action would test the same code path at ten times
//! the Chromium time; `perception_agent.rs` covers the model → action path once, end to end.

use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};
use std::time::Duration;
use waymark_tests::chromium::{Browser, LaunchOptions, Page};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::paths::{self, TempProfile};

/// Failure bound for one request (never a timing assertion).
pub const BOUND: Duration = Duration::from_secs(60);

/// Chromium with the extension, the zoo on two origins and the service worker attached.
pub struct Zoo {
    /// The extension's service worker.
    pub sw: Page,
    /// The browser.
    pub browser: Browser,
    /// The zoo (first origin).
    pub site: FixtureServer,
    /// The zoo again on a second port: a second origin for cross-origin frames.
    pub other: FixtureServer,
    /// The profile (dropped last).
    _profile: TempProfile,
}

fn zoo_server() -> Result<FixtureServer> {
    FixtureServer::builder(paths::fixtures_dir().join("zoo"))
        .with_header("/strict.html", "Content-Security-Policy", "script-src 'self'")
        .start()
}

impl Zoo {
    /// Launches the browser with the built extension (no host: nothing here calls the model).
    pub fn launch(extension: &std::path::Path) -> Result<Self> {
        Self::launch_serving(extension, zoo_server()?)
    }

    /// Like [`Zoo::launch`] serving the library zoo's pages (its packages must be installed).
    pub fn launch_libzoo(extension: &std::path::Path) -> Self {
        waymark_tests::libzoo::require();
        let site = waymark_tests::libzoo::serve().expect("libzoo");
        Self::launch_serving(extension, site).expect("launch")
    }

    /// Opens `path` and waits until the library drew `ready` (a selector); returns the tab.
    pub fn open_drawn(&self, path: &str, ready: &str) -> i32 {
        let (page, tab) = self.open(path).expect("open");
        let drawn = format!("document.querySelector({ready:?}) !== null");
        page.wait_for(&drawn, std::time::Duration::from_secs(30))
            .expect("the library drew its widgets");
        tab
    }

    /// The observation's prompt text of `tab`.
    pub fn prompt(&self, tab: i32) -> String {
        self.observe(tab).expect("observe").0
    }

    /// Like [`Zoo::launch`] with another site as the first origin.
    pub fn launch_serving(extension: &std::path::Path, site: FixtureServer) -> Result<Self> {
        let profile = TempProfile::new()?;
        let other = zoo_server()?;
        // Saved real pages reference the whole web: fail those requests at once instead of
        // waiting for connections that never answer (tests only reach 127.0.0.1).
        let options = LaunchOptions::new(profile.path())
            .extension(extension)
            .arg("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1");
        let browser = Browser::launch(options)?;
        let worker = browser.wait_for_extension_worker(BOUND)?;
        let sw = browser.attach(&worker.target_id)?;
        sw.wait_for("typeof globalThis.waymarkPageRequest === 'function'", BOUND)?;
        Ok(Self { sw, browser, site, other, _profile: profile })
    }

    /// The second origin's port.
    pub fn other_port(&self) -> u16 {
        let url = self.other.url("/");
        url.trim_end_matches('/').rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or(0)
    }

    /// Opens `url` in a new tab; returns the page and its Chrome tab id.
    pub fn open_url(&self, url: &str) -> Result<(Page, i32)> {
        let page = self.browser.new_page(url)?;
        page.wait_for("document.readyState === 'complete'", BOUND)?;
        let js = format!(
            "chrome.tabs.query({{}}).then((tabs) => (tabs.find((t) => t.url === {url}) || {{}}).id)",
            url = serde_json::to_string(&page.url()?)?
        );
        let id = self.sw.eval(&js)?.as_i64().ok_or_else(|| anyhow!("no tab for {url}"))?;
        Ok((page, id as i32))
    }

    /// Opens a zoo page.
    pub fn open(&self, path: &str) -> Result<(Page, i32)> {
        self.open_url(&self.site.url(path))
    }

    fn request(&self, tab: i32, request: Value) -> Result<Value> {
        let js = format!("waymarkPageRequest({tab}, {request})");
        self.sw.eval_timeout(&js, BOUND).with_context(|| format!("page request {request}"))
    }

    /// Observes every frame of the tab: `(prompt text, observation JSON)`.
    pub fn observe(&self, tab: i32) -> Result<(String, Value)> {
        self.observe_budget(tab, 100_000)
    }

    /// Observes with a token budget.
    pub fn observe_budget(&self, tab: i32, budget: usize) -> Result<(String, Value)> {
        let reply = self.request(tab, json!({"op": "observe", "budget": budget}))?;
        let prompt = reply["prompt"].as_str().unwrap_or_default().to_owned();
        Ok((prompt, reply["observation"].clone()))
    }

    /// Performs an action as the agent would; returns the outcome.
    pub fn act(&self, tab: i32, action: Value) -> Result<Value> {
        Ok(self.request(tab, json!({"op": "act", "action": action}))?["outcome"].clone())
    }

    /// Performs an action; returns the outcome and the tab the agent is on afterwards.
    pub fn act_tab(&self, tab: i32, action: Value) -> Result<(Value, i32)> {
        let reply = self.request(tab, json!({"op": "act", "action": action}))?;
        Ok((reply["outcome"].clone(), reply["tab"].as_i64().unwrap_or(-1) as i32))
    }

    /// Sends a raw content request to one frame.
    pub fn content(&self, tab: i32, frame: u32, request: Value) -> Result<Value> {
        self.request(tab, json!({"op": "content", "frame": frame, "request": request}))
    }
}

/// The ref (`14` or `f2:14`) on the first line `[ref] {role} "{name}"` of an observation (or
/// `[ref] {role} {name}`: names are quoted only when something follows them).
pub fn ref_of(prompt: &str, role: &str, name: &str) -> Option<Value> {
    let (quoted, bare) = (format!("] {role} \"{name}\""), format!("] {role} {name}"));
    let line = prompt.lines().find(|l| l.contains(&quoted) || l.ends_with(&bare))?;
    let inner = &line[line.find('[')? + 1..line.find(']')?];
    Some(match inner.parse::<u64>() {
        Ok(n) => json!(n),
        Err(_) => json!(inner),
    })
}

/// The ref, or a test failure quoting the observation.
pub fn must_ref(prompt: &str, role: &str, name: &str) -> Value {
    ref_of(prompt, role, name).unwrap_or_else(|| panic!("no {role} \"{name}\" in:\n{prompt}"))
}

/// The JSON body the zoo's page last posted to `path` (what the library's state held).
pub fn posted(zoo: &Zoo, path: &str) -> Value {
    let requests = zoo
        .site
        .wait_for_requests(path, Duration::from_secs(30), |log| log.iter().any(|r| r.path == path))
        .unwrap_or_else(|e| panic!("the page posted nothing to {path}: {e}"));
    let last = requests.into_iter().rev().find(|r| r.path == path);
    let body = last.map(|r| r.body).unwrap_or_default();
    serde_json::from_str(&body).expect("json body")
}

/// Asserts an outcome succeeded.
pub fn ok(outcome: &Value) {
    assert_eq!(outcome["ok"], json!(true), "{outcome}");
}

/// Evaluates `js` in a page and returns it as a string.
pub fn text(page: &Page, js: &str) -> String {
    let v = page.eval(js).unwrap_or_else(|e| panic!("{js}: {e}"));
    v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())
}
