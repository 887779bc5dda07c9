// @ts-check
// `chrome.alarms`, for routines (`wasm-worker/src/chrome.rs`, `alarms.rs`).
/**
 * @param {string} name
 * @param {number} when ms since the epoch
 */
export function alarm_at(name, when) {
  if (!chrome.alarms) return;
  chrome.alarms.create(name, { when }).catch(() => {});
}
/** @param {string} name */
export function alarm_clear(name) {
  if (chrome.alarms) chrome.alarms.clear(name).catch(() => {});
}
export function utc_offset_minutes() {
  return -new Date().getTimezoneOffset();
}
