//! What the core needs of the platform it runs on, as traits: the worker implements them over
//! Chrome's APIs, the native tests over memory.
//!
//! Why a module of its own: the agent, the sessions, the workflows and the app all use these;
//! kept here they depend on none of those modules (no circle through `agent`).

use std::collections::BTreeMap;

/// Time and randomness.
pub trait Env {
    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// A random number, for delimiters the page cannot guess.
    fn random_u64(&self) -> u64;
    /// A monotonic clock with sub-millisecond resolution, for measuring the agent's overhead.
    fn precise_ms(&self) -> f64 {
        self.now_ms()
    }
}

/// The model, through the native host.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Llm {
    /// One completion. Streamed text is the adapter's business (the worker shows it in the
    /// panel as it arrives); the loop acts only on the finished answer.
    async fn complete(
        &self,
        request: waymark_protocol::LlmRequest,
    ) -> Result<waymark_protocol::LlmCompletion, waymark_protocol::ErrorBody>;
}

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

/// Stores `value` under `key`, encoded as JSON.
pub async fn save_value<T: serde::Serialize>(
    store: &impl Store,
    key: &str,
    value: &T,
) -> Result<(), StoreError> {
    let value =
        serde_json::to_value(value).map_err(|e| StoreError(format!("could not encode: {e}")))?;
    store.set(vec![(key.to_owned(), value)]).await
}

/// The value stored under `key`, if there is one that reads as a `T`; a store that cannot be
/// read, or a value that does not read (a newer Waymark wrote it), is logged and is none.
pub async fn load_value<T: serde::de::DeserializeOwned>(
    store: &impl Store,
    key: &str,
) -> Option<T> {
    let got = match store.get(&[key.to_owned()]).await {
        Ok(got) => got,
        Err(e) => {
            tracing::warn!(key, error = %e, "a stored value could not be read");
            return None;
        }
    };
    match serde_json::from_value(got.get(key)?.clone()) {
        Ok(value) => Some(value),
        Err(e) => {
            tracing::warn!(key, error = %e, "a stored value does not read");
            None
        }
    }
}

/// The native host: the model calls, the files it writes, its settings and checks.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Host {
    /// Sends one request and waits for its typed reply (or the host's error).
    async fn request<R: waymark_protocol::HostRequest>(
        &self,
        request: R,
    ) -> Result<R::Reply, waymark_protocol::ErrorBody>;
    /// Asks the host how it is (its status and models follow in the panel's state).
    async fn refresh(&self);
}

/// What the panels need after a change: the caller redraws accordingly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "the panel shows the change only once redrawn"]
pub enum Redraw {
    /// The current session or its data changed: its usage follows the session, its snapshot
    /// is saved, then the state is sent.
    Session,
    /// Only the view changed (a question, search results): the state is sent.
    View,
    /// Nothing the panel shows changed.
    Nothing,
}

/// The browser's alarms (they wake the worker for the routines) and the user's clock.
pub trait Alarms {
    /// Sets alarm `name` to fire at `when_ms` (ms since the epoch), replacing an earlier one.
    fn at(&self, name: &str, when_ms: f64);
    /// Clears alarm `name`.
    fn clear(&self, name: &str);
    /// The user's offset from UTC now, in minutes (schedules are in the user's local time).
    fn utc_offset_minutes(&self) -> i32;
}

/// A tab that did not do what was asked, in the browser's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TabError(pub String);

/// The user's tabs, for what the app itself starts in them (a recording).
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Tabs {
    /// The tab the user is looking at, and its address.
    async fn target(&self) -> Option<(i32, String)>;
    /// Starts or stops the reports of the user's steps in `tab`'s top frame; whether the
    /// page reports them now (its own answer).
    async fn arm_recording(&self, tab: i32, on: bool) -> Result<bool, TabError>;
    /// Follows (or stops following) the page loads of the recorded tab.
    fn watch_loads(&self, on: bool);
}

/// Everything of the platform a panel request may use, in one place.
pub trait Platform {
    /// The clock and randomness.
    type Env: Env;
    /// The native host.
    type Host: Host;
    /// The open side panels.
    type Panels: Panels;
    /// The browser's alarms.
    type Alarms: Alarms;
    /// The user's tabs.
    type Tabs: Tabs;
    /// The clock and randomness.
    fn env(&self) -> &Self::Env;
    /// The native host.
    fn host(&self) -> &Self::Host;
    /// The open side panels.
    fn panels(&self) -> &Self::Panels;
    /// The browser's alarms.
    fn alarms(&self) -> &Self::Alarms;
    /// The user's tabs.
    fn tabs(&self) -> &Self::Tabs;
}

/// The open side panels: a long request shows its progress before it ends ("Saving…").
pub trait Panels {
    /// Sends the panels the state now.
    fn show(&self, redraw: Redraw);
}

#[cfg(test)]
pub(crate) mod scripted {
    //! The one scripted [`Host`] of the native tests: it records every request as the wire
    //! carries it and answers with the replies the test scripted, read as the request's reply
    //! type (as the host's JSON reply is).

    use super::Host;
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use waymark_protocol::{ErrorBody, ErrorCode, HostRequest, RequestBody};

    /// Answers in order; with nothing scripted, it answers as a host that is not installed.
    #[derive(Default)]
    pub struct ScriptedHost {
        pub replies: RefCell<VecDeque<Result<serde_json::Value, ErrorBody>>>,
        pub seen: RefCell<Vec<RequestBody>>,
        pub refreshed: RefCell<u32>,
    }

    impl ScriptedHost {
        /// Queues the next reply.
        pub fn answer(&self, reply: Result<serde_json::Value, ErrorBody>) {
            self.replies.borrow_mut().push_back(reply);
        }
    }

    /// A clock that moves one second per reading; its random numbers differ per reading (the
    /// ids made from both are unique).
    #[derive(Default)]
    pub struct Clock(std::cell::Cell<u64>);

    impl super::Env for Clock {
        fn now_ms(&self) -> f64 {
            self.0.set(self.0.get() + 1);
            1_700_000_000_000.0 + 1000.0 * self.0.get() as f64
        }
        fn random_u64(&self) -> u64 {
            self.0.get()
        }
    }

    /// Open panels that count their redraws.
    #[derive(Default)]
    pub struct CountingPanels(pub std::cell::Cell<u32>);

    impl super::Panels for CountingPanels {
        fn show(&self, _redraw: super::Redraw) {
            self.0.set(self.0.get() + 1);
        }
    }

    impl Host for ScriptedHost {
        async fn request<R: HostRequest>(&self, request: R) -> Result<R::Reply, ErrorBody> {
            self.seen.borrow_mut().push(request.into());
            let reply = self.replies.borrow_mut().pop_front().unwrap_or_else(|| {
                Err(ErrorBody::new(ErrorCode::HostUnavailable, "no host reply was scripted"))
            });
            Ok(serde_json::from_value(reply?).expect("the scripted reply fits the request"))
        }
        async fn refresh(&self) {
            *self.refreshed.borrow_mut() += 1;
        }
    }
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
