//! Visual order: a list, grid or menu whose items are placed by CSS (absolutely positioned
//! rows, `transform: translateY()`, flex or grid `order`) is read in the order a person sees
//! it, not in DOM order — a data grid sorted by moving its rows reads sorted. Only list-like
//! containers are measured (by tag or ARIA role), and only when one of their first items is
//! placed out of the flow, so the cost stays off ordinary pages. The order is decided in
//! [`crate::observation::order`].

use wasm_bindgen::prelude::*;
use web_sys::Element;

#[wasm_bindgen(module = "/js/order.js")]
extern "C" {
    /// The `top, left` of each of `parent`'s element children, flattened, or `null` when
    /// none is placed out of the flow or there are more than `most`.
    fn item_places(parent: &Element, most: u32) -> Option<Vec<f64>>;
}

/// Most items of one container measured.
const MOST_ITEMS: u32 = 400;

/// Tags whose children are items read in order.
const LIST_TAGS: &[&str] = &["ul", "ol", "tbody", "menu"];

/// ARIA roles whose children are items read in order.
const LIST_ROLES: &[&str] = &[
    "list", "listbox", "grid", "treegrid", "rowgroup", "tree", "menu", "tablist", "feed", "table",
];

/// Whether `tag`/`role` make an element a container whose items are measured.
pub(super) fn is_list(tag: &str, role: Option<&str>) -> bool {
    LIST_TAGS.contains(&tag) || role.is_some_and(|r| LIST_ROLES.contains(&r))
}

/// The children of the list `parent` in drawn order, when that differs from DOM order.
pub(super) fn reordered(parent: &Element) -> Option<Vec<Element>> {
    let places = item_places(parent, MOST_ITEMS)?;
    let boxes: Vec<(f64, f64)> = places.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    let order = crate::observation::order::drawn_order(&boxes)?;
    let kids = parent.children();
    Some(order.into_iter().filter_map(|i| kids.item(i as u32)).collect())
}
