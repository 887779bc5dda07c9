//! Settling after an action and `wait` without a text: the page is given time to react (an
//! autocomplete list after its debounce, a panel after its request) before it is read again,
//! judged on the content script's [`Settled`] reports — what the action started has finished
//! and the DOM is quiet — and always capped. After an action the content script waits for the
//! window itself and answers once settled (one round trip per [`SETTLE_POLL_MS`], not a poll
//! every few milliseconds).

use super::TabPage;
use crate::chrome::sleep;
use waymark_page::action::{ContentRequest, SETTLE_POLL_MS, SettleWindow, Settled};

/// How long the DOM must stay unchanged, with no request in flight, for `wait` without a text
/// (after an action, each kind has its own: `Action::settle_window`).
pub(super) const QUIET_MS: f64 = 400.0;
/// Longest settling after an action; the next observation reads whatever is there by then.
pub(super) const SETTLE_CAP_MS: f64 = 3_000.0;
/// Longest wait for the answer to one settle request (it waits in the page up to
/// [`SETTLE_POLL_MS`]): a document that navigated meanwhile never answers.
const ANSWER_WITHIN_MS: u32 = SETTLE_POLL_MS as u32 + 600;
/// Pause between two reports of `wait`.
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
        let request = ContentRequest::Settle { window: Some(window) };
        loop {
            let asked = js_sys::Date::now();
            match self.content_within::<Settled>(frame, &request, ANSWER_WITHIN_MS).await {
                // A document that saw no action is a new one: the action navigated.
                Ok(s) if !s.acted || s.is_settled(window) => return Some(s),
                Ok(s) => last = Some(s),
                Err(_) => return last.map(|s| Settled { acted: false, ..s }),
            }
            if js_sys::Date::now() - started >= cap_ms {
                return last;
            }
            // An unsettled answer comes after the page's own wait ran out; one that came
            // sooner could not wait there: do not spin.
            if js_sys::Date::now() - asked < SETTLE_POLL_MS / 2.0 {
                sleep(POLL_MS).await;
            }
        }
    }

    /// `wait` without a text: until the page has loaded and stayed quiet, at most `limit_ms`.
    pub(super) async fn wait_settled(&self, limit_ms: f64) -> Result<String, String> {
        let started = js_sys::Date::now();
        loop {
            let loaded = self.tab(self.tab_id()).await.is_ok_and(|t| t.status == "complete");
            let report =
                self.content::<Settled>(0, &ContentRequest::Settle { window: None }).await.ok();
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
