//! The bridge for external agents (MCP clients such as Claude Code): what one of them asks of
//! the browser, what comes back, and the requests and events that carry both between the host
//! Chrome started and the service worker.
//!
//! The worker opens the bridge with `bridge.open` while the user allows external agents; the
//! host then streams `bridge.client` and `bridge.call` events on that request and the worker
//! answers each call with `bridge.answer`. The worker decides everything (the same safety
//! policy as its own agent); the host only carries calls and answers.

use serde::{Deserialize, Serialize};

/// Largest text an external agent may type or send in one call, in bytes: keeps every
/// `bridge.call` event far below the 1 MiB host → browser frame cap.
pub const MAX_BRIDGE_TEXT: usize = 64 * 1024;

/// One browser tool call of an external agent. Refs are the `[N]` / `[fN:M]` handles of the
/// agent's latest `snapshot` of the tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum BridgeCall {
    /// Answered by the worker at once: proves the whole chain (doctor, tests).
    Ping,
    /// Every web tab of every window, which one the agent works on and which the user sees.
    ListTabs,
    /// Open a tab (on `url`, or empty) and work there.
    OpenTab {
        /// Absolute http(s) URL.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
    },
    /// Work on another tab.
    SelectTab {
        /// Tab id from `list_tabs`.
        tab: i32,
    },
    /// Close a tab (the one the agent works on when absent).
    CloseTab {
        /// Tab id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab: Option<i32>,
    },
    /// Load a URL in the agent's tab.
    Navigate {
        /// Absolute http(s) URL.
        url: String,
    },
    /// History back in the agent's tab.
    Back,
    /// Read the page: Waymark's compact observation with refs.
    Snapshot,
    /// Click an element.
    Click {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: String,
        /// Double-click instead.
        #[serde(default)]
        double: bool,
    },
    /// Type into a field (replacing its text), then press Enter when `submit`.
    Type {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: String,
        /// Text to enter.
        text: String,
        /// Press Enter afterwards.
        #[serde(default)]
        submit: bool,
    },
    /// Select words inside an editor (or a field) by their text, for a formatting command
    /// or typing to apply to.
    SelectText {
        /// The editor's ref.
        #[serde(rename = "ref")]
        ref_id: String,
        /// The words, as they read on the page.
        text: String,
    },
    /// Choose an option of a select (by label or value).
    Select {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: String,
        /// Options to choose; one for a plain select.
        values: Vec<String>,
    },
    /// Press keys (`Enter`, `Control+a`, …) on the focused element.
    PressKey {
        /// Keys, `+` for combinations.
        key: String,
    },
    /// Scroll the page (or an element).
    Scroll {
        /// Which way.
        #[serde(default)]
        direction: ScrollWay,
        /// Scrollable element; the page when absent.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_id: Option<String>,
    },
    /// Move the pointer over an element.
    Hover {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: String,
    },
    /// Drag an element onto another one (judged like the agent's own drag: a drop target is
    /// a state change like a click on it).
    Drag {
        /// The element to drag.
        #[serde(rename = "ref")]
        ref_id: String,
        /// The element to drop it on.
        to: String,
    },
    /// Put a file the user attached in the side panel into a file input.
    Upload {
        /// The file input's ref.
        #[serde(rename = "ref")]
        ref_id: String,
        /// The attachment's name (or path) as listed in the side panel.
        file: String,
    },
    /// The readable text of the page (or of one element) as markdown.
    Extract {
        /// Element ref; the whole page when absent.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_id: Option<String>,
    },
    /// Every record of a repeated list or table, on every page of the listing (within
    /// `pages`), read without a model: the answer carries the [`crate::Table`].
    Collect {
        /// A ref inside one example record, from the latest snapshot; absent: the record
        /// showing the first column's example.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_id: Option<String>,
        /// The columns: a name and the example record's value for each.
        columns: Vec<BridgeColumn>,
        /// Most pages to read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pages: Option<u32>,
        /// The table's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A picture of the visible part of the agent's tab.
    Screenshot,
    /// Wait until a text appears (with `gone`, until it disappears; without a text, until the
    /// page settles), at most `seconds` (≤ 15).
    WaitFor {
        /// Text to wait for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Upper bound in seconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seconds: Option<f64>,
        /// Wait until `text` is gone instead (Playwright MCP's `textGone`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        gone: bool,
    },
    /// Resize the window of the agent's tab (Playwright MCP's `browser_resize`): the page
    /// lays itself out for the new size. Changes nothing on any site.
    Resize {
        /// Window width in CSS pixels.
        width: u32,
        /// Window height in CSS pixels.
        height: u32,
    },
    /// The requests the agent's tab made since its page loaded (method, address, status),
    /// read-only page data like a snapshot.
    NetworkRequests {
        /// Also list images, fonts, style sheets, scripts and media (left out by default).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        include_static: bool,
    },
    /// Answer the dialog the page showed during the agent's last action (Waymark answered it
    /// Cancel then): on OK the same action is done again, judged again, with the dialogs it
    /// opens answered OK (a prompt with `prompt_text`).
    HandleDialog {
        /// OK (true) or Cancel.
        accept: bool,
        /// What a prompt is answered with on OK.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt_text: Option<String>,
    },
    /// What the agent's tab's page wrote to its console (and its uncaught errors) since it
    /// loaded, at `level` or more severe; read-only page data like a snapshot.
    ConsoleMessages {
        /// The least severe level listed (info when absent: debug entries are left out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        level: Option<ConsoleLevel>,
    },
    /// Run a whole task with Waymark's own agent in the agent's tab, as the user's own tasks
    /// run (same model, policy and cards); the answer carries a [`BridgeTaskReport`].
    RunTask {
        /// The task in words.
        prompt: String,
        /// A session an earlier `run_task` returned, to continue (its notes go with the task);
        /// a new session when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    },
    /// Run a saved workflow (by name) on the tab the user is looking at, with these inputs.
    RunWorkflow {
        /// The workflow's name, as the side panel lists it.
        name: String,
        /// Values of its inputs by name; the others take their defaults.
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        values: std::collections::BTreeMap<String, String>,
    },
}

crate::with_all! {
    /// Which bridge call, without its arguments: the key of the bridge's table (its name, and
    /// the MCP tool of `waymark-host mcp` that sends it).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum BridgeTool {
        /// [`BridgeCall::Ping`].
        Ping,
        /// [`BridgeCall::ListTabs`].
        ListTabs,
        /// [`BridgeCall::OpenTab`].
        OpenTab,
        /// [`BridgeCall::SelectTab`].
        SelectTab,
        /// [`BridgeCall::CloseTab`].
        CloseTab,
        /// [`BridgeCall::Navigate`].
        Navigate,
        /// [`BridgeCall::Back`].
        Back,
        /// [`BridgeCall::Snapshot`].
        Snapshot,
        /// [`BridgeCall::Click`].
        Click,
        /// [`BridgeCall::Type`].
        Type,
        /// [`BridgeCall::SelectText`].
        SelectText,
        /// [`BridgeCall::Select`].
        Select,
        /// [`BridgeCall::PressKey`].
        PressKey,
        /// [`BridgeCall::Scroll`].
        Scroll,
        /// [`BridgeCall::Hover`].
        Hover,
        /// [`BridgeCall::Drag`].
        Drag,
        /// [`BridgeCall::Upload`].
        Upload,
        /// [`BridgeCall::Extract`].
        Extract,
        /// [`BridgeCall::Collect`].
        Collect,
        /// [`BridgeCall::Screenshot`].
        Screenshot,
        /// [`BridgeCall::WaitFor`].
        WaitFor,
        /// [`BridgeCall::Resize`].
        Resize,
        /// [`BridgeCall::NetworkRequests`].
        NetworkRequests,
        /// [`BridgeCall::ConsoleMessages`].
        ConsoleMessages,
        /// [`BridgeCall::HandleDialog`].
        HandleDialog,
        /// [`BridgeCall::RunTask`].
        RunTask,
        /// [`BridgeCall::RunWorkflow`].
        RunWorkflow,
    }
}

impl BridgeTool {
    /// Its name (the serde tag of its [`BridgeCall`]) and the MCP tool of `waymark-host mcp`
    /// that sends it (Playwright MCP's names where the two overlap; `None`: no MCP tool does,
    /// the doctor's ping). Other MCP tools send several calls (`browser_fill_form`) or read
    /// captured sessions without the browser.
    pub const fn names(self) -> (&'static str, Option<&'static str>) {
        match self {
            Self::Ping => ("ping", None),
            Self::ListTabs => ("list_tabs", Some("browser_tabs")),
            Self::OpenTab => ("open_tab", Some("browser_tabs")),
            Self::SelectTab => ("select_tab", Some("browser_tabs")),
            Self::CloseTab => ("close_tab", Some("browser_tabs")),
            Self::Navigate => ("navigate", Some("browser_navigate")),
            Self::Back => ("back", Some("browser_navigate_back")),
            Self::Snapshot => ("snapshot", Some("browser_snapshot")),
            Self::Click => ("click", Some("browser_click")),
            Self::Type => ("type", Some("browser_type")),
            Self::SelectText => ("select_text", Some("browser_select_text")),
            Self::Select => ("select", Some("browser_select_option")),
            Self::PressKey => ("press_key", Some("browser_press_key")),
            Self::Scroll => ("scroll", Some("browser_scroll")),
            Self::Hover => ("hover", Some("browser_hover")),
            Self::Drag => ("drag", Some("browser_drag")),
            Self::Upload => ("upload", Some("browser_file_upload")),
            Self::Extract => ("extract", Some("browser_extract")),
            Self::Collect => ("collect", Some("browser_collect")),
            Self::Screenshot => ("screenshot", Some("browser_take_screenshot")),
            Self::WaitFor => ("wait_for", Some("browser_wait_for")),
            Self::Resize => ("resize", Some("browser_resize")),
            Self::NetworkRequests => ("network_requests", Some("browser_network_requests")),
            Self::ConsoleMessages => ("console_messages", Some("browser_console_messages")),
            Self::HandleDialog => ("handle_dialog", Some("browser_handle_dialog")),
            Self::RunTask => ("run_task", Some("waymark_run_task")),
            Self::RunWorkflow => ("run_workflow", Some("run_workflow")),
        }
    }

    /// Its name (the serde tag of its [`BridgeCall`]).
    pub const fn name(self) -> &'static str {
        self.names().0
    }

    /// The MCP tool that sends it, if one does.
    pub const fn mcp_tool(self) -> Option<&'static str> {
        self.names().1
    }
}

impl BridgeCall {
    /// Which call it is: its row of the bridge's table.
    pub fn tool(&self) -> BridgeTool {
        match self {
            Self::Ping => BridgeTool::Ping,
            Self::ListTabs => BridgeTool::ListTabs,
            Self::OpenTab { .. } => BridgeTool::OpenTab,
            Self::SelectTab { .. } => BridgeTool::SelectTab,
            Self::CloseTab { .. } => BridgeTool::CloseTab,
            Self::Navigate { .. } => BridgeTool::Navigate,
            Self::Back => BridgeTool::Back,
            Self::Snapshot => BridgeTool::Snapshot,
            Self::Click { .. } => BridgeTool::Click,
            Self::Type { .. } => BridgeTool::Type,
            Self::SelectText { .. } => BridgeTool::SelectText,
            Self::Select { .. } => BridgeTool::Select,
            Self::PressKey { .. } => BridgeTool::PressKey,
            Self::Scroll { .. } => BridgeTool::Scroll,
            Self::Hover { .. } => BridgeTool::Hover,
            Self::Drag { .. } => BridgeTool::Drag,
            Self::Upload { .. } => BridgeTool::Upload,
            Self::Extract { .. } => BridgeTool::Extract,
            Self::Collect { .. } => BridgeTool::Collect,
            Self::Screenshot => BridgeTool::Screenshot,
            Self::WaitFor { .. } => BridgeTool::WaitFor,
            Self::Resize { .. } => BridgeTool::Resize,
            Self::NetworkRequests { .. } => BridgeTool::NetworkRequests,
            Self::ConsoleMessages { .. } => BridgeTool::ConsoleMessages,
            Self::HandleDialog { .. } => BridgeTool::HandleDialog,
            Self::RunTask { .. } => BridgeTool::RunTask,
            Self::RunWorkflow { .. } => BridgeTool::RunWorkflow,
        }
    }

    /// The call's name, for logs and the timeline.
    pub fn name(&self) -> &'static str {
        self.tool().name()
    }

    /// The longest text the call carries, in bytes (checked against [`MAX_BRIDGE_TEXT`]).
    pub fn longest_text(&self) -> usize {
        match self {
            Self::Type { text, .. }
            | Self::SelectText { text, .. }
            | Self::RunTask { prompt: text, .. } => text.len(),
            Self::Navigate { url } | Self::OpenTab { url: Some(url) } => url.len(),
            Self::Select { values, .. } => values.iter().map(String::len).sum(),
            Self::PressKey { key } => key.len(),
            Self::WaitFor { text: Some(t), .. } => t.len(),
            Self::HandleDialog { prompt_text: Some(t), .. } => t.len(),
            Self::Upload { file, .. } => file.len(),
            Self::Collect { columns, name, .. } => {
                columns.iter().map(|c| c.name.len() + c.example.len()).sum::<usize>()
                    + name.as_ref().map_or(0, String::len)
            }
            Self::RunWorkflow { name, values } => {
                name.len() + values.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
            }
            _ => 0,
        }
    }
}

/// How severe a page's console entry is (uncaught errors and rejected promises count as
/// errors); `console_messages` lists those at or above the level asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsoleLevel {
    /// `console.debug`.
    Debug,
    /// `console.log` and `console.info`.
    Info,
    /// `console.warn`.
    Warning,
    /// `console.error`, an uncaught exception or an unhandled promise rejection.
    Error,
}

impl ConsoleLevel {
    /// The word Playwright MCP prints for the level.
    pub fn word(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

/// Which way `scroll` goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScrollWay {
    /// Most of a screen down.
    #[default]
    Down,
    /// Most of a screen up.
    Up,
    /// To the top.
    Top,
    /// To the bottom.
    Bottom,
}

/// One tab as an external agent sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeTab {
    /// Chrome's tab id (what `select_tab` and `close_tab` take).
    pub id: i32,
    /// Its title.
    pub title: String,
    /// Its URL.
    pub url: String,
    /// The tab the user looks at in its window.
    pub active: bool,
    /// The tab the external agent works on.
    pub selected: bool,
}

/// A PNG or JPEG, base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeImage {
    /// `image/png` or `image/jpeg`.
    pub mime: String,
    /// Standard base64 of the bytes.
    pub data: String,
}

/// What a successful call returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BridgeOutput {
    /// For the agent: what happened, and page content fenced as untrusted.
    pub text: String,
    /// The tab list, for `list_tabs` and tab changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tabs: Option<Vec<BridgeTab>>,
    /// A screenshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<BridgeImage>,
    /// What a `run_task` found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<BridgeTaskReport>,
    /// What a `collect` found (its cells are untrusted page data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Box<crate::Table>>,
}

/// One column of a `collect`: its name and the example record's value for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeColumn {
    /// Column name.
    pub name: String,
    /// The example record's text for it, or the URL of a link in it.
    pub example: String,
}

/// How a task an external agent asked for ended (the MCP side reports anything but `done` as
/// a tool error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BridgeTaskStatus {
    /// The agent finished it.
    Done,
    /// It did not finish (the model gave up, the step budget ran out, something failed).
    Failed,
    /// The user stopped it in the side panel (or disconnected the agent that asked).
    Stopped,
    /// The user denied what it needed on a card: nothing of that was done.
    Denied,
    /// The safety policy refused what it needed (outbound data, a take-over class).
    Refused,
}

impl BridgeTaskStatus {
    /// The status as the tool's report names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Stopped => "stopped",
            Self::Denied => "denied",
            Self::Refused => "refused",
        }
    }
}

/// What a task an external agent asked for found, and where it is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeTaskReport {
    /// How it ended.
    pub status: BridgeTaskStatus,
    /// The agent's final answer (or why it stopped).
    pub answer: String,
    /// 1–3 sentences (the summariser's, or extractive when it is unavailable).
    #[serde(default)]
    pub summary: String,
    /// Key → value findings.
    #[serde(default)]
    pub findings: std::collections::BTreeMap<String, String>,
    /// The Waymark session the task is a turn of (pass it as `session` to continue it; the
    /// session tools read it when transcript capture is on).
    pub session: String,
    /// Its turn in that session.
    pub turn: u32,
    /// Model steps used.
    pub steps: u32,
}

/// Why a call failed, each with its own fix (the MCP side shows the message as a tool error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BridgeFailureKind {
    /// The user denied the confirmation card.
    Denied,
    /// The safety policy refused the action (outbound data, a file not attached, not a web
    /// page).
    Refused,
    /// Waymark never does this (credentials, payment, CAPTCHA…): the user was asked to.
    TakeOver,
    /// The user stopped the external agent (at a card, or with Disconnect).
    Stopped,
    /// The tab the agent worked on is gone.
    TabGone,
    /// The tab shows no web page Waymark can read (`chrome://`, the Web Store, a PDF).
    NoWebPage,
    /// The ref is not on the agent's latest snapshot of this tab (or there is none).
    StaleRef,
    /// The call's arguments are invalid (a ref that does not parse, text too long).
    BadArguments,
    /// Reading or acting on the page failed.
    PageFailed,
    /// Waymark's own agent is running a task in this browser; try when it is done.
    Busy,
    /// The user switched external agents off in Waymark's settings.
    Off,
    /// This build cannot do it.
    Unsupported,
}

/// A failed call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeFailure {
    /// What kind of failure.
    pub kind: BridgeFailureKind,
    /// Safe to show; says what to do.
    pub message: String,
}

impl BridgeFailure {
    /// A failure of `kind`.
    pub fn new(kind: BridgeFailureKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }
}

/// The answer to one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum BridgeResult {
    /// It worked.
    Ok(BridgeOutput),
    /// It did not.
    Failed(BridgeFailure),
}

impl From<Result<BridgeOutput, BridgeFailure>> for BridgeResult {
    fn from(r: Result<BridgeOutput, BridgeFailure>) -> Self {
        match r {
            Ok(o) => Self::Ok(o),
            Err(e) => Self::Failed(e),
        }
    }
}

impl BridgeResult {
    /// As a `Result`.
    pub fn into_result(self) -> Result<BridgeOutput, BridgeFailure> {
        match self {
            Self::Ok(o) => Ok(o),
            Self::Failed(e) => Err(e),
        }
    }
}

/// Payload of `bridge.open`: the worker lets external agents in. The reply comes when the
/// bridge closes; meanwhile `bridge.client` and `bridge.call` events stream on this request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeOpen {
    /// The user's name for this browser profile, shown by `waymark-host mcp` when several
    /// browsers are registered (empty: the host names it after the browser and profile).
    #[serde(default)]
    pub label: String,
}

/// Reply of `bridge.open`: why it closed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeClosed {
    /// For the log.
    pub reason: String,
}

/// Payload of `bridge.answer`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BridgeAnswer {
    /// The call answered (from its `bridge.call` event).
    pub call: u64,
    /// Its result.
    pub result: BridgeResult,
}

/// Payload of `bridge.disconnect`: the user pressed Disconnect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeDisconnect {
    /// The client (from its `bridge.client` event).
    pub client: u64,
}

/// Payload of `bridge.close`: the user switched external agents off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeClose {}

/// Payload of `bridge.progress`: how far a long call (`run_task`) got, for the external
/// agent's progress notifications.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeProgress {
    /// The call (from its `bridge.call` event).
    pub call: u64,
    /// Steps done so far (it only grows).
    pub step: u32,
    /// What happened last, in words.
    pub message: String,
    /// The call waits for the user's answer to a card in the side panel (the agent's MCP
    /// server then counts the user's approval timeout).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaiting_user: bool,
}

/// Reply of `bridge.answer`, `bridge.progress`, `bridge.disconnect` and `bridge.close`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BridgeAck {}
