//! The prompt box's state: the history of sent prompts (for the arrow keys), the files attached
//! to the next task, and the finished task's findings as a table.

use crate::safety::origin_of;
use crate::session::TaskRecord;
use serde::{Deserialize, Serialize};

/// Prompts kept in the history.
pub const HISTORY_LIMIT: usize = 50;

/// Adds a sent prompt to the history (oldest first): an earlier identical entry moves to the
/// end, so Up always brings back the last one first, and the oldest beyond the limit go.
pub fn push_history(history: &mut Vec<String>, prompt: &str) {
    let prompt = prompt.trim();
    if prompt.is_empty() {
        return;
    }
    history.retain(|p| p != prompt);
    history.push(prompt.to_owned());
    let excess = history.len().saturating_sub(HISTORY_LIMIT);
    history.drain(..excess);
}

/// A file attached to the next task: the host reads it (only from allowed directories).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Attachment {
    /// The name the task refers to it by (unique among the attachments).
    pub name: String,
    /// Absolute path on the user's disk.
    pub path: String,
}

/// Why a file was not attached, in the user's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    /// Nothing was typed.
    #[error("Type or paste the file's full path.")]
    Empty,
    /// A relative path (the host reads files by their full path).
    #[error("{0:?} is not a full path (start it with / or a drive letter).")]
    NotFull(String),
    /// The same file twice.
    #[error("{0} is already attached.")]
    Already(String),
}

/// Attaches `path`, or says why not.
pub fn attach(list: &mut Vec<Attachment>, path: &str) -> Result<(), AttachError> {
    let path = path.trim().trim_matches('"');
    if path.is_empty() {
        return Err(AttachError::Empty);
    }
    let absolute = path.starts_with('/')
        || path.starts_with("\\\\")
        || path.as_bytes().get(1..3).is_some_and(|b| b[0] == b':' && matches!(b[1], b'\\' | b'/'));
    if !absolute {
        return Err(AttachError::NotFull(path.to_owned()));
    }
    if list.iter().any(|a| a.path == path) {
        return Err(AttachError::Already(path.to_owned()));
    }
    let base = path.rsplit(['/', '\\']).find(|s| !s.is_empty()).unwrap_or(path);
    let mut name = base.to_owned();
    let mut n = 2;
    while list.iter().any(|a| a.name == name) {
        name = format!("{base} ({n})");
        n += 1;
    }
    list.push(Attachment { name, path: path.to_owned() });
    Ok(())
}

/// A finished task's findings as a table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FindingsView {
    /// The turn they belong to.
    pub turn: u32,
    /// 1–3 sentences.
    pub summary: String,
    /// Key → value rows, in key order.
    pub rows: Vec<FindingRow>,
    /// Table findings (`collect`), each drawn as a table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<super::tables::TableView>,
}

/// One row of the findings table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FindingRow {
    /// What was found.
    pub key: String,
    /// Its value, as text.
    pub value: String,
    /// The value as a link to open in a new tab, when it is an http(s) URL.
    pub link: Option<String>,
}

/// The findings of a recorded turn worth a table: `None` for a failed task the model did not
/// summarise (its answer, shown above, already says everything). An extractive summary is left
/// out (it repeats the answer); the model's summary is shown.
pub fn findings(record: &TaskRecord) -> Option<FindingsView> {
    if !record.success && !record.summarised_by_model && record.tables.is_empty() {
        return None;
    }
    let rows = record
        .structured_data
        .iter()
        .map(|(key, value)| FindingRow {
            key: key.replace('_', " "),
            value: value.clone(),
            link: (origin_of(value.trim()).is_some()
                && !value.trim().contains(char::is_whitespace))
            .then(|| value.trim().to_owned()),
        })
        .collect();
    let summary = if record.summarised_by_model { record.summary.clone() } else { String::new() };
    let tables = super::tables::table_views(&record.tables);
    Some(FindingsView { turn: record.turn, summary, rows, tables })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_keeps_the_last_use_of_each_prompt_and_a_bounded_length() {
        let mut h = Vec::new();
        for p in ["a", "b", "a", "  ", "c"] {
            push_history(&mut h, p);
        }
        assert_eq!(h, ["b", "a", "c"]);
        for i in 0..100 {
            push_history(&mut h, &format!("p{i}"));
        }
        assert_eq!(h.len(), HISTORY_LIMIT);
        assert_eq!(h.last().map(String::as_str), Some("p99"));
    }

    #[test]
    fn attachments_need_full_paths_and_get_unique_names() {
        let mut list = Vec::new();
        attach(&mut list, "/home/me/cv.pdf").expect("attach");
        attach(&mut list, "\"/tmp/cv.pdf\"").expect("quoted path");
        attach(&mut list, "C:\\docs\\cv.pdf").expect("windows path");
        let names: Vec<&str> = list.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["cv.pdf", "cv.pdf (2)", "cv.pdf (3)"]);
        assert!(attach(&mut list, "cv.pdf").is_err());
        assert!(attach(&mut list, "/home/me/cv.pdf").is_err());
        assert!(attach(&mut list, " ").is_err());
    }

    #[test]
    fn findings_link_only_web_urls() {
        let outcome = crate::record::TaskOutcome {
            answer: "a".into(),
            success: true,
            error: None,
            steps: vec![],
            step_count: 1,
            elapsed_ms: 1.0,
            ending: Default::default(),
        };
        let mut record = TaskRecord::from_outcome(2, "t", &outcome, 0.0);
        record.structured_data.insert("cheapest_plan".into(), "Basic".into());
        record.structured_data.insert("url".into(), "https://example.com/basic".into());
        record.structured_data.insert("script".into(), "javascript:alert(1)".into());
        let view = findings(&record).expect("a successful task has findings");
        assert_eq!(view.summary, "", "an extractive summary repeats the answer");
        let links: Vec<Option<&str>> = view.rows.iter().map(|r| r.link.as_deref()).collect();
        assert_eq!(links, [None, None, Some("https://example.com/basic")]);
        assert_eq!(view.rows[0].key, "cheapest plan");
        record.success = false;
        assert_eq!(findings(&record), None);
    }
}
