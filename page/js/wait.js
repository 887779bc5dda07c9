// @ts-check
// A `wait` for a text, woken by the page instead of asked again and again
// (`page/src/content/wait.rs`): resolves at the next DOM mutation, the document's load, the
// document being left, or after `ms`. Rust looks at the page again and decides.
/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
export function next_dom_change(ms) {
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => done());
    const done = () => {
      observer.disconnect();
      clearTimeout(timer);
      removeEventListener('load', done);
      removeEventListener('pagehide', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    addEventListener('load', done);
    addEventListener('pagehide', done);
  });
}
