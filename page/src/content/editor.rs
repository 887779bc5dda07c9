//! Typing into editors (`contenteditable`): rich-text editors that keep their own document
//! model (ProseMirror, Lexical, Slate and the like) apply a `beforeinput` themselves and cancel
//! it, then redraw; plain editable regions take the browser's own insertion
//! (`execCommand('insertText')`, which fires the `input` event they listen to). Either way the
//! editor's text afterwards is the outcome: an editor that dropped the text says so.

use super::events::{before_input, fire_input};
use crate::act_error::{ActError, TypingError, Undone};
use crate::action::ActionOutcome;
use crate::js::best_effort;
use crate::observation::clean;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlElement;

/// Checks of the editor's text after typing: an editor that redraws from its model does so
/// within a frame or two.
const READ_BACK_TRIES: u32 = 6;

/// Puts the caret at the end (`append`) or selects everything, as a person would before typing.
fn place_selection(el: &HtmlElement, append: bool) {
    let Some(document) = el.owner_document() else { return };
    if let Some(selection) = document.get_selection().ok().flatten()
        && let Ok(range) = document.create_range()
    {
        best_effort(range.select_node_contents(el), "select the editor's text");
        if append {
            range.collapse_with_to_start(false);
        }
        best_effort(selection.remove_all_ranges(), "clear the selection");
        best_effort(selection.add_range(&range), "select the editor's text");
    }
}

/// The browser's own insertion; `false` when it is not available.
fn exec(el: &HtmlElement, text: &str) -> bool {
    exec_command(el, if text.is_empty() { "delete" } else { "insertText" }, text)
}

/// Runs the browser's editing `command` (`insertText`, `bold`…) on the selection of `el`'s
/// document, as the browser's own keys and menus do; `false` when it did nothing.
pub(super) fn exec_command(el: &web_sys::Element, command: &str, value: &str) -> bool {
    let Some(document) = el.owner_document() else { return false };
    js_sys::Reflect::get(&document, &"execCommand".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call3(&document, &command.into(), &JsValue::FALSE, &value.into()).ok())
        .and_then(|r| r.as_bool())
        .unwrap_or(false)
}

/// Whether the editor's text shows what was typed (`text` empty: it is empty).
fn took(el: &HtmlElement, text: &str) -> bool {
    let now = clean(&el.inner_text());
    if text.is_empty() { now.is_empty() } else { now.contains(&clean(text)) }
}

/// Types `text` into the editor `el` (replacing its text unless `append`).
pub(super) async fn type_into(
    el: &HtmlElement,
    text: &str,
    append: bool,
) -> Result<ActionOutcome, ActError> {
    best_effort(el.focus(), "focus before typing");
    let old = el.inner_text();
    place_selection(el, append);
    let input_type = if text.is_empty() { "deleteContentBackward" } else { "insertText" };
    // An editor with its own model cancels `beforeinput` and applies the edit itself.
    let applied_by_page = !before_input(el, input_type, text)?;
    if !applied_by_page && !exec(el, text) {
        let new = if append { format!("{old}{text}") } else { text.to_owned() };
        el.set_text_content(Some(&new));
        fire_input(el, input_type, text)?;
    }
    for _ in 0..READ_BACK_TRIES {
        if took(el, text) {
            let typed = text.to_owned();
            super::readback::keep(Undone::Text, el, move |el| {
                el.dyn_ref::<HtmlElement>().is_some_and(|e| took(e, &typed))
            });
            return Ok(ActionOutcome {
                value_changed: old != el.inner_text(),
                ..ActionOutcome::done()
            });
        }
        super::drag::sleep(16).await;
    }
    Err(TypingError::EditorRefused(clean(&el.inner_text())).into())
}
