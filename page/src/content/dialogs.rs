//! Arms the answer to the dialogs an action opens and reads back which ones it opened, through
//! `page_hooks.js` in the page's world (see `crate::dialog`). The page can fake either event:
//! at worst it answers its own dialogs or reports made-up ones, which it could show as page
//! text anyway; the report is data, bounded and fenced like the rest of the page.

use crate::dialog::{DialogAnswer, PageDialog};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/dialogs.js")]
extern "C" {
    fn arm_dialogs(answer: &str);
}

/// Arms `answer` for the dialogs the next action opens (just before its mark).
pub(super) fn arm(answer: &DialogAnswer) {
    match serde_json::to_string(answer) {
        Ok(json) => arm_dialogs(&json),
        Err(e) => tracing::warn!(error = %e, "the dialog answer could not be written"),
    }
}

/// The dialogs opened since the last call.
pub(super) fn drain() -> Vec<PageDialog> {
    PageDialog::parse_list(&super::page_world::ask("waymark-ask-dialogs", "waymark-dialogs"))
}
