//! Values across the JS boundary, shared by the content script and the worker's adapters: one
//! definition of how an error becomes a JS `Error` and how a reply becomes a plain object.

use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

/// Converts any displayable error into a JS `Error` with that message.
pub fn js_error(message: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&message.to_string()).into()
}

/// The message of a JS exception or value, for error reports.
pub fn js_message(value: &JsValue) -> String {
    if let Some(err) = value.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

/// Plain-object serialisation (maps as objects, u64 as numbers): what `chrome.runtime`
/// messaging and the JS glue expect.
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, String> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| e.to_string())
}
