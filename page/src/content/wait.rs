//! The `wait` tool answered by the page itself: one request that resolves when what it waits
//! for is there (or the limit passes, or the document is left), woken by the page's own events
//! instead of the service worker asking every 200 ms. The decisions are [`Probe::ready`]'s and
//! [`Settled::is_quiet`]'s.

use super::settle::{next_change, page_leaving, settled};
use crate::action::{Probe, Settled};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/js/wait.js")]
extern "C" {
    /// Resolves at the next DOM mutation, the document's `load`, `pagehide`, or after `ms`.
    fn next_dom_change(ms: f64) -> js_sys::Promise;
}

/// Longest pause between two looks for a text: the visible text can also change without a
/// mutation (a stylesheet that loads, an animation that ends), which no event reports.
const TEXT_LOOK_MS: f64 = 1_000.0;
/// Pause between two looks while requests are in flight: their end mutates nothing and the
/// page's world tells it only when asked (`page_hooks.js`).
const PENDING_LOOK_MS: f64 = 50.0;
/// The shortest pause while the quiet is still owed (a busy page is not looked at on every
/// mutation).
const QUIET_LOOK_MS: f64 = 10.0;

fn now() -> f64 {
    web_sys::window().map(|w| super::dom::now(&w)).unwrap_or(0.0)
}

/// Whether the frame has loaded and shows `text`, and where it is.
pub(super) fn probe(text: Option<&str>) -> Probe {
    let document = web_sys::window().and_then(|w| w.document());
    Probe {
        loaded: document.as_ref().is_some_and(|d| d.ready_state() == "complete"),
        found: text.is_some_and(super::dom::has_text),
        url: document.and_then(|d| d.url().ok()).unwrap_or_default(),
    }
}

/// The page's answer once `text` is shown (or gone, [`Probe::ready`]), or after `within_ms`,
/// or when the document is left.
pub(super) async fn wait_for(text: &str, gone: bool, within_ms: f64) -> Probe {
    let started = now();
    loop {
        let report = probe(Some(text));
        let left = within_ms - (now() - started);
        if report.ready(gone) || page_leaving() || left <= 0.0 {
            return report;
        }
        if JsFuture::from(next_dom_change(left.min(TEXT_LOOK_MS))).await.is_err() {
            return report;
        }
    }
}

/// The page's report once it has been quiet for `quiet_ms` with nothing in flight, or after
/// `within_ms`, or when the document is left; its `quiet_ms` is [`Settled::quiet_for_wait`].
pub(super) async fn wait_quiet(quiet_ms: f64, within_ms: f64) -> Settled {
    let started = now();
    loop {
        let waited = now() - started;
        let mut report = settled();
        report.quiet_ms = report.quiet_for_wait(waited);
        let left = within_ms - waited;
        if report.is_quiet(quiet_ms) || page_leaving() || left <= 0.0 {
            return report;
        }
        let pause = if report.pending > 0 {
            PENDING_LOOK_MS
        } else {
            (quiet_ms - report.quiet_ms).max(QUIET_LOOK_MS)
        };
        if JsFuture::from(next_change(pause.min(left))).await.is_err() {
            return report;
        }
    }
}
