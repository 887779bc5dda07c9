//! The session in `chrome.storage.local`: one key per turn plus a small header.

use super::chrome;
use super::env::BrowserEnv;
use crate::agent::Env;
use crate::browser::host_port::to_js;
use crate::session::{Session, TaskRecord};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

const CURRENT_SESSION_KEY: &str = "current_session";

/// A fresh, empty session.
pub(super) fn new_session() -> Session {
    let id = format!("{:x}{:08x}", js_sys::Date::now() as u64, BrowserEnv.random_u64() as u32);
    Session { id, title: String::new(), created_ms: js_sys::Date::now(), records: Vec::new() }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct SessionMeta {
    id: String,
    title: String,
    created_ms: f64,
    turns: u32,
}

async fn storage_get(key: &str) -> Option<JsValue> {
    let got = JsFuture::from(chrome::storage_get(&JsValue::from_str(key))).await.ok()?;
    let value = js_sys::Reflect::get(&got, &JsValue::from_str(key)).ok()?;
    (!value.is_undefined()).then_some(value)
}

/// The current session, if storage has one.
pub(super) async fn load_session() -> Option<Session> {
    let id = storage_get(CURRENT_SESSION_KEY).await?.as_string()?;
    let meta: SessionMeta =
        serde_wasm_bindgen::from_value(storage_get(&Session::meta_key(&id)).await?).ok()?;
    let mut records = Vec::with_capacity(meta.turns as usize);
    for turn in 1..=meta.turns {
        if let Some(v) = storage_get(&Session::turn_key(&id, turn)).await
            && let Ok(record) = serde_wasm_bindgen::from_value::<TaskRecord>(v)
        {
            records.push(record);
        }
    }
    Some(Session { id: meta.id, title: meta.title, created_ms: meta.created_ms, records })
}

/// Writes one turn and the small session header: cost proportional to the turn.
pub(super) async fn save_turn(session: &Session, record: &TaskRecord) -> Result<(), JsValue> {
    let items = js_sys::Object::new();
    let meta = SessionMeta {
        id: session.id.clone(),
        title: session.title.clone(),
        created_ms: session.created_ms,
        turns: record.turn,
    };
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&items, &JsValue::from_str(k), &v);
    set(CURRENT_SESSION_KEY, JsValue::from_str(&session.id))?;
    set(&Session::meta_key(&session.id), to_js(&meta).map_err(crate::browser::js_error)?)?;
    set(
        &Session::turn_key(&session.id, record.turn),
        to_js(record).map_err(crate::browser::js_error)?,
    )?;
    JsFuture::from(chrome::storage_set(&items)).await?;
    Ok(())
}

const INTERVENTION_SETTINGS_KEY: &str = "settings:interventions";

/// The user's intervention and attention settings, if they changed any.
pub(super) async fn load_intervention_settings() -> Option<crate::agent::InterventionSettings> {
    serde_wasm_bindgen::from_value(storage_get(INTERVENTION_SETTINGS_KEY).await?).ok()
}

/// Stores the intervention and attention settings.
pub(super) async fn save_intervention_settings(
    settings: &crate::agent::InterventionSettings,
) -> Result<(), JsValue> {
    let items = js_sys::Object::new();
    js_sys::Reflect::set(
        &items,
        &JsValue::from_str(INTERVENTION_SETTINGS_KEY),
        &to_js(settings).map_err(crate::browser::js_error)?,
    )?;
    JsFuture::from(chrome::storage_set(&items)).await?;
    Ok(())
}
