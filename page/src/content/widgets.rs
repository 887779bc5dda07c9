//! Roles beyond HTML's and ARIA's that component-library widgets need, decided the same way for
//! the walk and for the live element of a ref (whose fingerprint must match):
//!
//! * `dropzone`: an element the page listens for drops on (a kanban column), named by its own
//!   label or its heading — where a `drag` can land;
//! * `draggable`: an element with `draggable="true"` that nothing else makes a control (a card);
//! * `textbox` for a terminal or a canvas editor: a tall element the page listens on that holds
//!   a keyboard capture field nobody can see (xterm.js's 1×1 px transparent textarea), named by
//!   its own label or the capture field's — typing there goes through the keyboard;
//! * `scrollable`: a box whose content scrolls on its own (a virtualised list), with how far;
//! * `slider` for a thumb drawn without a role (see `thumb`).
//!
//! The page's listeners are page-controlled candidates (`page_hooks.js`): each of these only
//! lists an element the model may then act on under the same checks as any other.

use super::facts;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// A box whose content scrolls on its own.
pub(super) const SCROLLABLE: &str = "scrollable";
/// An element the page accepts drops on.
pub(super) const DROPZONE: &str = "dropzone";
/// An element a person can pick up and drag.
pub(super) const DRAGGABLE: &str = "draggable";

/// Content taller than its box by more than this scrolls on its own.
const MIN_SCROLL_PX: i32 = 8;

/// What the page says about an element, beyond its tag and ARIA.
#[derive(Clone, Copy, Default)]
pub(super) struct Signals {
    /// A click-like listener recorded by the page hooks.
    pub listener: bool,
    /// `cursor: pointer` of its own (not only inherited from a clickable row around it).
    pub own_pointer: bool,
    /// An `onclick` attribute.
    pub onclick: bool,
    /// A `tabindex` attribute.
    pub tabindex: bool,
    /// A drop listener recorded by the page hooks.
    pub drop: bool,
    /// `draggable="true"`.
    pub draggable: bool,
    /// A grab (or move) cursor of its own, not only inherited from an element around it.
    pub grab: bool,
    /// `overflow-y` auto or scroll.
    pub scrolls_y: bool,
}

/// The role the observation gives an element whose HTML/ARIA role is `role`.
pub(super) fn refine(
    el: &Element,
    tag: &str,
    role: Option<&'static str>,
    s: Signals,
    viewport_height: f64,
) -> Option<&'static str> {
    // A small focusable box placed along a bar is the thumb of a slider drawn without a role.
    if role == Some("clickable") && s.tabindex && super::thumb::of(el).is_some() {
        return Some("slider");
    }
    if s.drop && matches!(role, None | Some("clickable")) && takes_drops_where_seen(el, s) {
        return Some(DROPZONE);
    }
    // A listener is the page's word only: a box as tall as half the screen, or one holding
    // many elements or other controls, is where the page delegates its events (an app root,
    // a list), not a control — unless it hosts the keyboard (a terminal).
    let script_only =
        role == Some("clickable") && s.listener && !s.own_pointer && !s.onclick && !s.tabindex;
    let role = if script_only {
        if facts::capture_field(el).is_some() {
            return Some("textbox");
        }
        let rect = facts::rect(el);
        let tall = rect.height > viewport_height / 2.0;
        // Nothing to point at: an empty root a library keeps for its popups.
        let empty = rect.width < 1.0 || rect.height < 1.0;
        if tall || empty || !super::affordance::listener_control(el) { None } else { role }
    } else {
        role
    };
    if role.is_some() {
        return role;
    }
    if s.draggable || s.grab {
        return Some(DRAGGABLE);
    }
    let overflows = || el.scroll_height() > el.client_height() + MIN_SCROLL_PX;
    if s.scrolls_y && !matches!(tag, "body" | "html") && overflows() {
        return Some(SCROLLABLE);
    }
    None
}

/// The signals of a live element (outside the walk, which reads them in batches).
pub(super) fn live_signals(el: &Element, pointer: bool) -> Signals {
    let style = web_sys::window().and_then(|w| w.get_computed_style(el).ok().flatten());
    let overflow = style.and_then(|s| s.get_property_value("overflow-y").ok()).unwrap_or_default();
    Signals {
        listener: facts::has_listener(el),
        own_pointer: pointer,
        onclick: el.has_attribute("onclick"),
        tabindex: el.has_attribute("tabindex"),
        drop: facts::takes_drops(el),
        draggable: el.get_attribute("draggable").as_deref() == Some("true"),
        grab: own_grab(el),
        scrolls_y: matches!(overflow.as_str(), "auto" | "scroll" | "overlay"),
    }
}

/// Whether the element shows a grab (or move) cursor that its parent does not: the item a
/// person picks up, not the text inside it.
pub(super) fn own_grab(el: &Element) -> bool {
    let Some(window) = web_sys::window() else { return false };
    let cursor = |e: &Element| {
        window
            .get_computed_style(e)
            .ok()
            .flatten()
            .and_then(|s| s.get_property_value("cursor").ok())
            .unwrap_or_default()
    };
    let grabs = |c: String| c == "grab" || c == "move";
    grabs(cursor(el)) && !el.parent_element().is_some_and(|p| grabs(cursor(&p)))
}

/// The name of an element of these roles, from what the page gives it rather than from its
/// content (which is read on its own lines, changes as it scrolls or prints, or is a column of
/// cards); `None` for every other role.
pub(super) fn special_name(el: &Element, tag: &str, role: &str) -> Option<String> {
    match role {
        SCROLLABLE => Some(super::roles::own_label(el)),
        DROPZONE => {
            let own = super::roles::own_label(el);
            Some(if own.is_empty() { heading_inside(el) } else { own })
        }
        // A document that is all editor (its frame drawn in place of a hidden textarea).
        "textbox" if tag == "body" => super::replaced::frame_label(el),
        // The search box of a widget drawn in place of a hidden native select, with no label
        // of its own: the select's label (see `replaced`).
        "textbox" | "searchbox" | "combobox"
            if matches!(tag, "input" | "textarea") && !has_labels(el) =>
        {
            super::replaced::replaced_label(el)
        }
        "textbox" if !matches!(tag, "input" | "textarea") && !editable(el) => {
            let field = facts::capture_field(el)?;
            let own = super::roles::own_label(el);
            Some(if own.is_empty() { super::roles::own_label(&field) } else { own })
        }
        // A thumb without a name of its own is named by the labelled group around it (a range
        // of two thumbs: which one it is), never by its classes ("touch area").
        // A label that shows the value after a colon (`Budget: 100`) names it without the
        // value: its name must not change as it moves.
        "slider" if tag != "input" => {
            let own = super::roles::own_label(el);
            let beside = || {
                group_name(el)
                    .or_else(|| box_label(el))
                    .unwrap_or_else(|| super::roles::control_name(el, tag))
            };
            let name = if own.is_empty() { beside() } else { own };
            Some(crate::observation::names::without_shown_value(&name).to_owned())
        }
        // Controls drawn with divs: named like native ones, from what a person reads.
        "switch" | "checkbox" | "radio" | "combobox" | "listbox" | "spinbutton"
            if !matches!(tag, "input" | "select" | "textarea" | "button") =>
        {
            Some(super::roles::control_name(el, tag))
        }
        _ => None,
    }
}

/// Ancestors searched for the label of a group of sliders.
const MAX_GROUP_DEPTH: u32 = 4;

/// The name of the nearest labelled ancestor of the slider `el` (its own label, the heading
/// or text before it), with the thumb's place when the group holds several:
/// `Price per night (1 of 2)`.
fn group_name(el: &Element) -> Option<String> {
    let mut node = el.parent_element();
    for _ in 0..MAX_GROUP_DEPTH {
        let group = node?;
        let label = super::roles::own_label(&group);
        if !label.is_empty() {
            return Some(placed(el, &group, &label));
        }
        node = group.parent_element();
    }
    None
}

/// `name` with the thumb `el`'s place among the thumbs of `group` when it holds several.
fn placed(el: &Element, group: &Element, name: &str) -> String {
    let Ok(thumbs) = group.query_selector_all("[role=slider]") else { return name.to_owned() };
    let count = thumbs.length();
    let place = (0..count)
        .position(|i| thumbs.item(i).is_some_and(|t| t.is_same_node(Some(el.unchecked_ref()))))
        .unwrap_or(0);
    crate::observation::order::thumb_name(name, place, count as usize)
}

/// The name of the slider `el` from the first `<label>` tied to no other control in the
/// nearest box around it that holds one (a label drawn beside the track, its `for` unset),
/// with the thumb's place when that box holds several: `Salary (2 of 2)`.
fn box_label(el: &Element) -> Option<String> {
    let mut node = el.parent_element();
    for _ in 0..MAX_GROUP_DEPTH {
        let group = node?;
        if let Ok(Some(label)) = group.query_selector("label") {
            let label: web_sys::HtmlLabelElement = label.dyn_into().ok()?;
            if label.control().is_some() {
                return None;
            }
            let name = crate::observation::clean(&label.text_content().unwrap_or_default());
            return (!name.is_empty()).then(|| placed(el, &group, &name));
        }
        node = group.parent_element();
    }
    None
}

/// Whether a `<label>` names the field.
fn has_labels(el: &Element) -> bool {
    let labels = el.dyn_ref::<web_sys::HtmlInputElement>().and_then(|i| i.labels()).or_else(|| {
        el.dyn_ref::<web_sys::HtmlTextAreaElement>().map(web_sys::HtmlTextAreaElement::labels)
    });
    labels.is_some_and(|l| l.length() > 0)
}

fn editable(el: &Element) -> bool {
    el.get_attribute("contenteditable").is_some_and(|v| v != "false")
}

/// The text of the first heading (or legend, caption) inside the element.
fn heading_inside(el: &Element) -> String {
    let heading = el.query_selector("h1, h2, h3, h4, h5, h6, [role=heading], legend, caption");
    let text = heading.ok().flatten().and_then(|h| h.text_content()).unwrap_or_default();
    crate::observation::shorten(&crate::observation::clean(&text), 60)
}

/// Whether an element with a drop listener is a place a person drops on: it has an area, and it
/// is not a root the page delegates every event to (React listens for `drop` with `click` on
/// each root and portal): one holding controls but nothing to drag is such a root.
fn takes_drops_where_seen(el: &Element, s: Signals) -> bool {
    let rect = facts::rect(el);
    if rect.width < 1.0 || rect.height < 1.0 {
        return false;
    }
    let delegating = s.listener
        && !super::affordance::listener_control(el)
        && el.query_selector("[draggable=true]").ok().flatten().is_none();
    !delegating
}
