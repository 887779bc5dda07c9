//! Signs that an element inside another clickable one is a control of its own: `cursor:
//! pointer` declared on it (not merely inherited from the row around it).
//!
//! `cursor` is inherited, so inside a clickable row every icon reads `pointer` from the
//! computed style and the walk used to fold all of them into the row. Whether the page
//! *declared* the pointer on the element itself is what tells a star or delete icon from the
//! row's own text: an inline `style="cursor: pointer"`, or a style rule declaring it whose
//! selector matches the element. The JS below only reads (the page's style sheets, `matches`);
//! the decision to list the element stays in `dom.rs`.

use wasm_bindgen::prelude::*;
use web_sys::Element;

#[wasm_bindgen(module = "/js/affordance.js")]
extern "C" {
    /// Tells the JS side that style sheets may have changed since the last walk (checked
    /// cheaply by their rule counts before the next [`declared_pointer`]).
    fn pointer_rules_stale();
    /// Whether `cursor: pointer` is declared on the element itself: inline, or by a style
    /// rule whose selector (`:hover` and the like dropped) matches it.
    pub(super) fn declared_pointer(el: &Element) -> bool;
    /// Whether the element holds at most `max` elements and no control of its own.
    fn few_descendants(el: &Element, max: u32) -> bool;
    /// The first control the element holds (light DOM, its own shadow root, a component with
    /// an ElementInternals role), if any.
    fn first_control(el: &Element) -> Option<Element>;
}

/// Called at the start of each walk.
pub(super) fn start_walk() {
    pointer_rules_stale();
}

/// Most elements a listener alone makes a control may hold: a calendar day, a board cell, a
/// card. An element holding more, or holding controls, is where the page delegates its events
/// (an app root, a list), not a control.
const MAX_LISTENER_DESCENDANTS: u32 = 16;

/// Whether an element whose only sign is a page-recorded listener looks like one control.
pub(super) fn listener_control(el: &Element) -> bool {
    few_descendants(el, MAX_LISTENER_DESCENDANTS)
}

/// Roles of containers: a box of controls, never a control itself.
const CONTAINERS: &[&str] = &[
    "radiogroup",
    "group",
    "toolbar",
    "tablist",
    "menubar",
    "tree",
    "grid",
    "list",
    "presentation",
];

/// Whether a clickable that only the pointer or a listener makes one is a wrapper around the
/// control a person uses (a component's host around the switch it draws, a field around its
/// input, a slider's track, a radio group): nothing names it but its classes, it is a
/// container, or it is named as the control it holds. The control is listed instead, and clicks
/// on it reach the wrapper's listeners anyway.
pub(super) fn wraps_control(el: &Element, name: &str) -> bool {
    let Some(inner) = first_control(el) else { return false };
    let name =
        if super::roles::own_name(el, &el.local_name()).trim().is_empty() { "" } else { name };
    let container = super::facts::aria(el, "role")
        .is_some_and(|r| r.split_whitespace().next().is_some_and(|r| CONTAINERS.contains(&r)));
    name.trim().is_empty()
        || container
        || super::roles::accessible_name(&inner, &inner.local_name()).trim() == name.trim()
}
