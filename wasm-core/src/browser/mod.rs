//! Browser adapters (wasm only): thin glue between `chrome.*`/the DOM and the core.
//!
//! * [`worker`] runs in the extension's service worker: the agent, the native port, storage.
//! * [`content`] runs in a tab's content script: reads the DOM and performs actions.
//! * [`chrome`] is the one module that names `chrome.*` APIs.

pub mod chrome;
pub mod content;
mod host_port;
mod inject;
mod tab;
pub(crate) mod upload;
pub mod worker;

use wasm_bindgen::JsValue;

/// Converts any displayable error into a JS `Error` with that message.
pub(crate) fn js_error(message: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&message.to_string()).into()
}

/// The message of a JS exception or value, for error reports.
pub(crate) fn js_message(value: &JsValue) -> String {
    if let Some(err) = value.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

use wasm_bindgen::JsCast;
