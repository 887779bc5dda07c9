//! `back`: the page goes back in its own history (`ContentRequest::GoBack`). The browser's
//! Back (`chrome.tabs.goBack`) skips every entry that navigated away without a user gesture —
//! Chrome's history-manipulation intervention — and the agent's clicks are synthetic, so one
//! Back went two pages (search results → product → back landed on the shop). A move the page
//! makes itself is never skipped. The browser's Back remains for pages no content script can
//! run in (an error page) and for a page whose history has nowhere to go.

use super::{TabPage, history};
use crate::chrome::{self, sleep};
use waymark_core::agent::PageError;
use waymark_page::action::{ActionOutcome, ContentRequest, WentBack};

/// How long the tab has to start moving after the page asked to go back.
const MOVE_WAIT_MS: f64 = 1_500.0;

impl TabPage {
    /// Goes back one entry of the tab's history.
    pub(super) async fn go_back(&self) -> Result<ActionOutcome, PageError> {
        let before = self.tab(self.tab_id()).await?;
        let asked: Result<WentBack, PageError> = self.content(0, &ContentRequest::GoBack).await;
        if asked.is_ok() {
            let started = js_sys::Date::now();
            while js_sys::Date::now() - started < MOVE_WAIT_MS {
                sleep(50).await;
                let now = self.tab(self.tab_id()).await?;
                if now.url != before.url || now.status == "loading" {
                    return Ok(ActionOutcome { navigated: true, ..ActionOutcome::done() });
                }
            }
            tracing::debug!("the page's history did not move; trying the browser's Back");
        }
        history(chrome::tabs_go_back(self.tab_id()), "back").await
    }
}
