//! `back`: the page goes back in its own history (`ContentRequest::GoBack`). The browser's
//! Back (`chrome.tabs.goBack`) skips every entry that navigated away without a user gesture —
//! Chrome's history-manipulation intervention — and the agent's clicks are synthetic, so one
//! Back went two pages (search results → product → back landed on the shop). A move the page
//! makes itself is never skipped. The browser's Back remains for pages no content script can
//! run in (an error page) and for a page whose history has nowhere to go.

use super::watch::{TabEvent, Watch};
use super::{TabPage, history};
use crate::chrome;
use waymark_core::agent::PageError;
use waymark_page::action::{ActionOutcome, ContentRequest, WentBack};

/// How long the tab has to start moving after the page asked to go back.
const MOVE_WAIT_MS: f64 = 1_500.0;

impl TabPage {
    /// Goes back one entry of the tab's history.
    pub(super) async fn go_back(&self) -> Result<ActionOutcome, PageError> {
        // Listening before asking: the move is seen when the tab starts it.
        let watch = Watch::new(self.tab_id());
        let asked: Result<WentBack, PageError> = self.content(0, &ContentRequest::GoBack).await;
        if asked.is_ok() {
            match watch.first(MOVE_WAIT_MS, |e| e.moved() || e == TabEvent::Removed).await {
                // What it means for the task is `diagnose`'s (from the tab's state).
                Some(TabEvent::Removed) => {
                    return Err(PageError::Browser("the tab went while going back".into()));
                }
                Some(_) => return Ok(ActionOutcome { navigated: true, ..ActionOutcome::done() }),
                None => {
                    tracing::debug!("the page's history did not move; trying the browser's Back");
                }
            }
        }
        history(chrome::tabs_go_back(self.tab_id()), "back").await
    }
}
