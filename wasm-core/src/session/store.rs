//! Sessions in the extension's storage: per session a small header (`session:{id}:meta`) and
//! one key per turn (`session:{id}:turn:{NNNNNN}`), plus `current_session`. A turn's write
//! carries that turn and the bounded header, never the whole session; nothing already stored
//! is rewritten or removed by a write, so a refused write (the quota) loses nothing.
//!
//! Why here: what a damaged turn or header means (kept, numbered, reported; never overwritten)
//! is a decision, tested natively over an in-memory store.

use super::{Session, SessionMeta, TaskRecord};
use crate::platform::{Store, StoreError};

/// The key naming the current session.
pub const CURRENT_KEY: &str = "current_session";

/// The stored headers, and how many could not be read (those sessions are missing from the
/// list; their data stays in storage untouched).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listed {
    /// The headers that read.
    pub metas: Vec<SessionMeta>,
    /// Headers that did not.
    pub unreadable: usize,
}

/// The stored sessions in `S`.
pub struct SessionStore<S> {
    store: S,
}

fn encode<T: serde::Serialize>(value: &T) -> Result<serde_json::Value, StoreError> {
    serde_json::to_value(value).map_err(|e| StoreError(format!("could not encode: {e}")))
}

impl<S: Store> SessionStore<S> {
    /// The sessions in `store`.
    pub fn new(store: S) -> Self {
        Self { store }
    }

    /// The id of the current session, if one was made current.
    pub async fn current_id(&self) -> Result<Option<String>, StoreError> {
        let got = self.store.get(&[CURRENT_KEY.to_owned()]).await?;
        Ok(got.get(CURRENT_KEY).and_then(|v| v.as_str()).map(str::to_owned))
    }

    /// One stored session with the turns that read (one `get` for all of them); `None` when
    /// it has no readable header. A turn that does not read is numbered in
    /// [`Session::unreadable`] and stays in storage.
    pub async fn load(&self, id: &str) -> Result<Option<Session>, StoreError> {
        let meta_key = Session::meta_key(id);
        let got = self.store.get(std::slice::from_ref(&meta_key)).await?;
        let Some(meta) = got.get(&meta_key) else { return Ok(None) };
        let meta: SessionMeta = match serde_json::from_value(meta.clone()) {
            Ok(meta) => meta,
            Err(e) => {
                tracing::warn!(id, error = %e, "a stored session header could not be read");
                return Ok(None);
            }
        };
        let keys: Vec<String> = (1..=meta.turns).map(|t| Session::turn_key(id, t)).collect();
        let got = self.store.get(&keys).await?;
        let mut records = Vec::new();
        let mut unreadable = Vec::new();
        for (turn, key) in (1..).zip(&keys) {
            match got.get(key).map(|v| serde_json::from_value::<TaskRecord>(v.clone())) {
                Some(Ok(record)) => records.push(record),
                Some(Err(e)) => {
                    tracing::warn!(turn, error = %e, "a stored turn could not be read");
                    unreadable.push(turn);
                }
                None => unreadable.push(turn),
            }
        }
        Ok(Some(Session::from_parts(meta, records, unreadable)))
    }

    /// The current session, if storage names one that reads.
    pub async fn load_current(&self) -> Result<Option<Session>, StoreError> {
        match self.current_id().await? {
            Some(id) => self.load(&id).await,
            None => Ok(None),
        }
    }

    /// The headers of every stored session (turns are not read).
    pub async fn list(&self) -> Result<Listed, StoreError> {
        let keys: Vec<String> = self
            .store
            .keys()
            .await?
            .into_iter()
            .filter(|k| Session::id_of_meta_key(k).is_some())
            .collect();
        let got = self.store.get(&keys).await?;
        let mut listed = Listed::default();
        for (key, value) in &got {
            match serde_json::from_value(value.clone()) {
                Ok(meta) => listed.metas.push(meta),
                Err(e) => {
                    tracing::warn!(key, error = %e, "a stored session header could not be read");
                    listed.unreadable += 1;
                }
            }
        }
        Ok(listed)
    }

    /// Every stored session in full (for the search index, built once on the first search).
    pub async fn load_all(&self) -> Result<Vec<Session>, StoreError> {
        let mut sessions = Vec::new();
        for meta in self.list().await?.metas {
            if let Some(s) = self.load(&meta.id).await? {
                sessions.push(s);
            }
        }
        Ok(sessions)
    }

    /// Writes `turns` of `session` (the new one, and any earlier write that failed) with the
    /// header in one `set`, and, if asked, makes it the current session.
    pub async fn save_turns(
        &self,
        session: &Session,
        turns: &[u32],
        make_current: bool,
    ) -> Result<(), StoreError> {
        let mut items = Vec::with_capacity(turns.len() + 2);
        if make_current {
            items.push((CURRENT_KEY.to_owned(), serde_json::Value::from(session.id.as_str())));
        }
        items.push((Session::meta_key(&session.id), encode(&session.meta())?));
        for record in turns.iter().filter_map(|&t| session.turn(t)) {
            items.push((Session::turn_key(&session.id, record.turn), encode(record)?));
        }
        self.store.set(items).await
    }

    /// Writes only the header (a rename).
    pub async fn save_meta(&self, session: &Session, make_current: bool) -> Result<(), StoreError> {
        self.save_turns(session, &[], make_current).await
    }

    /// Makes `id` the current session without writing anything else.
    pub async fn set_current(&self, id: &str) -> Result<(), StoreError> {
        self.store.set(vec![(CURRENT_KEY.to_owned(), serde_json::Value::from(id))]).await
    }

    /// Removes a session's header and its `turns` turns.
    pub async fn delete(&self, id: &str, turns: u32) -> Result<(), StoreError> {
        let keys: Vec<String> = std::iter::once(Session::meta_key(id))
            .chain((1..=turns).map(|t| Session::turn_key(id, t)))
            .collect();
        self.store.remove(&keys).await
    }
}

#[cfg(test)]
mod tests;
