//! The table of contents: one numbered line per turn, and a turn with its neighbours for
//! jump-to-turn.

use super::{Session, TaskRecord, title::clip};
use serde::{Deserialize, Serialize};

/// A TOC line is at most this many characters (it must fit one line of the sidebar).
pub const MAX_TOC_CHARS: usize = 100;

/// One line of the table of contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TocEntry {
    /// Turn number (1-based).
    pub turn: u32,
    /// The one-line summary.
    pub line: String,
    /// Whether the task succeeded.
    pub success: bool,
}

/// A turn with the previous and next one, for the jump-to-turn view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TurnWithNeighbours {
    /// The turn asked for.
    pub turn: TaskRecord,
    /// The one before, if any.
    pub previous: Option<TocEntry>,
    /// The one after, if any.
    pub next: Option<TocEntry>,
}

/// A TOC line from free text: one line, whitespace collapsed, at most [`MAX_TOC_CHARS`].
pub fn toc_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    clip(&flat, MAX_TOC_CHARS)
}

impl TaskRecord {
    /// This record's TOC entry.
    pub fn toc_entry(&self) -> TocEntry {
        let line = if self.toc_line.is_empty() {
            toc_line(self.task_line())
        } else {
            self.toc_line.clone()
        };
        TocEntry { turn: self.turn, line, success: self.success }
    }
}

/// The whole table of contents, oldest first.
pub fn toc(session: &Session) -> Vec<TocEntry> {
    session.records.iter().map(TaskRecord::toc_entry).collect()
}

impl Session {
    /// Turn `n` with its neighbours, or `None` when there is no such turn.
    pub fn turn_with_neighbours(&self, n: u32) -> Option<TurnWithNeighbours> {
        let turn = self.turn(n)?.clone();
        Some(TurnWithNeighbours {
            turn,
            previous: n.checked_sub(1).and_then(|p| self.turn(p)).map(TaskRecord::toc_entry),
            next: n.checked_add(1).and_then(|p| self.turn(p)).map(TaskRecord::toc_entry),
        })
    }
}
