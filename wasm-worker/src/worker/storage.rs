//! `chrome.storage.local`: the core's [`Store`] (sessions, workflows, the task journal, usage;
//! their layouts are decided in `waymark_core`, natively tested) and a typed read of the
//! worker's own log level.

use super::chrome;
use std::collections::BTreeMap;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use waymark_core::platform::{Store, StoreError};
use waymark_page::js::to_js;

async fn storage_get(key: &str) -> Option<JsValue> {
    let got = JsFuture::from(chrome::storage_get(&JsValue::from_str(key))).await.ok()?;
    let value = js_sys::Reflect::get(&got, &JsValue::from_str(key)).ok()?;
    (!value.is_undefined()).then_some(value)
}

/// Any JSON value stored under `key` (panel and agent settings, history, usage).
pub(super) async fn load_json<T: serde::de::DeserializeOwned>(key: &str) -> Option<T> {
    serde_wasm_bindgen::from_value(storage_get(key).await?).ok()
}

/// `chrome.storage.local`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ChromeStore;

fn store_error(e: JsValue) -> StoreError {
    StoreError(crate::js_message(&e))
}

impl Store for ChromeStore {
    async fn get(
        &self,
        keys: &[String],
    ) -> Result<BTreeMap<String, serde_json::Value>, StoreError> {
        let array: js_sys::Array = keys.iter().map(|k| JsValue::from_str(k)).collect();
        let got = JsFuture::from(chrome::storage_get(&array)).await.map_err(store_error)?;
        let mut values = BTreeMap::new();
        for key in keys {
            let value = js_sys::Reflect::get(&got, &JsValue::from_str(key)).map_err(store_error)?;
            if value.is_undefined() {
                continue;
            }
            // A value that is not JSON data counts as unreadable (the journal reports it).
            let json = serde_wasm_bindgen::from_value(value).unwrap_or(serde_json::Value::Null);
            values.insert(key.clone(), json);
        }
        Ok(values)
    }

    async fn set(&self, items: Vec<(String, serde_json::Value)>) -> Result<(), StoreError> {
        let object = js_sys::Object::new();
        for (key, value) in items {
            let value = to_js(&value).map_err(|e| StoreError(e.to_string()))?;
            js_sys::Reflect::set(&object, &JsValue::from_str(&key), &value).map_err(store_error)?;
        }
        JsFuture::from(chrome::storage_set(&object)).await.map(drop).map_err(store_error)
    }

    async fn remove(&self, keys: &[String]) -> Result<(), StoreError> {
        let array: js_sys::Array = keys.iter().map(|k| JsValue::from_str(k)).collect();
        JsFuture::from(chrome::storage_remove(&array)).await.map(drop).map_err(store_error)
    }

    async fn keys(&self) -> Result<Vec<String>, StoreError> {
        let keys = JsFuture::from(chrome::storage_keys()).await.map_err(store_error)?;
        Ok(js_sys::Array::from(&keys).iter().filter_map(|k| k.as_string()).collect())
    }
}
