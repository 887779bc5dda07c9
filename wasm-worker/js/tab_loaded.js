// @ts-check
// A tab's load, awaited on `chrome.tabs` events instead of polled (`wasm-worker/src/chrome.rs`).
/**
 * @param {number} tabId
 * @param {number} ms
 * @returns {Promise<boolean>}
 */
export function tab_loaded(tabId, ms) {
  return new Promise((resolve) => {
    let done = false;
    let timer = 0;
    /** @type {(id: number, info: chrome.tabs.OnUpdatedInfo) => void} */
    const onUpdated = (id, info) => {
      if (id === tabId && info.status === 'complete') finish(true);
    };
    /** @param {number} id */
    const onRemoved = (id) => {
      if (id === tabId) finish(false);
    };
    /** @param {boolean} loaded */
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
