//! Settling after an action and `wait` without a text: the page is given time to react (an
//! autocomplete list after its debounce, a panel after its request) before it is read again,
//! judged on the content script's [`Settled`] reports — quiet DOM, nothing in flight — and
//! always capped.

use super::TabPage;
use crate::chrome::sleep;
use waymark_core::action::{ContentRequest, SettleWindow, Settled};

/// How long the DOM must stay unchanged, with no request in flight, for `wait` without a text
/// (after an action, each kind has its own: `Action::settle_window`).
pub(super) const QUIET_MS: f64 = 400.0;
/// Longest settling after an action; the next observation reads whatever is there by then.
pub(super) const SETTLE_CAP_MS: f64 = 3_000.0;
/// Pause between two reports.
const POLL_MS: u32 = 50;

impl TabPage {
    /// Polls the frame until it settles or `cap_ms` passes; returns the last report, or `None`
    /// when the frame could not be asked (it navigated away or is loading).
    pub(super) async fn settle_frame(
        &self,
        frame: u32,
        window: SettleWindow,
        cap_ms: f64,
    ) -> Option<Settled> {
        let started = js_sys::Date::now();
        let mut last = None;
        loop {
            match self.content::<Settled>(frame, &ContentRequest::Settle).await {
                // A document that saw no action is a new one: the action navigated.
                Ok(s) if !s.acted || s.is_settled(window) => return Some(s),
                Ok(s) => last = Some(s),
                Err(_) => return last.map(|s| Settled { acted: false, ..s }),
            }
            if js_sys::Date::now() - started >= cap_ms {
                return last;
            }
            sleep(POLL_MS).await;
        }
    }

    /// `wait` without a text: until the page has loaded and stayed quiet, at most `limit_ms`.
    pub(super) async fn wait_settled(&self, limit_ms: f64) -> Result<String, String> {
        let started = js_sys::Date::now();
        loop {
            let loaded = self.tab(self.tab_id()).await.is_ok_and(|t| t.status == "complete");
            let report = self.content::<Settled>(0, &ContentRequest::Settle).await.ok();
            // A document that saw no action counts its quiet from the wait's start.
            let waited = js_sys::Date::now() - started;
            let quiet = report.map(|s| if s.acted { s.quiet_ms } else { waited });
            let pending = report.map_or(0, |s| s.pending);
            if loaded && quiet.is_some_and(|q| q >= QUIET_MS) && pending == 0 {
                return Ok(format!("the page settled after {:.1} s", waited / 1000.0));
            }
            if waited >= limit_ms {
                let why = if !loaded {
                    "the page was still loading".to_owned()
                } else if pending > 0 {
                    format!("{pending} request(s) were still in flight")
                } else {
                    "the page kept changing".to_owned()
                };
                return Err(format!("{why} after {:.0} s", limit_ms / 1000.0));
            }
            sleep(100).await;
        }
    }
}
