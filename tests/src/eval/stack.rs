//! The system under evaluation, started once per suite run: headless Chromium with the real
//! extension, the real native host registered for its profile (talking to whatever endpoint
//! the evaluation names), and a port into the service worker opened from the side panel page,
//! over which the harness sends the panel's own requests and reads every panel state.

use crate::chromium::{Browser, LaunchOptions, Page};
use crate::paths::TempProfile;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use waymark_core::agent::InterventionSettings;
use waymark_core::panel::PanelRequest;
use waymark_protocol::LlmRole;

/// Failure bound for start-up steps (never a measurement).
const BOUND: Duration = Duration::from_secs(60);

/// Which LLM endpoint the host calls.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// Whatever the user's environment and host config say (`OPENAI_API_KEY`,
    /// `WAYMARK_LLM_*`, `waymark-host config`): the evaluation of a real provider.
    Configured,
    /// An OpenAI-compatible server the harness runs (the oracle's scripted server, the local
    /// llama.cpp server), with the host's config isolated from the user's.
    Local {
        /// `http://127.0.0.1:PORT/v1`.
        base_url: String,
        /// The model name sent.
        model: String,
    },
}

/// How to start the stack.
#[derive(Debug, Clone)]
pub struct StackOptions {
    /// The unpacked extension.
    pub extension: PathBuf,
    /// The host binary.
    pub host: PathBuf,
    /// The endpoint.
    pub endpoint: Endpoint,
    /// `(role, model)` pairs: `WAYMARK_LLM_<ROLE>_MODEL` for the host.
    pub role_models: Vec<(LlmRole, String)>,
    /// Folders the host may read attached files from (the tasks' resources).
    pub allowed_dirs: Vec<PathBuf>,
}

/// The running stack; dropped in field order (browser first, profile last).
pub struct Stack {
    /// The side panel page the harness drives the worker from.
    panel: Page,
    /// The browser.
    pub browser: Browser,
    /// Host config, data and export directories.
    _work: tempfile::TempDir,
    /// The browser profile.
    _profile: TempProfile,
}

/// JavaScript run in the panel page: a port of its own to the worker (as the panel's), whose
/// latest state is kept in `window.__waymarkEval`; reconnects when Chrome restarts the worker.
const PORT_JS: &str = "(() => {
  if (window.__waymarkEval) return true;
  const s = { state: null, n: 0, port: null, queue: [] };
  const connect = () => {
    s.port = chrome.runtime.connect({ name: 'panel' });
    s.port.onMessage.addListener((m) => { s.state = m; s.n += 1; });
    s.port.onDisconnect.addListener(() => { s.port = null; setTimeout(connect, 200); });
    s.port.postMessage({ type: 'hello' });
    s.queue.splice(0).forEach((m) => s.port.postMessage(m));
  };
  s.send = (m) => (s.port ? s.port.postMessage(m) : s.queue.push(m));
  window.__waymarkEval = s;
  connect();
  return true;
})()";

impl Stack {
    /// Starts Chromium with the extension and the host, opens the panel page and its port,
    /// switches off the optional interventions (an evaluation runs unattended) and waits
    /// for the host to connect.
    pub fn launch(opts: &StackOptions) -> Result<Stack> {
        let profile = TempProfile::new()?;
        let work = tempfile::tempdir().context("temp dir")?;
        let dir = |name: &str| work.path().join(name).display().to_string();
        let mut env: Vec<(String, String)> = vec![
            ("WAYMARK_DATA_DIR".into(), dir("data")),
            ("WAYMARK_EXPORT_DIR".into(), dir("exports")),
            ("WAYMARK_TRANSCRIPTS".into(), "0".into()),
        ];
        // The host's config is a copy (the user's own for a configured endpoint: keys, roles,
        // prices), so the evaluation can allow its upload folder without touching the user's.
        let config = work.path().join("config");
        std::fs::create_dir_all(&config)?;
        if matches!(opts.endpoint, Endpoint::Configured)
            && let Some(user) =
                user_config_dir().map(|d| d.join("config.toml")).filter(|f| f.is_file())
        {
            std::fs::copy(&user, config.join("config.toml"))
                .with_context(|| format!("copying {}", user.display()))?;
        }
        env.push(("WAYMARK_CONFIG_DIR".into(), dir("config")));
        if let Endpoint::Local { base_url, model } = &opts.endpoint {
            env.extend([
                ("WAYMARK_LLM_PROVIDER".into(), "openai".into()),
                ("WAYMARK_LLM_BASE_URL".into(), base_url.clone()),
                ("WAYMARK_LLM_MODEL".into(), model.clone()),
                ("WAYMARK_LLM_API_KEY".into(), "eval-key".into()),
            ]);
        }
        for (role, model) in &opts.role_models {
            env.push((
                format!("WAYMARK_LLM_{}_MODEL", role.as_str().to_ascii_uppercase()),
                model.clone(),
            ));
        }
        if !opts.allowed_dirs.is_empty() {
            let dirs: Vec<String> =
                opts.allowed_dirs.iter().map(|d| d.display().to_string()).collect();
            host_command(
                &opts.host,
                &env,
                &["config", "set", "files.allowed_dirs", &dirs.join("\n")],
            )?;
        }
        host_command(
            &opts.host,
            &env,
            &[
                "install",
                "--browser",
                "chromium",
                "--user-data-dir",
                &profile.path().display().to_string(),
            ],
        )?;
        let mut options = LaunchOptions::new(profile.path())
            .extension(&opts.extension)
            // Pages reach only 127.0.0.1 (the evaluation's sites); the host's own calls to a
            // provider are not the browser's.
            .arg("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1");
        for (k, v) in &env {
            options = options.env(k.clone(), v.clone());
        }
        let browser = Browser::launch(options)?;
        browser.wait_for_extension_worker(BOUND)?;
        let id = waymark_protocol::EXTENSION_ID;
        let panel = browser.new_page(&format!("chrome-extension://{id}/sidepanel.html"))?;
        panel.wait_for("document.readyState === 'complete'", BOUND)?;
        panel.eval(PORT_JS)?;
        let stack = Stack { panel, browser, _work: work, _profile: profile };
        let quiet = InterventionSettings {
            questions: false,
            checkpoint: false,
            confidence: false,
            sub_goal: false,
            badge: false,
            notification: false,
            sound: false,
        };
        stack.send(&PanelRequest::SetInterventionSettings { settings: quiet })?;
        stack
            .panel
            .wait_for(
                "window.__waymarkEval.state?.host?.state === 'connected' || \
                 window.__waymarkEval.state?.host?.state === 'missing'",
                BOUND,
            )
            .context("the host never answered")?;
        if let HostView::Missing { message, fix } = stack.state()?.host {
            bail!("the native host is missing: {message} ({fix})");
        }
        Ok(stack)
    }

    /// Sends one of the side panel's requests to the worker.
    pub fn send(&self, request: &PanelRequest) -> Result<()> {
        let js = format!("window.__waymarkEval.send({})", serde_json::to_string(request)?);
        self.panel.eval(&js)?;
        Ok(())
    }

    /// The worker's latest panel state.
    pub fn state(&self) -> Result<StateView> {
        let text = self.panel.eval("JSON.stringify(window.__waymarkEval.state ?? {})")?;
        let text = text.as_str().unwrap_or("{}");
        serde_json::from_str(text).with_context(|| "reading the panel state".to_owned())
    }

    /// Starts a new, empty session and waits until the worker shows it.
    pub fn new_session(&self) -> Result<()> {
        let before = self.state()?.session.id;
        self.send(&PanelRequest::NewSession)?;
        let js = format!(
            "(() => {{ const s = window.__waymarkEval.state; return !!s && s.session.id !== {} \
             && s.turns === 0; }})()",
            serde_json::to_string(&before)?
        );
        self.panel.wait_for(&js, BOUND).context("a new session")?;
        Ok(())
    }

    /// Opens `url` in a fresh tab (the one the next task works on) and waits for its load.
    pub fn open_tab(&self, url: &str) -> Result<Page> {
        let page = self.browser.new_page(url)?;
        page.wait_for("document.readyState === 'complete'", BOUND)?;
        Ok(page)
    }
}

/// Runs `waymark-host ARGS` with the evaluation's environment.
fn host_command(host: &Path, env: &[(String, String)], args: &[&str]) -> Result<()> {
    let status = Command::new(host)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(std::process::Stdio::null())
        .status()
        .with_context(|| format!("running {} {}", host.display(), args.join(" ")))?;
    if !status.success() {
        bail!("waymark-host {} failed: {status}", args.join(" "));
    }
    Ok(())
}

/// The user's host config folder: `WAYMARK_CONFIG_DIR`, else the XDG one (Linux) the host
/// uses by default.
fn user_config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("WAYMARK_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("waymark"))
}

/// The parts of the worker's panel state the harness reads. Read with defaults rather than as
/// `waymark_core::panel::PanelState`, so the harness can measure an extension built from
/// another tree (`WAYMARK_EXTENSION_DIR`), older or newer, and picks up fields such as the
/// cached-token count as soon as the build sends them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StateView {
    /// The host.
    pub host: HostView,
    /// The current or last task.
    pub task: Option<TaskState>,
    /// Tasks finished in this session.
    pub turns: u32,
    /// The current session.
    pub session: SessionRef,
}

/// The current session's id.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SessionRef {
    /// Its id.
    pub id: String,
}

/// Whether the host answers, and with which model.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum HostView {
    /// Connected.
    Connected {
        /// Its LLM configuration.
        llm: LlmView,
    },
    /// Not reachable.
    Missing {
        /// What went wrong.
        message: String,
        /// What to do.
        fix: String,
    },
    /// Not contacted yet (or a state this harness does not know).
    #[default]
    #[serde(other)]
    Unknown,
}

/// The navigator's endpoint as the host reports it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LlmView {
    /// Wire format.
    pub provider: String,
    /// Base URL.
    pub base_url: String,
    /// Model.
    pub model: String,
}

/// A task as the panel shows it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TaskState {
    /// The user's words.
    pub prompt: String,
    /// Still working.
    pub running: bool,
    /// Current step number.
    pub step: u32,
    /// Each action performed.
    pub steps: Vec<StepState>,
    /// Final answer once finished.
    pub answer: Option<String>,
    /// Whether the agent says it succeeded.
    pub success: bool,
    /// The error that stopped it.
    pub error: Option<String>,
    /// How it ended (`Stopped after 2 steps, 1.3 s`).
    pub heading: String,
    /// Tokens and cost.
    pub usage: UsageView,
    /// The open card, if any.
    pub controls: ControlsView,
}

/// One action of the timeline.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StepState {
    /// Step number.
    pub step: u32,
    /// The action in plain words.
    pub text: String,
    /// Whether it worked.
    pub ok: bool,
    /// Why not.
    pub error: Option<String>,
}

/// Tokens and dollars of the task's model calls (the host's price table).
#[derive(Debug, Clone, Copy, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(default)]
pub struct UsageView {
    /// Completed calls.
    pub calls: u32,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Of those, read from the provider's prompt cache.
    pub cached_input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Dollars over the priced calls.
    pub usd: f64,
    /// Calls whose model has no price.
    pub unpriced_calls: u32,
    /// Calls whose tokens the host counted itself.
    pub estimated_calls: u32,
}

/// The task's controls: only the open card matters here.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ControlsView {
    /// The card awaiting an answer.
    pub card: Option<CardView>,
    /// Stop requested.
    pub stopping: bool,
}

/// An intervention card.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct CardView {
    /// `confirm`, `take_over`, `stuck`, …
    pub kind: String,
    /// Heading.
    pub title: String,
    /// What it says.
    pub message: String,
}
