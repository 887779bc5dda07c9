//! The running task's journal in `chrome.storage.local`: the store the agent's
//! [`StoredJournal`] writes to (the layout and what a damaged journal means are decided in
//! `waymark_core::agent::journal`, natively tested).

use super::storage::ChromeStore;
use waymark_core::agent::StoredJournal;

/// The journal of a task in `chrome.storage.local`.
pub(super) type StorageJournal = StoredJournal<ChromeStore>;
