//! Text a person cannot see although the element renders (see [`crate::visibility`]);
//! `display: none`, `visibility: hidden`, off-screen and clipped content are handled by the
//! walker itself.
//!
//! Judged from the computed paint the walk reads in one call per element (`facts.rs`): opacity
//! (the element's times its ancestors', `filter: opacity()` included), blur, clip paths, masks,
//! transforms, clipping boxes too small to show a glyph, and the colour the glyphs are painted
//! in (the text fill colour when set) against what is behind them (the nearest opaque
//! background or uniform gradient, carried down the walk as [`Backdrop`]). Where the glyphs of
//! each text node end up (scaled, zoomed, squashed, moved off the page) is judged per node.
//! Text drawn as bullets (`-webkit-text-security`) shows none of its words.

use super::facts::{self, Paint};
use crate::visibility::{
    MIN_GLYPH_PX, clip_hides, filter_effect, invisible_by_style_of, mask_hides,
    transform_collapses, uniform_image, unreadable_on,
};
use web_sys::Element;

/// What is painted behind an element's content: an opaque colour, or `None` when it cannot be
/// known (an image), in which case the colour of text is not judged.
pub(super) type Backdrop = Option<[f64; 4]>;

/// The backdrop of the page itself: the root's or the body's opaque background, else the
/// white canvas.
pub(super) fn page_backdrop(body: &Element) -> Backdrop {
    let root = body.owner_document().and_then(|d| d.document_element());
    for el in [Some(body.clone()), root].into_iter().flatten() {
        if let Some(backdrop) = own_backdrop(&facts::paint_of(&el)) {
            return backdrop;
        }
    }
    Some([255.0, 255.0, 255.0, 1.0])
}

/// What the element itself paints behind its content: `Some(colour)`, `Some(None)` for an
/// image, `None` when it paints nothing (its parent's backdrop shows through).
fn own_backdrop(paint: &Paint) -> Option<Backdrop> {
    if !paint.background_image.is_empty() {
        return Some(uniform_image(&paint.background_image));
    }
    paint.background_color.filter(|c| c[3] > 0.5).map(Some)
}

/// The backdrop of the element's content, given its parent's.
pub(super) fn backdrop(paint: &Paint, parent: Backdrop) -> Backdrop {
    own_backdrop(paint).unwrap_or(parent)
}

/// The element's opacity factor from `filter: opacity()`, to multiply with its `opacity`.
pub(super) fn filter_opacity(paint: &Paint) -> f64 {
    if paint.filter.is_empty() { 1.0 } else { filter_effect(&paint.filter).0 }
}

/// Whether the element's content is invisible to a person, from its computed paint, its
/// effective opacity (its own times its ancestors', multiplied down the walk) and the backdrop
/// its text sits on (its own background or its parent's).
pub(super) fn invisible(el: &Element, paint: &Paint, opacity: f64, behind: Backdrop) -> bool {
    if !paint.transform.is_empty() && transform_collapses(&paint.transform) {
        return true;
    }
    if !paint.filter.is_empty() && filter_effect(&paint.filter).1 {
        return true;
    }
    if !paint.mask.is_empty() && mask_hides(&paint.mask) {
        return true;
    }
    // A box too small to show a glyph that clips its overflow (or its clip path) shows none
    // of its text.
    if paint.clips || !paint.clip_path.is_empty() {
        let rect = facts::rect(el);
        let (width, height) = (rect.width, rect.height);
        if paint.clips && (width < MIN_GLYPH_PX || height < MIN_GLYPH_PX) {
            return true;
        }
        if !paint.clip_path.is_empty() && clip_hides(&paint.clip_path, width, height) {
            return true;
        }
    }
    // A shadow host's own text shows only where its shadow tree's slots draw it (on the
    // button the component paints, white on blue), never on the host's backdrop: it is
    // judged there, like a child's.
    let text = paint.text.as_ref().filter(|_| el.shadow_root().is_none());
    let Some(text) = text else {
        // No text of its own: only its opacity matters here (its children's text is judged
        // where it is).
        return crate::visibility::transparent(opacity);
    };
    // Every character drawn as a bullet: the words are not on the screen.
    if text.masked {
        return true;
    }
    // A background clipped to the glyphs paints them (gradient text): their colour is the
    // image's, not judged.
    if text.clip_text && !paint.background_image.is_empty() {
        return crate::visibility::transparent(opacity);
    }
    // The text fill colour, when set, is what paints the glyphs.
    let ink = text.fill.unwrap_or(text.color);
    if invisible_by_style_of(opacity, text.font_px, ink) == Some(true) {
        return true;
    }
    match (ink, behind) {
        (Some(colour), Some(background)) => unreadable_on(colour, opacity, background),
        _ => false,
    }
}
