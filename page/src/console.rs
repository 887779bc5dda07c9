//! What a page wrote to its console, as external agents read it (`browser_console_messages`).
//! `page_hooks.js` records it in the page's own world, so every entry is page-controlled
//! text: the bridge fences it and turns secrets in it into handles, like a snapshot.

use serde::{Deserialize, Serialize};

pub use waymark_protocol::ConsoleLevel;

/// Where an entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsoleSource {
    /// A `console.*` call.
    Console,
    /// An exception nobody caught (`error` event).
    Uncaught,
    /// A promise rejected with no handler (`unhandledrejection` event).
    Rejection,
}

/// One entry of a page's console.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsoleEntry {
    /// Its severity.
    pub level: ConsoleLevel,
    /// What produced it.
    pub source: ConsoleSource,
    /// The arguments, formatted and joined by spaces (at most [`MAX_ENTRY_CHARS`]).
    pub text: String,
}

/// The most characters one entry keeps (the page formats, Rust cuts again at a char boundary).
pub const MAX_ENTRY_CHARS: usize = 2_000;
/// The most entries a page keeps (the oldest go first).
pub const MAX_ENTRIES: usize = 200;

impl ConsoleEntry {
    /// The entry with its text cut to [`MAX_ENTRY_CHARS`] characters (page input: never
    /// trusted to have done so itself).
    pub fn bounded(mut self) -> Self {
        if let Some((cut, _)) = self.text.char_indices().nth(MAX_ENTRY_CHARS) {
            self.text.truncate(cut);
            self.text.push('…');
        }
        self
    }

    /// The entries in the page's answer (a JSON list), the latest [`MAX_ENTRIES`], each
    /// bounded; none when the answer is anything else (the page wrote it).
    pub fn parse_list(answer: &str) -> Vec<Self> {
        let Ok(entries) = serde_json::from_str::<Vec<Self>>(answer) else {
            if !answer.is_empty() {
                tracing::debug!("the page's console answer was not a list of entries");
            }
            return Vec::new();
        };
        let skip = entries.len().saturating_sub(MAX_ENTRIES);
        entries.into_iter().skip(skip).map(Self::bounded).collect()
    }

    /// One line of the list: `[error] Uncaught TypeError: x is undefined`.
    pub fn line(&self) -> String {
        let prefix = match self.source {
            ConsoleSource::Console => "",
            ConsoleSource::Uncaught => "Uncaught ",
            ConsoleSource::Rejection => "Unhandled rejection: ",
        };
        format!("[{}] {prefix}{}", self.level.word(), self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_entry_is_cut_at_a_char_boundary() {
        let entry = ConsoleEntry {
            level: ConsoleLevel::Info,
            source: ConsoleSource::Console,
            text: "“".repeat(MAX_ENTRY_CHARS + 5),
        }
        .bounded();
        assert_eq!(entry.text.chars().count(), MAX_ENTRY_CHARS + 1);
        assert!(entry.text.ends_with('…'));
    }

    #[test]
    fn the_answer_is_data_whatever_the_page_wrote() {
        assert!(ConsoleEntry::parse_list("").is_empty());
        assert!(ConsoleEntry::parse_list("{\"level\":\"error\"}").is_empty());
        assert!(
            ConsoleEntry::parse_list(
                "[{\"level\":\"fatal\",\"source\":\"console\",\"text\":\"x\"}]"
            )
            .is_empty()
        );
        let many: Vec<String> = (0..MAX_ENTRIES + 3)
            .map(|i| format!("{{\"level\":\"info\",\"source\":\"console\",\"text\":\"{i}\"}}"))
            .collect();
        let parsed = ConsoleEntry::parse_list(&format!("[{}]", many.join(",")));
        assert_eq!(parsed.len(), MAX_ENTRIES);
        assert_eq!(parsed[0].text, "3", "the latest are kept");
    }

    proptest::proptest! {
        #![proptest_config(waymark_fuzzgen::config())]
        #[test]
        fn hostile_answers_never_panic(text in waymark_fuzzgen::hostile_short()) {
            let json = serde_json::json!([{ "level": "warning", "source": "rejection", "text": text }]);
            let parsed = ConsoleEntry::parse_list(&json.to_string());
            proptest::prop_assert_eq!(parsed.len(), 1);
            let _line = parsed[0].line();
            let _none = ConsoleEntry::parse_list(&text);
        }
    }

    #[test]
    fn lines_say_level_and_source() {
        let entry = ConsoleEntry {
            level: ConsoleLevel::Error,
            source: ConsoleSource::Uncaught,
            text: "TypeError: x is undefined".into(),
        };
        assert_eq!(entry.line(), "[error] Uncaught TypeError: x is undefined");
        assert!(ConsoleLevel::Error > ConsoleLevel::Warning);
        assert!(ConsoleLevel::Info > ConsoleLevel::Debug);
    }
}
