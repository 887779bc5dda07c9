//! External agents (MCP clients such as Claude Code) in the user's browser: each tool call
//! they send through `waymark-host mcp` becomes an action judged by the same safety policy as
//! the agent's own ([`crate::agent::police_external`]) and shown in the same timeline, and
//! every card names who asks. Target-independent: the worker supplies the tabs
//! ([`Browser`]), the user's controls and the panel view.
//!
//! An MCP client can never approve a card: no [`BridgeCall`] answers one, and only the side
//! panel's port reaches the controls.

mod inspect;
mod operator;
mod session;
mod task;
#[cfg(test)]
mod tests;

pub use inspect::{HEIGHTS, MAX_LISTED_REQUESTS, RequestLog, SeenRequest, WIDTHS};
pub use operator::{ExternalOperator, OnCard, awaiting_user, who_asks};
pub use session::ExternalSession;
use session::fenced;
pub use task::{
    ClientTaskOperator, may_continue, not_resumed, progress_of, task_report, task_status,
};

use crate::agent::{Page, PageError};
use waymark_page::console::ConsoleEntry;
use waymark_protocol::{BridgeFailure, BridgeFailureKind};

/// One tab, as the bridge lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserTab {
    /// Chrome's tab id.
    pub id: i32,
    /// Its title.
    pub title: String,
    /// Its URL.
    pub url: String,
    /// The active tab of its window.
    pub active: bool,
}

/// The browser's tabs, as the external agent's calls need them.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Browser {
    /// One tab's page.
    type Page: Page;
    /// Every tab of every window.
    async fn tabs(&self) -> Result<Vec<BrowserTab>, PageError>;
    /// The web page the user looks at (where an agent starts).
    async fn user_tab(&self) -> Option<i32>;
    /// The page of tab `tab`.
    fn page(&self, tab: i32) -> Self::Page;
    /// The tab a page works on now (it moves with open, switch and close tab).
    fn tab_of(&self, page: &Self::Page) -> i32;
    /// Resizes the window that holds `tab` to `width`×`height` (outer size, CSS pixels) and
    /// says the size it got.
    async fn resize(&self, tab: i32, width: u32, height: u32) -> Result<(u32, u32), PageError>;
    /// The requests `tab` made since its page loaded, oldest first.
    async fn requests(&self, tab: i32) -> Result<Vec<SeenRequest>, PageError>;
    /// What `tab`'s top page wrote to its console since it loaded, oldest first.
    async fn console(&self, tab: i32) -> Result<Vec<ConsoleEntry>, PageError>;
}

/// The failure an external agent is told for a page error: each kind with what to do.
pub fn page_failure(e: &PageError) -> BridgeFailure {
    let kind = match e {
        PageError::TabClosed { .. } => BridgeFailureKind::TabGone,
        PageError::NoAccess { .. } | PageError::NoPage => BridgeFailureKind::NoWebPage,
        PageError::StaleRef(_) => BridgeFailureKind::StaleRef,
        PageError::Refused(_) => BridgeFailureKind::Refused,
        PageError::Unsupported => BridgeFailureKind::Unsupported,
        _ => BridgeFailureKind::PageFailed,
    };
    let advice = match kind {
        BridgeFailureKind::TabGone => "; list the tabs (browser_tabs) and select another",
        BridgeFailureKind::StaleRef => "; take a new browser_snapshot and use its refs",
        _ => "",
    };
    BridgeFailure::new(kind, format!("{e}{advice}"))
}
