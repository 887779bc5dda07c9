//! One question to `page_hooks.js` in the page's world and its string answer, by a pair of
//! events there and back (the content script's isolated world cannot call the page's
//! functions). The page can answer too: every answer is data, parsed and bounded by its reader.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/page_world.js")]
extern "C" {
    /// Dispatches `question` and returns the string detail of the `reply` event the hooks send
    /// back synchronously; empty when nothing answered.
    #[wasm_bindgen(js_name = ask_page_world)]
    pub(super) fn ask(question: &str, reply: &str) -> String;
}
