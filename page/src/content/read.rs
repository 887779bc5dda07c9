//! Text reads for names, done in one JS call each (see `facts.rs` for why): an element's text
//! with spaces between its blocks, the strings an icon-only control carries (class lists,
//! icon references, image file names), and the text a person reads beside a field that no
//! label is tied to. They only read; the names are made in `roles.rs` and
//! [`crate::observation::names`].

use wasm_bindgen::prelude::*;
use web_sys::Element;

#[wasm_bindgen(module = "/js/read.js")]
extern "C" {
    /// The element's text with a space at each boundary of a non-inline element (list items,
    /// options, cells), read until about `limit` characters.
    pub(super) fn spaced_text(el: &Element, limit: u32) -> String;
    /// Class lists, `data-icon`, `<use href>` and image `src` of the element's first
    /// descendants (the icon itself), then of the element, then its `id` (`send-reply`): what
    /// [`crate::observation::names::icon_name`] reads.
    pub(super) fn icon_sources(el: &Element) -> Vec<String>;
    /// The visible text just before a field — in its parent, or its wrapper's, or the previous
    /// table cell — unless a control or a label of another control comes first; when there is
    /// none, the text drawn under (or over) the field inside the group that holds no other
    /// control (a label laid out below its box): what
    /// [`crate::observation::names::nearby_label`] reads.
    pub(super) fn nearby_texts(el: &Element) -> Vec<String>;
}
