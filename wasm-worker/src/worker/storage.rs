//! Sessions in `chrome.storage.local`: per session a small header (`session:{id}:meta`) and one
//! key per turn (`session:{id}:turn:{NNNNNN}`), plus `current_session`. A turn's write carries
//! that turn and the bounded header, never the whole session; nothing already stored is
//! rewritten or removed by a write, so a failed write (quota) loses nothing.

use super::chrome;
use super::env::BrowserEnv;
use crate::host_port::to_js;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use waymark_core::agent::Env;
use waymark_core::session::{Session, SessionMeta, TaskRecord};

const CURRENT_SESSION_KEY: &str = "current_session";

/// Why a write to `chrome.storage.local` did not happen (nothing already stored is changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum StorageError {
    /// The value could not be turned into what the storage keeps.
    #[error("it could not be encoded for storage: {0}")]
    Encode(String),
    /// The browser refused the write (its quota, most often), in its words.
    #[error("{0}")]
    Browser(String),
}

fn refused(e: JsValue) -> StorageError {
    StorageError::Browser(crate::js_message(&e))
}

fn encoded<T: serde::Serialize>(value: &T) -> Result<JsValue, StorageError> {
    to_js(value).map_err(StorageError::Encode)
}

/// A fresh, empty session.
pub(super) fn new_session() -> Session {
    let now = BrowserEnv.now_ms();
    let id = format!("{:x}{:08x}", now as u64, BrowserEnv.random_u64() as u32);
    Session::new(id, now)
}

async fn get_many(keys: &[String]) -> Option<JsValue> {
    let array: js_sys::Array = keys.iter().map(|k| JsValue::from_str(k)).collect();
    JsFuture::from(chrome::storage_get(&array)).await.ok()
}

async fn storage_get(key: &str) -> Option<JsValue> {
    let got = JsFuture::from(chrome::storage_get(&JsValue::from_str(key))).await.ok()?;
    let value = js_sys::Reflect::get(&got, &JsValue::from_str(key)).ok()?;
    (!value.is_undefined()).then_some(value)
}

fn field(object: &JsValue, key: &str) -> Option<JsValue> {
    let value = js_sys::Reflect::get(object, &JsValue::from_str(key)).ok()?;
    (!value.is_undefined()).then_some(value)
}

/// The current session, if storage has one.
pub(super) async fn load_current() -> Option<Session> {
    let id = storage_get(CURRENT_SESSION_KEY).await?.as_string()?;
    load_session(&id).await
}

/// One stored session with all its turns (one `get` for all of them).
pub(super) async fn load_session(id: &str) -> Option<Session> {
    let meta: SessionMeta =
        serde_wasm_bindgen::from_value(storage_get(&Session::meta_key(id)).await?).ok()?;
    let keys: Vec<String> = (1..=meta.turns).map(|t| Session::turn_key(id, t)).collect();
    let got = get_many(&keys).await?;
    let mut records = Vec::new();
    let mut unreadable = Vec::new();
    for (turn, key) in (1..).zip(&keys) {
        match field(&got, key).map(serde_wasm_bindgen::from_value::<TaskRecord>) {
            Some(Ok(record)) => records.push(record),
            Some(Err(e)) => {
                tracing::warn!(turn, error = %e, "a stored turn could not be read");
                unreadable.push(turn);
            }
            None => unreadable.push(turn),
        }
    }
    Some(Session::from_parts(meta, records, unreadable))
}

/// The headers of every stored session (turns are not read).
pub(super) async fn list_metas() -> Vec<SessionMeta> {
    list_metas_counted().await.0
}

/// [`list_metas`], and how many stored headers could not be read (those sessions are missing
/// from the list; their data stays in storage untouched).
pub(super) async fn list_metas_counted() -> (Vec<SessionMeta>, usize) {
    let Ok(keys) = JsFuture::from(chrome::storage_keys()).await else { return (Vec::new(), 0) };
    let keys: Vec<String> = js_sys::Array::from(&keys)
        .iter()
        .filter_map(|k| k.as_string())
        .filter(|k| Session::id_of_meta_key(k).is_some())
        .collect();
    let Some(got) = get_many(&keys).await else { return (Vec::new(), 0) };
    let mut metas = Vec::new();
    let mut unreadable = 0;
    for (key, value) in keys.iter().filter_map(|k| field(&got, k).map(|v| (k, v))) {
        match serde_wasm_bindgen::from_value(value) {
            Ok(meta) => metas.push(meta),
            Err(e) => {
                tracing::warn!(key, error = %e, "a stored session header could not be read");
                unreadable += 1;
            }
        }
    }
    (metas, unreadable)
}

/// Every stored session in full (for the search index, built once on the first search).
pub(super) async fn load_all() -> Vec<Session> {
    let mut sessions = Vec::new();
    for meta in list_metas().await {
        if let Some(s) = load_session(&meta.id).await {
            sessions.push(s);
        }
    }
    sessions
}

/// Writes turns of `session` (the new one, and any earlier write that failed) with the header,
/// and, if asked, makes it the current session. Cost: those turns plus the bounded header.
pub(super) async fn save_turns(
    session: &Session,
    turns: &[u32],
    make_current: bool,
) -> Result<(), StorageError> {
    let items = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        js_sys::Reflect::set(&items, &JsValue::from_str(k), &v).map(|_| ()).map_err(refused)
    };
    if make_current {
        set(CURRENT_SESSION_KEY, JsValue::from_str(&session.id))?;
    }
    set(&Session::meta_key(&session.id), encoded(&session.meta())?)?;
    for record in turns.iter().filter_map(|&t| session.turn(t)) {
        set(&Session::turn_key(&session.id, record.turn), encoded(record)?)?;
    }
    JsFuture::from(chrome::storage_set(&items)).await.map(|_| ()).map_err(refused)
}

/// Writes only the header (a rename).
pub(super) async fn save_meta(session: &Session, make_current: bool) -> Result<(), StorageError> {
    save_turns(session, &[], make_current).await
}

/// Makes `id` the current session without writing anything else.
pub(super) async fn set_current(id: &str) -> Result<(), StorageError> {
    let items = js_sys::Object::new();
    js_sys::Reflect::set(&items, &JsValue::from_str(CURRENT_SESSION_KEY), &JsValue::from_str(id))
        .map_err(refused)?;
    JsFuture::from(chrome::storage_set(&items)).await.map(|_| ()).map_err(refused)
}

/// Removes a session's header and turns.
pub(super) async fn delete_session(id: &str, turns: u32) -> Result<(), StorageError> {
    let keys: js_sys::Array = std::iter::once(Session::meta_key(id))
        .chain((1..=turns).map(|t| Session::turn_key(id, t)))
        .map(|k| JsValue::from_str(&k))
        .collect();
    JsFuture::from(chrome::storage_remove(&keys)).await.map(|_| ()).map_err(refused)
}

const INTERVENTION_SETTINGS_KEY: &str = "settings:interventions";

/// The user's intervention and attention settings, if they changed any.
pub(super) async fn load_intervention_settings() -> Option<waymark_core::agent::InterventionSettings>
{
    serde_wasm_bindgen::from_value(storage_get(INTERVENTION_SETTINGS_KEY).await?).ok()
}

/// Stores the intervention and attention settings.
pub(super) async fn save_intervention_settings(
    settings: &waymark_core::agent::InterventionSettings,
) -> Result<(), StorageError> {
    save_json(INTERVENTION_SETTINGS_KEY, settings).await
}

/// Any JSON value stored under `key` (panel and agent settings, history, usage).
pub(super) async fn load_json<T: serde::de::DeserializeOwned>(key: &str) -> Option<T> {
    serde_wasm_bindgen::from_value(storage_get(key).await?).ok()
}

/// Stores `value` under `key`.
pub(super) async fn save_json<T: serde::Serialize>(
    key: &str,
    value: &T,
) -> Result<(), StorageError> {
    let items = js_sys::Object::new();
    js_sys::Reflect::set(&items, &JsValue::from_str(key), &encoded(value)?).map_err(refused)?;
    JsFuture::from(chrome::storage_set(&items)).await.map(|_| ()).map_err(refused)
}
