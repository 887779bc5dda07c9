//! How a listing goes on: a "Next" control, the next page number, "Load more", or more
//! content below (infinite scroll).

use super::{Dom, cell};
use crate::observation::Ref;
use serde::{Deserialize, Serialize};

/// What kind of control (or none) shows the next records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PagerKind {
    /// A "Next" link or button (or `rel=next`).
    Next,
    /// The link to the page after the current one in a row of page numbers.
    Number,
    /// A "Load more" / "Show more" button that adds records to this page.
    LoadMore,
    /// No control, but the page goes on below: scrolling may load more (infinite scroll).
    Scroll,
}

/// The way on, as the service worker acts on it: a click on `control` (through the safety
/// gate like any click), or a scroll to the bottom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Pager {
    /// What it is.
    pub kind: PagerKind,
    /// The control's ref in the frame's latest observation (absent for a scroll).
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub control: Option<Ref>,
    /// Its label, for the timeline.
    #[serde(default)]
    pub label: String,
}

/// Labels of a "next" control (lower case, whitespace collapsed).
const NEXT: &[&str] = &[
    "next",
    "next page",
    "›",
    "»",
    "→",
    ">",
    "next ›",
    "next »",
    "next →",
    "next >",
    "older posts",
    "older",
];

/// Beginnings of a "load more" control's label.
const LOAD_MORE: &[&str] = &["load more", "show more", "see more", "view more", "more results"];

/// The control that shows the next records, with its element (`None` for a scroll), or
/// `None` when the listing ends here. `inside_record` says whether an element lies inside a
/// record (a card's own "›" of an image carousel is no pager).
pub fn find_pager<D: Dom>(
    dom: &D,
    inside_record: &dyn Fn(&D::Node) -> bool,
) -> Option<(PagerKind, Option<D::Node>, String)> {
    let mut controls = dom.by_tag("a");
    controls.extend(dom.by_tag("button"));
    let usable = |n: &D::Node| {
        dom.shown(n)
            && dom.attr(n, "disabled").is_none()
            && dom.attr(n, "aria-disabled").as_deref() != Some("true")
            && !inside_record(n)
    };
    let label = |n: &D::Node| {
        let text = cell(&dom.text(n));
        let text =
            if text.is_empty() { dom.attr(n, "aria-label").unwrap_or_default() } else { text };
        cell(&text).to_lowercase()
    };
    let mut load_more = None;
    for n in &controls {
        let rel_next =
            dom.attr(n, "rel").is_some_and(|r| r.split_whitespace().any(|w| w == "next"));
        let l = label(n);
        let aria = dom.attr(n, "aria-label").map(|a| cell(&a).to_lowercase()).unwrap_or_default();
        let next = rel_next || NEXT.contains(&l.as_str()) || aria == "next" || aria == "next page";
        if next && usable(n) {
            return Some((PagerKind::Next, Some(n.clone()), l));
        }
        if load_more.is_none() && LOAD_MORE.iter().any(|m| l.starts_with(m)) && usable(n) {
            load_more = Some((PagerKind::LoadMore, Some(n.clone()), l));
        }
    }
    if let Some(number) = next_number(dom, &controls, &usable) {
        return Some(number);
    }
    if load_more.is_some() {
        return load_more;
    }
    dom.more_below().then(|| (PagerKind::Scroll, None, "scroll down".to_owned()))
}

/// After the page marked current (`aria-current=page`) in a row of numbers, the link to the
/// number after it.
fn next_number<D: Dom>(
    dom: &D,
    controls: &[D::Node],
    usable: &dyn Fn(&D::Node) -> bool,
) -> Option<(PagerKind, Option<D::Node>, String)> {
    let mut marked = controls.to_vec();
    marked.extend(dom.by_tag("span"));
    marked.extend(dom.by_tag("li"));
    let current: u32 = marked
        .iter()
        .filter(|n| dom.attr(n, "aria-current").is_some_and(|v| v == "page" || v == "true"))
        .find_map(|n| cell(&dom.text(n)).parse().ok())?;
    let wanted = current.checked_add(1)?.to_string();
    controls
        .iter()
        .find(|n| cell(&dom.text(n)) == wanted && usable(n))
        .map(|n| (PagerKind::Number, Some(n.clone()), wanted))
}
