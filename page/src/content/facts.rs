//! Batched DOM reads for the walk: one JS call per node instead of ten.
//!
//! Why: profiling the walk (`tests/examples/profile_dom.rs`) showed most of its time in the
//! wasm↔JS boundary, not in the DOM: every `get_attribute("aria-hidden")` decodes the name
//! from wasm memory with `TextDecoder`, every returned string is encoded back, and an element
//! took ~15 crossings. These functions read the same facts in JavaScript with constant
//! strings and return them as bits. They only read: every decision stays in `dom.rs` and
//! `roles.rs`, which interpret the bits.

use wasm_bindgen::prelude::*;
use web_sys::{Element, Node};

#[wasm_bindgen(module = "/js/facts.js")]
extern "C" {
    /// Asks the page's MAIN-world hooks (`extension/page_hooks.js`) which elements have
    /// click-like listeners, remembering them for [`node_facts`] and [`has_listener`], and
    /// returns how many of the page's fetch/XHR requests are in flight. Page-controlled input:
    /// it only adds candidates the walk then judges, and only makes settling wait (capped).
    pub(super) fn ask_page_hooks() -> u32;
    /// Whether the page gave the element a click-like listener (as of [`ask_page_hooks`]).
    pub(super) fn has_listener(el: &Element) -> bool;
    /// Whether the page listens for drops on the element (as of [`ask_page_hooks`]).
    pub(super) fn takes_drops(el: &Element) -> bool;
    /// The element's ARIA attribute `name` (or `role`): its own, else the one its
    /// ElementInternals gave it as of [`ask_page_hooks`] (a web component's `internals.role`
    /// is in no attribute). The walk's read: the ask precedes it.
    #[wasm_bindgen(js_name = aria_of)]
    pub(super) fn aria(el: &Element, name: &str) -> Option<String>;
    /// [`aria`] with the element's internals asked again: a state read back after an action.
    #[wasm_bindgen(js_name = aria_now)]
    pub(super) fn aria_now(el: &Element, name: &str) -> Option<String>;
    /// The first `max` text fields inside the element that can take the focus (enabled, not
    /// `tabindex=-1`).
    fn focusable_text_fields(el: &Element, max: u32) -> Vec<Element>;
    /// Gives the JS side the tag table: [`node_facts`] reports a tag as its 1-based index.
    fn set_tags(names: Vec<JsValue>);
    /// Gives the JS side the attribute names [`attrs_of`] reads.
    fn set_attr_names(names: Vec<JsValue>);
    /// `[name, value, …]` of the element's attributes named in [`ATTRS`].
    fn attrs_of(el: &Element) -> Vec<String>;
    /// Kind, tag index and attribute presence of a node, as [`NodeFacts`] bits.
    fn node_facts(node: &Node) -> u32;
    /// [`style_facts`] and, for an element that renders, its paint in one call: bits for the
    /// paint values off their initial value, and numbers in `out` — opacity, background
    /// colour, then for an element with text of its own the font size in px and the colour
    /// its glyphs are painted in (the text fill colour, which computes to `color` unless set)
    /// (colours as indexes of [`color_name`]; -1 none;
    /// the background clip is not read: it matters only with a background image, which
    /// [`paint_of`] reads);
    /// a bit says the text is drawn as bullets (`-webkit-text-security`). With `layers`, a
    /// bit says it paints as a layer (see [`ElementStyle::layered`]; not read otherwise).
    fn element_facts(el: &Element, out: &mut [f64], layers: bool) -> u32;
    /// The colour string of an index [`element_facts`] reported.
    fn color_name(index: u32) -> String;
    /// The computed style's paint in one NUL-separated string (values may hold any other
    /// character): transform, overflow, opacity, then font size, colour, text fill colour (when
    /// it differs) and `text` for a background clipped to the text, then filter, clip path,
    /// mask image, background colour and background image — each empty at its initial value.
    /// The inherited text properties are read only for elements with text of their own:
    /// serialising them for every element was the walk's largest cost, and an element without
    /// text shows no glyphs of its own (its children inherit them and are checked where their
    /// text is).
    #[wasm_bindgen(js_name = paint_of)]
    fn paint_string(el: &Element) -> String;
    /// The bounding box of a text node's glyphs (`Range`), `[left, top, width, height]`.
    fn glyphs_of(node: &Node, out: &mut [f64]);
    /// What a person's eye meets at the centre of a text node's first line of glyphs, as
    /// [`TextHit`] bits (0: not measured, that point is out of view).
    fn text_hit(node: &Node) -> u32;
    /// `getBoundingClientRect()` into `[top, bottom, left, right, width, height]`.
    fn rect_of(el: &Element, out: &mut [f64]);
    /// The frame's viewport, scroll offsets and scrollable size into `[inner width, inner
    /// height, scroll x, scroll y, scroll height, scroll width]`; returns the document's URL
    /// (`document.URL`, the same string as `location.href` without the `Location` object).
    fn frame_facts(out: &mut [f64]) -> String;
}

/// What a walk reads of its frame before the first element, in one call.
pub(super) struct FrameFacts {
    pub viewport: crate::observation::Viewport,
    /// The root's scrollable width.
    pub page_width: f64,
    pub url: String,
}

/// The frame's [`FrameFacts`].
pub(super) fn frame() -> FrameFacts {
    let mut out = [0.0; 6];
    let url = frame_facts(&mut out);
    let [width, height, scroll_x, scroll_y, page_height, page_width] = out;
    FrameFacts {
        viewport: crate::observation::Viewport { width, height, scroll_x, scroll_y, page_height },
        page_width,
        url,
    }
}

/// Skipped with their content: never rendered as text.
pub(super) const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "head", "meta", "link", "title", "svg", "math",
    "object", "embed", "video", "audio", "map", "datalist",
];

/// Blocks: their text is a line of its own.
pub(super) const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tr",
    "ul",
    "label",
    "caption",
    "legend",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "dialog",
    "summary",
    "details",
    "tbody",
    "thead",
    "tfoot",
];

/// Read specially by the walk.
const SPECIAL: &[&str] = &[
    "input", "select", "textarea", "button", "a", "iframe", "frame", "td", "th", "slot", "body",
    "html", "canvas",
];

/// Tags the walk tells apart, in the order of the 1-based indexes the JS side reports (anything
/// else reads as index 0, "other"): one table, so a tag the walk checks is always one JS reports.
fn tags() -> &'static [&'static str] {
    static TAGS: std::sync::LazyLock<Vec<&'static str>> =
        std::sync::LazyLock::new(|| SKIPPED.iter().chain(BLOCKS).chain(SPECIAL).copied().collect());
    &TAGS
}

/// Attributes an interactive element's description reads (role, states, name, secrecy).
pub(super) const ATTRS: &[&str] = &[
    "type",
    "role",
    "id",
    "name",
    "autocomplete",
    "aria-checked",
    "aria-selected",
    "aria-expanded",
    "aria-pressed",
    "aria-disabled",
    "aria-required",
    "aria-invalid",
    "aria-current",
    "aria-valuenow",
    "aria-valuetext",
    "aria-labelledby",
    "aria-label",
    "alt",
    "title",
    "placeholder",
    "aria-placeholder",
    "disabled",
];

/// An element's [`ATTRS`], read in one call.
pub(super) struct Attrs(Vec<String>);

impl Attrs {
    /// Reads them.
    pub fn of(el: &Element) -> Self {
        init();
        Self(attrs_of(el))
    }

    /// The value of `name` (one of [`ATTRS`]), if the element has it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.chunks_exact(2).find(|pair| pair[0] == name).map(|pair| pair[1].as_str())
    }

    /// Owned [`Attrs::get`].
    pub fn owned(&self, name: &str) -> Option<String> {
        self.get(name).map(str::to_owned)
    }
}

/// What [`node_facts`] says about a node.
#[derive(Clone, Copy)]
pub(super) struct NodeFacts(u32);

impl NodeFacts {
    /// A text node.
    pub fn is_text(self) -> bool {
        self.0 & 0x100 != 0
    }
    /// A text node of white space only (its text is not read: it separates words).
    pub fn is_blank(self) -> bool {
        self.0 & 0x40000 != 0
    }
    /// An element.
    pub fn is_element(self) -> bool {
        self.0 & 0x200 != 0
    }
    /// The element's tag if it is one the walk tells apart, else `""`.
    pub fn tag(self) -> &'static str {
        let index = (self.0 & 0xff) as usize;
        if index == 0 { "" } else { tags().get(index - 1).copied().unwrap_or("") }
    }
    /// `aria-hidden="true"`.
    pub fn aria_hidden(self) -> bool {
        self.0 & 0x400 != 0
    }
    /// `inert`.
    pub fn inert(self) -> bool {
        self.0 & 0x800 != 0
    }
    /// Has a `role` attribute.
    pub fn has_role(self) -> bool {
        self.0 & 0x1000 != 0
    }
    /// `contenteditable` set and not `false`.
    pub fn editable(self) -> bool {
        self.0 & 0x2000 != 0
    }
    /// Has an `onclick` attribute.
    pub fn onclick(self) -> bool {
        self.0 & 0x4000 != 0
    }
    /// Has a `tabindex` attribute.
    pub fn has_tabindex(self) -> bool {
        self.0 & 0x8000 != 0
    }
    /// Has an `href` attribute.
    pub fn has_href(self) -> bool {
        self.0 & 0x10000 != 0
    }
    /// Has child nodes (in the light DOM).
    pub fn has_children(self) -> bool {
        self.0 & 0x80000 != 0
    }
    /// Hosts an open shadow root.
    pub fn shadow(self) -> bool {
        self.0 & 0x20000 != 0
    }
    /// The page gave it a click-like listener (`page_hooks.js`, page-controlled: a candidate
    /// only).
    pub fn listener(self) -> bool {
        self.0 & 0x100000 != 0
    }
    /// The page listens for drops on it (page-controlled: a candidate only).
    pub fn drop_target(self) -> bool {
        self.0 & 0x200000 != 0
    }
    /// `draggable="true"`: a person can pick it up.
    pub fn draggable(self) -> bool {
        self.0 & 0x400000 != 0
    }
}

/// What [`style_facts`] says about an element's computed style.
#[derive(Clone, Copy)]
pub(super) struct StyleFacts(u32);

impl StyleFacts {
    /// `display: none`.
    pub fn display_none(self) -> bool {
        self.0 & 1 != 0
    }
    /// `display: contents` (no box of its own; its children are rendered).
    pub fn display_contents(self) -> bool {
        self.0 & 2 != 0
    }
    /// `visibility` hidden or collapse.
    pub fn invisible(self) -> bool {
        self.0 & 4 != 0
    }
    /// `content-visibility: hidden` (its content is not rendered).
    pub fn content_hidden(self) -> bool {
        self.0 & 8 != 0
    }
    /// `cursor: pointer`.
    pub fn pointer(self) -> bool {
        self.0 & 16 != 0
    }
    /// `position` absolute or fixed.
    pub fn positioned(self) -> bool {
        self.0 & 32 != 0
    }
    /// `overflow: hidden` (read for positioned elements only).
    pub fn overflow_hidden(self) -> bool {
        self.0 & 64 != 0
    }
    /// `overflow-y` auto or scroll on a box (not read for inline elements): its content may
    /// scroll on its own (a list, a panel).
    pub fn scrolls_y(self) -> bool {
        self.0 & 128 != 0
    }
    /// `cursor: grab` or `move`: a person sees a hand that picks the element up (the items
    /// of a sortable list, a board's cards).
    pub fn grab(self) -> bool {
        self.0 & 0x100 != 0
    }
}

/// An element's border box in viewport coordinates.
#[derive(Clone, Copy, Default)]
pub(super) struct Rect {
    pub top: f64,
    pub bottom: f64,
    pub right: f64,
    pub width: f64,
    pub height: f64,
}

/// An element shorter than this hosts no terminal or editor surface.
const MIN_KEYBOARD_HOST_PX: f64 = 40.0;

/// A text field inside a tall element that takes the focus and that nobody can see (xterm.js's
/// transparent 1×1 px textarea): where a terminal or a canvas editor routes the keyboard.
pub(super) fn capture_field(el: &Element) -> Option<Element> {
    if rect(el).height < MIN_KEYBOARD_HOST_PX {
        return None;
    }
    focusable_text_fields(el, 8).into_iter().find(|f| !super::usable::visible_now(f))
}

/// Sends the tag and attribute tables to the JS side once per content-script instance.
pub(super) fn init() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        set_tags(tags().iter().map(|t| JsValue::from_str(t)).collect());
        set_attr_names(ATTRS.iter().map(|t| JsValue::from_str(t)).collect());
    });
}

/// Facts of one node.
pub(super) fn of_node(node: &Node) -> NodeFacts {
    NodeFacts(node_facts(node))
}

/// What [`element_facts`] read: the style facts and, for an element that renders, its
/// [`Paint`].
pub(super) struct ElementStyle {
    pub style: StyleFacts,
    pub paint: Option<Paint>,
    /// It paints as a layer the style rules do not model (`pointer-events: none`, a blend
    /// mode, a backdrop filter): the screen must confirm the page's text (`screen.rs`).
    /// Read only when asked for.
    pub layered: bool,
}

thread_local! {
    /// Colours by the index the JS side gave them, parsed once per content-script instance.
    static COLOURS: std::cell::RefCell<Vec<Option<[f64; 4]>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The colour of an index [`element_facts`] reported (-1: none, -2: past the table's cap).
fn colour(index: f64) -> Colour {
    if index == -1.0 {
        return Colour::None;
    }
    if index < 0.0 || !index.is_finite() {
        return Colour::Unknown;
    }
    let i = index as usize;
    COLOURS.with(|table| {
        let mut table = table.borrow_mut();
        while table.len() <= i {
            let name = color_name(table.len() as u32);
            table.push(crate::visibility::rgba(&name));
        }
        Colour::Parsed(table[i])
    })
}

enum Colour {
    None,
    Parsed(Option<[f64; 4]>),
    Unknown,
}

/// Style facts and paint of one element, in one call; the rare paint values only a string
/// can carry (a transform, a filter, a clip path, a mask, a background image) are read with a
/// second call when the element has one. `layers`: whether [`ElementStyle::layered`] is
/// wanted (the walk stops asking once the page is known to paint with layers: those are
/// seven style reads per element).
pub(super) fn of_element(el: &Element, layers: bool) -> ElementStyle {
    let mut out = [0.0; 4];
    let bits = element_facts(el, &mut out, layers);
    // The grab cursor's bit (0x80000, clear of the paint's) becomes `StyleFacts`' 0x100.
    let style = StyleFacts((bits & 0xff) | ((bits >> 11) & 0x100));
    if bits & 0x10000 == 0 {
        return ElementStyle { style, paint: None, layered: false };
    }
    let background = colour(out[1]);
    let text = bits & 0x4000 != 0;
    // The colour the glyphs are painted in (the text fill colour: see `element_facts`).
    let ink = if text { colour(out[3]) } else { Colour::None };
    let unknown = [&background, &ink].iter().any(|c| matches!(c, Colour::Unknown));
    let masked = bits & 0x20000 != 0;
    let layered = bits & 0x40000 != 0;
    if bits & 0x3d00 != 0 || unknown {
        let mut paint = paint_of(el);
        if let Some(text) = paint.text.as_mut() {
            text.masked = masked;
        }
        return ElementStyle { style, paint: Some(paint), layered };
    }
    let parsed = |c: Colour| match c {
        Colour::Parsed(c) => c,
        _ => None,
    };
    let opacity = if out[0].is_nan() { 1.0 } else { out[0].clamp(0.0, 1.0) };
    let paint = Paint {
        opacity,
        clips: bits & 0x200 != 0,
        text: text.then(|| TextPaint {
            font_px: Some(out[2]).filter(|px| px.is_finite()),
            color: parsed(ink),
            fill: None,
            // Only a background image paints clipped glyphs, and an element with one is read
            // with `paint_of` above: not read here.
            clip_text: false,
            masked,
        }),
        background_color: parsed(background),
        ..Paint::default()
    };
    ElementStyle { style, paint: Some(paint), layered }
}

/// The paint of an element's own text (read only for an element with text of its own).
#[derive(Default)]
pub(super) struct TextPaint {
    /// Font size in px (`None`: not a number).
    pub font_px: Option<f64>,
    /// The colour (`None`: not an `rgb()` colour); the walk's fast path gives the text fill
    /// colour here, which is the colour unless set.
    pub color: Option<[f64; 4]>,
    /// `-webkit-text-fill-color` when it is not the colour (it paints the glyphs then).
    pub fill: Option<Option<[f64; 4]>>,
    /// The background is clipped to the text (gradient text).
    pub clip_text: bool,
    /// `-webkit-text-security` draws every character as a bullet: a person reads none of it.
    pub masked: bool,
}

/// What the computed style says about whether a person can see an element's text (the
/// decision is [`crate::visibility`]'s, in `hidden.rs`); strings empty at initial values.
#[derive(Default)]
pub(super) struct Paint {
    /// `opacity`, 0–1.
    pub opacity: f64,
    /// `overflow` hides or clips what overflows.
    pub clips: bool,
    /// Text properties: set only for an element with text of its own.
    pub text: Option<TextPaint>,
    /// The background colour when it is not transparent (`None` also for an unparsed one).
    pub background_color: Option<[f64; 4]>,
    pub transform: String,
    pub filter: String,
    pub clip_path: String,
    pub mask: String,
    pub background_image: String,
}

/// The computed style's paint as strings (see [`paint_string`]).
struct PaintStrings {
    pub transform: String,
    pub overflow: String,
    pub opacity: String,
    /// Text properties: set only for an element with text of its own.
    pub font_size: String,
    pub color: String,
    /// `-webkit-text-fill-color` when it is not the colour (it paints the glyphs then).
    pub fill: String,
    /// The background is clipped to the text (gradient text).
    pub clip_text: bool,
    pub filter: String,
    pub clip_path: String,
    pub mask: String,
    pub background_color: String,
    pub background_image: String,
}

/// The element's [`Paint`] from its computed style's strings, in one call (the full read,
/// for elements with a paint value only a string carries).
pub(super) fn paint_of(el: &Element) -> Paint {
    let joined = paint_string(el);
    let mut values = joined.split('\0').map(str::to_owned);
    let mut next = || values.next().unwrap_or_default();
    let p = PaintStrings {
        transform: next(),
        overflow: next(),
        opacity: next(),
        font_size: next(),
        color: next(),
        fill: next(),
        clip_text: next() == "text",
        filter: next(),
        clip_path: next(),
        mask: next(),
        background_color: next(),
        background_image: next(),
    };
    use crate::visibility::rgba;
    Paint {
        opacity: crate::visibility::opacity_of(&p.opacity),
        clips: p.overflow.contains("hidden") || p.overflow.contains("clip"),
        text: (!p.font_size.is_empty()).then(|| TextPaint {
            font_px: p.font_size.trim().trim_end_matches("px").trim().parse().ok(),
            color: rgba(&p.color),
            fill: (!p.fill.is_empty()).then(|| rgba(&p.fill)),
            clip_text: p.clip_text,
            masked: false,
        }),
        background_color: rgba(&p.background_color),
        transform: p.transform,
        filter: p.filter,
        clip_path: p.clip_path,
        mask: p.mask,
        background_image: p.background_image,
    }
}

/// Where a text node's glyphs are drawn: `[left, top, width, height]` in the viewport.
pub(super) fn glyphs(node: &Node) -> [f64; 4] {
    let mut out = [0.0; 4];
    glyphs_of(node, &mut out);
    out
}

/// What the hit test finds over the centre of a text node's first line of glyphs (see
/// [`crate::visibility::TextHit`]); `None` when that point is out of view (not measured).
pub(super) fn hit_over_text(node: &Node) -> Option<crate::visibility::TextHit> {
    let bits = text_hit(node);
    (bits & 1 != 0).then_some(crate::visibility::TextHit {
        on_top: bits & 2 != 0,
        under_ancestor: bits & 4 != 0,
        pass_through: bits & 8 != 0,
        opaque: bits & 16 != 0,
    })
}

/// The element's bounding box.
pub(super) fn rect(el: &Element) -> Rect {
    let mut out = [0.0; 6];
    rect_of(el, &mut out);
    Rect { top: out[0], bottom: out[1], right: out[3], width: out[4], height: out[5] }
}
