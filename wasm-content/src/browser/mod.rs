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

#[path = "../../../wasm-core/src/browser/js.rs"]
mod js;
pub(crate) use js::{js_error, js_message};
