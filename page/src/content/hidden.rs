//! Text a person cannot see although the element renders (see [`crate::visibility`]);
//! `display: none`, `visibility: hidden`, off-screen and clipped content are handled by the
//! walker itself.

use super::facts::{self, Paint};
use crate::visibility::{invisible_by_style, is_light, rgba, transform_collapses};
use web_sys::Element;

/// Whether the element's content is invisible to a person, from its computed style (read in
/// one batched call by the walk, see `facts.rs`) and its effective opacity (its own times its
/// ancestors', multiplied down the walk).
pub(super) fn invisible(el: &Element, paint: &Paint, opacity: f64) -> bool {
    if transform_collapses(&paint.transform) {
        return true;
    }
    // A box of no height (or width) that clips its overflow shows none of its text.
    let overflow = &paint.overflow;
    if overflow.contains("hidden") || overflow.contains("clip") {
        let rect = el.get_bounding_client_rect();
        if rect.width() < 1.0 || rect.height() < 1.0 {
            return true;
        }
    }
    match invisible_by_style(opacity, &paint.font_size, &paint.color) {
        Some(verdict) => verdict,
        // Light text: only then are the ancestors walked, which ordinary pages rarely need.
        None => background_of(el).is_none_or(is_light),
    }
}

/// The first opaque background colour at or above `el`; `None` = the (white) canvas.
fn background_of(el: &Element) -> Option<[f64; 4]> {
    let mut node = Some(el.clone());
    while let Some(current) = node {
        let bg = facts::background_color(&current);
        if let Some(bg) = rgba(&bg)
            && bg[3] > 0.5
        {
            return Some(bg);
        }
        node = current.parent_element();
    }
    None
}
