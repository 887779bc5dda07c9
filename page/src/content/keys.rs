//! Key presses: keyboard events to the focused element, plus the default action a browser
//! would take for a trusted key (synthetic events have none): Enter submits or activates,
//! Tab moves focus, Space toggles, printable keys type, Backspace deletes.

use super::act::set_value;
use super::events::{fire, fire_input, key};
use crate::action::ActionOutcome;
use crate::observation::rules::{KeyPress, parse_keys};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlTextAreaElement};

/// Presses `keys` on `target` (focused first) or on the focused element.
pub(super) fn press(target: Option<&Element>, keys: &str) -> Result<ActionOutcome, String> {
    let presses = parse_keys(keys)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    if let Some(el) = target.and_then(|t| t.dyn_ref::<HtmlElement>()) {
        crate::js::best_effort(el.focus(), "focus before the key press");
    }
    let mut changed = false;
    for press in &presses {
        let focused: Element = document
            .active_element()
            .or_else(|| document.body().map(Into::into))
            .ok_or("nothing has focus")?;
        let focused = deep_focus(focused);
        let proceed = key(&focused, "keydown", press)?;
        if proceed {
            changed |= default_action(&document, &focused, press)?;
        }
        key(&focused, "keyup", press)?;
    }
    Ok(ActionOutcome { value_changed: changed, ..ActionOutcome::done() })
}

/// The focused element inside open shadow roots.
fn deep_focus(mut el: Element) -> Element {
    while let Some(inner) = el.shadow_root().and_then(|s| s.active_element()) {
        el = inner;
    }
    el
}

fn text_field(el: &Element) -> Option<(&'static str, String)> {
    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
        let typed = !matches!(
            i.type_().as_str(),
            "checkbox"
                | "radio"
                | "button"
                | "submit"
                | "reset"
                | "file"
                | "image"
                | "range"
                | "color"
        );
        return typed.then(|| ("HTMLInputElement", i.value()));
    }
    el.dyn_ref::<HtmlTextAreaElement>().map(|t| ("HTMLTextAreaElement", t.value()))
}

fn default_action(
    document: &web_sys::Document,
    el: &Element,
    press: &KeyPress,
) -> Result<bool, String> {
    let plain = !press.ctrl && !press.meta && !press.alt;
    match press.key.as_str() {
        "Enter" if plain => {
            if el.is_instance_of::<HtmlTextAreaElement>() {
                return insert(el, "\n");
            }
            if let Some(input) = el.dyn_ref::<HtmlInputElement>()
                && text_field(el).is_some()
            {
                if let Some(form) = input.form() {
                    form.request_submit().map_err(|e| crate::js::js_message(&e))?;
                }
                return Ok(false);
            }
            if (matches!(el.local_name().as_str(), "a" | "button" | "summary")
                || el.get_attribute("role").as_deref() == Some("button"))
                && let Some(h) = el.dyn_ref::<HtmlElement>()
            {
                h.click();
            }
            Ok(false)
        }
        " " if plain && text_field(el).is_none() => {
            let toggles = el
                .dyn_ref::<HtmlInputElement>()
                .is_some_and(|i| matches!(i.type_().as_str(), "checkbox" | "radio"))
                || el.local_name() == "button";
            if toggles && let Some(h) = el.dyn_ref::<HtmlElement>() {
                h.click();
                return Ok(true);
            }
            Ok(false)
        }
        "Tab" if !press.ctrl && !press.meta => {
            move_focus(document, el, press.shift);
            Ok(false)
        }
        "Backspace" if plain => {
            let Some((proto, value)) = text_field(el) else { return Ok(false) };
            let mut chars: Vec<char> = value.chars().collect();
            if chars.pop().is_none() {
                return Ok(false);
            }
            set_value(el, proto, &chars.into_iter().collect::<String>())?;
            fire_input(el, "deleteContentBackward", "")?;
            Ok(true)
        }
        "a" if (press.ctrl || press.meta) && !press.alt => {
            if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
                i.select();
            } else if let Some(t) = el.dyn_ref::<HtmlTextAreaElement>() {
                t.select();
            }
            Ok(false)
        }
        k if plain && k.chars().count() == 1 => insert(el, k),
        _ => Ok(false),
    }
}

/// Types `text` at the end of a field like a keystroke would.
fn insert(el: &Element, text: &str) -> Result<bool, String> {
    if let Some((proto, value)) = text_field(el) {
        set_value(el, proto, &format!("{value}{text}"))?;
        fire_input(el, "insertText", text)?;
        return Ok(true);
    }
    if el.dyn_ref::<HtmlElement>().is_some_and(|h| h.is_content_editable())
        && let Some(document) = el.owner_document()
    {
        let exec = js_sys::Reflect::get(&document, &"execCommand".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(exec) = exec {
            let inserted = exec.call3(&document, &"insertText".into(), &false.into(), &text.into());
            crate::js::best_effort(inserted, "insert the text");
            return Ok(true);
        }
    }
    let _ = fire;
    Ok(false)
}

const FOCUSABLE: &str = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), \
select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1']), [contenteditable=true]";

fn move_focus(document: &web_sys::Document, from: &Element, back: bool) {
    let Ok(list) = document.query_selector_all(FOCUSABLE) else { return };
    let items: Vec<HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into::<HtmlElement>().ok())
        .filter(|e| e.get_bounding_client_rect().height() > 0.0)
        .collect();
    if items.is_empty() {
        return;
    }
    let at = items.iter().position(|e| {
        let el: &Element = e.as_ref();
        el == from
    });
    let next = match (at, back) {
        (Some(i), false) => (i + 1) % items.len(),
        (Some(i), true) => (i + items.len() - 1) % items.len(),
        (None, false) => 0,
        (None, true) => items.len() - 1,
    };
    crate::js::best_effort(items[next].focus(), "move the focus");
}
