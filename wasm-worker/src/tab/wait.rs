//! The `wait` tool: for a text to appear or go, or for the page to load and go quiet. Each is
//! awaited on events — the tab's load (`chrome.tabs`), the page's mutations (the content
//! script answers once, [`ContentRequest::WaitFor`] / [`ContentRequest::WaitQuiet`]) — and
//! capped by the wait's limit; a document that is left meanwhile is followed to the next one.

use super::settle::{ANSWER_GRACE_MS, QUIET_MS, RETRY_MS};
use super::{PageError, TabPage};
use crate::chrome::sleep;
use waymark_page::action::{ActionOutcome, ContentRequest, MAX_WAIT_SECONDS, Probe, Settled};

impl TabPage {
    /// `wait`: for `text` (gone: until it is no longer shown), or without one for a quiet
    /// page, at most `seconds` (5 when absent).
    pub(super) async fn wait(
        &self,
        text: Option<&str>,
        seconds: Option<f64>,
        gone: bool,
    ) -> Result<ActionOutcome, PageError> {
        let limit = seconds.unwrap_or(5.0).clamp(0.1, MAX_WAIT_SECONDS) * 1000.0;
        let Some(text) = text else {
            return Ok(match self.wait_settled(limit).await {
                Ok(note) => ActionOutcome::with_text(note),
                Err(why) => ActionOutcome::failed(why.to_string()),
            });
        };
        let started = js_sys::Date::now();
        loop {
            let asked = js_sys::Date::now();
            let left = limit - (asked - started);
            let request =
                ContentRequest::WaitFor { text: text.to_owned(), gone, within_ms: left.max(0.0) };
            let within = left.max(0.0) as u32 + ANSWER_GRACE_MS;
            match self.content_within::<Probe>(0, &request, within).await {
                Ok(probe) if probe.ready(gone) => return Ok(ActionOutcome::done()),
                // The limit passed in the page, or its document is being left.
                Ok(_) => {}
                Err(e) => {
                    // A page that cannot be asked (it is loading, say) is waited for, unless
                    // its tab has gone.
                    if let closed @ PageError::TabClosed { .. } =
                        self.diagnose(e, " while waiting").await
                    {
                        return Ok(ActionOutcome::failed(closed.to_string()));
                    }
                }
            }
            let left = limit - (js_sys::Date::now() - started);
            if left <= 0.0 {
                let what = if gone {
                    format!("“{text}” was still on the page")
                } else {
                    format!("“{text}” did not appear")
                };
                return Ok(ActionOutcome::failed(format!("{what} within {:.0} s", limit / 1000.0)));
            }
            // The next document is asked once it has loaded; a page no content script can
            // reach fails at once and gives no event to wait on (a backoff).
            self.settle(left).await;
            if js_sys::Date::now() - asked < f64::from(RETRY_MS) {
                sleep(RETRY_MS).await;
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
