//! A snapshot of the panel's session state in `chrome.storage.local`, so a panel opened while
//! the worker is stopped — or first after the browser started — draws the session at once (the
//! live state replaces it as soon as the woken worker sends one). It holds no secret and
//! nothing of a running task, only what the stored sessions hold already.

use super::{Worker, chrome};
use crate::browser::host_port::to_js;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Storage key the panel reads on load (`extension/sidepanel.js`).
const SNAPSHOT_KEY: &str = "panel_snapshot";

/// Writes the snapshot (after the session changed); failures (a full storage) only cost the
/// fast start.
pub(super) fn save(w: &Rc<Worker>) {
    let Ok(value) = to_js(&w.state.borrow().snapshot()) else { return };
    let items = js_sys::Object::new();
    if js_sys::Reflect::set(&items, &JsValue::from_str(SNAPSHOT_KEY), &value).is_err() {
        return;
    }
    let promise = chrome::storage_set(&items);
    wasm_bindgen_futures::spawn_local(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    });
}
