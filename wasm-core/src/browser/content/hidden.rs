//! Text a person cannot see although the element renders (see [`crate::safety::visibility`]);
//! `display: none`, `visibility: hidden`, off-screen and clipped content are handled by the
//! walker itself.

use crate::safety::visibility::{invisible_by_style, is_light, rgba, transform_collapses};
use web_sys::{CssStyleDeclaration, Element, Window};

/// Whether the element's content is invisible to a person, from its computed style.
pub(super) fn invisible(el: &Element, style: &CssStyleDeclaration, window: &Window) -> bool {
    let prop = |name: &str| style.get_property_value(name).unwrap_or_default();
    if transform_collapses(&prop("transform")) {
        return true;
    }
    // A box of no height (or width) that clips its overflow shows none of its text.
    let overflow = prop("overflow");
    if overflow.contains("hidden") || overflow.contains("clip") {
        let rect = el.get_bounding_client_rect();
        if rect.width() < 1.0 || rect.height() < 1.0 {
            return true;
        }
    }
    match invisible_by_style(&prop("opacity"), &prop("font-size"), &prop("color")) {
        Some(verdict) => verdict,
        // Light text: only then are the ancestors walked, which ordinary pages rarely need.
        None => background_of(el, window).is_none_or(is_light),
    }
}

/// The first opaque background colour at or above `el`; `None` = the (white) canvas.
fn background_of(el: &Element, window: &Window) -> Option<[f64; 4]> {
    let mut node = Some(el.clone());
    while let Some(current) = node {
        let style = window.get_computed_style(&current).ok().flatten();
        let bg = style.and_then(|s| s.get_property_value("background-color").ok());
        if let Some(bg) = bg.as_deref().and_then(rgba)
            && bg[3] > 0.5
        {
            return Some(bg);
        }
        node = current.parent_element();
    }
    None
}
