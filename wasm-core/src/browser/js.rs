//! Errors across the JS boundary, shared by waymark-core and the content build (which includes
//! this file by path).

use wasm_bindgen::{JsCast, JsValue};

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
