//! The extension's own surface: who may drive the agent. Only the side panel page of this
//! extension, over a port named `panel`; content scripts and web pages never can (they could
//! otherwise approve a confirmation, change policy, export or start tasks).

/// Whether a port is the extension's own side panel, from the port's name and its sender's URL.
/// A content script's port carries the page's URL as its sender, so it never passes, whatever
/// name it picks.
pub fn is_panel_port(port_name: &str, sender_url: &str, extension_id: &str) -> bool {
    // Parsed like every other URL the safety code judges (see `weburl`), never sliced by hand.
    let Ok(sender) = url::Url::parse(sender_url) else { return false };
    port_name == "panel"
        && !extension_id.is_empty()
        && sender.scheme() == "chrome-extension"
        && sender.host_str() == Some(extension_id)
        && sender.port().is_none()
        && sender.username().is_empty()
        && sender.password().is_none()
        && sender.path() == "/sidepanel.html"
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "abcdefghijklmnopabcdefghijklmnop";

    #[test]
    fn only_the_panel_page_of_this_extension_may_drive_the_agent() {
        let panel = format!("chrome-extension://{ID}/sidepanel.html");
        assert!(is_panel_port("panel", &panel, ID));
        assert!(is_panel_port("panel", &format!("{panel}?tab=3"), ID));
        // A content script names its port "panel": its sender URL is the page's.
        assert!(!is_panel_port("panel", "https://evil.example/sidepanel.html", ID));
        assert!(!is_panel_port("panel", "http://shop.localhost:8080/", ID));
        // Another extension, or another page of ours, or a look-alike path.
        assert!(!is_panel_port("panel", "chrome-extension://zzzz/sidepanel.html", ID));
        assert!(!is_panel_port("panel", &format!("chrome-extension://{ID}/other.html"), ID));
        assert!(!is_panel_port("panel", &format!("{panel}.evil.html"), ID));
        assert!(!is_panel_port("panel", &format!("chrome-extension://x@{ID}/sidepanel.html"), ID));
        assert!(!is_panel_port(
            "panel",
            &format!("chrome-extension://{ID}.evil/sidepanel.html"),
            ID
        ));
        assert!(is_panel_port("panel", &format!("{panel}#x"), ID));
        assert!(!is_panel_port("other", &panel, ID));
        assert!(!is_panel_port("panel", &panel, ""));
    }
}
