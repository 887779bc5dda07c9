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

#[cfg(test)]
mod tests {
    use super::*;

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
