//! Secrets in what the panel shows: the model answers with handles (`⟨secret:3 api key from
//! dash.example⟩`, it never read the value); the panel shows each handle as a chip the user
//! clicks to see the real value, which the worker reads from the finished task's ledger (kept
//! in memory only, never in storage or a snapshot).

use crate::safety::outbound::handle_refs;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One piece of a text the panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ShownPart {
    /// Words, drawn as text.
    Text {
        /// The words.
        text: String,
    },
    /// A secret's handle: a chip that asks the worker for the value on a click.
    Secret {
        /// The handle's number.
        id: u32,
        /// The handle as written.
        handle: String,
        /// The real value, once the user asked for it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
    },
}

/// `text` cut into words and handles; `revealed` holds the values the user asked to see.
pub fn parts(text: &str, revealed: &BTreeMap<u32, String>) -> Vec<ShownPart> {
    let mut out = Vec::new();
    let mut last = 0;
    for (range, id) in handle_refs(text) {
        let before = text.get(last..range.start).unwrap_or_default();
        if !before.is_empty() {
            out.push(ShownPart::Text { text: before.to_owned() });
        }
        out.push(ShownPart::Secret {
            id,
            handle: text.get(range.clone()).unwrap_or_default().to_owned(),
            value: revealed.get(&id).cloned(),
        });
        last = range.end;
    }
    let rest = text.get(last..).unwrap_or_default();
    if !rest.is_empty() || out.is_empty() {
        out.push(ShownPart::Text { text: rest.to_owned() });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_become_chips_and_show_their_value_once_revealed() {
        let text = "Your key is ⟨secret:1 api key from dash.example⟩.";
        let shown = parts(text, &BTreeMap::new());
        assert_eq!(shown.len(), 3);
        assert_eq!(
            shown[1],
            ShownPart::Secret {
                id: 1,
                handle: "⟨secret:1 api key from dash.example⟩".into(),
                value: None
            }
        );
        let revealed = BTreeMap::from([(1, "sk-live-Zq8a".to_owned())]);
        let shown = parts(text, &revealed);
        assert!(
            matches!(&shown[1], ShownPart::Secret { value: Some(v), .. } if v == "sk-live-Zq8a")
        );
        assert_eq!(parts("plain", &revealed), [ShownPart::Text { text: "plain".into() }]);
    }
}
