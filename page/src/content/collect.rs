//! `collect` on the live DOM: the [`Dom`] adapter the records are found with, and the
//! answer for one page (rows, the shape, and the pager as a ref of the latest observation).

use super::dom::REFS;
use crate::action::ActionOutcome;
use crate::collect::{self, CollectSpec, Collected, CollectedPage, Dom, Pager};
use crate::observation::Ref;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlAnchorElement, HtmlElement};

/// The frame's document, read as [`Dom`].
struct Live {
    document: Document,
}

impl Dom for Live {
    type Node = Element;
    fn parent(&self, n: &Element) -> Option<Element> {
        n.parent_element()
    }
    fn children(&self, n: &Element) -> Vec<Element> {
        let list = n.children();
        (0..list.length()).filter_map(|i| list.item(i)).collect()
    }
    fn tag(&self, n: &Element) -> String {
        n.local_name()
    }
    fn classes(&self, n: &Element) -> Vec<String> {
        n.get_attribute("class")
            .map(|c| c.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default()
    }
    fn text(&self, n: &Element) -> String {
        match n.dyn_ref::<HtmlElement>() {
            Some(h) => h.inner_text(),
            None => n.text_content().unwrap_or_default(),
        }
    }
    fn attr(&self, n: &Element, name: &str) -> Option<String> {
        n.get_attribute(name)
    }
    fn href(&self, n: &Element) -> Option<String> {
        n.dyn_ref::<HtmlAnchorElement>().map(HtmlAnchorElement::href).filter(|h| !h.is_empty())
    }
    fn shown(&self, n: &Element) -> bool {
        match n.dyn_ref::<HtmlElement>() {
            Some(h) => h.offset_width() > 0 || h.offset_height() > 0,
            None => true,
        }
    }
    fn by_tag(&self, tag: &str) -> Vec<Element> {
        let list = self.document.get_elements_by_tag_name(tag);
        (0..list.length()).filter_map(|i| list.item(i)).collect()
    }
    fn more_below(&self) -> bool {
        let Some(window) = web_sys::window() else { return false };
        let height = window.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
        let scrolled = window.scroll_y().unwrap_or(0.0);
        let total = self.document.document_element().map(|e| f64::from(e.scroll_height()));
        total.is_some_and(|t| scrolled + height + 2.0 < t)
    }
}

/// Reads this page's records for `spec` (learning their shape from the example the first
/// time) and finds how the listing goes on.
pub(super) fn collect_page(spec: &CollectSpec, anchor: Option<Element>) -> ActionOutcome {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return ActionOutcome::failed("this frame has no document");
    };
    let dom = Live { document };
    let shape = match &spec.shape {
        Some(shape) => shape.clone(),
        None => match collect::learn(&dom, anchor, spec) {
            Ok(shape) => shape,
            Err(e) => return ActionOutcome::failed(e.to_string()),
        },
    };
    let (records, rows, skipped) = collect::read(&dom, &shape);
    let inside_record = |n: &Element| records.iter().any(|r| r.contains(Some(n)));
    let pager = collect::find_pager(&dom, &inside_record).and_then(|(kind, node, label)| {
        let control = match node {
            None => None,
            // The click goes through the agent's gate like any click: it needs a ref.
            Some(node) => Some(ref_of(&node)?),
        };
        Some(Pager { kind, control, label })
    });
    let url = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    ActionOutcome {
        collected: Some(Box::new(Collected::Page(CollectedPage {
            url,
            rows,
            skipped,
            shape: Some(shape),
            pager,
        }))),
        ..ActionOutcome::done()
    }
}

/// The element's ref in this frame's latest observation (top-frame numbering; the worker
/// addresses the frame).
fn ref_of(node: &Element) -> Option<Ref> {
    REFS.with(|refs| {
        refs.borrow().iter().position(|e| e.element == *node).map(|i| Ref::top(i as u32 + 1))
    })
}
