//! The extension's own surface: who may drive the agent. Only the side panel page of this
//! extension, over a port named `panel`; content scripts and web pages never can (they could
//! otherwise approve a confirmation, change policy, export or start tasks).

/// Whether a port is the extension's own side panel, from the port's name, its sender's URL and
/// the panel page's URL as the browser adapter gives it (`chrome.runtime.getURL`): how a
/// browser spells its extension URLs (`chrome-extension://<id>/…`) is the adapter's business;
/// the decision only needs "the same page of the same extension". A content script's port
/// carries the page's URL as its sender, so it never passes, whatever name it picks.
pub fn is_panel_port(port_name: &str, sender_url: &str, panel_url: &str) -> bool {
    // Parsed like every other URL the safety code judges (see `weburl`), never sliced by hand.
    let (Ok(sender), Ok(panel)) = (url::Url::parse(sender_url), url::Url::parse(panel_url)) else {
        return false;
    };
    let own_host = panel.host_str().is_some_and(|h| !h.is_empty());
    port_name == "panel"
        && own_host
        && !panel.cannot_be_a_base()
        && sender.scheme() == panel.scheme()
        && sender.host_str() == panel.host_str()
        && sender.port() == panel.port()
        && sender.username().is_empty()
        && sender.password().is_none()
        && sender.path() == panel.path()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "abcdefghijklmnopabcdefghijklmnop";
    const PANEL: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/sidepanel.html";

    #[test]
    fn only_the_panel_page_of_this_extension_may_drive_the_agent() {
        let panel = PANEL.to_owned();
        assert!(is_panel_port("panel", &panel, PANEL));
        assert!(is_panel_port("panel", &format!("{panel}?tab=3"), PANEL));
        // A content script names its port "panel": its sender URL is the page's.
        assert!(!is_panel_port("panel", "https://evil.example/sidepanel.html", PANEL));
        assert!(!is_panel_port("panel", "http://shop.localhost:8080/", PANEL));
        // Another extension, or another page of ours, or a look-alike path.
        assert!(!is_panel_port("panel", "chrome-extension://zzzz/sidepanel.html", PANEL));
        assert!(!is_panel_port("panel", &format!("chrome-extension://{ID}/other.html"), PANEL));
        assert!(!is_panel_port("panel", &format!("{panel}.evil.html"), PANEL));
        assert!(!is_panel_port(
            "panel",
            &format!("chrome-extension://x@{ID}/sidepanel.html"),
            PANEL
        ));
        assert!(!is_panel_port(
            "panel",
            &format!("chrome-extension://{ID}.evil/sidepanel.html"),
            PANEL
        ));
        assert!(is_panel_port("panel", &format!("{panel}#x"), PANEL));
        assert!(!is_panel_port("other", &panel, PANEL));
        // No panel URL (or a broken one) from the browser: nobody passes.
        assert!(!is_panel_port("panel", &panel, ""));
        assert!(!is_panel_port("panel", &panel, "chrome-extension:///sidepanel.html"));
        assert!(!is_panel_port("panel", "data:,x", "data:,x"));
    }
}
