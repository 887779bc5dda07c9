//! Scrolling the page or a box whose content scrolls on its own (a virtualised list, a panel),
//! and bringing an element or a text into view.

use crate::act_error::{ActError, ScrollError};
use crate::action::{ActionOutcome, ScrollDirection};
use wasm_bindgen::JsCast;
use web_sys::Element;

pub(super) fn scroll(
    target: Option<&Element>,
    direction: ScrollDirection,
) -> Result<ActionOutcome, ActError> {
    let window = web_sys::window().ok_or(ActError::NoWindow)?;
    // A ref inside a scrolling box (a row of a list that scrolls on its own) scrolls that box.
    let boxed = target.and_then(scroll_box);
    let scroller: Element = match &boxed {
        Some(el) => el.clone(),
        None => window
            .document()
            .and_then(|d| d.scrolling_element())
            .ok_or(ScrollError::CannotScroll)?,
    };
    let page = boxed.is_none();
    let view = if page {
        window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(600.0)
    } else {
        f64::from(scroller.client_height())
    };
    let before = f64::from(scroller.scroll_top());
    let max = f64::from(scroller.scroll_height()) - view;
    let goal = match direction {
        ScrollDirection::Down => before + view * 0.8,
        ScrollDirection::Up => before - view * 0.8,
        ScrollDirection::Top => 0.0,
        ScrollDirection::Bottom => max,
    }
    .clamp(0.0, max.max(0.0));
    scroller.set_scroll_top(goal as i32);
    let after = f64::from(scroller.scroll_top());
    if (after - before).abs() < 1.0 {
        let end = if goal <= before { ScrollError::AtTop } else { ScrollError::AtBottom };
        return Err(end.into());
    }
    let below = (f64::from(scroller.scroll_height()) - view - after).max(0.0);
    Ok(ActionOutcome::with_text(format!("scrolled to {after:.0}px; {below:.0}px below")))
}

/// The element itself if its content scrolls, else the nearest element around it whose
/// content does (across open shadow roots); `None`: only the page scrolls there.
fn scroll_box(el: &Element) -> Option<Element> {
    let document = el.owner_document()?;
    let page = document.scrolling_element();
    let mut node = Some(el.clone());
    while let Some(current) = node {
        if Some(&current) == page.as_ref() || current.local_name() == "body" {
            return None;
        }
        if scrolls(&current) {
            return Some(current);
        }
        node = current.parent_element().or_else(|| {
            current.get_root_node().dyn_into::<web_sys::ShadowRoot>().ok().map(|s| s.host())
        });
    }
    None
}

/// Whether the element's own content scrolls vertically (`overflow-y` auto or scroll, with
/// more content than room).
pub(super) fn scrolls(el: &Element) -> bool {
    if el.scroll_height() <= el.client_height() + 1 {
        return false;
    }
    let style = web_sys::window().and_then(|w| w.get_computed_style(el).ok().flatten());
    let overflow = style.and_then(|s| s.get_property_value("overflow-y").ok()).unwrap_or_default();
    matches!(overflow.as_str(), "auto" | "scroll" | "overlay")
}

pub(super) fn scroll_to(
    target: Option<&Element>,
    text: Option<&str>,
) -> Result<ActionOutcome, ActError> {
    let el = match (target, text) {
        (Some(el), _) => el.clone(),
        (None, Some(text)) => super::extract::element_with_text(text)
            .ok_or_else(|| ScrollError::TextAbsent(text.to_owned()))?,
        (None, None) => return Err(ScrollError::NeedsTarget.into()),
    };
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Center);
    el.scroll_into_view_with_scroll_into_view_options(&options);
    // Read back: the element's box must now overlap the window.
    let window = web_sys::window().ok_or(ActError::NoWindow)?;
    let size = |v: Result<wasm_bindgen::JsValue, _>| v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    let (width, height) = (size(window.inner_width()), size(window.inner_height()));
    let rect = el.get_bounding_client_rect();
    let in_view = rect.bottom() > 0.0
        && rect.right() > 0.0
        && rect.top() < height
        && rect.left() < width
        && (rect.width() > 0.0 || rect.height() > 0.0);
    if !in_view {
        return Err(ScrollError::NotInView.into());
    }
    Ok(ActionOutcome::with_text(format!("it is in view ({:.0}px from the top)", rect.top())))
}
