//! Typing through the keyboard into a widget that is not a text field: a terminal emulator, a
//! code editor or a game that routes typing through a transparent 1×1 px capture input, or
//! listens to keys itself. A person clicks the widget, and its page puts the keyboard focus
//! where it reads keys; then every character is a key press to the focused element.
//!
//! The widget is the element the model named (the visible terminal), and it must pass the same
//! visibility check as a field before anything is typed. The focus must stay in it. Waymark
//! writes text only into a field a person can see: a capture field nobody can see receives the
//! key events its page listens to, and nothing is written into it (see [`super::keys`]).

use super::act::label;
use super::keys::{Seen, focused_element, press_one};
use crate::act_error::{ActError, TypingError};
use crate::action::ActionOutcome;
use crate::observation::rules::text_presses;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// Whether `el` is `host` or inside it, across open shadow roots.
fn inside(host: &Element, el: &Element) -> bool {
    let host: &Node = host.as_ref();
    let mut node: Option<Node> = Some(el.clone().into());
    while let Some(n) = node {
        if &n == host {
            return true;
        }
        node = match n.parent_node() {
            Some(parent) => Some(parent),
            None => n.dyn_ref::<web_sys::ShadowRoot>().map(|shadow| shadow.host().into()),
        };
    }
    false
}

/// Types `text` into the widget `host` through the keyboard.
pub(super) fn type_keys(host: &Element, text: &str) -> Result<ActionOutcome, ActError> {
    let document = host.owner_document().ok_or(ActError::NoDocument)?;
    if !inside(host, &focused_element(&document)?) {
        // A person clicks the widget first: its page moves the focus to where it takes keys.
        super::act::click_to_focus(host)?;
    }
    let start = focused_element(&document)?;
    if !inside(host, &start) {
        return Err(TypingError::NoFocus(label(&start)).into());
    }
    let presses = text_presses(text);
    let mut seen = Seen::default();
    let (mut taken, mut changed) = (0, false);
    for (i, press) in presses.iter().enumerate() {
        let focused = focused_element(&document)?;
        if !inside(host, &focused) {
            let to = label(&focused);
            return Err(TypingError::FocusLost { after: i, of: presses.len(), to }.into());
        }
        let pressed = press_one(&document, &focused, press, &mut seen)?;
        taken += usize::from(pressed.taken);
        changed |= pressed.changed;
    }
    let receiver = if start == *host { "it".to_owned() } else { label(&start) };
    let mut note =
        format!("typed {} key(s) through the keyboard to the focused {receiver}", presses.len());
    if !seen.visible(&start) {
        note.push_str(
            " (a capture field nobody can see: its page reads the keys; Waymark wrote nothing \
             into it)",
        );
    }
    if taken > 0 {
        note.push_str(&format!("; the page handled {taken} of them itself"));
    }
    Ok(ActionOutcome { value_changed: changed, ..ActionOutcome::with_text(note) })
}
