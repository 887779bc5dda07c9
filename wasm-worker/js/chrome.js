// @ts-check
// Chrome's extension APIs as the worker's wasm calls them (`wasm-worker/src/chrome.rs`): each
// function only calls Chrome; what its answer means is decided in Rust.
// The content script's own channel: one port per document (`wasm-worker/src/content_port.rs`).
/**
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} documentId
 */
export function connect_content(tabId, frameId, documentId) {
  return chrome.tabs.connect(tabId, { name: 'waymark-content', frameId, documentId });
}
/**
 * @param {number} tabId
 * @param {string} documentId
 * @param {number} id
 */
export function take_content_reply(tabId, documentId, id) {
  return chrome.scripting
    .executeScript({
      target: { tabId, documentIds: [documentId] },
      func: (/** @type {number} */ i) => globalThis.__waymark?.take?.(i),
      args: [id],
      injectImmediately: true,
    })
    .then((results) => (results && results[0] ? results[0].result : undefined));
}
/** @param {chrome.scripting.InjectionTarget} target */
export function inject_content(target) {
  return chrome.scripting
    .executeScript({ target, files: ['content.js'], injectImmediately: true })
    .then(() => undefined);
}
/** @param {number} tabId */
export function tab_frames(tabId) {
  return chrome.webNavigation.getAllFrames({ tabId });
}
/**
 * @param {number} tabId
 * @param {number} frameId
 */
export function tab_frame(tabId, frameId) {
  return chrome.webNavigation.getFrame({ tabId, frameId });
}
/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
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
/** @param {string} path */
export function extension_url(path) {
  return chrome.runtime.getURL(path);
}
/** @param {string} text */
export function set_badge(text) {
  chrome.action.setBadgeText({ text }).catch(() => {});
  if (text) chrome.action.setBadgeBackgroundColor({ color: '#b3261e' }).catch(() => {});
}
/**
 * @param {string} id
 * @param {string} title
 * @param {string} message
 */
export function notify(id, title, message) {
  if (!chrome.notifications) return;
  chrome.notifications.create(id, {
    type: 'basic', iconUrl: 'icon-128.png', title, message, priority: 2, requireInteraction: true,
  }).catch(() => {});
}
/** @param {string} id */
export function clear_notification(id) {
  if (chrome.notifications) chrome.notifications.clear(id).catch(() => {});
}
// Rule updates run one after the other, in the order Rust asked for them.
/** @type {Promise<void>} */
let dnrQueue = Promise.resolve();
/**
 * @param {Iterable<number>} removeRuleIds
 * @param {chrome.declarativeNetRequest.Rule[]} addRules
 */
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
/**
 * @param {number} tabId
 * @returns {chrome.debugger.Debuggee}
 */
function debuggee(tabId) {
  if (!chrome.debugger) throw new Error('the debugger permission is missing');
  return { tabId };
}
/** @param {number} tabId */
export function debugger_attach(tabId) {
  return Promise.resolve().then(() => chrome.debugger.attach(debuggee(tabId), '1.3'));
}
/** @param {number} tabId */
export function debugger_detach(tabId) {
  return Promise.resolve().then(() => chrome.debugger.detach(debuggee(tabId)));
}
/**
 * @param {number} tabId
 * @param {string} method
 * @param {object} params
 */
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
