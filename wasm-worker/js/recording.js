// @ts-check
// `webNavigation` listeners only while recording (`wasm-worker/src/worker/recording.rs`):
// registered at the top of `sw.js` they would wake the worker for every page load of every tab.
/** @typedef {chrome.webNavigation.WebNavigationTransitionCallbackDetails} Committed */
/** @typedef {chrome.webNavigation.WebNavigationFramedCallbackDetails} Loaded */
/** @type {{ onCommitted: (d: Committed) => void, onLoaded: (d: Loaded) => void } | null} */
let watching = null;
/**
 * @param {(tabId: number, frameId: number, url: string, transition: string, qualifiers: string[]) => void} committed
 * @param {(tabId: number, frameId: number) => void} loaded
 */
export function watch_loads(committed, loaded) {
  unwatch_loads();
  /** @param {Committed} d */
  const onCommitted = (d) => committed(d.tabId, d.frameId, d.url, d.transitionType ?? '', d.transitionQualifiers ?? []);
  /** @param {Loaded} d */
  const onLoaded = (d) => loaded(d.tabId, d.frameId);
  chrome.webNavigation.onCommitted.addListener(onCommitted);
  chrome.webNavigation.onDOMContentLoaded.addListener(onLoaded);
  watching = { onCommitted, onLoaded };
}
export function unwatch_loads() {
  if (!watching) return;
  chrome.webNavigation.onCommitted.removeListener(watching.onCommitted);
  chrome.webNavigation.onDOMContentLoaded.removeListener(watching.onLoaded);
  watching = null;
}
