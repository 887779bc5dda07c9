// @ts-check
// Whether the page settled after an action: its mutations, focus and URL changes, and what
// `page_hooks.js` counts in the page's world (`page/src/content/settle.rs`).
/** @type {MutationObserver | null} */
let observer = null;
let mutations = 0;
let last = 0;
let started = 0;
let acted = false;
/** @type {Element | null} */
let focus = null;
let url = '';
/** @type {ReturnType<typeof setTimeout> | undefined} */
let idle;
let waiting = 0;
let activity = 0;
let pending = 0;
// What a `waymark-*` event of `page_hooks.js` carries.
/** @param {Event} e */
const detailOf = (e) => /** @type {CustomEvent} */ (e).detail;
/** @param {Event} e */
const onPending = (e) => {
  const n = detailOf(e);
  if (typeof n === 'number' && n >= 0) pending = n;
};
/** @param {Event} e */
const onWaiting = (e) => {
  const n = detailOf(e);
  if (typeof n === 'number' && n >= 0) waiting = n;
};
/** @param {Event} e */
const onActivity = (e) => {
  const n = detailOf(e);
  if (typeof n === 'number' && n >= 0) activity = n;
};
/** @type {(() => void) | null} */
let wake = null;
function stop() {
  if (observer) observer.disconnect();
  observer = null;
}
export function start_action() {
  mutations = 0;
  navigating = false;
  acted = true;
  last = performance.now();
  started = last;
  focus = document.activeElement;
  url = location.href;
  if (!observer) {
    observer = new MutationObserver((records) => {
      mutations += records.length;
      last = performance.now();
      if (wake) wake();
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  // Counting stops once nobody asks: a page animating for ever costs nothing after that.
  clearTimeout(idle);
  idle = setTimeout(stop, 20000);
  document.dispatchEvent(new CustomEvent('waymark-mark', { detail: 1 }));
}
export function after_action() {
  focus = document.activeElement;
  document.dispatchEvent(new CustomEvent('waymark-mark', { detail: 0 }));
}
/** @param {Float64Array} out */
export function since_action(out) {
  waiting = 0;
  activity = 0;
  pending = 0;
  document.addEventListener('waymark-pending', onPending, true);
  document.addEventListener('waymark-waiting', onWaiting, true);
  document.addEventListener('waymark-activity', onActivity, true);
  try {
    document.dispatchEvent(new CustomEvent('waymark-ask-settle'));
  } finally {
    document.removeEventListener('waymark-pending', onPending, true);
    document.removeEventListener('waymark-waiting', onWaiting, true);
    document.removeEventListener('waymark-activity', onActivity, true);
  }
  const now = performance.now();
  // The page's clock may only shorten the quiet, never move it before the action.
  const latest = Math.max(last, started, Math.min(activity, now));
  out[0] = acted ? 1 : 0;
  out[1] = mutations;
  out[2] = now - latest;
  out[3] = acted && (document.activeElement !== focus || location.href !== url) ? 1 : 0;
  out[4] = waiting;
  out[5] = pending;
  out[6] = navigating ? 1 : 0;
  out[7] = acted ? animating_ms() : 0;
}
// Before any action: how long the finite animations running now still take (a toast the page
// fades in as it loads), at most a second.
export function load_animating_ms() {
  if (acted) return 0;
  // A class the page's timer just changed starts its transition only once styles are
  // computed again: computed now, so that the fade is seen before the walk reads it.
  void document.documentElement.getBoundingClientRect();
  return animating_ms();
}
// The longest time left of the finite animations and transitions started since the action (a
// dropdown fading in is not yet what a person sees), at most a second; endless ones (a
// spinner) and those that ran before the action do not count.
function animating_ms() {
  let left = 0;
  for (const a of document.getAnimations()) {
    // One whose start time is not set yet starts at the next frame: it is new.
    if (a.playState !== 'running' || (a.startTime !== null && +a.startTime < started - 1)) continue;
    const timing = a.effect ? a.effect.getComputedTiming() : null;
    const end = timing ? Number(timing.endTime) : Infinity;
    const at = timing && timing.localTime !== null ? Number(timing.localTime) : 0;
    if (Number.isFinite(end) && end - at > left) left = end - at;
  }
  return Math.min(left, 1000);
}
// A new document is on its way since the action started (the Navigation API's `navigate` for
// another document, not cancelled by the page): the page is being left, which ends a wait.
let navigating = false;
const navigation = /** @type {{ navigation?: EventTarget }} */ (/** @type {unknown} */ (globalThis)).navigation;
navigation?.addEventListener('navigate', (e) => {
  const to = /** @type {{ destination?: { sameDocument?: boolean } }} */ (/** @type {unknown} */ (e)).destination;
  if (!to || to.sameDocument) return;
  // Once every listener has run: the page's own may still cancel it.
  setTimeout(() => {
    if (e.defaultPrevented || !acted) return;
    navigating = true;
    if (wake) wake();
  }, 0);
});
let leaving = false;
addEventListener('pagehide', () => {
  leaving = true;
  if (wake) wake();
});
addEventListener('pageshow', () => {
  leaving = false;
});
export function page_leaving() {
  return leaving;
}
/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
export function next_change(ms) {
  return new Promise((resolve) => {
    const done = () => {
      wake = null;
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, ms);
    wake = done;
  });
}
