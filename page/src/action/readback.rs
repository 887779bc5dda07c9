//! Judging an action by reading back the state it was meant to change: what a field holds
//! after typing, whether a box stayed ticked, whether a control's own state (a tab's
//! selection, an expander's `aria-expanded`) moved. The content script reads the page; the
//! decisions are here, target-independent and tested natively.
//!
//! Why: an action that dispatched its events is not an action that took. A page's script may
//! rewrite a typed value (a mask), refuse it (digits only, a length limit) or set a box back;
//! the outcome the model reads must be what the page holds afterwards, never what was sent.

use crate::act_error::{ClickError, FieldError};

/// How what a field holds compares with what was meant to be in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextReadback {
    /// Exactly the text meant.
    AsTyped,
    /// The page rewrote it but kept every letter and digit meant, in order (a phone mask's
    /// brackets and dashes, a currency's symbol, upper case, trimmed spaces).
    Reformatted,
    /// Letters or digits meant are missing or the field holds other ones: the page refused
    /// or replaced the text.
    NotTaken,
}

/// The letters and digits of `text`, lower-cased, in order: what a reformatting keeps.
fn significant(text: &str) -> Vec<char> {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Whether `needle` occurs in `hay` in order, not necessarily adjacent.
fn subsequence(needle: &[char], hay: &[char]) -> bool {
    let mut rest = hay.iter();
    needle.iter().all(|n| rest.any(|h| h == n))
}

/// Judges what a field `holds` against the text `meant` (the whole value meant, after an
/// append too). An emptied field must hold no letter or digit (a mask's `__/__` is empty).
pub fn judge_text(meant: &str, holds: &str) -> TextReadback {
    if meant == holds {
        return TextReadback::AsTyped;
    }
    let (meant, holds) = (significant(meant), significant(holds));
    let kept = if meant.is_empty() { holds.is_empty() } else { subsequence(&meant, &holds) };
    if kept { TextReadback::Reformatted } else { TextReadback::NotTaken }
}

/// The part of `text` a field with `maxlength` = `max` takes from typing (the browser counts
/// UTF-16 code units and never splits a character), or `None` when all of it fits.
pub fn over_max_length(text: &str, max: Option<u32>) -> Option<&str> {
    let max = usize::try_from(max?).ok()?;
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > max {
            return text.get(..at);
        }
    }
    None
}

/// Judges a box ticked (or unticked) through a click: `want` is the state asked for, `right_after`
/// the state read as the click returned, `later` the state once the page's own reaction ran.
pub fn judge_toggle(want: bool, right_after: bool, later: bool) -> Result<(), FieldError> {
    match (right_after == want, later == want) {
        (_, true) => Ok(()),
        (true, false) => Err(FieldError::ToggleUndone { checked: later }),
        (false, false) => Err(FieldError::StateUnchanged),
    }
}

/// The state a control shows of itself, read from the page (`None`: it does not say).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ControlState {
    /// `aria-selected` of a tab.
    pub selected: Option<bool>,
    /// `aria-expanded` of a button that opens something (a menu, a section).
    pub expanded: Option<bool>,
    /// `aria-pressed` of a toggle button.
    pub pressed: Option<bool>,
    /// The checked state of a checkbox, switch or radio (native or `aria-checked`).
    pub checked: Option<bool>,
}

/// What kind of control a click meant to change, by its role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clicked {
    /// A tab: a click selects it.
    Tab,
    /// A radio: a click checks it.
    Radio,
    /// A checkbox or switch: a click flips it.
    Toggle,
    /// A button (or a link acting as one): a click flips what it says it opens or presses.
    Button,
    /// Anything else (a combobox opens on typing as often as on a click): reported, not judged.
    Other,
}

impl Clicked {
    /// The kind for an element's role.
    pub fn of_role(role: &str) -> Self {
        match role {
            "tab" => Self::Tab,
            "radio" => Self::Radio,
            "checkbox" | "switch" => Self::Toggle,
            // A menu's item may open the next column of a cascade instead of checking itself
            // (Ant Design's Cascader: `menuitemcheckbox` parents), and a menu closes on a
            // choice: reported, not judged.
            "menuitemradio" | "menuitemcheckbox" => Self::Other,
            "button" | "link" => Self::Button,
            _ => Self::Other,
        }
    }
}

/// The control's state wants no further look: what the click was meant to do is done (or the
/// click means nothing to its state). Read-backs wait for the page until this holds.
pub fn click_settled(kind: Clicked, before: &ControlState, now: &ControlState) -> bool {
    judge_click(kind, before, now).is_ok()
}

/// Judges a click by the state the clicked control shows of itself before and after: what
/// changed, in words for the model, or why the click did not do what clicking it means. A
/// control that tells no state of its own gives `Ok(None)`.
pub fn judge_click(
    kind: Clicked,
    before: &ControlState,
    after: &ControlState,
) -> Result<Option<String>, ClickError> {
    let flip = |b: Option<bool>, a: Option<bool>| match (b, a) {
        (Some(b), Some(a)) => Some((b, a)),
        _ => None,
    };
    match kind {
        Clicked::Tab => match (before.selected, after.selected) {
            (Some(true), Some(true)) => Ok(Some("the tab was already selected".to_owned())),
            (_, Some(true)) => Ok(Some("the tab is selected now".to_owned())),
            (_, Some(false)) => Err(ClickError::TabNotSelected),
            (_, None) => Ok(None),
        },
        Clicked::Radio => match (before.checked, after.checked) {
            (Some(true), Some(true)) => Ok(Some("it was already checked".to_owned())),
            (_, Some(true)) => Ok(Some("it is checked now".to_owned())),
            (_, Some(false)) => Err(ClickError::Unchanged { state: "checked", now: false }),
            (_, None) => Ok(None),
        },
        Clicked::Toggle => match flip(before.checked, after.checked) {
            Some((b, a)) if a == b => Err(ClickError::Unchanged { state: "checked", now: a }),
            Some((_, a)) => {
                Ok(Some(format!("it is {} now", if a { "checked" } else { "unchecked" })))
            }
            None => Ok(None),
        },
        Clicked::Button => {
            if let Some((b, a)) = flip(before.expanded, after.expanded) {
                if a == b {
                    return Err(ClickError::Unchanged { state: "expanded", now: a });
                }
                return Ok(Some(format!("it is {} now", if a { "expanded" } else { "collapsed" })));
            }
            if let Some((b, a)) = flip(before.pressed, after.pressed) {
                if a == b {
                    return Err(ClickError::Unchanged { state: "pressed", now: a });
                }
                return Ok(Some(format!(
                    "it is {} now",
                    if a { "pressed" } else { "not pressed" }
                )));
            }
            Ok(None)
        }
        Clicked::Other => Ok(match flip(before.expanded, after.expanded) {
            Some((b, a)) if a != b => {
                Some(format!("it is {} now", if a { "expanded" } else { "collapsed" }))
            }
            _ => None,
        }),
    }
}

/// What a click did when its control's state did not change but a dialog took the focus that
/// no dialog had before (`opened`, its name): a toggle button that also opens one (TinyMCE's
/// link button says whether the caret is in a link, and opens the link dialog) did its work
/// there. `None` when the judgement stands.
pub fn dialog_instead(
    judged: &Result<Option<String>, ClickError>,
    opened: Option<&str>,
) -> Option<String> {
    match (judged, opened) {
        (Err(ClickError::Unchanged { .. }), Some("")) => Some("it opened a dialog".to_owned()),
        (Err(ClickError::Unchanged { .. }), Some(name)) => {
            Some(format!("it opened the dialog “{name}”"))
        }
        _ => None,
    }
}

#[cfg(test)]
#[path = "readback_tests.rs"]
mod tests;
