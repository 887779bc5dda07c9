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
const ANSWER_WITHIN_MS: u32 = SETTLE_POLL_MS as u32 + ANSWER_GRACE_MS;
/// Pause before asking again when a settle report came sooner than the page's own wait could
/// have ended (it could not wait there): a guard against spinning, not a poll.
const POLL_MS: u32 = 50;
/// Pause before asking a page again that could not be asked (a backoff, see
/// [`TabPage::wait_settled`]).
pub(super) const RETRY_MS: u32 = 100;
/// How much longer than a wait in the page its answer may take to arrive: beyond it the
/// document has gone without answering.
pub(super) const ANSWER_GRACE_MS: u32 = 600;

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
                // One that is being left (a navigation the action started) has settled too.
                Ok(s) if !s.acted || s.navigating || s.is_settled(window) => return Some(s),
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
    /// The tab's load is awaited on its events and the quiet in the page (one request each,
    /// not a poll); a document that is left meanwhile is followed to the next one.
    pub(super) async fn wait_settled(&self, limit_ms: f64) -> Result<String, WaitError> {
        let started = js_sys::Date::now();
        let mut last: Option<Settled> = None;
        loop {
            let asked = js_sys::Date::now();
            let left = limit_ms - (asked - started);
            self.settle(left.max(0.0)).await;
            let loaded = self.tab(self.tab_id()).await.is_ok_and(|t| t.status == "complete");
            let left = limit_ms - (js_sys::Date::now() - started);
            if loaded && left > 0.0 {
                let request = ContentRequest::WaitQuiet { quiet_ms: QUIET_MS, within_ms: left };
                let within = left as u32 + ANSWER_GRACE_MS;
                match self.content_within::<Settled>(0, &request, within).await {
                    Ok(report) if report.is_quiet(QUIET_MS) => {
                        let waited = js_sys::Date::now() - started;
                        return Ok(format!("the page settled after {:.1} s", waited / 1000.0));
                    }
                    Ok(report) => {
                        last = Some(report);
                        continue;
                    }
                    // The document went (or never answered): the next one is waited for. A
                    // page no content script can reach gives no event to wait on: a backoff.
                    Err(e) => tracing::debug!(error = %e, "waiting for a quiet page"),
                }
            }
            if js_sys::Date::now() - started >= limit_ms {
                let seconds = limit_ms / 1000.0;
                let pending = last.map_or(0, |s| s.pending);
                return Err(if !loaded {
                    WaitError::Loading { seconds }
                } else if pending > 0 {
                    WaitError::InFlight { pending, seconds }
                } else {
                    WaitError::KeptChanging { seconds }
                });
            }
            // A tab that is gone, or a page no content script can reach, fails at once and
            // gives no event to wait on: a backoff.
            if js_sys::Date::now() - asked < f64::from(RETRY_MS) {
                sleep(RETRY_MS).await;
            }
        }
    }
}

/// Why `wait` without a text ended without the page settling.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum WaitError {
    /// The tab had not finished loading.
    #[error("the page was still loading after {seconds:.0} s")]
    Loading {
        /// The wait's limit.
        seconds: f64,
    },
    /// The page's own requests had not ended.
    #[error("{pending} request(s) were still in flight after {seconds:.0} s")]
    InFlight {
        /// How many.
        pending: u32,
        /// The wait's limit.
        seconds: f64,
    },
    /// The DOM never stayed quiet long enough.
    #[error("the page kept changing after {seconds:.0} s")]
    KeptChanging {
        /// The wait's limit.
        seconds: f64,
    },
}
