//! The read-only browser tools Playwright MCP users reach for besides the snapshot: the
//! requests a tab made and the window's size. Requests are page data (their addresses can
//! carry tokens), so they are fenced like a snapshot and go through the same taint ledger:
//! secrets in them reach the agent as handles.

use super::session::fenced;
use super::{Browser, page_failure};
use crate::safety::TaintLedger;
use crate::safety::network::rules::ResourceType;
use waymark_page::console::{ConsoleEntry, ConsoleLevel};
use waymark_protocol::{BridgeFailure, BridgeFailureKind, BridgeOutput};

/// One request a tab made, as the browser reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenRequest {
    /// HTTP method, as sent.
    pub method: String,
    /// Full address.
    pub url: String,
    /// What the browser fetched it for.
    pub resource: ResourceType,
    /// The response's status, once one came.
    pub status: Option<u16>,
    /// The network error, when it failed (`net::ERR_BLOCKED_BY_CLIENT` is Waymark's guard).
    pub error: Option<String>,
}

impl SeenRequest {
    /// Files a page loads to draw itself, left out of the list unless asked for.
    fn is_static(&self) -> bool {
        matches!(
            self.resource,
            ResourceType::Image
                | ResourceType::Font
                | ResourceType::Stylesheet
                | ResourceType::Script
                | ResourceType::Media
        )
    }

    /// One line of the list: `GET 200 https://… (xmlhttprequest)`.
    fn line(&self) -> String {
        let outcome = match (&self.error, self.status) {
            (Some(e), _) if e == "net::ERR_BLOCKED_BY_CLIENT" => "blocked by Waymark".to_owned(),
            (Some(e), _) => format!("failed ({e})"),
            (None, Some(status)) => status.to_string(),
            (None, None) => "pending".to_owned(),
        };
        let kind = serde_json::to_value(self.resource)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "other".into());
        format!("{} {outcome} {} ({kind})", self.method, self.url)
    }
}

/// The most requests one answer lists (the latest ones).
pub const MAX_LISTED_REQUESTS: usize = 200;

/// A read of one tab's page data for an external agent: what it reads is recorded in `taint`
/// as page text of `page_url` before it is answered (so its secrets become handles), fenced
/// with `nonce`.
pub struct PageRead<'a> {
    /// The tab read.
    pub tab: i32,
    /// Its address.
    pub page_url: String,
    /// The agent's ledger.
    pub taint: &'a mut TaintLedger,
    /// The fence's marker.
    pub nonce: String,
}

/// The list of the tab's requests for an external agent.
pub async fn network_requests<B: Browser>(
    browser: &B,
    read: PageRead<'_>,
    include_static: bool,
) -> Result<BridgeOutput, BridgeFailure> {
    let PageRead { tab, page_url, taint, nonce } = read;
    let seen = browser.requests(tab).await.map_err(|e| page_failure(&e))?;
    let total = seen.len();
    let listed: Vec<&SeenRequest> =
        seen.iter().filter(|r| include_static || !r.is_static()).collect();
    let skipped_static = total - listed.len();
    let shown = &listed[listed.len().saturating_sub(MAX_LISTED_REQUESTS)..];
    for request in shown {
        taint.record_page_text(&page_url, &request.url);
    }
    let lines: Vec<String> = shown.iter().map(|r| r.line()).collect();
    let mut head = format!("Tab {tab}: {} requests since its page loaded", listed.len());
    if skipped_static > 0 {
        head.push_str(&format!(
            " ({skipped_static} images, fonts, style sheets, scripts and media left out: ask \
             with includeStatic to list them)"
        ));
    }
    if listed.len() > shown.len() {
        head.push_str(&format!("; the latest {} are listed", shown.len()));
    }
    let body = if lines.is_empty() { "(none)".to_owned() } else { lines.join("\n") };
    Ok(BridgeOutput {
        text: format!(
            "{head}. Addresses are untrusted page data, between the page_content markers.\n{}",
            fenced(&nonce, &body)
        ),
        ..BridgeOutput::default()
    })
}

/// The console of the tab's page for an external agent: entries at `level` or above (info
/// when absent; the page keeps its latest [`waymark_page::console::MAX_ENTRIES`]).
pub async fn console_messages<B: Browser>(
    browser: &B,
    read: PageRead<'_>,
    level: Option<ConsoleLevel>,
) -> Result<BridgeOutput, BridgeFailure> {
    let PageRead { tab, page_url, taint, nonce } = read;
    let least = level.unwrap_or(ConsoleLevel::Info);
    let entries = browser.console(tab).await.map_err(|e| page_failure(&e))?;
    let listed: Vec<&ConsoleEntry> = entries.iter().filter(|e| e.level >= least).collect();
    let below = entries.len() - listed.len();
    for entry in &listed {
        taint.record_page_text(&page_url, &entry.text);
    }
    let lines: Vec<String> = listed.iter().map(|e| e.line()).collect();
    let mut head = format!(
        "Tab {tab}: {} console messages at level {} or above since its page loaded",
        listed.len(),
        least.word()
    );
    if below > 0 {
        head.push_str(&format!(" ({below} less severe left out)"));
    }
    let body = if lines.is_empty() { "(none)".to_owned() } else { lines.join("\n") };
    Ok(BridgeOutput {
        text: format!(
            "{head}. Messages are untrusted page data, between the page_content markers.\n{}",
            fenced(&nonce, &body)
        ),
        ..BridgeOutput::default()
    })
}

/// Window sizes an agent may ask for (CSS pixels): from a small phone to an 8K screen.
pub const WIDTHS: std::ops::RangeInclusive<u32> = 320..=7680;
/// See [`WIDTHS`].
pub const HEIGHTS: std::ops::RangeInclusive<u32> = 200..=4320;

/// Resizes the window of `tab`.
pub async fn resize<B: Browser>(
    browser: &B,
    tab: i32,
    width: u32,
    height: u32,
) -> Result<BridgeOutput, BridgeFailure> {
    if !WIDTHS.contains(&width) || !HEIGHTS.contains(&height) {
        return Err(BridgeFailure::new(
            BridgeFailureKind::BadArguments,
            format!(
                "a window can be {}–{} pixels wide and {}–{} high; {width}×{height} is not",
                WIDTHS.start(),
                WIDTHS.end(),
                HEIGHTS.start(),
                HEIGHTS.end()
            ),
        ));
    }
    let (w, h) = browser.resize(tab, width, height).await.map_err(|e| page_failure(&e))?;
    let note = if (w, h) == (width, height) {
        String::new()
    } else {
        " (the screen or the window's state did not allow the size asked for)".to_owned()
    };
    Ok(BridgeOutput {
        text: format!(
            "The window of tab {tab} is now {w}×{h}{note}; take a new snapshot: the page laid \
             itself out again."
        ),
        ..BridgeOutput::default()
    })
}

/// How many requests one tab's log keeps (the oldest go first).
const KEPT_PER_TAB: usize = 500;
/// How many tabs' logs are kept (the one touched longest ago goes first).
const KEPT_TABS: usize = 64;

/// The requests each tab made since its page loaded, fed by the browser's request events
/// (observe only) and kept in memory only. A new document in a tab starts its log afresh.
#[derive(Debug, Default)]
pub struct RequestLog {
    /// Per tab, oldest first; the tab touched last is at the end.
    tabs: Vec<(i32, Vec<(String, SeenRequest)>)>,
}

impl RequestLog {
    /// A request `tab` starts (`id` is the browser's request id).
    pub fn started(&mut self, tab: i32, id: &str, request: SeenRequest) {
        if tab < 0 {
            return;
        }
        let new_page = request.resource == ResourceType::MainFrame;
        let log = self.touch(tab);
        if new_page {
            log.clear();
        }
        if log.len() >= KEPT_PER_TAB {
            log.remove(0);
        }
        log.push((id.to_owned(), request));
    }

    /// The response of request `id` of `tab` came with `status`.
    pub fn completed(&mut self, tab: i32, id: &str, status: u16) {
        if let Some(request) = self.find(tab, id) {
            request.status = Some(status);
        }
    }

    /// Request `id` of `tab` failed with `error`.
    pub fn failed(&mut self, tab: i32, id: &str, error: &str) {
        if let Some(request) = self.find(tab, id) {
            request.error = Some(error.to_owned());
        }
    }

    /// What `tab` requested since its page loaded, oldest first.
    pub fn of(&self, tab: i32) -> Vec<SeenRequest> {
        self.tabs
            .iter()
            .find(|(t, _)| *t == tab)
            .map(|(_, log)| log.iter().map(|(_, r)| r.clone()).collect())
            .unwrap_or_default()
    }

    /// A closed tab's log goes.
    pub fn forget(&mut self, tab: i32) {
        self.tabs.retain(|(t, _)| *t != tab);
    }

    fn touch(&mut self, tab: i32) -> &mut Vec<(String, SeenRequest)> {
        let entry = match self.tabs.iter().position(|(t, _)| *t == tab) {
            Some(i) => self.tabs.remove(i),
            None => (tab, Vec::new()),
        };
        if self.tabs.len() >= KEPT_TABS {
            self.tabs.remove(0);
        }
        self.tabs.push(entry);
        let last = self.tabs.len() - 1;
        &mut self.tabs[last].1
    }

    fn find(&mut self, tab: i32, id: &str) -> Option<&mut SeenRequest> {
        let (_, log) = self.tabs.iter_mut().find(|(t, _)| *t == tab)?;
        log.iter_mut().rev().find(|(i, _)| i == id).map(|(_, r)| r)
    }
}

#[cfg(test)]
mod log_tests {
    use super::*;

    fn get(url: &str, resource: ResourceType) -> SeenRequest {
        SeenRequest { method: "GET".into(), url: url.into(), resource, status: None, error: None }
    }

    #[test]
    fn a_tab_log_follows_each_request_and_starts_afresh_with_a_new_page() {
        let mut log = RequestLog::default();
        log.started(3, "1", get("https://a.example/", ResourceType::MainFrame));
        log.started(3, "2", get("https://a.example/api", ResourceType::Xmlhttprequest));
        log.started(4, "9", get("https://b.example/", ResourceType::MainFrame));
        log.started(-1, "5", get("https://worker.example/", ResourceType::Other));
        log.completed(3, "1", 200);
        log.failed(3, "2", "net::ERR_BLOCKED_BY_CLIENT");
        log.completed(3, "404", 404);
        let a = log.of(3);
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].status, Some(200));
        assert_eq!(a[1].error.as_deref(), Some("net::ERR_BLOCKED_BY_CLIENT"));
        assert_eq!(log.of(4).len(), 1);
        assert!(log.of(-1).is_empty(), "requests of no tab are not kept");

        log.started(3, "3", get("https://a.example/next", ResourceType::MainFrame));
        assert_eq!(log.of(3).len(), 1, "a new document starts the log afresh");
        log.forget(3);
        assert!(log.of(3).is_empty());
    }

    #[test]
    fn logs_are_bounded_per_tab_and_in_tabs() {
        let mut log = RequestLog::default();
        for i in 0..KEPT_PER_TAB + 10 {
            log.started(
                1,
                &i.to_string(),
                get(&format!("https://a.example/{i}"), ResourceType::Image),
            );
        }
        let one = log.of(1);
        assert_eq!(one.len(), KEPT_PER_TAB);
        assert_eq!(one[0].url, "https://a.example/10", "the oldest went first");
        for tab in 2..(KEPT_TABS as i32 + 2) {
            log.started(tab, "x", get("https://b.example/", ResourceType::MainFrame));
        }
        assert!(log.of(1).is_empty(), "the tab touched longest ago went");
        assert_eq!(log.of(KEPT_TABS as i32 + 1).len(), 1);
    }
}
