//! Launching Debian Chromium under CDP-over-pipe, and page / worker handles on top of it.
//!
//! Why: end-to-end tests need a real browser with the real unpacked extension, a private profile,
//! environment variables inherited by the native host, and direct access to every target — tabs,
//! extension pages, and the extension's service worker. See the crate docs for why this is raw CDP.
//!
//! Stopping an extension service worker (fault tests): [`Browser::stop_service_worker`], which
//! sends `Target.closeTarget` for the worker's target — Chromium 156 stops the worker (the target
//! leaves `Target.getTargets`), and the next event for the extension (e.g.
//! `chrome.runtime.sendMessage` from an extension page) starts it again under a new target id.
//! `ServiceWorker.stopAllWorkers` also works, but only in a *page* session (any tab, even
//! `about:blank`); the worker's own session and the browser session lack the `ServiceWorker` domain.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use base64::Engine;
use command_fds::{CommandFdExt, FdMapping};
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::Pid;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::cdp::{Cdp, CdpEvent, DEFAULT_CALL_TIMEOUT, ErrorContext};

/// Default browser binary; override with the `WAYMARK_CHROMIUM` environment variable.
pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

/// Pause between two polls of a condition: short enough to add little latency, long enough not to
/// load a 2-core machine.
pub const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// Bound on an extension service worker getting its `chrome.*` bindings after it is listed.
const EXTENSION_WORKER_READY: Duration = Duration::from_secs(20);

/// Lines of the browser log quoted in error messages.
const LOG_TAIL_LINES: usize = 40;

/// How to start the browser.
///
/// Why: each test picks its extension, profile and the environment the native host will inherit.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// Unpacked extension to load (`--load-extension` + `--disable-extensions-except`), if any.
    pub extension_dir: Option<PathBuf>,
    /// Profile directory (`--user-data-dir`); created if missing. Use a fresh
    /// [`crate::paths::TempProfile`] per test.
    pub user_data_dir: PathBuf,
    /// Extra environment variables for the browser process; the native host it spawns inherits
    /// them (e.g. the LLM base URL and a config path).
    pub env: Vec<(String, String)>,
    /// `--headless=new` when true (the default). A headed browser needs a `DISPLAY`.
    pub headless: bool,
    /// Further command-line switches, appended last.
    pub extra_args: Vec<String>,
}

impl LaunchOptions {
    /// Headless, no extension, no extra environment, profile at `user_data_dir`.
    pub fn new(user_data_dir: impl Into<PathBuf>) -> LaunchOptions {
        LaunchOptions {
            extension_dir: None,
            user_data_dir: user_data_dir.into(),
            env: Vec::new(),
            headless: true,
            extra_args: Vec::new(),
        }
    }

    /// Loads the unpacked extension in `dir`.
    pub fn extension(mut self, dir: impl Into<PathBuf>) -> Self {
        self.extension_dir = Some(dir.into());
        self
    }

    /// Sets one environment variable on the browser (and so on the native host).
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Appends a command-line switch.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.extra_args.push(arg.into());
        self
    }
}

/// A target as `Target.getTargets` reports it.
///
/// Why: tests find tabs, extension pages and the extension's service worker by type and URL.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// Target id, for [`Browser::attach`].
    pub target_id: String,
    /// `page`, `service_worker`, `background_page`, `iframe`, `worker`, `browser`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// Current URL.
    pub url: String,
    /// Current title.
    #[serde(default)]
    pub title: String,
    /// Whether some client is attached.
    #[serde(default)]
    pub attached: bool,
}

impl TargetInfo {
    /// The extension id when the URL is `chrome-extension://ID/…`.
    pub fn extension_id(&self) -> Option<&str> {
        self.url
            .strip_prefix("chrome-extension://")
            .and_then(|rest| rest.split('/').next())
            .filter(|id| !id.is_empty())
    }

    /// Whether this is an extension's service worker.
    pub fn is_extension_worker(&self) -> bool {
        self.kind == "service_worker" && self.extension_id().is_some()
    }
}

/// A running Chromium; killed (with its whole process group) and reaped on drop.
///
/// Why: owning the process makes cleanup certain even when a test panics.
pub struct Browser {
    child: Child,
    cdp: Cdp,
    log_path: PathBuf,
    user_data_dir: PathBuf,
}

/// The last `lines` lines of the browser log at `path` (empty if unreadable), leaving out the
/// D-Bus complaints every container run produces, which would hide the useful lines.
pub fn log_tail(path: &Path, lines: usize) -> String {
    let Ok(mut f) = File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(64 * 1024);
    let mut buf = Vec::new();
    if f.seek(SeekFrom::Start(start)).is_err() || f.read_to_end(&mut buf).is_err() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&buf);
    let all: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains(":ERROR:dbus/") && !l.contains(": unexpected operator"))
        .collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

impl Browser {
    /// Starts the browser and waits until CDP answers (`Browser.getVersion`).
    pub fn launch(options: LaunchOptions) -> Result<Browser> {
        let binary =
            std::env::var("WAYMARK_CHROMIUM").unwrap_or_else(|_| DEFAULT_CHROMIUM.to_owned());
        std::fs::create_dir_all(&options.user_data_dir)
            .with_context(|| format!("create profile {}", options.user_data_dir.display()))?;
        let log_path = options.user_data_dir.join("chromium.log");
        let log = File::create(&log_path)
            .with_context(|| format!("create browser log {}", log_path.display()))?;

        let mut args: Vec<String> = Vec::new();
        if options.headless {
            args.push("--headless=new".into());
        }
        args.extend(
            [
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-background-timer-throttling",
                "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows",
                "--password-store=basic",
                "--window-size=1280,900",
                "--remote-debugging-pipe",
            ]
            .map(String::from),
        );
        args.push(format!("--user-data-dir={}", options.user_data_dir.display()));
        if let Some(ext) = &options.extension_dir {
            let ext =
                ext.canonicalize().with_context(|| format!("extension dir {}", ext.display()))?;
            args.push(format!("--load-extension={}", ext.display()));
            args.push(format!("--disable-extensions-except={}", ext.display()));
        }
        args.extend(options.extra_args.iter().cloned());
        args.push("about:blank".into());

        // Pipe 1: we write commands, the browser reads them on fd 3.
        // Pipe 2: the browser writes replies/events on fd 4, we read them.
        let (cmd_read, cmd_write) = std::io::pipe().context("create CDP command pipe")?;
        let (evt_read, evt_write) = std::io::pipe().context("create CDP event pipe")?;
        let mut command = Command::new(&binary);
        command
            .args(&args)
            .envs(options.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log.try_clone().context("clone log handle")?)
            .stderr(log)
            // Own process group, so drop can kill every helper process the browser started.
            .process_group(0)
            .fd_mappings(vec![
                FdMapping { parent_fd: cmd_read.into(), child_fd: 3 },
                FdMapping { parent_fd: evt_write.into(), child_fd: 4 },
            ])
            .map_err(|e| anyhow!("map CDP pipes: {e}"))?;
        let child = command
            .spawn()
            .with_context(|| format!("spawn {binary} (set WAYMARK_CHROMIUM to override)"))?;
        // The command owns the child's pipe ends; dropping it closes them here so we see EOF when
        // the browser exits.
        drop(command);

        let tail_path = log_path.clone();
        let context: ErrorContext = Arc::new(move || {
            format!(
                "--- tail of {} ---\n{}",
                tail_path.display(),
                log_tail(&tail_path, LOG_TAIL_LINES)
            )
        });
        let cdp = Cdp::new(evt_read, cmd_write, Some(context))?;
        let browser =
            Browser { child, cdp, log_path, user_data_dir: options.user_data_dir.clone() };
        browser
            .cdp
            .call("Browser.getVersion", json!({}))
            .with_context(|| format!("browser {binary} did not start"))?;
        Ok(browser)
    }

    /// The CDP connection, for commands this API does not wrap.
    pub fn cdp(&self) -> &Cdp {
        &self.cdp
    }

    /// Browser-level CDP command (no session).
    pub fn call(&self, method: &str, params: Value) -> Result<Value> {
        self.cdp.call(method, params)
    }

    /// The profile directory.
    pub fn user_data_dir(&self) -> &Path {
        &self.user_data_dir
    }

    /// The file receiving the browser's stdout and stderr.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// The last `lines` lines of the browser log, for failure messages.
    pub fn log_tail(&self, lines: usize) -> String {
        log_tail(&self.log_path, lines)
    }

    /// The browser's process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// All targets: tabs, extension pages, service workers, …
    pub fn targets(&self) -> Result<Vec<TargetInfo>> {
        let res = self.cdp.call("Target.getTargets", json!({}))?;
        serde_json::from_value(res.get("targetInfos").cloned().unwrap_or(Value::Null))
            .context("parse Target.getTargets")
    }

    /// Polls the target list until one matches `pred`; the error lists the targets seen.
    pub fn wait_for_target(
        &self,
        pred: impl Fn(&TargetInfo) -> bool,
        timeout: Duration,
    ) -> Result<TargetInfo> {
        let deadline = Instant::now() + timeout;
        loop {
            let targets = self.targets()?;
            if let Some(t) = targets.iter().find(|t| pred(t)) {
                return Ok(t.clone());
            }
            if Instant::now() >= deadline {
                let seen: Vec<String> =
                    targets.iter().map(|t| format!("{} {}", t.kind, t.url)).collect();
                bail!("no matching target within {timeout:?}; targets: [{}]", seen.join(", "));
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }

    /// Process ids of this browser's extension renderers (processes started with
    /// `--extension-process` below the browser), from `/proc`.
    ///
    /// Why: a benchmark that measures an extension's cold start must know that the renderer
    /// its last page lived in has exited, and no CDP event reports a renderer's exit.
    pub fn extension_renderers(&self) -> Vec<u32> {
        let parent_of = |pid: u32| -> Option<u32> {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
        };
        let below_browser = |mut pid: u32| {
            while let Some(parent) = parent_of(pid) {
                if parent == self.pid() {
                    return true;
                }
                if parent <= 1 {
                    return false;
                }
                pid = parent;
            }
            false
        };
        let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
        entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                // Chromium rewrites its child processes' titles: the arguments may be one
                // space-separated string rather than NUL-separated ones.
                std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmd| {
                    cmd.split(|b| *b == 0 || *b == b' ').any(|arg| arg == b"--extension-process")
                })
            })
            .filter(|pid| below_browser(*pid))
            .collect()
    }

    /// Waits until this browser runs no extension renderer ([`Browser::extension_renderers`]).
    pub fn wait_for_no_extension_renderer(&self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = self.extension_renderers();
            if left.is_empty() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!("extension renderers {left:?} still running after {timeout:?}");
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }

    /// Waits for an extension's service worker target (the first, when several are loaded).
    pub fn wait_for_extension_worker(&self, timeout: Duration) -> Result<TargetInfo> {
        self.wait_for_target(TargetInfo::is_extension_worker, timeout).with_context(|| {
            format!(
                "waiting for the extension service worker (does the extension load?)\n\
                     --- tail of {} ---\n{}",
                self.log_path.display(),
                self.log_tail(LOG_TAIL_LINES)
            )
        })
    }

    /// Attaches to any target (flattened session) and returns a handle to it. Enables `Runtime`
    /// (console capture) and, for pages, `Page` (load events). For an extension's service worker
    /// it also waits until `chrome.runtime.id` is defined there, so the first `eval` sees the
    /// extension APIs. Note that Chromium does not stop a worker for idleness while a debugger
    /// session is attached to it ([`Page::detach`] if a test needs idle termination), and that
    /// after a worker restart one should find and attach to its target again.
    pub fn attach(&self, target_id: &str) -> Result<Page> {
        let info = self.cdp.call("Target.getTargetInfo", json!({"targetId": target_id}))?;
        let kind =
            info.pointer("/targetInfo/type").and_then(Value::as_str).unwrap_or_default().to_owned();
        let res = self
            .cdp
            .call("Target.attachToTarget", json!({"targetId": target_id, "flatten": true}))?;
        let session_id = res
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("Target.attachToTarget returned no sessionId: {res}"))?
            .to_owned();
        let page =
            Page { cdp: self.cdp.clone(), target_id: target_id.to_owned(), session_id, kind };
        page.call("Runtime.enable", json!({}))?;
        if page.is_page() {
            page.call("Page.enable", json!({}))?;
        }
        let url = info.pointer("/targetInfo/url").and_then(Value::as_str).unwrap_or_default();
        if page.kind == "service_worker" && url.starts_with("chrome-extension://") {
            // A worker target is listed while its script is still starting: until the extension
            // bindings are installed, `chrome` is undefined there. Wait for them (a failure bound).
            page.wait_for("globalThis.chrome?.runtime?.id", EXTENSION_WORKER_READY)
                .with_context(|| format!("extension service worker {url} never became ready"))?;
        }
        Ok(page)
    }

    /// Opens a new tab, attaches to it and navigates to `url` (waiting for its load event).
    pub fn new_page(&self, url: &str) -> Result<Page> {
        let res = self.cdp.call("Target.createTarget", json!({"url": "about:blank"}))?;
        let target_id = res
            .get("targetId")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("Target.createTarget returned no targetId: {res}"))?;
        let page = self.attach(target_id)?;
        if url != "about:blank" {
            page.navigate(url)?;
        }
        Ok(page)
    }

    /// Closes a target (tab or extension page).
    pub fn close_target(&self, target_id: &str) -> Result<()> {
        self.cdp.call("Target.closeTarget", json!({"targetId": target_id}))?;
        Ok(())
    }

    /// Stops the service worker running as `worker` (a `service_worker` target) and waits until
    /// its target is gone. The next event for it (e.g. a `chrome.runtime.sendMessage` from an
    /// extension page) starts it again, usually under a new target id: find it again with
    /// [`Browser::wait_for_extension_worker`] and attach anew.
    ///
    /// Uses `Target.closeTarget` on the worker target, which Chromium 156 honours for service
    /// workers; if that is refused, falls back to `ServiceWorker.stopAllWorkers` sent in a
    /// temporary `about:blank` tab's session (the `ServiceWorker` domain exists only on page
    /// sessions, not on the worker's own session nor at browser level).
    pub fn stop_service_worker(&self, worker: &TargetInfo, timeout: Duration) -> Result<()> {
        if let Err(close_err) = self.close_target(&worker.target_id) {
            let tab = self.new_page("about:blank")?;
            let stopped = tab
                .call("ServiceWorker.enable", json!({}))
                .and_then(|_| tab.call("ServiceWorker.stopAllWorkers", json!({})));
            #[allow(
                clippy::let_underscore_must_use,
                reason = "cleanup of a helper tab; the error that matters is reported below"
            )]
            let _ = self.close_target(tab.target_id());
            stopped.with_context(|| {
                format!("stopping {}: closeTarget failed ({close_err:#}), and", worker.url)
            })?;
        }
        let deadline = Instant::now() + timeout;
        loop {
            if !self.targets()?.iter().any(|t| t.target_id == worker.target_id) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!("service worker {} still listed {timeout:?} after being stopped", worker.url);
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }

    /// Asks the browser to quit (`Browser.close`), waits up to `timeout` for it to exit, then
    /// kills whatever of its process group remains. Drop does the same without the polite part.
    pub fn close(mut self, timeout: Duration) -> Result<()> {
        #[allow(
            clippy::let_underscore_must_use,
            reason = "the browser may be gone already; the wait below decides"
        )]
        let _ = self.cdp.call_in(None, "Browser.close", json!({}), Duration::from_secs(5));
        let deadline = Instant::now() + timeout;
        let pid = Pid::from_raw(i32::try_from(self.child.id()).unwrap_or(i32::MAX));
        // WNOWAIT: observe the exit without reaping, so the group id stays ours for killpg.
        while Instant::now() < deadline {
            match waitid(
                Id::Pid(pid),
                WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT,
            ) {
                Ok(nix::sys::wait::WaitStatus::StillAlive) => std::thread::sleep(POLL_INTERVAL),
                _ => break,
            }
        }
        self.kill_group();
        Ok(())
    }

    #[allow(
        clippy::let_underscore_must_use,
        reason = "cleanup: what is being stopped may be gone already"
    )]
    fn kill_group(&mut self) {
        // The child is not reaped yet (at most a zombie), so its pid is still our group's id.
        if let Ok(pid) = i32::try_from(self.child.id()) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.kill_group();
        if std::thread::panicking() {
            eprintln!(
                "--- browser log tail ({}) ---\n{}",
                self.log_path.display(),
                self.log_tail(LOG_TAIL_LINES)
            );
        }
    }
}

/// A flattened CDP session on one target: a tab, an extension page or a service worker.
///
/// Why: every test interaction (evaluate, wait, navigate, screenshot) happens in a target, and
/// the same handle works for the extension's service worker.
#[derive(Clone)]
pub struct Page {
    cdp: Cdp,
    target_id: String,
    session_id: String,
    kind: String,
}

/// JavaScript truthiness of a by-value result (`undefined` arrives as null).
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

impl Page {
    /// The target id.
    pub fn target_id(&self) -> &str {
        &self.target_id
    }

    /// The flattened session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Target type, e.g. `page` or `service_worker`.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    fn is_page(&self) -> bool {
        matches!(self.kind.as_str(), "page" | "iframe" | "background_page")
    }

    /// The CDP connection.
    pub fn cdp(&self) -> &Cdp {
        &self.cdp
    }

    /// A CDP command in this target's session.
    pub fn call(&self, method: &str, params: Value) -> Result<Value> {
        self.call_timeout(method, params, DEFAULT_CALL_TIMEOUT)
    }

    /// A CDP command in this target's session with an explicit bound.
    pub fn call_timeout(&self, method: &str, params: Value, timeout: Duration) -> Result<Value> {
        self.cdp.call_in(Some(&self.session_id), method, params, timeout)
    }

    /// Evaluates `js` (an expression; promises are awaited) and returns its value by JSON value
    /// (`undefined` → null). A thrown exception becomes an error with its text and stack.
    pub fn eval(&self, js: &str) -> Result<Value> {
        self.eval_timeout(js, DEFAULT_CALL_TIMEOUT)
    }

    /// [`Page::eval`] with an explicit bound.
    pub fn eval_timeout(&self, js: &str, timeout: Duration) -> Result<Value> {
        let res = self.call_timeout(
            "Runtime.evaluate",
            json!({
                "expression": js,
                "awaitPromise": true,
                "returnByValue": true,
                // Lets evaluated code call APIs gated on a user gesture (e.g. sidePanel.open).
                "userGesture": true,
            }),
            timeout,
        )?;
        if let Some(details) = res.get("exceptionDetails") {
            let text = details
                .pointer("/exception/description")
                .and_then(Value::as_str)
                .or_else(|| details.pointer("/exception/value").and_then(Value::as_str))
                .or_else(|| details.get("text").and_then(Value::as_str))
                .unwrap_or("unknown exception");
            bail!(
                "JS exception in {} target: {text}\n  while evaluating: {}",
                self.kind,
                abbreviate(js, 300)
            );
        }
        let result = res.get("result").cloned().unwrap_or(Value::Null);
        if let Some(v) = result.get("value") {
            return Ok(v.clone());
        }
        if let Some(u) = result.get("unserializableValue") {
            return Ok(u.clone());
        }
        Ok(Value::Null)
    }

    /// Polls `js_condition` every 50 ms until it is truthy and returns that value. Errors while
    /// polling (e.g. during a navigation) are retried; on timeout the error quotes the condition,
    /// the last value or error, and the target's recent console output.
    pub fn wait_for(&self, js_condition: &str, timeout: Duration) -> Result<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            let last = self.eval_timeout(js_condition, remaining.max(Duration::from_secs(1)));
            match &last {
                Ok(v) if truthy(v) => return Ok(v.clone()),
                _ if Instant::now() >= deadline => {
                    let last = match last {
                        Ok(v) => format!("last value: {v}"),
                        Err(e) => format!("last error: {e:#}"),
                    };
                    bail!(
                        "timed out after {timeout:?} waiting for `{}`; {last}\n--- recent console of {} target ---\n{}",
                        abbreviate(js_condition, 300),
                        self.kind,
                        self.console_messages()
                            .iter()
                            .rev()
                            .take(20)
                            .rev()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                }
                _ => std::thread::sleep(POLL_INTERVAL),
            }
        }
    }

    /// Navigates to `url` and waits for its load event (same-document navigations return at once).
    pub fn navigate(&self, url: &str) -> Result<()> {
        self.navigate_timeout(url, DEFAULT_CALL_TIMEOUT)
    }

    /// [`Page::navigate`] with an explicit bound.
    pub fn navigate_timeout(&self, url: &str, timeout: Duration) -> Result<()> {
        let sid = self.session_id.clone();
        let is_load = move |e: &CdpEvent| {
            e.method == "Page.loadEventFired" && e.session_id.as_deref() == Some(&sid)
        };
        self.cdp.drain_events(&is_load);
        let res = self.call_timeout("Page.navigate", json!({"url": url}), timeout)?;
        if let Some(err) = res.get("errorText").and_then(Value::as_str) {
            bail!("navigation to {url} failed: {err}");
        }
        if res.get("loaderId").is_none() {
            return Ok(());
        }
        self.cdp
            .wait_event(timeout, is_load)
            .with_context(|| format!("waiting for the load event of {url}"))?;
        Ok(())
    }

    /// Current URL of the document (`location.href`).
    pub fn url(&self) -> Result<String> {
        Ok(self.eval("location.href")?.as_str().unwrap_or_default().to_owned())
    }

    /// Captures the viewport as a PNG file at `path` (parent directories are created).
    pub fn screenshot(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let res = self.call("Page.captureScreenshot", json!({"format": "png"}))?;
        let data = res
            .get("data")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("Page.captureScreenshot returned no data"))?;
        let png =
            base64::engine::general_purpose::STANDARD.decode(data).context("decode screenshot")?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("create {}", parent.display()))?;
        }
        std::fs::write(path, png).with_context(|| format!("write {}", path.display()))?;
        Ok(())
    }

    /// Clicks the centre of the first element matching the CSS `selector` with real (trusted)
    /// mouse events (`Input.dispatchMouseEvent`), after scrolling it into view. Use it where the
    /// page must see a genuine user click rather than `el.click()`.
    pub fn click(&self, selector: &str) -> Result<()> {
        let sel = serde_json::to_string(selector)?;
        let point = self.eval(&format!(
            "(() => {{ const el = document.querySelector({sel}); if (!el) return null; \
             el.scrollIntoView({{block: 'center', inline: 'center'}}); \
             const r = el.getBoundingClientRect(); \
             return {{x: r.left + r.width / 2, y: r.top + r.height / 2}}; }})()"
        ))?;
        let (Some(x), Some(y)) = (point["x"].as_f64(), point["y"].as_f64()) else {
            bail!("click: no element matches {selector:?}");
        };
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1}),
            )?;
        }
        Ok(())
    }

    /// Focuses the first element matching `selector` (error if none).
    pub fn focus(&self, selector: &str) -> Result<()> {
        let sel = serde_json::to_string(selector)?;
        let found = self.eval(&format!(
            "(() => {{ const el = document.querySelector({sel}); if (!el) return false; \
             el.focus(); return true; }})()"
        ))?;
        if found != Value::Bool(true) {
            bail!("focus: no element matches {selector:?}");
        }
        Ok(())
    }

    /// Types `text` into the focused element as the browser's input pipeline would for an IME
    /// commit (`Input.insertText`: trusted `beforeinput`/`input` events, no key events).
    pub fn insert_text(&self, text: &str) -> Result<()> {
        self.call("Input.insertText", json!({"text": text}))?;
        Ok(())
    }

    /// Presses and releases one named key in the focused element with trusted key events:
    /// `Enter`, `Tab`, `Backspace`, `Escape`, `ArrowUp`, `ArrowDown`, `ArrowLeft`, `ArrowRight`,
    /// or a single printable character.
    pub fn press_key(&self, key: &str) -> Result<()> {
        let (code, vk, text): (String, i64, Option<&str>) = match key {
            "Enter" => ("Enter".into(), 13, Some("\r")),
            "Tab" => ("Tab".into(), 9, None),
            "Backspace" => ("Backspace".into(), 8, None),
            "Escape" => ("Escape".into(), 27, None),
            "ArrowLeft" => ("ArrowLeft".into(), 37, None),
            "ArrowUp" => ("ArrowUp".into(), 38, None),
            "ArrowRight" => ("ArrowRight".into(), 39, None),
            "ArrowDown" => ("ArrowDown".into(), 40, None),
            k if k.chars().count() == 1 => {
                let c = k.chars().next().unwrap_or(' ');
                let upper = c.to_ascii_uppercase();
                let code = if c.is_ascii_alphabetic() {
                    format!("Key{upper}")
                } else if c.is_ascii_digit() {
                    format!("Digit{c}")
                } else {
                    String::new()
                };
                (code, i64::from(u32::from(upper)), Some(k))
            }
            other => bail!("press_key: unsupported key {other:?}"),
        };
        let mut down = json!({"type": if text.is_some() { "keyDown" } else { "rawKeyDown" },
            "key": key, "code": code, "windowsVirtualKeyCode": vk});
        if let Some(t) = text {
            down["text"] = json!(t);
        }
        self.call("Input.dispatchKeyEvent", down)?;
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}),
        )?;
        Ok(())
    }

    /// Console output and uncaught exceptions of this target since attach, one line each
    /// (`[log] text`, `[error] text`, `[exception] text`). Handy in failure messages.
    pub fn console_messages(&self) -> Vec<String> {
        let sid = self.session_id.clone();
        self.cdp
            .events(|e| {
                e.session_id.as_deref() == Some(&sid)
                    && (e.method == "Runtime.consoleAPICalled"
                        || e.method == "Runtime.exceptionThrown")
            })
            .iter()
            .map(format_console_event)
            .collect()
    }

    /// Detaches this session (the target keeps running).
    pub fn detach(&self) -> Result<()> {
        self.cdp.call("Target.detachFromTarget", json!({"sessionId": self.session_id}))?;
        Ok(())
    }
}

fn format_console_event(e: &CdpEvent) -> String {
    if e.method == "Runtime.exceptionThrown" {
        let d = &e.params["exceptionDetails"];
        let text = d
            .pointer("/exception/description")
            .and_then(Value::as_str)
            .or_else(|| d.get("text").and_then(Value::as_str))
            .unwrap_or("?");
        return format!("[exception] {text}");
    }
    let kind = e.params["type"].as_str().unwrap_or("log");
    let args: Vec<String> = e.params["args"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|arg| match arg.get("value") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => arg
                        .get("description")
                        .and_then(Value::as_str)
                        .or_else(|| arg.get("type").and_then(Value::as_str))
                        .unwrap_or("?")
                        .to_owned(),
                })
                .collect()
        })
        .unwrap_or_default();
    format!("[{kind}] {}", args.join(" "))
}

fn abbreviate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthiness_matches_js() {
        for (v, t) in [
            (json!(null), false),
            (json!(false), false),
            (json!(0), false),
            (json!(""), false),
            (json!(1), true),
            (json!("x"), true),
            (json!([]), true),
            (json!({}), true),
        ] {
            assert_eq!(truthy(&v), t, "{v}");
        }
    }

    #[test]
    fn extension_id_from_url() {
        let t = TargetInfo {
            target_id: "T".into(),
            kind: "service_worker".into(),
            url: "chrome-extension://abcdef/sw.js".into(),
            title: String::new(),
            attached: false,
        };
        assert_eq!(t.extension_id(), Some("abcdef"));
        assert!(t.is_extension_worker());
    }
}
