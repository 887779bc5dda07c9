//! Settling after an action: the page is given time to react (an
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
}
