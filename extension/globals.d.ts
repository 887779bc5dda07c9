// What the extension's scripts add to their global object (hand-written for `checkJs`, see
// jsconfig.json; never shipped).
interface Window {
  /** Set once `page_hooks.js` has wrapped the page's functions (it runs at most once). */
  __waymarkHooks?: boolean;
}
