//! Arms the answer to the dialogs an action opens and reads back which ones it opened, through
//! `page_hooks.js` in the page's world (see `crate::dialog`). The page can fake either event:
//! at worst it answers its own dialogs or reports made-up ones, which it could show as page
//! text anyway; the report is data, bounded and fenced like the rest of the page.

use crate::dialog::{DialogAnswer, PageDialog};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function arm_dialogs(answer) {
  document.dispatchEvent(new CustomEvent('waymark-dialog-arm', { detail: answer }));
}
export function ask_dialogs() {
  let answer = '';
  const onDialogs = (e) => {
    if (typeof e.detail === 'string') answer = e.detail;
  };
  document.addEventListener('waymark-dialogs', onDialogs, true);
  try {
    document.dispatchEvent(new CustomEvent('waymark-ask-dialogs'));
  } finally {
    document.removeEventListener('waymark-dialogs', onDialogs, true);
  }
  return answer;
}
"#)]
extern "C" {
    fn arm_dialogs(answer: &str);
    fn ask_dialogs() -> String;
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
    PageDialog::parse_list(&ask_dialogs())
}
