//! The page's controls as they stood before the task touched the page, outside any form's
//! entry list: a script that saves with `fetch` sends their state under its own keys
//! (`{"plan": "starter", "seats": "5"}`), and the write budget's baseline needs to tell the
//! fields the task changed from those it left as they were (`waymark_core::safety::baseline`).
//!
//! Native fields a person sees (or whose label they see: a component library keeps its value
//! in a visually hidden one), each with every word that names it — `name`, `id`, its labels,
//! its `aria-label(ledby)`, the group around it — and what it holds. Secret fields are never
//! read.

use super::facts::Attrs;
use super::forms::{bool_prop, string_prop};
use super::roles::{input_type, labels_text, own_label, sensitive};
use crate::target::ControlSnapshot;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSelectElement};

/// Fields read at most (a page of thousands adds nothing a save would carry).
const MAX_CONTROLS: u32 = 500;
/// Input types that hold no state of their own, or a secret.
const HOLD_NOTHING: &[&str] = &["submit", "button", "reset", "image", "file", "hidden", "password"];
/// The group a radio or box belongs to, whose label names the field a save sends.
const GROUPS: &str = "[role=radiogroup], [role=group], fieldset";

/// Every field of `document` a person can see (or whose label they can), with its names and
/// values.
pub(super) fn read(document: &web_sys::Document) -> Vec<ControlSnapshot> {
    let Ok(list) = document.query_selector_all("input, select, textarea") else {
        return Vec::new();
    };
    (0..list.length().min(MAX_CONTROLS))
        .filter_map(|i| list.item(i)?.dyn_into::<Element>().ok())
        .filter_map(|el| snapshot(&el))
        .collect()
}

fn snapshot(el: &Element) -> Option<ControlSnapshot> {
    let attrs = Attrs::of(el);
    let tag = el.local_name();
    let kind = if tag == "input" { input_type(el) } else { String::new() };
    if HOLD_NOTHING.contains(&kind.as_str())
        || sensitive(&attrs)
        || el.matches(":disabled").unwrap_or(true)
        || !seen(el)
    {
        return None;
    }
    let values = match (tag.as_str(), kind.as_str()) {
        ("select", _) => selected(el.dyn_ref::<HtmlSelectElement>()?),
        (_, "checkbox" | "radio") if !bool_prop(el, "checked") => {
            // An unchecked radio holds nothing of its group; an unchecked box holds "no".
            if kind == "radio" {
                return None;
            }
            vec!["false".to_owned()]
        }
        (_, "checkbox" | "radio") => vec![string_prop(el, "value")],
        _ => vec![string_prop(el, "value")],
    };
    let mut keys: Vec<String> =
        [attrs.owned("name"), attrs.owned("id")].into_iter().flatten().collect();
    keys.extend(labels_text(el));
    keys.push(own_label(el));
    if let Ok(Some(group)) = el.closest(GROUPS) {
        keys.push(own_label(&group));
        if let Ok(Some(legend)) = group.query_selector("legend") {
            keys.extend(legend.text_content());
        }
    }
    keys.retain(|k| !k.trim().is_empty());
    Some(ControlSnapshot { keys, values })
}

/// Whether a person can see the field, or one of its labels (a library's visually hidden
/// radio is seen through the label around it), by the walk's own rules: a field planted
/// where nobody sees it holds nothing a save may send unasked.
fn seen(el: &Element) -> bool {
    if super::usable::visible_now(el) {
        return true;
    }
    let labels = js_sys::Reflect::get(el, &"labels".into()).ok();
    let labels = labels.and_then(|l| l.dyn_into::<web_sys::NodeList>().ok());
    labels.is_some_and(|l| {
        (0..l.length())
            .filter_map(|i| l.item(i)?.dyn_into::<Element>().ok())
            .any(|label| super::usable::visible_now(&label))
    })
}

/// Every selected option's value and label.
fn selected(select: &HtmlSelectElement) -> Vec<String> {
    let options = select.selected_options();
    let mut out = Vec::new();
    for i in 0..options.length() {
        if let Some(option) = options.item(i) {
            out.push(string_prop(&option, "value"));
            out.extend(option.text_content());
        }
    }
    out
}
