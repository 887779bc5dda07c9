//! Which tab a new task works on.

use serde::{Deserialize, Serialize};

/// What Chrome tells about a tab (`chrome.tabs.Tab`, the fields we use).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabInfo {
    /// Tab id.
    pub id: i32,
    /// Current URL (needs the `tabs` permission or a host grant).
    #[serde(default)]
    pub url: String,
    /// Whether it is the active tab of its window.
    #[serde(default)]
    pub active: bool,
    /// When the user last looked at it (ms since the epoch).
    #[serde(default)]
    pub last_accessed: f64,
}

/// The web page the user was looking at last: the active tab with the latest access among
/// pages the agent may work on (never the extension's own pages or browser internals).
pub fn pick_target_tab(tabs: &[TabInfo]) -> Option<i32> {
    let workable = |t: &&TabInfo| t.url.starts_with("http://") || t.url.starts_with("https://");
    let latest = |a: &&TabInfo, b: &&TabInfo| a.last_accessed.total_cmp(&b.last_accessed);
    tabs.iter()
        .filter(workable)
        .filter(|t| t.active)
        .max_by(latest)
        .or_else(|| tabs.iter().filter(workable).max_by(latest))
        .map(|t| t.id)
}

/// Whether the browser lets an extension script a page at `url`: web pages (and files, where
/// the user allowed it) but not the browser's own pages, other extensions, its error pages or
/// the Web Store. Why: a page call that fails on such a page is told apart by this, never by
/// the words of Chrome's error.
pub fn scriptable(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else { return false };
    let store = match url.host_str() {
        Some("chromewebstore.google.com") => true,
        Some("chrome.google.com") => url.path().starts_with("/webstore"),
        _ => false,
    };
    matches!(url.scheme(), "http" | "https" | "file") && !store
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_pages_outside_the_store_are_scriptable() {
        for url in ["https://a.example/x", "http://127.0.0.1:8080/", "file:///tmp/a.html"] {
            assert!(scriptable(url), "{url}");
        }
        for url in [
            "chrome://settings",
            "chrome-extension://abc/sidepanel.html",
            "chrome-error://chromewebdata/",
            "about:blank",
            "view-source:https://a.example/",
            "data:text/html,hi",
            "https://chromewebstore.google.com/detail/x",
            "https://chrome.google.com/webstore/detail/x",
            "",
        ] {
            assert!(!scriptable(url), "{url}");
        }
        assert!(scriptable("https://chrome.google.com/search"));
    }

    fn tab(id: i32, url: &str, active: bool, last: f64) -> TabInfo {
        TabInfo { id, url: url.into(), active, last_accessed: last }
    }

    #[test]
    fn skips_the_side_panel_page_and_prefers_the_latest_active_page() {
        let tabs = [
            tab(1, "https://a.example/", true, 10.0),
            tab(2, "chrome-extension://id/sidepanel.html", true, 30.0),
            tab(3, "https://b.example/", true, 20.0),
            tab(4, "https://c.example/", false, 40.0),
        ];
        assert_eq!(pick_target_tab(&tabs), Some(3));
    }

    #[test]
    fn falls_back_to_any_page_and_then_to_none() {
        assert_eq!(pick_target_tab(&[tab(4, "http://c/", false, 1.0)]), Some(4));
        assert_eq!(pick_target_tab(&[tab(5, "chrome://settings", true, 1.0)]), None);
    }
}
