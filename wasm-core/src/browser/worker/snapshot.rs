//! A snapshot of the panel's session state in `chrome.storage.session`, so a panel opened while
//! the worker is stopped draws the session at once (the live state replaces it as soon as the
//! woken worker sends one). It holds no secret and nothing of a running task.

use super::Worker;
use crate::browser::host_port::to_js;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Storage key the panel reads on load (`extension/sidepanel.js`).
const SNAPSHOT_KEY: &str = "panel_snapshot";

#[wasm_bindgen]
extern "C" {
    /// `chrome.storage.session.set(items)`: memory only, cleared when the browser quits.
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = set)]
    fn session_storage_set(items: &JsValue) -> js_sys::Promise;
}

/// Writes the snapshot (after the session changed); failures only cost the fast start.
pub(super) fn save(w: &Rc<Worker>) {
    let Ok(value) = to_js(&w.state.borrow().snapshot()) else { return };
    let items = js_sys::Object::new();
    if js_sys::Reflect::set(&items, &JsValue::from_str(SNAPSHOT_KEY), &value).is_err() {
        return;
    }
    let promise = session_storage_set(&items);
    wasm_bindgen_futures::spawn_local(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    });
}
