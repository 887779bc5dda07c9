//! The running task's write-ahead journal in `chrome.storage.local`: one key per entry plus a
//! small header, written together in one `set` so a killed worker never leaves an entry
//! without its header count (or the reverse).

use super::chrome;
use crate::agent::{Journal, JournalEntry, TaskContext};
use crate::browser::host_port::to_js;
use std::cell::Cell;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

const ACTIVE_KEY: &str = "task:active";

#[derive(serde::Serialize, serde::Deserialize)]
struct Header {
    id: String,
    tab_id: i32,
    count: u32,
}

fn entry_key(id: &str, seq: u32) -> String {
    format!("task:{id}:{seq:06}")
}

/// The journal of one task.
pub(super) struct StorageJournal {
    id: String,
    tab_id: i32,
    count: Cell<u32>,
}

impl StorageJournal {
    /// A journal for a new task on `tab_id`.
    pub(super) fn new(id: String, tab_id: i32) -> Self {
        Self { id, tab_id, count: Cell::new(0) }
    }

    /// The tab the task works on.
    pub(super) fn tab_id(&self) -> i32 {
        self.tab_id
    }

    /// Removes the journal once the task has ended and its turn is stored.
    pub(super) async fn clear(&self) {
        let keys = js_sys::Array::new();
        keys.push(&JsValue::from_str(ACTIVE_KEY));
        for seq in 1..=self.count.get() {
            keys.push(&JsValue::from_str(&entry_key(&self.id, seq)));
        }
        let _ = JsFuture::from(chrome::storage_remove(&keys)).await;
    }
}

impl Journal for StorageJournal {
    async fn write(&self, entry: &JournalEntry) -> Result<(), String> {
        let seq = self.count.get() + 1;
        let header = Header { id: self.id.clone(), tab_id: self.tab_id, count: seq };
        let items = js_sys::Object::new();
        let set = |k: &str, v: JsValue| {
            js_sys::Reflect::set(&items, &JsValue::from_str(k), &v).map(|_| ())
        };
        set(&entry_key(&self.id, seq), to_js(entry)?)
            .map_err(|e| crate::browser::js_message(&e))?;
        set(ACTIVE_KEY, to_js(&header)?).map_err(|e| crate::browser::js_message(&e))?;
        JsFuture::from(chrome::storage_set(&items))
            .await
            .map_err(|e| format!("storage: {}", crate::browser::js_message(&e)))?;
        self.count.set(seq);
        Ok(())
    }
}

async fn get(key: &str) -> Option<JsValue> {
    let got = JsFuture::from(chrome::storage_get(&JsValue::from_str(key))).await.ok()?;
    let value = js_sys::Reflect::get(&got, &JsValue::from_str(key)).ok()?;
    (!value.is_undefined()).then_some(value)
}

/// The unfinished task a previous worker left behind, rebuilt from its journal.
pub(super) async fn load_active() -> Option<(StorageJournal, TaskContext)> {
    let header: Header = serde_wasm_bindgen::from_value(get(ACTIVE_KEY).await?).ok()?;
    let keys = js_sys::Array::new();
    for seq in 1..=header.count {
        keys.push(&JsValue::from_str(&entry_key(&header.id, seq)));
    }
    let got = JsFuture::from(chrome::storage_get(&keys)).await.ok()?;
    let mut entries = Vec::with_capacity(header.count as usize);
    for seq in 1..=header.count {
        let value =
            js_sys::Reflect::get(&got, &JsValue::from_str(&entry_key(&header.id, seq))).ok()?;
        entries.push(serde_wasm_bindgen::from_value::<JournalEntry>(value).ok()?);
    }
    let ctx = TaskContext::replay(&entries)?;
    let journal =
        StorageJournal { id: header.id, tab_id: header.tab_id, count: Cell::new(header.count) };
    Some((journal, ctx))
}
