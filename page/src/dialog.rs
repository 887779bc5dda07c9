//! The page's own dialogs (`alert`, `confirm`, `prompt`). A native dialog stops the page until
//! somebody answers it, and no extension API can answer one that is already open, so
//! `page_hooks.js` answers it in the page's world when Waymark armed an answer for the action
//! that opens it (external agents' actions always arm one: Cancel unless they asked for OK),
//! and otherwise lets the browser show it to the user, who answers it. Either way the action's
//! outcome says what the page asked and what it was told. Accepting a dialog is not itself
//! judged: what the page then does is (its requests go through the network layer's checks).

use serde::{Deserialize, Serialize};

/// Which dialog the page opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DialogKind {
    /// `alert`: a message with OK.
    Alert,
    /// `confirm`: OK or Cancel.
    Confirm,
    /// `prompt`: a line of text, or Cancel.
    Prompt,
}

impl DialogKind {
    fn word(self) -> &'static str {
        match self {
            Self::Alert => "an alert",
            Self::Confirm => "a confirm dialog",
            Self::Prompt => "a prompt",
        }
    }
}

/// Who answered a dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DialogAnswerer {
    /// Waymark, with the answer armed for the action.
    Waymark,
    /// The user, in the browser's own dialog.
    User,
}

/// The answer Waymark gives the dialogs an action opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialogAnswer {
    /// OK (true) or Cancel.
    pub accept: bool,
    /// What a prompt is answered with on OK (its default text when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl DialogAnswer {
    /// Cancel: what an external agent's actions answer unless it asked otherwise.
    pub fn dismiss() -> Self {
        Self { accept: false, text: None }
    }
}

/// A dialog the page opened during an action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PageDialog {
    /// Which one.
    pub kind: DialogKind,
    /// The page's message (page-controlled text, at most [`MAX_MESSAGE_CHARS`]).
    pub message: String,
    /// Answered with OK.
    pub accepted: bool,
    /// By whom.
    pub by: DialogAnswerer,
}

/// The dialogs one action met, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct Dialogs(pub Vec<PageDialog>);

/// The most characters of a dialog's message that are kept.
pub const MAX_MESSAGE_CHARS: usize = 300;
/// The most dialogs one action reports (a page that loops on `alert` is cut short).
pub const MAX_DIALOGS: usize = 5;

impl PageDialog {
    /// The dialogs in the page world's answer (a JSON list), bounded; none when the answer is
    /// anything else (the page wrote it).
    pub fn parse_list(answer: &str) -> Vec<Self> {
        let Ok(dialogs) = serde_json::from_str::<Vec<Self>>(answer) else {
            if !answer.is_empty() {
                tracing::debug!("the page's dialog answer was not a list of dialogs");
            }
            return Vec::new();
        };
        dialogs.into_iter().take(MAX_DIALOGS).map(Self::bounded).collect()
    }

    fn bounded(mut self) -> Self {
        let one_line: String = self.message.split_whitespace().collect::<Vec<_>>().join(" ");
        self.message = if one_line.chars().count() > MAX_MESSAGE_CHARS {
            one_line.chars().take(MAX_MESSAGE_CHARS).chain(['…']).collect()
        } else {
            one_line
        };
        self
    }

    /// What the outcome says of it: `the page showed a confirm dialog “Delete?”; Waymark
    /// answered Cancel`.
    pub fn describe(&self) -> String {
        let answer = match (self.kind, self.accepted) {
            (DialogKind::Alert, _) => "OK",
            (_, true) => "OK",
            (_, false) => "Cancel",
        };
        let who = match self.by {
            DialogAnswerer::Waymark => "Waymark",
            DialogAnswerer::User => "the user",
        };
        format!("the page showed {} “{}”; {who} answered {answer}", self.kind.word(), self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialogs_are_bounded_one_line_data() {
        let long = format!("Delete\n\n  everything?{}", "“".repeat(MAX_MESSAGE_CHARS));
        let json = serde_json::json!([
            { "kind": "confirm", "message": long, "accepted": false, "by": "waymark" },
            { "kind": "prompt", "message": "Name?", "accepted": true, "by": "user" },
        ]);
        let dialogs = PageDialog::parse_list(&json.to_string());
        assert_eq!(dialogs.len(), 2);
        assert!(dialogs[0].message.starts_with("Delete everything?“"));
        assert_eq!(dialogs[0].message.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(dialogs[0].describe().ends_with("; Waymark answered Cancel"));
        assert_eq!(dialogs[1].describe(), "the page showed a prompt “Name?”; the user answered OK");
        assert!(PageDialog::parse_list("[{\"kind\":\"modal\"}]").is_empty());
        let many = serde_json::json!(vec![
            serde_json::json!({ "kind": "alert", "message": "x", "accepted": true, "by": "waymark" });
            MAX_DIALOGS + 4
        ]);
        assert_eq!(PageDialog::parse_list(&many.to_string()).len(), MAX_DIALOGS);
    }

    proptest::proptest! {
        #![proptest_config(waymark_fuzzgen::config())]
        #[test]
        fn hostile_messages_never_panic(text in waymark_fuzzgen::hostile_short()) {
            let json = serde_json::json!([{ "kind": "alert", "message": text, "accepted": true, "by": "user" }]);
            let dialogs = PageDialog::parse_list(&json.to_string());
            proptest::prop_assert_eq!(dialogs.len(), 1);
            let _said = dialogs[0].describe();
            let _none = PageDialog::parse_list(&text);
        }
    }
}
