//! External agents in the side panel: the Settings switch that lets them in, who is connected
//! ("Claude Code is connected") with a Disconnect button each, and why the bridge is not
//! working when it is not.

use serde::{Deserialize, Serialize};

/// One connected external agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExternalClient {
    /// The connection's id (what Disconnect sends back); a number in JS, where the panel's
    /// messages are JSON (ids count up from 1, far below 2^53).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: u64,
    /// The MCP client's name (`Claude Code`).
    pub name: String,
}

/// What the panel shows about external agents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExternalView {
    /// The user allows external agents (off until they switch it on).
    pub enabled: bool,
    /// Connected now, oldest first.
    #[serde(default)]
    pub clients: Vec<ExternalClient>,
    /// Why the bridge is not open although enabled (the host's words and the fix).
    #[serde(default)]
    pub error: Option<String>,
    /// The banner line: "Claude Code is connected", or empty.
    #[serde(default)]
    pub line: String,
}

impl ExternalView {
    /// A client connected.
    pub fn connected(&mut self, id: u64, name: &str) {
        if !self.clients.iter().any(|c| c.id == id) {
            self.clients.push(ExternalClient { id, name: name.to_owned() });
        }
        self.line = self.banner();
    }

    /// A client went away (or was disconnected).
    pub fn gone(&mut self, id: u64) {
        self.clients.retain(|c| c.id != id);
        self.line = self.banner();
    }

    /// Every client went (the bridge closed or reopened).
    pub fn clear(&mut self) {
        self.clients.clear();
        self.line.clear();
    }

    /// The name of client `id`.
    pub fn name_of(&self, id: u64) -> Option<&str> {
        self.clients.iter().find(|c| c.id == id).map(|c| c.name.as_str())
    }

    fn banner(&self) -> String {
        let names: Vec<&str> = self.clients.iter().map(|c| c.name.as_str()).collect();
        match names.as_slice() {
            [] => String::new(),
            [one] => format!("{one} is connected"),
            [rest @ .., last] => format!("{} and {last} are connected", rest.join(", ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_names_who_is_connected() {
        let mut v = ExternalView { enabled: true, ..ExternalView::default() };
        v.connected(1, "Claude Code");
        assert_eq!(v.line, "Claude Code is connected");
        v.connected(2, "Cursor");
        v.connected(2, "Cursor");
        assert_eq!(v.line, "Claude Code and Cursor are connected");
        v.gone(1);
        assert_eq!(v.line, "Cursor is connected");
        assert_eq!(v.name_of(2), Some("Cursor"));
        v.clear();
        assert_eq!(v.line, "");
    }
}
