//! `transcript.record`: what happened in a session, captured by the host as JSON lines
//! (opt-in) so the user or another agent can read it later.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Payload of `transcript.record`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptRecord {
    /// The session the events belong to (`[A-Za-z0-9_-]`, at most 128 characters).
    pub session_id: String,
    /// Events in the order they happened.
    pub events: Vec<TranscriptEvent>,
}

/// One captured event. Append-only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TranscriptEvent {
    /// A session began (metadata: title, first URL, extension version…).
    SessionStart {
        /// Session title when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// Anything else worth keeping.
        #[serde(default, skip_serializing_if = "Value::is_null")]
        meta: Value,
    },
    /// A chat turn: the user's task, or the model's text.
    Turn {
        /// `user`, `assistant` or `system`.
        role: String,
        /// The text.
        text: String,
        /// The task this turn belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task_id: Option<String>,
    },
    /// A tool the agent invoked, and how it went.
    Tool {
        /// Tool name (`click`, `type_text`, …).
        name: String,
        /// Its arguments.
        #[serde(default)]
        params: Value,
        /// Its output (the host truncates it).
        #[serde(default)]
        output: String,
        /// Whether it succeeded.
        success: bool,
    },
    /// A task summary with its findings.
    Summary {
        /// 1–3 sentences.
        text: String,
        /// Key/value findings.
        #[serde(default, skip_serializing_if = "Value::is_null")]
        findings: Value,
    },
    /// The session ended (metadata: task count, cost…).
    SessionEnd {
        /// Anything worth keeping.
        #[serde(default, skip_serializing_if = "Value::is_null")]
        meta: Value,
    },
}

/// Data of a successful `transcript.record` reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptRecorded {
    /// Whether capture is on (when off, nothing was written and `accepted` is 0).
    pub enabled: bool,
    /// Events accepted into the buffer.
    pub accepted: u32,
}
