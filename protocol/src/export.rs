//! `export.write`: files the host writes for the user.

use serde::{Deserialize, Serialize};

/// File formats the host can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// Markdown, ready to paste into another agent.
    Md,
    /// One JSON document.
    Json,
    /// One JSON value per line.
    Jsonl,
    /// Comma-separated values (RFC 4180): one table finding.
    Csv,
}

impl ExportFormat {
    /// File extension without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Md => "md",
            Self::Json => "json",
            Self::Jsonl => "jsonl",
            Self::Csv => "csv",
        }
    }
}

/// Whether an export keeps the values the session tracked (order numbers, references, any
/// code-like token a page or the model wrote; secrets the tasks knew are already gone from
/// storage): redacted unless the user chose to include them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TrackedValues {
    /// Replace each with `[redacted]` (the default).
    #[default]
    Redact,
    /// Keep them as stored (the user asked for it).
    Include,
}

/// Payload of `export.write`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportWrite {
    /// A suggested file stem; the host reduces it to one safe component or ignores it.
    #[serde(default)]
    pub name_hint: Option<String>,
    /// Format of `content`, which also picks the extension.
    pub format: ExportFormat,
    /// The full file content.
    pub content: String,
}

/// Data of a successful `export.write` reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportWritten {
    /// Absolute path of the file written.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
}
