//! Bindings to the `chrome.*` extension APIs Waymark uses; nothing else names them.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/chrome.js")]
extern "C" {
    /// Opens a port to `content.js` in one document of a tab (`chrome.tabs.connect`, bound to
    /// `document_id` so it never reaches the document that replaced it); throws when the tab
    /// is gone. A document without the script closes the port without a word.
    #[wasm_bindgen(js_name = connect_content, catch)]
    pub fn connect_content(tab_id: i32, frame_id: u32, document_id: &str) -> Result<Port, JsValue>;

    /// The reply to request `id` that `content.js` in `document_id` kept for the worker (too
    /// long for its port): resolves to it, or `undefined` when the document has not kept it.
    #[wasm_bindgen(js_name = take_content_reply)]
    pub fn take_content_reply(tab_id: i32, document_id: &str, id: f64) -> js_sys::Promise;

    /// Injects `content.js` into the documents of `target` (a `chrome.scripting` injection
    /// target; it installs itself once per document).
    #[wasm_bindgen(js_name = inject_content)]
    pub fn inject_content(target: &JsValue) -> js_sys::Promise;

    /// `chrome.webNavigation.getAllFrames({tabId})`: every frame of the tab with its document.
    #[wasm_bindgen(js_name = tab_frames)]
    pub fn tab_frames(tab_id: i32) -> js_sys::Promise;

    /// `chrome.webNavigation.getFrame({tabId, frameId})`: the frame's document, or null.
    #[wasm_bindgen(js_name = tab_frame)]
    pub fn tab_frame(tab_id: i32, frame_id: u32) -> js_sys::Promise;

    /// Resolves after `ms` milliseconds (bounded waits and settling after actions).
    #[wasm_bindgen(js_name = sleep_ms)]
    pub fn sleep_ms(ms: u32) -> js_sys::Promise;

    /// `chrome.runtime.lastError.message`, or empty.
    #[wasm_bindgen(js_name = last_error_message)]
    pub fn last_error_message() -> String;

    /// The manifest version string.
    #[wasm_bindgen(js_name = extension_version)]
    pub fn extension_version() -> String;

    /// `chrome.runtime.getPlatformInfo()`: `{os, arch, nacl_arch}` (which host to install).
    #[wasm_bindgen(js_name = platform_info)]
    pub fn platform_info() -> js_sys::Promise;

    /// This extension's own ID (`chrome.runtime.id`).
    #[wasm_bindgen(js_name = runtime_id)]
    pub fn runtime_id() -> String;

    /// The URL of one of this extension's files (`chrome.runtime.getURL`): the core compares
    /// URLs with it rather than knowing how the browser spells its extension URLs.
    #[wasm_bindgen(js_name = extension_url)]
    pub fn extension_url(path: &str) -> String;

    /// `chrome.action.setBadgeText` (empty clears it); errors are ignored: a badge is a hint.
    #[wasm_bindgen(js_name = set_badge)]
    pub fn set_badge(text: &str);

    /// `chrome.notifications.create` with the extension icon; errors are ignored.
    #[wasm_bindgen(js_name = notify)]
    pub fn notify(id: &str, title: &str, message: &str);

    /// `chrome.notifications.clear`.
    #[wasm_bindgen(js_name = clear_notification)]
    pub fn clear_notification(id: &str);

    /// `chrome.declarativeNetRequest.updateSessionRules`: removes the rules `remove` and adds
    /// `add` (an array of rules) in one atomic update, after every update asked for before.
    #[wasm_bindgen(js_name = dnr_update)]
    pub fn dnr_update(remove: Vec<u32>, add: &JsValue) -> js_sys::Promise;

    /// The ids of this extension's session rules (`getSessionRules`).
    #[wasm_bindgen(js_name = dnr_session_rule_ids)]
    pub fn dnr_session_rule_ids() -> js_sys::Promise;

    /// `chrome.debugger.attach({tabId}, "1.3")`.
    #[wasm_bindgen(js_name = debugger_attach)]
    pub fn debugger_attach(tab_id: i32) -> js_sys::Promise;

    /// `chrome.debugger.detach({tabId})` (rejects when not attached by this extension).
    #[wasm_bindgen(js_name = debugger_detach)]
    pub fn debugger_detach(tab_id: i32) -> js_sys::Promise;

    /// `chrome.debugger.sendCommand({tabId}, method, params)`.
    #[wasm_bindgen(js_name = debugger_send)]
    pub fn debugger_send(tab_id: i32, method: &str, params: &JsValue) -> js_sys::Promise;

    /// The ids of tabs some debugger is attached to.
    #[wasm_bindgen(js_name = debugger_attached_tabs)]
    pub fn debugger_attached_tabs() -> js_sys::Promise;

    /// Every key in `chrome.storage.local` (`getKeys`, or the keys of `get(null)` before
    /// Chrome 130): the session list reads only the small headers.
    #[wasm_bindgen(js_name = storage_keys)]
    pub fn storage_keys() -> js_sys::Promise;
}

/// Resolves after `ms` milliseconds.
pub async fn sleep(ms: u32) {
    // A timer's promise only resolves: a rejection would mean broken glue, worth a line.
    if let Err(e) = wasm_bindgen_futures::JsFuture::from(sleep_ms(ms)).await {
        tracing::error!(error = %super::js_message(&e), "the timer failed");
    }
}

#[wasm_bindgen]
extern "C" {
    /// A `chrome.runtime.Port` (to the native host or to a side panel).
    #[derive(Clone, Debug)]
    pub type Port;

    /// `port.postMessage(msg)`; throws when the port is closed.
    #[wasm_bindgen(method, catch, js_name = postMessage)]
    pub fn post_message(this: &Port, msg: &JsValue) -> Result<(), JsValue>;

    /// `port.disconnect()`: the other end sees the port close (a native host sees EOF).
    #[wasm_bindgen(method)]
    pub fn disconnect(this: &Port);

    /// `port.onMessage`.
    #[wasm_bindgen(method, getter, js_name = onMessage)]
    pub fn on_message(this: &Port) -> ChromeEvent;

    /// `port.onDisconnect`.
    #[wasm_bindgen(method, getter, js_name = onDisconnect)]
    pub fn on_disconnect(this: &Port) -> ChromeEvent;

    /// `port.name`.
    #[wasm_bindgen(method, getter)]
    pub fn name(this: &Port) -> String;

    /// `port.sender` (who opened it), undefined for native ports.
    #[wasm_bindgen(method, getter)]
    pub fn sender(this: &Port) -> JsValue;

    /// A `chrome.events.Event`.
    pub type ChromeEvent;

    /// `event.addListener(fn)`.
    #[wasm_bindgen(method, js_name = addListener)]
    pub fn add_listener(this: &ChromeEvent, f: &js_sys::Function);

    /// `chrome.runtime.connectNative(name)`.
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = connectNative, catch)]
    pub fn connect_native(name: &str) -> Result<Port, JsValue>;

    /// `chrome.tabs.query(info)`.
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = query)]
    pub fn tabs_query(info: &JsValue) -> js_sys::Promise;

    /// `chrome.tabs.get(tabId)`.
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = get, catch)]
    pub fn tabs_get(tab_id: i32) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.tabs.update(tabId, props)` (url, active).
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = update, catch)]
    pub fn tabs_update(tab_id: i32, props: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.windows.update(id, props)`: `browser_resize` sets a window's size.
    #[wasm_bindgen(js_namespace = ["chrome", "windows"], js_name = update, catch)]
    pub fn windows_update(window_id: i32, props: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.tabs.create(props)`.
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = create, catch)]
    pub fn tabs_create(props: &JsValue) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.tabs.remove(tabId)`.
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = remove, catch)]
    pub fn tabs_remove(tab_id: i32) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.tabs.goBack(tabId)`.
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = goBack, catch)]
    pub fn tabs_go_back(tab_id: i32) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.tabs.goForward(tabId)`.
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = goForward, catch)]
    pub fn tabs_go_forward(tab_id: i32) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.tabs.reload(tabId)`.
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = reload, catch)]
    pub fn tabs_reload(tab_id: i32) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.tabs.captureVisibleTab(windowId, options)`: a data URL of the visible area.
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = captureVisibleTab, catch)]
    pub fn tabs_capture_visible(
        window_id: i32,
        options: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;

    /// `chrome.storage.local.set(items)`.
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = set)]
    pub fn storage_set(items: &JsValue) -> js_sys::Promise;

    /// `chrome.storage.local.remove(keys)`.
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = remove)]
    pub fn storage_remove(keys: &JsValue) -> js_sys::Promise;

    /// `chrome.storage.local.get(keys)`.
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = get)]
    pub fn storage_get(keys: &JsValue) -> js_sys::Promise;
}

#[wasm_bindgen(module = "/js/offscreen.js")]
extern "C" {
    /// Opens the offscreen document (reason `AUDIO_PLAYBACK`), which plays the attention
    /// sound once as it loads; an open one is closed first so the sound plays again.
    #[wasm_bindgen(js_name = play_offscreen_sound)]
    pub fn play_offscreen_sound();

    /// Closes the offscreen document, if one is open.
    #[wasm_bindgen(js_name = close_offscreen_sound)]
    pub fn close_offscreen_sound();
}

// `chrome.alarms`, for routines (see `alarms.rs`).
#[wasm_bindgen(module = "/js/alarms.js")]
extern "C" {
    /// Sets alarm `name` to fire at `when` (ms since the epoch), replacing one of that name;
    /// errors are ignored (the next start sets it again).
    #[wasm_bindgen(js_name = alarm_at)]
    pub fn alarm_at(name: &str, when: f64);

    /// Removes alarm `name`.
    #[wasm_bindgen(js_name = alarm_clear)]
    pub fn alarm_clear(name: &str);

    /// The user's UTC offset now, in minutes east.
    #[wasm_bindgen(js_name = utc_offset_minutes)]
    pub fn utc_offset_minutes() -> i32;
}

// A tab's load, awaited on `chrome.tabs` events instead of polled.
#[wasm_bindgen(module = "/js/tab_loaded.js")]
extern "C" {
    /// Resolves to `true` once tab `tab_id` has finished loading (at once when it has), to
    /// `false` when it closes or `ms` pass first: an event, not a poll.
    #[wasm_bindgen(js_name = tab_loaded)]
    pub fn tab_loaded(tab_id: i32, ms: f64) -> js_sys::Promise;
}
