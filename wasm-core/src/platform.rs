//! What the core needs of the platform it runs on, as traits: the worker implements them over
//! Chrome's APIs, the native tests over memory.
//!
//! Why a module of its own: the agent, the sessions, the workflows and the app all use these;
//! kept here they depend on none of those modules (no circle through `agent`).

use std::collections::BTreeMap;

/// A failure of the key-value store, in the browser's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// A key-value store of JSON values (`chrome.storage.local`).
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Store {
    /// The values of those `keys` that exist.
    async fn get(&self, keys: &[String])
    -> Result<BTreeMap<String, serde_json::Value>, StoreError>;
    /// Writes all `items` in one operation.
    async fn set(&self, items: Vec<(String, serde_json::Value)>) -> Result<(), StoreError>;
    /// Removes `keys`.
    async fn remove(&self, keys: &[String]) -> Result<(), StoreError>;
    /// Every key stored (to find the sessions without reading them).
    async fn keys(&self) -> Result<Vec<String>, StoreError>;
}

/// Where finished turns go for the host's transcript capture (opt-in; JSONL files on disk).
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Transcripts {
    /// Hands one turn's transcript over; an error is logged by the caller, never shown.
    async fn capture(
        &self,
        record: waymark_protocol::TranscriptRecord,
    ) -> Result<(), waymark_protocol::ErrorBody>;
}

#[cfg(test)]
pub(crate) mod memory {
    //! The one in-memory [`Store`] of the native tests.

    use super::{Store, StoreError};
    use std::cell::{Cell, RefCell};
    use std::collections::BTreeMap;

    /// `chrome.storage.local` stand-in: `refuse_writes` answers every write as a full quota
    /// does, `refuse_reads` every read as a storage that cannot be read.
    #[derive(Default)]
    pub struct MemStore {
        pub map: RefCell<BTreeMap<String, serde_json::Value>>,
        pub refuse_writes: Cell<bool>,
        pub refuse_reads: Cell<bool>,
    }

    impl MemStore {
        fn read(&self) -> Result<(), StoreError> {
            if self.refuse_reads.get() {
                return Err(StoreError("IO error: .../Local Extension Settings: read".into()));
            }
            Ok(())
        }
        fn write(&self) -> Result<(), StoreError> {
            if self.refuse_writes.get() {
                return Err(StoreError("Resource::kQuotaBytes quota exceeded".into()));
            }
            Ok(())
        }
    }

    impl Store for &MemStore {
        async fn get(
            &self,
            keys: &[String],
        ) -> Result<BTreeMap<String, serde_json::Value>, StoreError> {
            self.read()?;
            let map = self.map.borrow();
            Ok(keys.iter().filter_map(|k| Some((k.clone(), map.get(k)?.clone()))).collect())
        }
        async fn set(&self, items: Vec<(String, serde_json::Value)>) -> Result<(), StoreError> {
            self.write()?;
            self.map.borrow_mut().extend(items);
            Ok(())
        }
        async fn remove(&self, keys: &[String]) -> Result<(), StoreError> {
            self.write()?;
            let mut map = self.map.borrow_mut();
            for k in keys {
                map.remove(k);
            }
            Ok(())
        }
        async fn keys(&self) -> Result<Vec<String>, StoreError> {
            self.read()?;
            Ok(self.map.borrow().keys().cloned().collect())
        }
    }
}
