//! The content script: reads the page and performs actions, inside the tab.
//!
//! `extension/content.js` loads this crate (real wasm, or the wasm2js build when the page's CSP
//! blocks WebAssembly) and forwards each request from the service worker to [`content_handle`].

mod act;
mod dom;

use crate::action::ContentRequest;
use wasm_bindgen::prelude::*;

/// Handles one request from the service worker; `engine` says which build is running.
#[wasm_bindgen]
pub fn content_handle(msg: JsValue, engine: String) -> Result<JsValue, JsValue> {
    let request: ContentRequest = serde_wasm_bindgen::from_value(msg)
        .map_err(|e| super::js_error(format!("bad request to the content script: {e}")))?;
    let reply = match request {
        ContentRequest::Observe => super::host_port::to_js(&dom::observe(engine)?),
        ContentRequest::Act { action } => super::host_port::to_js(&act::perform(&action)),
    };
    reply.map_err(super::js_error)
}
