//! The browser side of the content build: waymark-core's content module and the two
//! helpers it uses from waymark-core's `browser` module.

#[path = "../../../wasm-core/src/browser/content/mod.rs"]
pub mod content;

/// Serialisation of replies, as `waymark-core`'s host port does it.
pub(crate) mod host_port {
    use serde::Serialize;
    use wasm_bindgen::JsValue;

    /// Plain-object serialisation (maps as objects, u64 as numbers) for the reply.
    pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, String> {
        value
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| e.to_string())
    }
}

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
