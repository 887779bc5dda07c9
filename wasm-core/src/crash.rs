//! What Waymark tells the user after its own service-worker wasm crashed. A Rust panic there
//! (`panic = "abort"`) becomes a trap that leaves the instance unusable; the JS glue starts a
//! fresh instance and hands it what the crashed one said ([`Crash`]). The task that was
//! running is not run again (see [`crate::agent::interrupted_outcome`]); this decides the
//! side panel's notice and the report the user can copy.
//!
//! Why the report is redacted: std's panic messages quote the text they failed on (a slice
//! panic prints the string it was slicing), and that text is often the page's. The report
//! keeps the message's words and where it happened, the page's origin and the version, never
//! quoted text.

use serde::{Deserialize, Serialize};

/// What the crashed instance said before it stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Crash {
    /// The panic's message, or the trap's when no panic hook ran ("unreachable").
    pub message: String,
    /// Where in Waymark's source it panicked (`file:line:col`), when the hook said.
    #[serde(default)]
    pub location: Option<String>,
}

/// The side panel's notice after a crash, shown until the user dismisses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CrashNotice {
    /// What happened and what became of the task, in words.
    pub text: String,
    /// The report to copy: the redacted error, where it happened, the page's origin.
    pub report: String,
}

/// Longest error message a report carries, in characters.
const MAX_MESSAGE_CHARS: usize = 300;

/// Longest single-quoted span read as a quoted character (`'“'`, `'\u{200b}'`).
const MAX_QUOTED_CHAR: usize = 12;

impl Crash {
    /// The notice for the side panel. `task` is the words of the task that was running
    /// (`None`: none ran), `page` the address of its tab (only its origin is reported),
    /// `version` the extension's.
    pub fn notice(&self, task: Option<&str>, page: Option<&str>, version: &str) -> CrashNotice {
        let text = match task {
            Some(task) => format!(
                "Waymark crashed while running “{task}” and restarted. The task was stopped and not \
                 run again: its last action may or may not have been done, so check the page. \
                 Copying the report below helps us fix the crash (it holds the error and the \
                 page's address without its path, no page content)."
            ),
            None => "Waymark crashed and restarted; no task was running. Copying the report \
                     below helps us fix the crash (it holds the error, no page content)."
                .to_owned(),
        };
        let origin = page.and_then(origin);
        let report = [
            format!("Waymark {version}: the service worker's wasm crashed and was restarted."),
            format!("Error: {}", redact(&self.message)),
            format!("Where: {}", self.location.as_deref().unwrap_or("unknown")),
            format!(
                "Page: {}",
                origin.as_deref().unwrap_or(if task.is_some() {
                    "unknown"
                } else {
                    "none (no task was running)"
                })
            ),
        ]
        .join("\n");
        CrashNotice { text, report }
    }
}

/// The origin of `url` (`https://docs.example.com`), or `None` when it has none worth naming.
fn origin(url: &str) -> Option<String> {
    let origin = url::Url::parse(url).ok()?.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// `message` without the text it quotes: spans in backticks or double quotes, and short
/// single-quoted spans (a quoted character), become `…`; bounded to [`MAX_MESSAGE_CHARS`].
pub fn redact(message: &str) -> String {
    let chars: Vec<char> = message.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let close = match c {
            '`' | '"' => chars[i + 1..].iter().position(|&d| d == c),
            '\'' => chars[i + 1..]
                .iter()
                .take(MAX_QUOTED_CHAR + 1)
                .position(|&d| d == '\'' || d.is_whitespace())
                .filter(|&n| n > 0 && chars[i + 1 + n] == '\''),
            _ => None,
        };
        match (c, close) {
            ('`' | '"' | '\'', Some(n)) => {
                out.extend([c, '…', c]);
                i += n + 2;
            }
            // An opening quote never closed: what follows it is the quoted text.
            ('`' | '"', None) => {
                out.extend([c, '…']);
                break;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    if out.chars().count() > MAX_MESSAGE_CHARS {
        out = out.chars().take(MAX_MESSAGE_CHARS).collect::<String>() + "…";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_panic_is_reported_without_the_page_text_it_quoted() {
        // What std says when a slice lands inside a multi-byte character of page text.
        let message = "byte index 31 is not a char boundary; it is inside '“' (bytes 30..33) \
                       of `See “https://docs.example.com/setup” for the secret-42 steps`";
        let crash = Crash {
            message: message.into(),
            location: Some("wasm-core/src/safety/outbound/values.rs:120:17".into()),
        };
        let notice = crash.notice(
            Some("check the setup guide"),
            Some("https://forum.example.org/t/42?token=abc#c3"),
            "0.4.0",
        );
        assert!(notice.report.contains("Error: byte index 31 is not a char boundary"));
        assert!(notice.report.contains("inside '…' (bytes 30..33) of `…`"), "{}", notice.report);
        assert!(notice.report.contains("Where: wasm-core/src/safety/outbound/values.rs:120:17"));
        assert!(notice.report.ends_with("Page: https://forum.example.org"), "{}", notice.report);
        for leaked in ["docs.example.com", "secret-42", "/t/42", "token", "“", "check the setup"]
        {
            assert!(!notice.report.contains(leaked), "{leaked} in {}", notice.report);
        }
        assert!(notice.text.contains("while running “check the setup guide”"), "{}", notice.text);
        assert!(notice.text.contains("not run again"), "{}", notice.text);
        assert!(notice.text.contains("may or may not have been done"), "{}", notice.text);
    }

    #[test]
    fn a_crash_without_a_task_says_so() {
        let crash = Crash { message: "unreachable".into(), location: None };
        let notice = crash.notice(None, None, "0.4.0");
        assert!(notice.text.contains("no task was running"), "{}", notice.text);
        assert_eq!(
            notice.report,
            "Waymark 0.4.0: the service worker's wasm crashed and was restarted.\n\
             Error: unreachable\nWhere: unknown\nPage: none (no task was running)"
        );
        // A task on a page without an origin (a blank tab) names none.
        let notice = crash.notice(Some("t"), Some("about:blank"), "0.4.0");
        assert!(notice.report.ends_with("Page: unknown"), "{}", notice.report);
    }

    #[test]
    fn redaction_keeps_words_and_drops_quoted_text() {
        assert_eq!(
            redact(r#"called `Result::unwrap()` on an `Err` value: Parse("a “b” c")"#),
            r#"called `…` on an `…` value: Parse("…")"#
        );
        assert_eq!(redact("don't panic, it's fine"), "don't panic, it's fine");
        assert_eq!(redact(r"inside '\u{200b}' of"), "inside '…' of");
        assert_eq!(redact("unclosed `tail of the page"), "unclosed `…");
        let long = "x".repeat(MAX_MESSAGE_CHARS * 2);
        assert_eq!(redact(&long).chars().count(), MAX_MESSAGE_CHARS + 1);
        // Multi-byte text is cut on character boundaries.
        let wide = "链".repeat(MAX_MESSAGE_CHARS + 5);
        assert!(redact(&wide).ends_with("链…"));
    }
}
