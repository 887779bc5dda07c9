//! A session: the user's tasks in order, what each found, and everything built from them —
//! the next task's context, the table of contents, titles, search, summaries and exports.
//!
//! Target-independent: the service worker stores and loads sessions (`waymark-worker`), this
//! module decides what they contain, and native tests cover it with plain data.

mod context;
mod export;
mod inert;
mod limiter;
mod notes;
mod search;
mod store;
mod summary;
mod tables;
mod title;
mod toc;
mod transcript;

pub use context::{
    FULL_RECENT, ONE_LINE_FROM, RecalledTurn, build_context, recall, recall_turns, recallable,
    task_with_context,
};
pub use export::{export_name_hint, portable_prompt, table_csv, to_json, to_markdown};
pub use limiter::{Limiter, Permit};
pub use notes::context_provenance;
pub use search::{SearchHit, SearchIndex};
pub use store::{CURRENT_KEY, Listed, SessionStore};
pub use summary::{Summary, extractive_summary, parse_summary, summary_request};
pub use title::{MAX_TITLE_CHARS, MAX_TITLE_HISTORY, extractive_title, title_change};
pub use toc::{MAX_TOC_CHARS, TocEntry, TurnWithNeighbours, toc, toc_line};
pub use transcript::transcript_record;

use crate::record::{StepRecord, TaskOutcome};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One finished task, stored under its own key (one write per turn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskRecord {
    /// 1-based position in the session.
    pub turn: u32,
    /// The user's words.
    pub task: String,
    /// The agent's final answer, verbatim.
    #[serde(default)]
    pub answer: String,
    /// 1–3 sentences of findings (from the summariser, or extractive when it is unavailable).
    pub summary: String,
    /// Key → value findings (URLs, prices, names), for follow-up tasks and exports.
    #[serde(default)]
    pub structured_data: BTreeMap<String, String>,
    /// Table findings (`collect`): every row, kept here and exported; follow-up tasks read
    /// only each table's summary line and row count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<waymark_protocol::Table>,
    /// One line for the table of contents (at most [`MAX_TOC_CHARS`]).
    #[serde(default)]
    pub toc_line: String,
    /// Whether the summary came from the model (false: extractive fallback).
    #[serde(default)]
    pub summarised_by_model: bool,
    /// Whether it succeeded.
    pub success: bool,
    /// Every action performed, always recorded whatever the output mode.
    pub actions: Vec<StepRecord>,
    /// Model steps used.
    pub steps_taken: u32,
    /// Wall time.
    pub elapsed_ms: f64,
    /// When it finished (ms since the epoch).
    pub created_ms: f64,
    /// Where each tracked value still in the record was read (normalised value → origins or
    /// hosts): a later task may send it back only there. Secrets are redacted before storing.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub provenance: crate::safety::Provenance,
    /// The origins of the pages the task read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_from: Vec<String>,
    /// The external agent (MCP client) that asked for the task; `None`: the user did. Only a
    /// session whose every turn an external agent asked for may be continued by one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<String>,
    /// Set when the task ran a saved workflow (its TOC line, summary and export say so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<RanWorkflow>,
}

/// The workflow a task ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RanWorkflow {
    /// Its id.
    pub id: String,
    /// Its name then.
    pub name: String,
    /// Steps the model healed in that run.
    #[serde(default)]
    pub healed: u32,
}

impl TaskRecord {
    /// The record of a finished task, with an extractive summary so nothing is ever missing;
    /// the model's summary replaces it later when it arrives.
    pub fn from_outcome(turn: u32, task: &str, outcome: &TaskOutcome, now_ms: f64) -> Self {
        let mut record = Self {
            turn,
            task: task.to_owned(),
            answer: outcome.answer.clone(),
            summary: String::new(),
            structured_data: BTreeMap::new(),
            // The tables move out of their steps: stored once.
            tables: outcome.steps.iter().filter_map(|s| s.outcome.table().cloned()).collect(),
            toc_line: String::new(),
            summarised_by_model: false,
            success: outcome.success,
            actions: outcome
                .steps
                .iter()
                .map(|s| {
                    let mut s = s.clone();
                    s.outcome.collected = None;
                    s
                })
                .collect(),
            steps_taken: outcome.step_count,
            elapsed_ms: outcome.elapsed_ms,
            created_ms: now_ms,
            provenance: Default::default(),
            read_from: Vec::new(),
            asked_by: None,
            workflow: None,
        };
        record.apply_summary(extractive_summary(task, &outcome.answer), false);
        record
    }

    /// Stores a summary (the model's, or the extractive one).
    pub fn apply_summary(&mut self, summary: Summary, by_model: bool) {
        self.summary = summary.summary;
        self.structured_data = summary.data;
        self.toc_line = toc_line(&summary.toc_line);
        self.summarised_by_model = by_model;
    }

    /// The first line of the task, for lists.
    pub fn task_line(&self) -> &str {
        self.task.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
    }
}

/// One title the session had, and the turn that caused it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TitleChange {
    /// The title.
    pub title: String,
    /// The turn after which it was set (0: before any task).
    pub turn: u32,
    /// Set by the user (rename) rather than by the summariser.
    #[serde(default)]
    pub by_user: bool,
}

/// A conversation with Waymark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Stable id (storage keys derive from it).
    pub id: String,
    /// Shown in the session list.
    pub title: String,
    /// Earlier titles, newest first, at most [`MAX_TITLE_HISTORY`].
    #[serde(default)]
    pub title_history: Vec<TitleChange>,
    /// The user renamed it: automatic titles no longer replace the user's.
    #[serde(default)]
    pub title_locked: bool,
    /// Record every step in the export (the actions log itself is always stored).
    #[serde(default)]
    pub verbose: bool,
    /// Creation time (ms since the epoch).
    pub created_ms: f64,
    /// Last change (ms since the epoch).
    #[serde(default)]
    pub updated_ms: f64,
    /// Finished tasks, oldest first.
    pub records: Vec<TaskRecord>,
    /// Stored turns that could not be read (written by a newer Waymark, or damaged): they stay
    /// in storage untouched, their numbers are never given to a new turn, and the user is told.
    #[serde(skip)]
    pub unreadable: Vec<u32>,
}

/// What the panel says when `n` stored sessions could not be read; `None` for none.
pub fn unreadable_sessions_notice(n: usize) -> Option<String> {
    let (count, them, were) = match n {
        0 => return None,
        1 => ("1 stored session".to_owned(), "it is", "it was"),
        n => (format!("{n} stored sessions"), "they are", "they were"),
    };
    Some(format!(
        "{count} could not be read (written by a newer Waymark, or damaged): {them} not listed, \
         and kept in storage as {were}."
    ))
}

/// The small per-session header stored next to the turns: its size is bounded (the title
/// history is capped), so writing it with every turn keeps each write proportional to the turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionMeta {
    /// Session id.
    pub id: String,
    /// Current title.
    pub title: String,
    /// Titles, newest first.
    #[serde(default)]
    pub title_history: Vec<TitleChange>,
    /// Renamed by the user.
    #[serde(default)]
    pub title_locked: bool,
    /// Verbose exports.
    #[serde(default)]
    pub verbose: bool,
    /// Creation time.
    pub created_ms: f64,
    /// Last change.
    #[serde(default)]
    pub updated_ms: f64,
    /// Number of turns stored.
    pub turns: u32,
}

impl Session {
    /// An empty session.
    pub fn new(id: String, now_ms: f64) -> Self {
        Self { id, created_ms: now_ms, updated_ms: now_ms, ..Self::default() }
    }

    /// Storage key of the session's metadata.
    pub fn meta_key(id: &str) -> String {
        format!("session:{id}:meta")
    }

    /// Storage key of one turn: each turn is written on its own, so a write costs the turn's
    /// size, never the whole session's.
    pub fn turn_key(id: &str, turn: u32) -> String {
        format!("session:{id}:turn:{turn:06}")
    }

    /// The session id of a metadata key, if `key` is one.
    pub fn id_of_meta_key(key: &str) -> Option<&str> {
        key.strip_prefix("session:")?.strip_suffix(":meta")
    }

    /// The header to store.
    pub fn meta(&self) -> SessionMeta {
        SessionMeta {
            id: self.id.clone(),
            title: self.title.clone(),
            title_history: self.title_history.clone(),
            title_locked: self.title_locked,
            verbose: self.verbose,
            created_ms: self.created_ms,
            updated_ms: self.updated_ms,
            turns: self.last_turn(),
        }
    }

    /// The highest turn number stored, read or not.
    fn last_turn(&self) -> u32 {
        let read = self.records.iter().map(|r| r.turn).max().unwrap_or(0);
        let unread = self.unreadable.iter().copied().max().unwrap_or(0);
        read.max(unread).max(self.records.len() as u32)
    }

    /// Rebuilds a session from its header and the turns that could be read; `unreadable`:
    /// the turns that could not (kept, numbered, reported).
    pub fn from_parts(
        meta: SessionMeta,
        mut records: Vec<TaskRecord>,
        unreadable: Vec<u32>,
    ) -> Self {
        records.sort_by_key(|r| r.turn);
        Self {
            id: meta.id,
            title: meta.title,
            title_history: meta.title_history,
            title_locked: meta.title_locked,
            verbose: meta.verbose,
            created_ms: meta.created_ms,
            updated_ms: meta.updated_ms,
            records,
            unreadable,
        }
    }

    /// The title to show: the session's, or the first task when it has none yet.
    pub fn display_title(&self) -> String {
        if !self.title.is_empty() {
            return self.title.clone();
        }
        match self.records.first() {
            Some(r) => title::clip(r.task_line(), MAX_TITLE_CHARS),
            None => "New session".to_owned(),
        }
    }

    /// Appends a finished task as the next turn and returns its number.
    pub fn push(&mut self, mut record: TaskRecord) -> u32 {
        // After every stored turn, read or not: an unreadable one is never overwritten.
        let turn = self.last_turn() + 1;
        record.turn = turn;
        self.updated_ms = self.updated_ms.max(record.created_ms);
        self.records.push(record);
        turn
    }

    /// Sets a title and records it in the history (newest first, capped). Returns whether the
    /// title changed.
    pub fn set_title(&mut self, title: &str, turn: u32, by_user: bool) -> bool {
        // One line, like every title the summariser or the extractive rule gives.
        let title = title::clip(&title::one_line(title), MAX_TITLE_CHARS);
        if title.is_empty() || title == self.title {
            return false;
        }
        self.title = title.clone();
        self.title_history.insert(0, TitleChange { title, turn, by_user });
        self.title_history.truncate(MAX_TITLE_HISTORY);
        if by_user {
            self.title_locked = true;
        }
        true
    }

    /// Turn `n` (1-based; by its number, so turns after an unreadable one keep theirs).
    pub fn turn(&self, n: u32) -> Option<&TaskRecord> {
        match self.records.get((n as usize).checked_sub(1)?) {
            Some(r) if r.turn == n => Some(r),
            _ => self.records.iter().find(|r| r.turn == n),
        }
    }

    /// Turn `n`, to change it (a summary that arrived later).
    pub fn turn_mut(&mut self, n: u32) -> Option<&mut TaskRecord> {
        self.records.iter_mut().find(|r| r.turn == n)
    }

    /// Why part of the session is not shown, for the panel; `None` when every turn was read.
    pub fn unreadable_notice(&self) -> Option<String> {
        let (first, rest) = self.unreadable.split_first()?;
        let which = if rest.is_empty() {
            format!("Task {first} of this session")
        } else {
            format!("{} of this session", crate::text::counted(self.unreadable.len(), "task"))
        };
        Some(format!(
            "{which} could not be read (written by a newer Waymark, or damaged). It is kept in \
             storage as it was and is not shown; new tasks are added after it."
        ))
    }
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
pub(crate) mod tests;
