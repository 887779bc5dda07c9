//! The running task's write-ahead journal in a key-value store (`chrome.storage.local` in the
//! worker, memory in tests): one key per entry plus a small header, written together in one
//! `set` so a killed worker never leaves an entry without its header count (or the reverse);
//! and what a restarted worker finds there ([`load_active`]).
//!
//! Why here and not in the worker: what happens when the journal is damaged is a decision
//! (resume, or report what was recovered), tested natively with an in-memory store.

use super::context::{JournalEntry, TaskContext};
use super::{Ending, Journal, TaskOutcome};
use crate::platform::{Store, StoreError};
use crate::text::counted;
use serde::{Deserialize, Serialize};
use std::cell::Cell;

/// The key of the unfinished task's header.
pub const ACTIVE_KEY: &str = "task:active";

/// Why a journal entry could not be stored: the loop then stops before acting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    /// The entry could not be encoded (a bug: entries are plain data).
    #[error("the entry could not be encoded: {0}")]
    Encode(String),
    /// The store refused the write (the storage quota, a browser shutting down).
    #[error("storage: {0}")]
    Storage(#[from] StoreError),
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    id: String,
    tab_id: i32,
    count: u32,
}

fn entry_key(id: &str, seq: u32) -> String {
    format!("task:{id}:{seq:06}")
}

/// The journal of one task in `S`.
pub struct StoredJournal<S> {
    store: S,
    id: String,
    tab_id: i32,
    count: Cell<u32>,
}

impl<S: Store> StoredJournal<S> {
    /// A journal for a new task on `tab_id`.
    pub fn new(store: S, id: String, tab_id: i32) -> Self {
        Self { store, id, tab_id, count: Cell::new(0) }
    }

    /// The tab the task works on.
    pub fn tab_id(&self) -> i32 {
        self.tab_id
    }

    /// Removes the journal once the task has ended and its turn is stored.
    pub async fn clear(&self) -> Result<(), StoreError> {
        let keys: Vec<String> = std::iter::once(ACTIVE_KEY.to_owned())
            .chain((1..=self.count.get()).map(|seq| entry_key(&self.id, seq)))
            .collect();
        self.store.remove(&keys).await
    }
}

impl<S: Store> Journal for StoredJournal<S> {
    async fn write(&self, entry: &JournalEntry) -> Result<(), JournalError> {
        let seq = self.count.get() + 1;
        let header = Header { id: self.id.clone(), tab_id: self.tab_id, count: seq };
        let encode = |e: serde_json::Error| JournalError::Encode(e.to_string());
        let items = vec![
            (entry_key(&self.id, seq), serde_json::to_value(entry).map_err(encode)?),
            (ACTIVE_KEY.to_owned(), serde_json::to_value(&header).map_err(encode)?),
        ];
        self.store.set(items).await?;
        self.count.set(seq);
        Ok(())
    }
}

/// What a restarted worker finds of the task the previous one left unfinished.
pub enum Recovery<S> {
    /// No task was left unfinished.
    Nothing,
    /// Every entry was read: the task goes on (or, if it had ended, its turn is stored).
    Resume {
        /// Its journal, to go on writing.
        journal: StoredJournal<S>,
        /// The task rebuilt from it.
        ctx: TaskContext,
    },
    /// Some of it could not be read. The task is not resumed (an action whose entry was lost
    /// could run twice); the user is told what was recovered.
    Damaged {
        /// Its journal, to clear once the report is recorded; `None` while the store could
        /// not be read at all (it is tried again at the next start).
        journal: Option<StoredJournal<S>>,
        /// What was lost and what was recovered.
        report: DamageReport,
    },
}

/// What went wrong reading an interrupted task's journal.
#[derive(Debug, Clone, PartialEq)]
pub enum Damage {
    /// The store could not be read.
    Store(StoreError),
    /// The header (which says how many entries there are) could not be read.
    Header,
    /// `unreadable` of the header's `total` entries could not be read.
    Entries {
        /// Entries that were missing or did not decode.
        unreadable: u32,
        /// Entries the header counts.
        total: u32,
    },
}

/// The user's report of a damaged journal: what was lost and what was recovered.
#[derive(Debug, Clone, PartialEq)]
pub struct DamageReport {
    /// What was lost.
    pub damage: Damage,
    /// The task as far as it could be rebuilt (its words are unknown when the first entry
    /// was lost).
    pub recovered: TaskContext,
    /// Whether the task's own entry (its words) was read.
    pub task_known: bool,
}

/// What the task is called when its own entry was lost.
const UNKNOWN_TASK: &str = "(an interrupted task whose words could not be read)";

impl DamageReport {
    /// The notice for the side panel: how much was unreadable, that the task was not
    /// resumed, and what was recovered.
    pub fn notice(&self) -> String {
        let what = match &self.damage {
            Damage::Store(e) => format!("its journal could not be read from storage ({e})"),
            Damage::Header => "its journal's header was unreadable".to_owned(),
            Damage::Entries { unreadable, total } => {
                let entries = if *total == 1 { "journal entry" } else { "journal entries" };
                let were = if *unreadable == 1 { "was" } else { "were" };
                format!("{unreadable} of {total} {entries} {were} unreadable")
            }
        };
        let mut recovered = Vec::new();
        if self.task_known {
            recovered.push(format!("the task “{}”", self.recovered.spec.task));
        }
        let done = &self.recovered.steps;
        if !done.is_empty() {
            let list: Vec<&str> = done.iter().map(|s| s.description.as_str()).collect();
            recovered.push(format!("{} ({})", counted(done.len(), "action"), list.join("; ")));
        }
        let recovered =
            if recovered.is_empty() { "nothing".to_owned() } else { recovered.join(", ") };
        format!(
            "An interrupted task could not be fully restored: {what}, so it was not resumed (an \
             action could otherwise run twice). What was recovered: {recovered}. Check the page, \
             then start the task again if it is not done."
        )
    }

    /// The task's words, or what stands for them.
    pub fn task(&self) -> &str {
        if self.task_known { &self.recovered.spec.task } else { UNKNOWN_TASK }
    }

    /// The outcome the task is recorded with: failed, with the notice as its answer and the
    /// actions that were recovered.
    pub fn outcome(&self, now_ms: f64) -> TaskOutcome {
        let notice = self.notice();
        let started = self.recovered.spec.started_ms;
        TaskOutcome {
            answer: notice.clone(),
            success: false,
            error: Some(notice),
            steps: self.recovered.steps.clone(),
            step_count: self.recovered.step,
            elapsed_ms: if started > 0.0 { now_ms - started } else { 0.0 },
            ending: Ending::Failed,
        }
    }
}

/// The outcome of a task whose worker crashed while it ran (a panic in Waymark's own wasm).
/// It is never run again, unlike a task whose worker Chrome merely stopped: what crashed it
/// could crash it again, and the user decides. Its actions are kept; the one that was under
/// way (see [`TaskContext::interrupted_record`]) may or may not have been done.
pub fn interrupted_outcome(ctx: &TaskContext, now_ms: f64) -> TaskOutcome {
    let done = ctx.steps.iter().filter(|s| !s.outcome.interrupted).count();
    let under_way = match ctx.interrupted_record() {
        Some(record) => {
            format!("; “{}” was under way and may or may not have been done", record.description)
        }
        None => String::new(),
    };
    let answer = format!(
        "Interrupted — may or may not have been done: Waymark crashed while running this task \
         and restarted without running it again. It had done {}{under_way}. Check the page, \
         then start the task again if it is not done.",
        counted(done, "action")
    );
    let started = ctx.spec.started_ms;
    TaskOutcome {
        answer: answer.clone(),
        success: false,
        error: Some(answer),
        steps: ctx.steps.clone(),
        step_count: ctx.step,
        elapsed_ms: if started > 0.0 { now_ms - started } else { 0.0 },
        ending: Ending::Interrupted,
    }
}

/// The unfinished task a previous worker left behind in `store`, rebuilt from its journal.
pub async fn load_active<S: Store>(store: S) -> Recovery<S> {
    let damaged = |journal, damage, recovered, task_known| Recovery::Damaged {
        journal,
        report: DamageReport { damage, recovered, task_known },
    };
    let header = match store.get(&[ACTIVE_KEY.to_owned()]).await {
        Err(e) => return damaged(None, Damage::Store(e), TaskContext::default(), false),
        Ok(mut got) => match got.remove(ACTIVE_KEY) {
            None => return Recovery::Nothing,
            Some(value) => serde_json::from_value::<Header>(value),
        },
    };
    let Ok(header) = header else {
        // Without the header the entries' keys are unknown: only the header goes.
        let journal = StoredJournal::new(store, String::new(), 0);
        return damaged(Some(journal), Damage::Header, TaskContext::default(), false);
    };
    let keys: Vec<String> = (1..=header.count).map(|seq| entry_key(&header.id, seq)).collect();
    let got = match store.get(&keys).await {
        Ok(got) => got,
        Err(e) => return damaged(None, Damage::Store(e), TaskContext::default(), false),
    };
    let entries: Vec<Option<JournalEntry>> = keys
        .iter()
        .map(|k| got.get(k).and_then(|v| serde_json::from_value(v.clone()).ok()))
        .collect();
    let journal = StoredJournal {
        store,
        id: header.id,
        tab_id: header.tab_id,
        count: Cell::new(header.count),
    };
    let unreadable = entries.iter().filter(|e| e.is_none()).count() as u32;
    let readable: Vec<JournalEntry> = entries.into_iter().flatten().collect();
    // A task whose end was read runs nothing more: its outcome holds every action, so it is
    // recorded as it ended even if an entry before the end was lost.
    let ended = readable.iter().any(|e| matches!(e, JournalEntry::Finished { .. }));
    if (unreadable == 0 || ended)
        && let Some(ctx) = TaskContext::replay(&readable)
    {
        if unreadable > 0 {
            tracing::warn!(unreadable, total = header.count, "an ended task's journal is damaged");
        }
        return Recovery::Resume { journal, ctx };
    }
    let task_known = matches!(readable.first(), Some(JournalEntry::Started { .. }));
    let recovered = TaskContext::replay_any(&readable);
    // A journal whose entries all decoded but that does not start with the task counts its
    // first entry as lost.
    let unreadable = unreadable.max(1);
    tracing::warn!(unreadable, total = header.count, "the interrupted task's journal is damaged");
    damaged(
        Some(journal),
        Damage::Entries { unreadable, total: header.count },
        recovered,
        task_known,
    )
}

#[cfg(test)]
mod tests;
