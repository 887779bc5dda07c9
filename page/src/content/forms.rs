//! What each form of the frame would submit, read the way a submission reads it (HTML's
//! "constructing the entry list"): named, enabled controls; checked boxes and radios only;
//! every selected option; hidden inputs included; buttons and files left out. Read directly
//! from the controls rather than through `new FormData`, which would fire the page's
//! `formdata` listeners.

use super::roles::input_type;
use crate::target::{FormSnapshot, PageBaseline};
use std::cell::{Cell, RefCell};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlFormElement, HtmlSelectElement};

/// Input types a submission never carries as text.
const LEFT_OUT: &[&str] = &["submit", "button", "reset", "image", "file"];

thread_local! {
    /// What the forms held before Waymark's first action in this document (this script lives
    /// as long as the document, across tasks): read afresh until then, fixed from then on.
    static BEFORE: RefCell<Option<PageBaseline>> = const { RefCell::new(None) };
    /// Whether Waymark acted in this document.
    static ACTED: Cell<bool> = const { Cell::new(false) };
}

/// What each form of the document would have submitted before Waymark's first action here:
/// a later task in the same document gets the forms as they were before an earlier task
/// touched them, never what that task left in them.
pub(super) fn snapshot() -> PageBaseline {
    if !ACTED.get() {
        BEFORE.set(Some(read()));
    }
    BEFORE.with_borrow(|before| before.clone().unwrap_or_default())
}

/// An action is about to run in this document: the forms as they are now stay its baseline.
pub(super) fn acting() {
    if !ACTED.replace(true) && BEFORE.with_borrow(Option::is_none) {
        BEFORE.set(Some(read()));
    }
}

/// Every form of the frame's document, in tree order, and every field a person sees.
fn read() -> PageBaseline {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return PageBaseline::default();
    };
    let forms = super::unforgeable::document_forms(&document)
        .into_iter()
        .filter(|f| f.is_instance_of::<HtmlFormElement>())
        .map(|form| FormSnapshot {
            action: super::unforgeable::form_action(&form),
            fields: entries(&form),
        })
        .collect();
    PageBaseline { forms, controls: super::controls::read(&document) }
}

/// The form's entry list.
fn entries(form: &Element) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for control in super::unforgeable::form_controls(form) {
        let name = control.get_attribute("name").unwrap_or_default();
        if name.is_empty() || control.matches(":disabled").unwrap_or(true) {
            continue;
        }
        match control.local_name().as_str() {
            "button" | "fieldset" | "object" | "output" => {}
            "select" => {
                let Some(select) = control.dyn_ref::<HtmlSelectElement>() else { continue };
                let options = select.selected_options();
                for j in 0..options.length() {
                    if let Some(option) = options.item(j) {
                        out.push((name.clone(), string_prop(&option, "value")));
                    }
                }
            }
            "input" => {
                let kind = input_type(&control);
                let checkable = kind == "checkbox" || kind == "radio";
                if LEFT_OUT.contains(&kind.as_str())
                    || (checkable && !bool_prop(&control, "checked"))
                {
                    continue;
                }
                out.push((name, string_prop(&control, "value")));
            }
            _ => out.push((name, string_prop(&control, "value"))),
        }
    }
    out
}

/// A string property of a DOM object (`value`), empty when absent.
pub(super) fn string_prop(el: &Element, name: &str) -> String {
    js_sys::Reflect::get(el, &name.into()).ok().and_then(|v| v.as_string()).unwrap_or_default()
}

/// A boolean property of a DOM object (`checked`), false when absent.
pub(super) fn bool_prop(el: &Element, name: &str) -> bool {
    js_sys::Reflect::get(el, &name.into()).ok().and_then(|v| v.as_bool()).unwrap_or(false)
}
