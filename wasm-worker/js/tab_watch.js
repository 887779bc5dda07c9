// @ts-check
// What a tab does after a call that may move it (`wasm-worker/src/tab/watch.rs`): the listeners
// are added before the call, so nothing it causes is missed, and each event is handed to Rust,
// which decides what it means. JS only listens and resolves.
export class TabWatch {
  /** @param {number} tabId */
  constructor(tabId) {
    /** @type {string[]} */
    this.seen = [];
    /** @type {((kind: string | null) => void) | null} */
    this.wake = null;
    /** @param {string} kind */
    const note = (kind) => {
      const wake = this.wake;
      this.wake = null;
      if (wake) wake(kind);
      else this.seen.push(kind);
    };
    /** @type {(id: number, info: chrome.tabs.OnUpdatedInfo) => void} */
    this.onUpdated = (id, info) => {
      if (id !== tabId) return;
      if (info.status === 'loading') note('loading');
      else if (info.url !== undefined) note('url');
    };
    /** @param {chrome.tabs.Tab} tab */
    this.onCreated = (tab) => {
      if (tab.openerTabId === tabId) note('opened');
    };
    /** @param {number} id */
    this.onRemoved = (id) => {
      if (id === tabId) note('removed');
    };
    chrome.tabs.onUpdated.addListener(this.onUpdated);
    chrome.tabs.onCreated.addListener(this.onCreated);
    chrome.tabs.onRemoved.addListener(this.onRemoved);
  }

  /**
   * The oldest event not handed out yet, or the next one; `null` when none comes within `ms`.
   * @param {number} ms
   * @returns {Promise<string | null>}
   */
  next(ms) {
    const kind = this.seen.shift();
    if (kind !== undefined) return Promise.resolve(kind);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve(null);
      }, ms);
      this.wake = (k) => {
        clearTimeout(timer);
        resolve(k);
      };
    });
  }

  stop() {
    chrome.tabs.onUpdated.removeListener(this.onUpdated);
    chrome.tabs.onCreated.removeListener(this.onCreated);
    chrome.tabs.onRemoved.removeListener(this.onRemoved);
    const wake = this.wake;
    this.wake = null;
    if (wake) wake(null);
  }
}
