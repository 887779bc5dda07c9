//! Whether the page reacted to an action, and whether it has settled since: the content
//! script counts DOM mutations from the start of each action (a `MutationObserver`, which only
//! reads) and reports them, with the focus and URL it saw then and the page's in-flight
//! requests (`page_hooks.js`, page-controlled: it can only make the service worker wait, up to
//! its cap). The service worker polls [`settled`] after each action and for `wait`.

use crate::action::Settled;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
let observer = null;
let mutations = 0;
let last = 0;
let acted = false;
let focus = null;
let url = '';
let idle = null;
function stop() {
  if (observer) observer.disconnect();
  observer = null;
}
export function start_action() {
  mutations = 0;
  acted = true;
  last = performance.now();
  focus = document.activeElement;
  url = location.href;
  if (!observer) {
    observer = new MutationObserver((records) => {
      mutations += records.length;
      last = performance.now();
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  // Counting stops once nobody asks: a page animating for ever costs nothing after that.
  clearTimeout(idle);
  idle = setTimeout(stop, 20000);
}
export function after_action() {
  focus = document.activeElement;
}
export function since_action(out) {
  out[0] = acted ? 1 : 0;
  out[1] = mutations;
  out[2] = performance.now() - last;
  out[3] = acted && (document.activeElement !== focus || location.href !== url) ? 1 : 0;
}
"#)]
extern "C" {
    /// Starts counting the page's mutations for the action about to run, and notes the focus
    /// and URL.
    pub(super) fn start_action();
    /// Notes the focus once the action ran: the click's own focus on its element is not the
    /// page reacting.
    pub(super) fn after_action();
    /// `[acted, mutations, ms since the last mutation (or the action), focus or URL moved]`.
    fn since_action(out: &mut [f64]);
}

/// What changed since the latest action in this document, and how quiet the page is now.
pub(super) fn settled() -> Settled {
    let mut out = [0.0; 4];
    since_action(&mut out);
    let pending = super::facts::ask_page_hooks();
    Settled {
        acted: out[0] > 0.0,
        mutations: out[1] as u32,
        quiet_ms: out[2],
        moved: out[3] > 0.0,
        pending,
    }
}
