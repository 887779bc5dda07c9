//! What a tab does after a call that may move it, on `chrome.tabs` events: the listeners go in
//! before the call (a navigation it starts at once is not missed), and the wait ends when the
//! event comes, not after a guessed pause. Always capped: a call may move nothing.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/js/tab_watch.js")]
extern "C" {
    /// The listeners of one tab (`js/tab_watch.js`).
    type TabWatch;
    #[wasm_bindgen(constructor)]
    fn new(tab_id: i32) -> TabWatch;
    /// The oldest event not handed out yet, or the next; `null` after `ms` without one.
    #[wasm_bindgen(method)]
    fn next(this: &TabWatch, ms: f64) -> js_sys::Promise;
    /// Removes the listeners (a pending `next` resolves to `null`).
    #[wasm_bindgen(method)]
    fn stop(this: &TabWatch);
}

/// One event of the watched tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TabEvent {
    /// It started loading a document (a navigation, a reload, a history move).
    Loading,
    /// Its address changed without a load (a fragment, `history.pushState`).
    Url,
    /// It opened another tab.
    Opened,
    /// It was closed.
    Removed,
}

impl TabEvent {
    fn from_kind(kind: &str) -> Option<Self> {
        match kind {
            "loading" => Some(Self::Loading),
            "url" => Some(Self::Url),
            "opened" => Some(Self::Opened),
            "removed" => Some(Self::Removed),
            _ => None,
        }
    }

    /// The tab itself moved: it left its document or changed its address.
    pub(super) fn moved(self) -> bool {
        matches!(self, Self::Loading | Self::Url)
    }
}

/// The listeners on one tab, from before a call until dropped.
pub(super) struct Watch(TabWatch);

impl Watch {
    /// Starts listening to `tab` (before the call whose effects are awaited).
    pub(super) fn new(tab: i32) -> Self {
        Self(TabWatch::new(tab))
    }

    /// The first event (since the watch began) for which `wanted` holds, within `ms`.
    pub(super) async fn first(
        &self,
        ms: f64,
        wanted: impl Fn(TabEvent) -> bool,
    ) -> Option<TabEvent> {
        let started = js_sys::Date::now();
        loop {
            let left = ms - (js_sys::Date::now() - started);
            if left <= 0.0 {
                return None;
            }
            let kind = JsFuture::from(self.0.next(left)).await.ok()?.as_string()?;
            match TabEvent::from_kind(&kind) {
                Some(event) if wanted(event) => return Some(event),
                Some(_) => {}
                None => tracing::debug!(kind, "an unknown tab event"),
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.0.stop();
    }
}
