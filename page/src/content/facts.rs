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

#[wasm_bindgen(inline_js = r#"
let tags = new Map();
const BLANK = /^\s*$/;
export function set_tags(names) {
  tags = new Map(names.map((name, i) => [name, i + 1]));
}
let wanted = new Set();
export function set_attr_names(names) {
  wanted = new Set(names);
}
export function attrs_of(el) {
  const out = [];
  for (const a of el.attributes) {
    if (wanted.has(a.name)) out.push(a.name, a.value);
  }
  return out;
}
// What the page hooks announced: kept for the document's life, and the hooks announce only
// what they recorded since the last ask (all of it to a new instance: `primed` false).
const listened = new WeakSet();
const droppable = new WeakSet();
let primed = false;
let pending = 0;
export function ask_page_hooks() {
  const got = listened;
  const drops = droppable;
  const into = (set) => (e) => {
    const target = e.composedPath()[0];
    if (target instanceof Element) set.add(target);
    e.stopImmediatePropagation();
  };
  const onListener = into(got);
  const onDrop = into(drops);
  const onPending = (e) => {
    if (typeof e.detail === 'number' && e.detail >= 0) pending = e.detail;
  };
  pending = 0;
  document.addEventListener('waymark-listener', onListener, true);
  document.addEventListener('waymark-drop', onDrop, true);
  document.addEventListener('waymark-pending', onPending, true);
  try {
    document.dispatchEvent(new CustomEvent('waymark-ask', { detail: primed ? 1 : 0 }));
    primed = true;
  } finally {
    document.removeEventListener('waymark-listener', onListener, true);
    document.removeEventListener('waymark-drop', onDrop, true);
    document.removeEventListener('waymark-pending', onPending, true);
  }
  return pending;
}
export function has_listener(el) {
  return listened.has(el);
}
export function takes_drops(el) {
  return droppable.has(el);
}
export function focusable_text_fields(el, max) {
  const out = [];
  for (const f of el.querySelectorAll('textarea, input:not([type]), input[type=text]')) {
    if (f.disabled || f.tabIndex < 0) continue;
    out.push(f);
    if (out.length >= max) break;
  }
  return out;
}
export function node_facts(node) {
  const type = node.nodeType;
  if (type === 3) return BLANK.test(node.data) ? 0x40100 : 0x100;
  if (type !== 1) return 0;
  let f = 0x200 | (tags.get(node.localName) || 0);
  if (node.shadowRoot) f |= 0x20000;
  if (listened.has(node)) f |= 0x100000;
  if (droppable.has(node)) f |= 0x200000;
  if (node.firstChild !== null) f |= 0x80000;
  if (!node.hasAttributes()) return f;
  if (node.getAttribute('aria-hidden') === 'true') f |= 0x400;
  if (node.hasAttribute('inert')) f |= 0x800;
  if (node.hasAttribute('role')) f |= 0x1000;
  const edit = node.getAttribute('contenteditable');
  if (edit !== null && edit !== 'false') f |= 0x2000;
  if (node.hasAttribute('onclick')) f |= 0x4000;
  if (node.hasAttribute('tabindex')) f |= 0x8000;
  if (node.hasAttribute('href')) f |= 0x10000;
  if (node.getAttribute('draggable') === 'true') f |= 0x400000;
  return f;
}
let styled = null;
let style = null;
function styleOf(el) {
  if (el !== styled) {
    styled = el;
    style = getComputedStyle(el);
  }
  return style;
}
let display = '';
let position = '';
// Elements that are atomic boxes even when their display is `inline` (replaced, form controls).
const ATOMIC = new Set(['img', 'video', 'canvas', 'iframe', 'object', 'embed', 'input', 'select',
  'textarea', 'button', 'svg', 'audio', 'meter', 'progress']);
// Whether the element's box clips what overflows, and has a transform (the paint's bits 0x200
// and 0x100): set by `style_facts`, which reads `overflow` once (the shorthand, `x` or `x y`)
// for its own bits too.
let clips = false;
let transformed = false;
// The style facts; nothing more is read once they say the element does not render (see
// `StyleFacts`; the walk skips it).
function style_facts(el, layers) {
  const s = styleOf(el);
  display = s.display;
  if (display === 'none') return 1;
  let f = display === 'contents' ? 2 : 0;
  if (s.visibility !== 'visible') {
    f |= 4;
    if (!(f & 2)) return f;
  }
  if (s.contentVisibility === 'hidden') return f | 8;
  const cursor = s.cursor;
  if (cursor === 'pointer') f |= 16;
  else if (cursor === 'grab' || cursor === 'move') f |= 0x80000;
  // An absolutely positioned or fixed box is never `inline` (its display is blockified): an
  // inline element's position matters only while the walk asks about layers.
  position = layers || display !== 'inline' ? s.position : 'static';
  const positioned = position === 'absolute' || position === 'fixed';
  if (positioned) f |= 32;
  // A transform or an overflow does nothing to a non-replaced inline box: not read there.
  const box = display !== 'inline' || ATOMIC.has(el.localName);
  clips = false;
  transformed = false;
  if (positioned || box) {
    const overflow = s.overflow;
    if (overflow !== 'visible') {
      if (positioned && overflow === 'hidden') f |= 64;
      clips = box && (overflow.includes('hidden') || overflow.includes('clip'));
      // Only a box scrolls its content: inline text (most elements) is not asked.
      if (display !== 'inline' && display !== 'contents') {
        const oy = overflow.slice(overflow.lastIndexOf(' ') + 1);
        if (oy === 'auto' || oy === 'scroll' || oy === 'overlay') f |= 128;
      }
    }
    transformed = box && s.transform !== 'none';
  }
  return f;
}
// Colours seen by `element_facts`, by index: a page uses a few, and the walk parses each once
// instead of receiving a string per element. Bounded: past the cap a colour reads as -2 and
// the walk falls back to `paint_of`.
const colors = new Map();
const colorNames = [];
const MAX_COLORS = 4096;
function colorIndex(c) {
  let i = colors.get(c);
  if (i === undefined) {
    if (colorNames.length >= MAX_COLORS) return -2;
    i = colorNames.length;
    colorNames.push(c);
    colors.set(c, i);
  }
  return i;
}
export function color_name(i) {
  return colorNames[i] || '';
}
// Computed-style facts of an element, as `StyleFacts` bits; `layers`: whether the walk still
// needs to know if the page paints with layers (once it does, those reads are skipped).
export function element_facts(el, out, layers) {
  const f = style_facts(el, layers);
  // Not rendered (see `StyleFacts`): no paint is read.
  if ((f & 1) || (f & 8) || ((f & 4) && !(f & 2))) return f;
  const s = style;
  let p = 0x10000;
  if (transformed) p |= 0x100;
  if (clips) p |= 0x200;
  const opacity = s.opacity;
  out[0] = opacity === '1' ? 1 : +opacity;
  if (s.filter !== 'none') p |= 0x400;
  if (s.clipPath !== 'none') p |= 0x800;
  if ((s.webkitMaskImage || s.maskImage) !== 'none') p |= 0x1000;
  if (s.backgroundImage !== 'none') p |= 0x2000;
  // A layer painted above the normal flow, or paint the style rules do not model: anything
  // positioned or stacked (only such boxes, stacking contexts and outlines paint over in-flow
  // text; the focus ring, `auto`, is the browser's own), a pass-through element, a blend, a
  // backdrop filter, an isolated group.
  let outline;
  if (layers && (position !== 'static' || opacity !== '1' || s.zIndex !== 'auto'
    || s.pointerEvents === 'none' || s.mixBlendMode !== 'normal'
    || s.backdropFilter !== 'none' || s.isolation !== 'auto'
    || ((outline = s.outlineStyle) !== 'none' && outline !== 'auto'))) {
    p |= 0x40000;
  }
  const bg = s.backgroundColor;
  out[1] = bg === 'rgba(0, 0, 0, 0)' ? -1 : colorIndex(bg);
  let text = false;
  for (let c = el.firstChild; c !== null && !text; c = c.nextSibling) {
    text = c.nodeType === 3 && !BLANK.test(c.data);
  }
  if (text) {
    p |= 0x4000;
    out[2] = parseFloat(s.fontSize);
    // The text fill colour is what paints the glyphs: at its initial value (`currentcolor`)
    // it computes to the colour itself, so `color` is not read.
    out[3] = colorIndex(s.webkitTextFillColor);
    if (s.webkitTextSecurity !== 'none') p |= 0x20000;
  }
  return f | p;
}
const NONE = (v) => (v === 'none' ? '' : v);
export function paint_of(el) {
  const s = styleOf(el);
  const transform = s.transform;
  const overflow = s.overflow;
  const opacity = s.opacity;
  let text = false;
  for (let c = el.firstChild; c !== null && !text; c = c.nextSibling) {
    text = c.nodeType === 3 && !BLANK.test(c.data);
  }
  let ink = '\0\0\0';
  if (text) {
    const fill = s.webkitTextFillColor;
    const clip = s.webkitBackgroundClip || s.backgroundClip;
    ink = s.fontSize + '\0' + s.color + '\0' + (fill === s.color ? '' : fill) + '\0'
      + (clip === 'text' ? 'text' : '');
  }
  const bg = s.backgroundColor;
  return (transform === 'none' ? '' : transform) + '\0' + (overflow === 'visible' ? '' : overflow)
    + '\0' + (opacity === '1' ? '' : opacity) + '\0' + ink + '\0' + NONE(s.filter)
    + '\0' + NONE(s.clipPath) + '\0' + NONE(s.webkitMaskImage || s.maskImage)
    + '\0' + (bg === 'rgba(0, 0, 0, 0)' ? '' : bg) + '\0' + NONE(s.backgroundImage);
}
let rangeDoc = null;
let range = null;
function rangeOf(node) {
  if (node.ownerDocument !== rangeDoc) {
    rangeDoc = node.ownerDocument;
    range = rangeDoc.createRange();
  }
  range.selectNodeContents(node);
  return range;
}
export function glyphs_of(node, out) {
  const r = rangeOf(node).getBoundingClientRect();
  out[0] = r.left;
  out[1] = r.top;
  out[2] = r.width;
  out[3] = r.height;
}
const REPLACED = new Set(['img', 'video', 'canvas', 'iframe', 'object', 'embed']);
export function text_hit(node) {
  const owner = node.parentElement || (node.parentNode && node.parentNode.host);
  const first = owner && rangeOf(node).getClientRects()[0];
  if (!first) return 0;
  const x = first.left + first.width / 2;
  const y = first.top + first.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return 0;
  const root = node.getRootNode();
  let hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
  for (let i = 0; hit && hit.shadowRoot && i < 32; i++) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit) return 0;
  let f = 1;
  if (hit === owner) return f | 2;
  if (hit.contains(owner)) f |= 4;
  if (getComputedStyle(owner).pointerEvents === 'none') f |= 8;
  const s = getComputedStyle(hit);
  const bg = s.backgroundColor.match(/[\d.]+/g);
  const alpha = !bg ? 0 : bg.length > 3 ? +bg[3] : 1;
  const box = hit.getBoundingClientRect();
  const inside = x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
  const paints = alpha > 0.5 || s.backgroundImage !== 'none' || REPLACED.has(hit.localName);
  if (inside && +s.opacity >= 0.5 && paints) f |= 16;
  return f;
}
export function frame_facts(out) {
  const root = document.documentElement;
  out[0] = innerWidth;
  out[1] = innerHeight;
  out[2] = scrollX;
  out[3] = scrollY;
  out[4] = root ? root.scrollHeight : 0;
  out[5] = root ? root.scrollWidth : 0;
  return document.URL;
}
export function rect_of(el, out) {
  const r = el.getBoundingClientRect();
  out[0] = r.top;
  out[1] = r.bottom;
  out[2] = r.left;
  out[3] = r.right;
  out[4] = r.width;
  out[5] = r.height;
}
"#)]
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
