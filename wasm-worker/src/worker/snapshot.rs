//! A snapshot of the panel's session state, so a panel opened while the worker is stopped — or
//! first after the browser started — draws the session at once (the live state replaces it as
//! soon as the woken worker sends one). Written to `chrome.storage.session` (memory: the
//! quickest read) and to `chrome.storage.local` (what survives a browser restart). It holds no
//! secret and nothing of a running task, only what the stored sessions hold already.

use super::{Worker, chrome};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use waymark_page::js::to_js;

/// Storage key the panel reads on load (`extension/sidepanel.js`).
const SNAPSHOT_KEY: &str = "panel_snapshot";

#[wasm_bindgen]
extern "C" {
    /// `chrome.storage.session.set(items)`: memory only, cleared when the browser quits.
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = set)]
    fn session_storage_set(items: &JsValue) -> js_sys::Promise;
}

/// Writes the snapshot (after the session changed); failures (a full storage) only cost the
/// fast start.
pub(super) fn save(w: &Rc<Worker>) {
    let Ok(value) = to_js(&w.app.state.borrow().snapshot().view()) else { return };
    let items = js_sys::Object::new();
    if js_sys::Reflect::set(&items, &JsValue::from_str(SNAPSHOT_KEY), &value).is_err() {
        return;
    }
    let writes = [session_storage_set(&items), chrome::storage_set(&items)];
    wasm_bindgen_futures::spawn_local(async move {
        for write in writes {
            if let Err(e) = JsFuture::from(write).await {
                // Only the panel's fast start is lost; the live state follows anyway.
                tracing::warn!(error = %crate::js_message(&e), "panel snapshot not saved");
            }
        }
    });
}
