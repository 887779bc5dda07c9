//! Whether the page reacted to an action, and whether it has settled since: the content
//! script counts DOM mutations from the start of each action (a `MutationObserver`, which only
//! reads) and reports them, with the focus and URL it saw then, the page's in-flight requests
//! and what the action itself started and the page has not finished (requests sent since, a
//! debounce timer armed by its events: `page_hooks.js`, page-controlled, so it can only make
//! the service worker wait, up to its cap). The decision is [`Settled::is_settled`]'s; with a
//! window, [`settle`] waits here for it (one round trip, not one per poll).

use crate::action::{SETTLE_POLL_MS, SettleWindow, Settled};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/settle.js")]
extern "C" {
    /// Starts counting the page's mutations for the action about to run, notes the focus and
    /// URL, and marks the start for `page_hooks.js` (what the action starts is followed).
    pub(super) fn start_action();
    /// Notes the focus once the action ran (the click's own focus on its element is not the
    /// page reacting) and tells `page_hooks.js` the action's own events are over.
    pub(super) fn after_action();
    /// `[acted, mutations, ms since the last mutation or activity (or the action), focus or
    /// URL moved, started by the action and still running, all requests in flight, a new
    /// document is on its way]`.
    fn since_action(out: &mut [f64]);
    /// Resolves at the next DOM mutation, when the page is left, or after `ms`.
    pub(super) fn next_change(ms: f64) -> js_sys::Promise;
    /// The document is being left (`pagehide`): a wait answers at once.
    pub(super) fn page_leaving() -> bool;
    /// Before any action: the time left of the finite animations running now, at most 1 s.
    fn load_animating_ms() -> f64;
}

/// Longest wait, once per document, for what its loading started (see [`after_load`]).
const LOAD_CAP_MS: f64 = 800.0;

thread_local! {
    /// The document's loading has been waited for (or needed no wait): later observations
    /// read the page at once.
    static LOADED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the first observation of a document must wait for what its loading started: timers
/// it armed up to 600 ms ahead (`page_hooks.js`; a library showing a toast 150 ms after load)
/// still to fire, or a fade running. Page-controlled, so it only ever makes the observation
/// wait, once per document and at most [`LOAD_CAP_MS`].
pub(super) fn load_pending() -> bool {
    if LOADED.with(std::cell::Cell::get) {
        return false;
    }
    let report = settled();
    let pending = !report.acted && (report.waiting > 0 || load_animating_ms() > 0.0);
    if !pending {
        LOADED.with(|l| l.set(true));
    }
    pending
}

/// Waits until the timers the document's loading armed have fired and the fades they started
/// have ended (or an action began, or [`LOAD_CAP_MS`] passed); once per document.
pub(super) async fn after_load() {
    let start = web_sys::window().map(|w| super::dom::now(&w)).unwrap_or(0.0);
    loop {
        let report = settled();
        let animating = load_animating_ms();
        let elapsed = web_sys::window().map(|w| super::dom::now(&w)).unwrap_or(f64::MAX) - start;
        let quiet = report.waiting == 0 && animating <= 0.0 && report.quiet_ms >= LOOK_MS;
        if report.acted || quiet || elapsed >= LOAD_CAP_MS || page_leaving() {
            break;
        }
        let pause = if report.waiting > 0 { LOOK_MS } else { animating.max(LOOK_MS) };
        let pause = pause.min(LOAD_CAP_MS - elapsed);
        if wasm_bindgen_futures::JsFuture::from(next_change(pause)).await.is_err() {
            break;
        }
    }
    LOADED.with(|l| l.set(true));
}

/// What changed since the latest action in this document, and how quiet the page is now.
pub(super) fn settled() -> Settled {
    let mut out = [0.0; 8];
    since_action(&mut out);
    Settled {
        acted: out[0] > 0.0,
        mutations: out[1] as u32,
        quiet_ms: out[2],
        moved: out[3] > 0.0,
        pending: out[5] as u32,
        waiting: out[4] as u32,
        navigating: out[6] > 0.0,
        animating_ms: out[7].max(0.0),
        undone: super::readback::undone(),
    }
}

/// Shortest pause between two looks while waiting: timers and requests end without a DOM
/// mutation to wake the wait.
const LOOK_MS: f64 = 10.0;

/// The report once the page has settled for `window` (or straight away for a document that
/// saw no action), or after [`SETTLE_POLL_MS`] at the latest.
pub(super) async fn settle(window: SettleWindow) -> Settled {
    let window_start = web_sys::window().map(|w| super::dom::now(&w)).unwrap_or(0.0);
    loop {
        let report = settled();
        if !report.acted || report.is_settled(window) || report.navigating || page_leaving() {
            return report;
        }
        let elapsed = web_sys::window().map(|w| super::dom::now(&w)).unwrap_or(f64::MAX);
        if elapsed - window_start >= SETTLE_POLL_MS {
            return report;
        }
        // The quiet still owed, at least one short look later.
        let changed = report.mutations > 0 || report.moved;
        let owed = if changed { window.after_change_ms } else { window.without_change_ms };
        let pause = if report.waiting > 0 {
            LOOK_MS
        } else {
            (owed - report.quiet_ms).max(report.animating_ms).max(LOOK_MS)
        };
        if wasm_bindgen_futures::JsFuture::from(next_change(pause)).await.is_err() {
            return report;
        }
    }
}
