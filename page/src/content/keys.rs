//! Key presses: keyboard events to the focused element, plus the default action a browser
//! would take for a trusted key (synthetic events have none): Enter submits or activates,
//! Tab moves focus, Space toggles, printable keys type, Backspace deletes, arrows move a range.
//!
//! Each press runs like a real one: `keydown`, `keypress` for a character, `beforeinput`
//! before text goes into a field, the default action unless the page cancelled one of them,
//! `keyup`. Default actions are taken only on an element a person can see
//! ([`super::usable::visible_now`]): a field nobody can see (a terminal's 1×1 capture textarea, or a
//! trap) receives the key events its page listens to, and Waymark writes nothing into it.

use super::act::set_value;
use super::events::{before_input, fire, fire_input, key};
use crate::act_error::ActError;
use crate::action::ActionOutcome;
use crate::observation::rules::{KeyPress, parse_keys, types_character};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlFormElement, HtmlInputElement, HtmlTextAreaElement};

/// Presses `keys` on `target` (focused first) or on the focused element.
pub(super) fn press(target: Option<&Element>, keys: &str) -> Result<ActionOutcome, ActError> {
    let presses = parse_keys(keys)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or(ActError::NoDocument)?;
    if let Some(el) = target.and_then(|t| t.dyn_ref::<HtmlElement>()) {
        crate::js::best_effort(el.focus(), "focus before the key press");
    }
    let mut seen = Seen::default();
    let mut changed = false;
    for press in &presses {
        let focused = focused_element(&document)?;
        changed |= press_one(&document, &focused, press, &mut seen)?.changed;
    }
    Ok(ActionOutcome { value_changed: changed, ..ActionOutcome::done() })
}

/// What one press did.
#[derive(Default, Clone, Copy)]
pub(super) struct Pressed {
    /// A value changed (text typed, a box toggled, a range moved).
    pub changed: bool,
    /// The page cancelled the key (it handled it itself: a terminal, an editor, a slider).
    pub taken: bool,
}

/// Whether a person can see an element, remembered for the last one asked (a press sequence
/// asks about the same focused element again and again).
#[derive(Default)]
pub(super) struct Seen {
    last: Option<(Element, bool)>,
}

impl Seen {
    /// Whether default actions may act on `el`: a person can see it (measured where it is:
    /// pressing keys scrolls nothing).
    pub fn visible(&mut self, el: &Element) -> bool {
        if let Some((known, visible)) = &self.last
            && known == el
        {
            return *visible;
        }
        let visible = super::usable::visible_now(el);
        self.last = Some((el.clone(), visible));
        visible
    }
}

/// The focused element (inside open shadow roots), or the body.
pub(super) fn focused_element(document: &web_sys::Document) -> Result<Element, ActError> {
    let focused: Element = document
        .active_element()
        .or_else(|| document.body().map(Into::into))
        .ok_or(ActError::NoFocus)?;
    Ok(deep_focus(focused))
}

/// One press on `focused`, as a real keyboard delivers it.
pub(super) fn press_one(
    document: &web_sys::Document,
    focused: &Element,
    press: &KeyPress,
    seen: &mut Seen,
) -> Result<Pressed, ActError> {
    let mut proceed = key(focused, "keydown", press)?;
    if proceed && types_character(press) {
        proceed = key(focused, "keypress", press)?;
    }
    let mut out = Pressed { taken: !proceed, ..Pressed::default() };
    if proceed && seen.visible(focused) {
        out.changed = default_action(document, focused, press)?;
    }
    key(focused, "keyup", press)?;
    Ok(out)
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

/// Input types that block implicit submission (HTML): Enter in one of several of them, in a
/// form with no submit button, submits nothing.
const BLOCKS_IMPLICIT_SUBMISSION: &[&str] = &[
    "text",
    "search",
    "url",
    "tel",
    "email",
    "password",
    "date",
    "month",
    "week",
    "time",
    "datetime-local",
    "number",
];

/// An input a person types text into (HTML's text-like fields, the ones that block implicit
/// submission); an unknown `type` is a text field.
pub(super) fn is_text_field(input: &HtmlInputElement) -> bool {
    BLOCKS_IMPLICIT_SUBMISSION.contains(&input.type_().as_str())
}

/// HTML's implicit submission, for Enter in a field of `form`: the form's default button is
/// clicked when it has one (nothing when that button is disabled); without one, the form is
/// submitted only when the field is its one field that blocks implicit submission. A form of
/// many fields and no submit button (a component library's form, whose "Book" button is a
/// plain button) is not submitted, as in a browser: submitting it would reload the page and
/// lose what the widgets hold.
fn submit_implicitly(form: &HtmlFormElement) -> Result<(), ActError> {
    if let Some(button) = super::describe::default_button(form) {
        if !button.matches(":disabled").unwrap_or(true)
            && let Some(h) = button.dyn_ref::<HtmlElement>()
        {
            h.click();
        }
        return Ok(());
    }
    let blocking = super::unforgeable::form_controls(form)
        .into_iter()
        .filter_map(|c| c.dyn_into::<HtmlInputElement>().ok())
        .filter(is_text_field)
        .count();
    if blocking == 1 {
        super::unforgeable::request_submit(form)?;
    }
    Ok(())
}

fn default_action(
    document: &web_sys::Document,
    el: &Element,
    press: &KeyPress,
) -> Result<bool, ActError> {
    let plain = !press.ctrl && !press.meta && !press.alt;
    if let Some(range) = el.dyn_ref::<HtmlInputElement>().filter(|i| i.type_() == "range") {
        return Ok(plain && step_range(el, range, &press.key)?);
    }
    match press.key.as_str() {
        "Enter" if plain => {
            if el.is_instance_of::<HtmlTextAreaElement>() {
                return insert(el, "\n", "insertLineBreak");
            }
            if let Some(input) = el.dyn_ref::<HtmlInputElement>()
                && text_field(el).is_some()
            {
                if let Some(form) = input.form() {
                    submit_implicitly(&form)?;
                }
                return Ok(false);
            }
            if el.dyn_ref::<HtmlElement>().is_some_and(|h| h.is_content_editable()) {
                return insert(el, "\n", "insertParagraph");
            }
            if (matches!(el.local_name().as_str(), "a" | "button" | "summary")
                || super::facts::aria(el, "role").as_deref() == Some("button"))
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
            if el.dyn_ref::<HtmlElement>().is_some_and(|h| h.is_content_editable()) {
                return insert(el, " ", "insertText");
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
            if chars.pop().is_none() || !before_input(el, "deleteContentBackward", "")? {
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
        k if plain && k.chars().count() == 1 => insert(el, k, "insertText"),
        _ => match crate::action::richtext::format_command(press) {
            // Chrome formats the selection of an editable region on a real Ctrl+B / I / U.
            Some(command)
                if el.dyn_ref::<HtmlElement>().is_some_and(|h| h.is_content_editable()) =>
            {
                Ok(super::editor::exec_command(el, command, ""))
            }
            _ => Ok(false),
        },
    }
}

/// A range input moves by its step on the arrows, by a tenth on Page Up/Down, to an end on
/// Home/End, as a browser moves it; `input` and `change` follow a move.
fn step_range(el: &Element, range: &HtmlInputElement, key: &str) -> Result<bool, ActError> {
    let before = range.value();
    let min = range.min().parse::<f64>().unwrap_or(0.0);
    let max = range.max().parse::<f64>().unwrap_or(100.0);
    let step = range.step().parse::<f64>().ok().filter(|s| *s > 0.0).unwrap_or(1.0);
    let now = range.value_as_number();
    let page = (((max - min) / 10.0) / step).round().max(1.0) * step;
    let goal = match key {
        "ArrowRight" | "ArrowUp" => now + step,
        "ArrowLeft" | "ArrowDown" => now - step,
        "PageUp" => now + page,
        "PageDown" => now - page,
        "Home" => min,
        "End" => max,
        _ => return Ok(false),
    };
    // The browser sanitises the value onto the range's steps and bounds.
    range.set_value_as_number(goal.clamp(min, max));
    if range.value() == before {
        return Ok(false);
    }
    fire(el, "input")?;
    fire(el, "change")?;
    Ok(true)
}

/// Types `text` at the end of a field like a keystroke would, unless the page cancels the
/// `beforeinput` (it inserts the text itself).
fn insert(el: &Element, text: &str, input_type: &str) -> Result<bool, ActError> {
    if let Some((proto, value)) = text_field(el) {
        if !before_input(el, input_type, text)? {
            return Ok(false);
        }
        set_value(el, proto, &format!("{value}{text}"))?;
        fire_input(el, input_type, text)?;
        return Ok(true);
    }
    if el.dyn_ref::<HtmlElement>().is_some_and(|h| h.is_content_editable())
        && let Some(document) = el.owner_document()
    {
        if !before_input(el, input_type, text)? {
            // The editor inserts it itself; the settle sees whether it did.
            return Ok(false);
        }
        let exec = js_sys::Reflect::get(&document, &"execCommand".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(exec) = exec {
            let command = if text == "\n" { "insertParagraph" } else { "insertText" };
            let inserted = exec.call3(&document, &command.into(), &false.into(), &text.into());
            crate::js::best_effort(inserted, "insert the text");
            return Ok(true);
        }
    }
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
