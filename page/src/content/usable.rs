//! Whether a person could see a form field: measured here, decided by
//! [`crate::visibility`] (one definition for the walk and the actions). A page's
//! invisible "verification" field must neither reach the model nor receive typed text.

use super::act::label;
use crate::act_error::{ActError, FieldError};
use crate::visibility::{FieldView, MIN_FIELD_PX, TextLook, field_hidden, transparent};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlInputElement};

#[wasm_bindgen(module = "/js/usable.js")]
extern "C" {
    /// The element's opacity times every ancestor's (across shadow roots).
    fn effective_opacity(el: &Element) -> f64;
    /// Whether `el` is a label whose control is a checkbox or radio that is not rendered
    /// (`display: none`, `visibility: hidden`): the label is what a person clicks.
    pub(super) fn toggle_unrendered(el: &Element) -> bool;
    /// Whether the element or an ancestor is fixed or sticky (stays put while the page scrolls).
    fn in_fixed_layer(el: &Element) -> bool;
    /// The nearest box around `el` (within four levels, across a shadow root) at least `min`
    /// px both ways that contains it and no other field, when `el` is at least 1 px thin and
    /// `min` px long: see [`auto_sized_box`].
    fn drawing_box(el: &Element, min: f64) -> Option<Element>;
}

/// Form fields: what typing, selecting and ticking act on.
pub(super) fn is_field(el: &Element, tag: &str, editable: bool) -> bool {
    match tag {
        "textarea" | "select" => true,
        "input" => !matches!(
            el.get_attribute("type").unwrap_or_default().to_ascii_lowercase().as_str(),
            "hidden" | "button" | "submit" | "reset" | "image"
        ),
        _ => editable,
    }
}

/// A native checkbox, radio or file input drawn smaller than a field or clipped to nothing
/// (the "visually hidden" patterns; Bootstrap's `btn-check` radios are clipped where they lie,
/// under their neighbour's label): a person sees and uses it through its label.
fn hidden_toggle(el: &Element) -> bool {
    el.dyn_ref::<HtmlInputElement>().is_some_and(|i| {
        let rect = el.get_bounding_client_rect();
        matches!(i.type_().as_str(), "checkbox" | "radio" | "file")
            && (rect.width() < MIN_FIELD_PX || rect.height() < MIN_FIELD_PX || clipped_away(el))
    })
}

/// Whether `clip` (the old property the "visually hidden" pattern still uses) cuts the
/// element down to nothing, or the element sits in a [`visually_hidden_box`] (React Aria
/// wraps its native switches, checkboxes, radios and ranges in one).
fn clipped_away(el: &Element) -> bool {
    let Some(style) = web_sys::window().and_then(|w| w.get_computed_style(el).ok().flatten())
    else {
        return false;
    };
    style.get_property_value("clip").unwrap_or_default().starts_with("rect(0px, 0px, 0px, 0px)")
        || hidden_wrapper(el).is_some()
}

/// Ancestors looked at for the "visually hidden" box a native control is wrapped in.
const WRAPPER_LEVELS: u32 = 2;

/// The "visually hidden" box (at most [`WRAPPER_LEVELS`] up) that `el` is wrapped in.
fn hidden_wrapper(el: &Element) -> Option<Element> {
    let mut node = el.parent_element();
    for _ in 0..WRAPPER_LEVELS {
        let up = node?;
        if visually_hidden_box(&up) {
            return Some(up);
        }
        node = up.parent_element();
    }
    None
}

/// Whether `el` is a box of the "visually hidden" pattern: a pixel or less both ways that
/// clips what overflows it (`overflow: hidden`, `clip: rect(0 0 0 0)`, a clip path). What it
/// holds is not drawn, so a native control inside is used through the label or thumb a
/// person sees.
pub(super) fn visually_hidden_box(el: &Element) -> bool {
    let rect = el.get_bounding_client_rect();
    if rect.width() > 1.0 || rect.height() > 1.0 {
        return false;
    }
    let Some(style) = web_sys::window().and_then(|w| w.get_computed_style(el).ok().flatten())
    else {
        return false;
    };
    let value = |name: &str| style.get_property_value(name).unwrap_or_default();
    let overflow = value("overflow");
    overflow.contains("hidden")
        || overflow.contains("clip")
        || value("clip").starts_with("rect(")
        || !matches!(value("clip-path").as_str(), "" | "none")
}

/// The label a person clicks for a visually-hidden checkbox or radio ([`hidden_toggle`]):
/// the pointer lands there, and the label's own handlers (a rating's star sets the value on
/// the label's click) run as for a person, before the label clicks the input.
pub(super) fn clicked_label(el: &Element) -> Option<Element> {
    let input = el.dyn_ref::<HtmlInputElement>()?;
    if !matches!(input.type_().as_str(), "checkbox" | "radio") || !hidden_toggle(el) {
        return None;
    }
    visible_label(el)
}

/// A field drawn thinner than [`MIN_FIELD_PX`] in one dimension that a person sees and uses
/// through the box drawn around it: an auto-sized input (a combobox's search box is 2 px wide
/// until something is typed), a range input thinner than its thumb. The box must contain the
/// field and no other field, so a box never lends its size to a trap beside a real field.
/// Text fields and ranges only; passwords and toggles are judged on their own (toggles have
/// their labels, see [`stand_in`]).
pub(super) fn auto_sized_box(el: &Element) -> Option<Element> {
    let input = el.dyn_ref::<HtmlInputElement>()?;
    if !matches!(
        input.type_().as_str(),
        "text" | "search" | "email" | "url" | "tel" | "number" | "range"
    ) {
        return None;
    }
    let rect = el.get_bounding_client_rect();
    if rect.width() >= MIN_FIELD_PX && rect.height() >= MIN_FIELD_PX {
        return None;
    }
    drawing_box(el, MIN_FIELD_PX)
}

/// A native range input hidden the "visually hidden" way (clipped to nothing, or transparent)
/// inside the thumb or track a library draws for it (MUI's slider, Material Web's): what a
/// person sees and drags, so the input is listed, judged and acted on through it.
pub(super) fn clipped_range_thumb(el: &Element) -> Option<Element> {
    let input = el.dyn_ref::<HtmlInputElement>()?;
    if input.type_() != "range" {
        return None;
    }
    // React Aria wraps the range in a "visually hidden" box inside the thumb it draws: the
    // thumb around that box stands in for it.
    if let Some(wrapper) = hidden_wrapper(el) {
        return wrapper.parent_element().filter(seen);
    }
    let style = web_sys::window()?.get_computed_style(el).ok()??;
    let clip = style.get_property_value("clip").unwrap_or_default();
    let clip_path = style.get_property_value("clip-path").unwrap_or_default();
    let clipped = clip.starts_with("rect(0px, 0px, 0px, 0px)")
        || (!clip_path.is_empty() && clip_path != "none");
    // Material Web's slider lays its range input at `opacity: 0` over the whole track it
    // draws: no text can hide in a range, so the track a person drags stands in for it.
    let faded = transparent(effective_opacity(el));
    if !clipped && !faded {
        return None;
    }
    el.parent_element().filter(seen)
}

/// A combobox's text input drawn transparent inside the box that shows its choice (Element
/// Plus's select keeps its read-only input at `opacity: 0` over the selected label): the
/// combobox takes its value from its list, and the box is what a person sees and clicks, so the input
/// is listed and acted on through the nearest visible box around it that holds no other field.
///
/// PrimeReact keeps such an input (a combobox, or a field that opens a list) in a "visually
/// hidden" box inside the widget it draws: the widget around that box stands in for it.
pub(super) fn combobox_stand_in(el: &Element) -> Option<Element> {
    // Read-only: nothing typed can go unseen; the list sets the value.
    let input = el.dyn_ref::<HtmlInputElement>()?;
    if !input.read_only() {
        return None;
    }
    if super::facts::aria(el, "role").as_deref() == Some("combobox") {
        if let Some(wrapper) = hidden_wrapper(el) {
            return wrapper.parent_element().filter(seen);
        }
        return drawing_box(el, MIN_FIELD_PX).filter(seen);
    }
    // A read-only field that opens a list, wrapped away: the widget drawn around it.
    let opens_list = super::facts::aria(el, "aria-haspopup").as_deref() == Some("listbox");
    let wrapper = hidden_wrapper(el).filter(|_| opens_list)?;
    wrapper.parent_element().filter(seen)
}

/// A read-only list field kept in a "visually hidden" box, and the widget standing for it
/// (what a click lands on: the field's own box is scrolled and clipped away, and PrimeReact's
/// dropdown ignores a click whose target is its input).
pub(super) fn wrapped_combobox(el: &Element) -> Option<Element> {
    hidden_wrapper(el)?;
    combobox_stand_in(el)
}

/// Whether a person can see `el`: big enough and not faded out.
fn seen(el: &Element) -> bool {
    let rect = el.get_bounding_client_rect();
    rect.width() >= MIN_FIELD_PX
        && rect.height() >= MIN_FIELD_PX
        && !transparent(effective_opacity(el))
}

/// The first label of a visually-hidden toggle that a person can see.
fn visible_label(el: &Element) -> Option<Element> {
    let labels = el.dyn_ref::<HtmlInputElement>()?.labels()?;
    (0..labels.length()).filter_map(|i| labels.item(i)?.dyn_into::<Element>().ok()).find(seen)
}

/// A native checkbox or radio at `opacity: 0` laid over a styled box (TodoMVC's toggles, most
/// component libraries): what a person sees and clicks in its place — its visible label, else
/// the visible element beside it or around it. Only toggles: a text field nobody can see is
/// never typed into, whatever stands beside it.
pub(super) fn stand_in(el: &Element) -> Option<Element> {
    let input = el.dyn_ref::<HtmlInputElement>()?;
    if !matches!(input.type_().as_str(), "checkbox" | "radio") {
        return None;
    }
    if let Some(label) = visible_label(el) {
        return Some(label);
    }
    [el.next_element_sibling(), el.previous_element_sibling(), el.parent_element()]
        .into_iter()
        .flatten()
        .find(seen)
}

/// A transparent toggle with a [`stand_in`], which a person's pointer still reaches at its
/// centre (the input itself, or its stand-in, is what is hit there).
pub(super) fn transparent_toggle(el: &Element) -> Option<Element> {
    let shown = stand_in(el)?;
    let rect = el.get_bounding_client_rect();
    if rect.width() < 1.0 || rect.height() < 1.0 {
        return Some(shown);
    }
    let (x, y) = (rect.x() + rect.width() / 2.0, rect.y() + rect.height() / 2.0);
    match hit_at(el, x, y) {
        Some(hit) if own(&hit, el, &shown) => Some(shown),
        // Out of the viewport: judged when acted on, after scrolling.
        None => Some(shown),
        Some(_) => None,
    }
}

/// The element at the viewport point (x, y) as `el`'s own tree sees it.
fn hit_at(el: &Element, x: f64, y: f64) -> Option<Element> {
    let root = el.get_root_node();
    if let Some(shadow) = root.dyn_ref::<web_sys::ShadowRoot>() {
        return shadow.element_from_point(x as f32, y as f32);
    }
    el.owner_document().and_then(|d| d.element_from_point(x as f32, y as f32))
}

/// Whether `hit` is what a person sees at that point: the field or its content, or (for a
/// visually-hidden toggle) the label standing for it. A text field whose centre hits its own
/// wrapping label is not painted there (`clip-path`, a mask), so that does not count.
///
/// Inside a shadow root, a point over text the host slots into `shown` (a web component's
/// label: `<sl-switch>Push notifications</sl-switch>`) hits the host itself; that is the
/// field's own content too, not a cover.
fn own(hit: &Element, field: &Element, shown: &Element) -> bool {
    field.contains(Some(hit))
        || shown.contains(Some(hit))
        || slots_into(hit, shown)
        || placeholder_over(field, hit)
}

/// Whether `hit` is the placeholder an editable combobox draws over its own empty search
/// input (Element Plus's filterable select lays its "Select" text over the input until
/// something is typed): the input is empty, so nothing typed is hidden yet, and the cover is
/// part of the combobox's own box — the nearest box around the input (within three levels)
/// that holds the cover, holds no other field, and a person can see. Once text is typed the
/// field is judged as any other ([`typed_text_seen`]).
fn placeholder_over(field: &Element, hit: &Element) -> bool {
    let Some(input) = field.dyn_ref::<HtmlInputElement>() else { return false };
    let editable_combobox = super::facts::aria(field, "role").as_deref() == Some("combobox")
        && matches!(input.type_().as_str(), "text" | "search")
        && !input.read_only()
        && input.value().is_empty();
    let a_field = |el: &Element| {
        matches!(el.local_name().as_str(), "input" | "textarea" | "select")
            || el.dyn_ref::<web_sys::HtmlElement>().is_some_and(|h| h.is_content_editable())
            || el.query_selector("input,textarea,select,[contenteditable]").ok().flatten().is_some()
    };
    if !editable_combobox || a_field(hit) {
        return false;
    }
    let mut up = field.parent_element();
    for _ in 0..3 {
        let Some(around) = up else { return false };
        if around.contains(Some(hit)) {
            let fields =
                around.query_selector_all("input,textarea,select").map_or(0, |l| l.length());
            return fields <= 1 && seen(&around);
        }
        up = around.parent_element();
    }
    false
}

/// After typing into `field`: once the page has drawn what it holds (a frame or two), the
/// field must show it — nothing but the field (or what the field draws) at its centre. A
/// combobox listed past its placeholder ([`placeholder_over`]) whose cover stays over the
/// typed text gets it taken out again: text nobody can see is never left in a field.
pub(super) async fn typed_text_seen(field: &Element) -> Result<(), ActError> {
    let Some(input) = field.dyn_ref::<HtmlInputElement>() else { return Ok(()) };
    if input.value().is_empty() {
        return Ok(());
    }
    super::drag::sleep(TYPED_DRAW_MS).await;
    if input.value().is_empty() {
        return Ok(());
    }
    let view = measure(field, field, None, |_| true);
    let Some(why) = field_hidden(&view) else { return Ok(()) };
    super::act::set_value(field, "HTMLInputElement", "")?;
    super::events::fire_input(field, "deleteContentBackward", "")?;
    Err(FieldError::TypedUnseen(why).into())
}

/// Whether the centre of `field` shows its placeholder ([`placeholder_over`]) rather than the
/// field: typing into it is checked afterwards with [`typed_text_seen`].
pub(super) fn under_placeholder(field: &Element) -> bool {
    let rect = field.get_bounding_client_rect();
    let (x, y) = (rect.x() + rect.width() / 2.0, rect.y() + rect.height() / 2.0);
    hit_at(field, x, y)
        .is_some_and(|hit| !field.contains(Some(&hit)) && placeholder_over(field, &hit))
}

/// How long the page gets to draw typed text before it is checked, in ms (a few frames).
const TYPED_DRAW_MS: i32 = 50;

/// Whether `hit` is the shadow host of `shown`'s tree and `shown` draws the host's slotted
/// content.
fn slots_into(hit: &Element, shown: &Element) -> bool {
    let root = shown.get_root_node();
    let Some(shadow) = root.dyn_ref::<web_sys::ShadowRoot>() else { return false };
    shadow.host() == *hit && shown.query_selector("slot").ok().flatten().is_some()
}

/// Measures `shown` (the field, or the label standing for it) where it is now; `opacity`
/// when already known (the walk multiplies it down the tree).
fn measure(
    field: &Element,
    shown: &Element,
    opacity: Option<f64>,
    covering: impl Fn(&Element) -> bool,
) -> FieldView {
    let rect = shown.get_bounding_client_rect();
    let window = web_sys::window();
    let size = |v: Option<Result<JsValue, JsValue>>| {
        v.and_then(Result::ok).and_then(|v| v.as_f64()).unwrap_or(0.0)
    };
    let (vw, vh) = (
        size(window.as_ref().map(|w| w.inner_width())),
        size(window.as_ref().map(|w| w.inner_height())),
    );
    let (x, y) = (rect.x() + rect.width() / 2.0, rect.y() + rect.height() / 2.0);
    let centre_in_view = x >= 0.0 && y >= 0.0 && x < vw && y < vh;
    let covered_by = if centre_in_view {
        match hit_at(shown, x, y) {
            Some(hit) if !own(&hit, field, shown) && covering(&hit) => Some(label(&hit)),
            Some(_) => None,
            None => Some("nothing (the point is not hit)".to_owned()),
        }
    } else {
        None
    };
    FieldView {
        width: rect.width(),
        height: rect.height(),
        opacity: opacity.unwrap_or_else(|| effective_opacity(shown)),
        centre_in_view,
        covered_by,
        text: text_look(field),
    }
}

/// The look of the text typed into `field`, for text inputs. Textareas and editable regions
/// are left out: code editors draw their text on a layer above a transparent textarea.
fn text_look(field: &Element) -> Option<TextLook> {
    let input = field.dyn_ref::<HtmlInputElement>()?;
    if matches!(input.type_().as_str(), "checkbox" | "radio" | "file" | "range" | "color") {
        return None;
    }
    let style = web_sys::window()?.get_computed_style(field).ok()??;
    let value = |name: &str| style.get_property_value(name).unwrap_or_default();
    Some(TextLook {
        color: value("color"),
        fill: value("-webkit-text-fill-color"),
        font_size: value("font-size"),
    })
}

/// For an action on the field `el`: scrolls it (or the label that stands for a visually-hidden
/// toggle) into view and checks that a person could see it there; the error says why not.
pub(super) fn check(el: &Element) -> Result<(), ActError> {
    let shown = if hidden_toggle(el) {
        visible_label(el).ok_or(FieldError::HiddenToggle)?
    } else if let Some(drawn) = auto_sized_box(el) {
        drawn
    } else if let Some(thumb) = clipped_range_thumb(el) {
        thumb
    } else if let Some(widget) = wrapped_combobox(el) {
        widget
    } else if transparent(effective_opacity(el))
        && let Some(shown) = stand_in(el).or_else(|| combobox_stand_in(el))
    {
        shown
    } else {
        el.clone()
    };
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Center);
    options.set_inline(web_sys::ScrollLogicalPosition::Center);
    shown.scroll_into_view_with_scroll_into_view_options(&options);
    match field_hidden(&measure(el, &shown, None, |_| true)) {
        None => Ok(()),
        Some(why) => Err(FieldError::Unseen(why).into()),
    }
}

/// Whether a person can see `el` where it is now (nothing is scrolled: an element out of view
/// counts as seen, as in the walk): for the default actions of keys pressed on the focused
/// element, which must not move the page.
pub(super) fn visible_now(el: &Element) -> bool {
    !hidden_in_walk(el, effective_opacity(el))
}

/// For the walk: whether to leave the field `el` (effective opacity `opacity`) out of the
/// observation. Nothing is scrolled: a field outside the viewport is judged on size and
/// opacity only, unless it lies where no scrolling reaches (left of or above the page); a
/// field under a fixed or sticky layer (a header) is kept, since scrolling may reveal it.
pub(super) fn hidden_in_walk(el: &Element, opacity: f64) -> bool {
    let (shown, known) = if transparent(opacity) {
        match transparent_toggle(el)
            .or_else(|| combobox_stand_in(el))
            .or_else(|| clipped_range_thumb(el))
        {
            Some(shown) => (shown, None),
            None => return true,
        }
    } else if hidden_toggle(el) {
        match visible_label(el) {
            Some(label) => (label, None),
            None => return true,
        }
    } else if let Some(drawn) = auto_sized_box(el) {
        (drawn, Some(opacity))
    } else if let Some(thumb) = clipped_range_thumb(el) {
        (thumb, None)
    } else if let Some(widget) = wrapped_combobox(el) {
        (widget, None)
    } else {
        (el.clone(), Some(opacity))
    };
    let window = web_sys::window();
    let inner = |v: Option<Result<JsValue, JsValue>>| {
        v.and_then(Result::ok).and_then(|v| v.as_f64()).unwrap_or(0.0)
    };
    // A frame drawn too small to show anything (a 1×1 iframe) hides all its fields.
    if inner(window.as_ref().map(|w| w.inner_width())) < MIN_FIELD_PX
        || inner(window.as_ref().map(|w| w.inner_height())) < MIN_FIELD_PX
    {
        return true;
    }
    let scroll =
        window.map_or((0.0, 0.0), |w| (w.scroll_x().unwrap_or(0.0), w.scroll_y().unwrap_or(0.0)));
    let rect = shown.get_bounding_client_rect();
    if rect.right() + scroll.0 <= 0.0 || rect.bottom() + scroll.1 <= 0.0 {
        return true;
    }
    let mut view = measure(el, &shown, known, |hit| !in_fixed_layer(hit));
    // Out of view here only means "not scrolled to yet".
    view.centre_in_view = true;
    field_hidden(&view).is_some()
}
