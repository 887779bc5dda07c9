//! Bindings to the `chrome.*` extension APIs Waymark uses; nothing else names them.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
// The content script's own channel: one port per document (`wasm-worker/src/content_port.rs`).
export function connect_content(tabId, frameId, documentId) {
  return chrome.tabs.connect(tabId, { name: 'waymark-content', frameId, documentId });
}
export function take_content_reply(tabId, documentId, id) {
  return chrome.scripting
    .executeScript({
      target: { tabId, documentIds: [documentId] },
      func: (i) => globalThis.__waymark?.take?.(i),
      args: [id],
      injectImmediately: true,
    })
    .then((results) => (results && results[0] ? results[0].result : undefined));
}
export function inject_content(target) {
  return chrome.scripting
    .executeScript({ target, files: ['content.js'], injectImmediately: true })
    .then(() => undefined);
}
export function tab_frames(tabId) {
  return chrome.webNavigation.getAllFrames({ tabId });
}
export function tab_frame(tabId, frameId) {
  return chrome.webNavigation.getFrame({ tabId, frameId });
}
export function sleep_ms(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
export function last_error_message() {
  const e = chrome.runtime.lastError;
  return e ? String(e.message || e) : '';
}
export function extension_version() {
  return chrome.runtime.getManifest().version;
}
export function platform_info() {
  return chrome.runtime.getPlatformInfo();
}
export function runtime_id() {
  return chrome.runtime.id;
}
export function extension_url(path) {
  return chrome.runtime.getURL(path);
}
export function set_badge(text) {
  chrome.action.setBadgeText({ text }).catch(() => {});
  if (text) chrome.action.setBadgeBackgroundColor({ color: '#b3261e' }).catch(() => {});
}
export function notify(id, title, message) {
  if (!chrome.notifications) return;
  chrome.notifications.create(id, {
    type: 'basic', iconUrl: 'icon-128.png', title, message, priority: 2, requireInteraction: true,
  }).catch(() => {});
}
export function clear_notification(id) {
  if (chrome.notifications) chrome.notifications.clear(id).catch(() => {});
}
// Rule updates run one after the other, in the order Rust asked for them.
let dnrQueue = Promise.resolve();
export function dnr_update(removeRuleIds, addRules) {
  const run = () => chrome.declarativeNetRequest.updateSessionRules({
    removeRuleIds: Array.from(removeRuleIds), addRules,
  });
  const next = dnrQueue.then(run, run);
  dnrQueue = next.catch(() => {});
  return next;
}
export function dnr_session_rule_ids() {
  return chrome.declarativeNetRequest.getSessionRules().then((rules) => rules.map((r) => r.id));
}
// chrome.debugger, only for pinning an approved request's body (wasm-worker/src/pin.rs).
function debuggee(tabId) {
  if (!chrome.debugger) throw new Error('the debugger permission is missing');
  return { tabId };
}
export function debugger_attach(tabId) {
  return Promise.resolve().then(() => chrome.debugger.attach(debuggee(tabId), '1.3'));
}
export function debugger_detach(tabId) {
  return Promise.resolve().then(() => chrome.debugger.detach(debuggee(tabId)));
}
export function debugger_send(tabId, method, params) {
  return Promise.resolve().then(() => chrome.debugger.sendCommand(debuggee(tabId), method, params));
}
export function debugger_attached_tabs() {
  if (!chrome.debugger) return Promise.resolve([]);
  return chrome.debugger.getTargets().then((targets) =>
    targets.filter((t) => t.attached && t.tabId !== undefined).map((t) => t.tabId));
}
export function storage_keys() {
  const local = chrome.storage.local;
  return local.getKeys ? local.getKeys() : local.get(null).then((all) => Object.keys(all));
}
"#)]
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

#[wasm_bindgen(inline_js = r#"
// One offscreen document at a time: opening and closing are queued so they never overlap.
let offscreen = Promise.resolve();
function queue(step) {
  offscreen = offscreen.then(step).catch(() => {});
  return offscreen;
}
export function play_offscreen_sound() {
  if (!chrome.offscreen) return;
  queue(async () => {
    await chrome.offscreen.closeDocument().catch(() => {});
    await chrome.offscreen.createDocument({
      url: 'offscreen.html',
      reasons: ['AUDIO_PLAYBACK'],
      justification: 'A short sound when Waymark needs you and its side panel is closed.',
    });
  });
}
export function close_offscreen_sound() {
  if (chrome.offscreen) queue(() => chrome.offscreen.closeDocument().catch(() => {}));
}
"#)]
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
#[wasm_bindgen(inline_js = r#"
export function alarm_at(name, when) {
  if (!chrome.alarms) return;
  chrome.alarms.create(name, { when }).catch(() => {});
}
export function alarm_clear(name) {
  if (chrome.alarms) chrome.alarms.clear(name).catch(() => {});
}
export function utc_offset_minutes() {
  return -new Date().getTimezoneOffset();
}
"#)]
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
#[wasm_bindgen(inline_js = r#"
export function tab_loaded(tabId, ms) {
  return new Promise((resolve) => {
    let done = false;
    let timer = 0;
    const onUpdated = (id, info) => {
      if (id === tabId && info.status === 'complete') finish(true);
    };
    const onRemoved = (id) => {
      if (id === tabId) finish(false);
    };
    function finish(loaded) {
      if (done) return;
      done = true;
      chrome.tabs.onUpdated.removeListener(onUpdated);
      chrome.tabs.onRemoved.removeListener(onRemoved);
      clearTimeout(timer);
      resolve(loaded);
    }
    chrome.tabs.onUpdated.addListener(onUpdated);
    chrome.tabs.onRemoved.addListener(onRemoved);
    timer = setTimeout(() => finish(false), ms);
    // Already loaded (or gone) before the listeners were added.
    chrome.tabs.get(tabId).then((t) => { if (t.status === 'complete') finish(true); }, () => finish(false));
  });
}
"#)]
extern "C" {
    /// Resolves to `true` once tab `tab_id` has finished loading (at once when it has), to
    /// `false` when it closes or `ms` pass first: an event, not a poll.
    #[wasm_bindgen(js_name = tab_loaded)]
    pub fn tab_loaded(tab_id: i32, ms: f64) -> js_sys::Promise;
}
