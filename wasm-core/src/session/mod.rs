//! A session: the user's tasks in order, what each found, and its export.

mod export;

pub use export::{export_name_hint, to_markdown};

use crate::agent::{StepRecord, TaskOutcome};
use serde::{Deserialize, Serialize};

/// One finished task, stored per turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// 1-based position in the session.
    pub turn: u32,
    /// The user's words.
    pub task: String,
    /// The answer or what was found.
    pub summary: String,
    /// Whether it succeeded.
    pub success: bool,
    /// Every action performed, always recorded.
    pub actions: Vec<StepRecord>,
    /// Model steps used.
    pub steps_taken: u32,
    /// Wall time.
    pub elapsed_ms: f64,
    /// When it finished (ms since the epoch).
    pub created_ms: f64,
}

impl TaskRecord {
    /// The record of a finished task.
    pub fn from_outcome(turn: u32, task: &str, outcome: &TaskOutcome, now_ms: f64) -> Self {
        Self {
            turn,
            task: task.to_owned(),
            summary: outcome.answer.clone(),
            success: outcome.success,
            actions: outcome.steps.clone(),
            steps_taken: outcome.step_count,
            elapsed_ms: outcome.elapsed_ms,
            created_ms: now_ms,
        }
    }
}

/// A conversation with Waymark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Stable id (storage keys derive from it).
    pub id: String,
    /// Shown in the session list.
    pub title: String,
    /// Creation time (ms since the epoch).
    pub created_ms: f64,
    /// Finished tasks, oldest first.
    pub records: Vec<TaskRecord>,
}

impl Session {
    /// Storage key of the session's metadata.
    pub fn meta_key(id: &str) -> String {
        format!("session:{id}:meta")
    }

    /// Storage key of one turn: each turn is written on its own, so a write costs the turn's
    /// size, never the whole session's.
    pub fn turn_key(id: &str, turn: u32) -> String {
        format!("session:{id}:turn:{turn:06}")
    }
}
