//! Going back in the tab's history from inside the page: see [`ContentRequest::GoBack`] for
//! why the browser's own Back is not used.
//!
//! [`ContentRequest::GoBack`]: crate::action::ContentRequest::GoBack

use crate::action::WentBack;

/// Asks the frame's history to go back one entry; the navigation follows after the reply.
pub(super) fn go_back() -> WentBack {
    let Some(window) = web_sys::window() else { return WentBack::default() };
    let from = window.location().href().unwrap_or_default();
    match window.history() {
        Ok(history) => crate::js::best_effort(history.back(), "go back in the history"),
        Err(e) => crate::js::best_effort(Err::<(), _>(e), "reach the history"),
    }
    WentBack { from }
}
