//! Reading back, in the page, the state an action was meant to change once the page's own
//! scripts have reacted (a controlled input's render, a mask applied on a timer, a box set back
//! after the click): the reads are here, the judging in [`crate::action::readback`].

use super::drag::sleep;
use crate::act_error::{ActError, Undone};
use crate::action::ActionOutcome;
use crate::action::readback::{Clicked, ControlState, click_settled, dialog_instead, judge_click};
use crate::observation::shorten;
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

/// Longest wait for the page to reach the meant state (a render, a transition's start).
const PATIENCE_MS: f64 = 300.0;
/// Pause between two looks, and before the look that confirms a met state stayed (a frame).
const LOOK_MS: i32 = 20;

/// What the latest action's read-back found, to read again when the page has settled.
struct Kept {
    /// What it is, for the error.
    kind: Undone,
    /// The element read.
    el: Element,
    /// Whether the state the read-back found still holds.
    holds: Box<dyn Fn(&Element) -> bool>,
}

thread_local! {
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

/// A new action begins: what the previous one left is no longer watched.
pub(super) fn forget() {
    KEPT.with(|k| k.borrow_mut().take());
}

/// Remembers a state the action's read-back found, to be read again as the page settles.
pub(super) fn keep(kind: Undone, el: &Element, holds: impl Fn(&Element) -> bool + 'static) {
    let kept = Kept { kind, el: el.clone(), holds: Box::new(holds) };
    KEPT.with(|k| *k.borrow_mut() = Some(kept));
}

/// The state the latest action left, read again: what undid it, if the page did. An element
/// taken off the page (redrawn) cannot be read and is not judged.
pub(super) fn undone() -> Option<Undone> {
    KEPT.with(|k| {
        let kept = k.borrow();
        let kept = kept.as_ref()?;
        (kept.el.is_connected() && !(kept.holds)(&kept.el)).then_some(kept.kind)
    })
}

fn now_ms() -> f64 {
    web_sys::window().map(|w| super::dom::now(&w)).unwrap_or(f64::MAX)
}

/// The document is being left: nothing more can be read, and the navigation is the effect.
fn leaving() -> bool {
    super::settle::page_leaving() || super::settle::settled().navigating
}

/// Reads `read` until `met` holds (or [`PATIENCE_MS`] ran out, or the page is being left),
/// then once more a frame later: a page that sets the state back on a timer shows it then.
pub(super) async fn read_back<T>(read: impl Fn() -> T, met: impl Fn(&T) -> bool) -> T {
    let start = now_ms();
    loop {
        let value = read();
        if leaving() {
            return value;
        }
        if met(&value) {
            sleep(LOOK_MS).await;
            return read();
        }
        if now_ms() - start >= PATIENCE_MS {
            return value;
        }
        sleep(LOOK_MS).await;
    }
}

/// Whether a field's value must not be repeated to the model (a password, a card number, a
/// one-time code): its read-back says how long it is instead.
pub(super) fn discreet(el: &Element) -> bool {
    let attr = |name: &str| el.get_attribute(name).unwrap_or_default();
    let hint = format!("{} {}", attr("name"), attr("id"));
    crate::observation::rules::is_sensitive(
        &super::roles::input_type(el),
        &attr("autocomplete"),
        &hint,
    )
}

/// A field's value as the outcome may quote it.
pub(super) fn quoted(el: &Element, value: &str) -> String {
    if discreet(el) { format!("{} characters", value.chars().count()) } else { shorten(value, 200) }
}

/// The checked state of a checkbox, radio or switch (native, a label standing for a hidden
/// one, or `aria-checked`); `None` for anything else.
pub(super) fn checked(el: &Element) -> Option<bool> {
    if let Some(control) = super::roles::toggle_of_label(el) {
        return Some(control.checked());
    }
    if let Some(input) = el.dyn_ref::<HtmlInputElement>()
        && matches!(input.type_().as_str(), "checkbox" | "radio")
    {
        return Some(input.checked());
    }
    super::facts::aria_now(el, "aria-checked").map(|c| matches!(c.as_str(), "true" | "mixed"))
}

/// The state a control shows of itself.
fn control_state(el: &Element) -> ControlState {
    let flag = |name: &str| el.get_attribute(name).map(|v| v == "true");
    ControlState {
        selected: flag("aria-selected"),
        expanded: flag("aria-expanded"),
        pressed: flag("aria-pressed"),
        checked: checked(el),
    }
}

/// The name of the dialog the focus is in (`role=dialog|alertdialog`, `<dialog>`), if any.
fn focused_dialog() -> Option<String> {
    let active = web_sys::window()?.document()?.active_element()?;
    let dialog = active.closest("[role=dialog], [role=alertdialog], dialog").ok()??;
    Some(super::roles::own_label(&dialog))
}

/// Clicks `el` and judges the click by the state the control shows of itself (a tab selected,
/// an expander expanded, a box flipped): the outcome says what changed, or fails when the
/// control's state did not do what clicking it means.
pub(super) async fn click(el: &Element) -> Result<ActionOutcome, ActError> {
    let role = super::roles::live_fingerprint(el).unwrap_or_default();
    let kind = Clicked::of_role(role.split('|').next().unwrap_or_default());
    let before = control_state(el);
    let dialog_before = focused_dialog().is_some();
    let mut outcome = super::act::click(el, 1)?;
    if before == ControlState::default() {
        return Ok(outcome);
    }
    let after = read_back(|| control_state(el), |now| click_settled(kind, &before, now)).await;
    if !el.is_connected() || leaving() {
        // Redrawn or left: the element read no longer is the page's control.
        return Ok(outcome);
    }
    let judged = judge_click(kind, &before, &after);
    let opened = if dialog_before { None } else { focused_dialog() };
    if let Some(note) = dialog_instead(&judged, opened.as_deref()) {
        outcome.text.get_or_insert(note);
        return Ok(outcome);
    }
    if let Some(note) = judged? {
        outcome.value_changed |= after != before;
        outcome.text.get_or_insert(note);
        keep(Undone::Control, el, move |el| click_settled(kind, &before, &control_state(el)));
    }
    Ok(outcome)
}
