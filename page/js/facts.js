// @ts-check
// The DOM walk's reads of each node and element, as bits and numbers written into arrays the
// wasm owns (`page/src/content/facts.rs`): the hot path, so no objects are made per node.
/** @type {Map<string, number>} */
let tags = new Map();
const BLANK = /^\s*$/;
/** @param {string[]} names tag names, numbered from 1 in this order */
export function set_tags(names) {
  tags = new Map(names.map((name, i) => [name, i + 1]));
}
/** @type {Set<string>} */
let wanted = new Set();
/** @param {string[]} names */
export function set_attr_names(names) {
  wanted = new Set(names);
}
/** @param {Element} el */
export function attrs_of(el) {
  /** @type {string[]} */
  const out = [];
  for (const a of el.attributes) {
    if (wanted.has(a.name)) out.push(a.name, a.value);
  }
  const internal = internalAria.get(el);
  if (internal) {
    for (const [name, value] of internal) {
      if (wanted.has(name) && !el.hasAttribute(name)) out.push(name, value);
    }
  }
  return out;
}
// The ARIA attributes web components gave themselves through ElementInternals, as the page
// hooks announced them at the latest ask (`waymark-aria`): read as if they were attributes,
// an attribute of the element's own winning.
/** @type {WeakMap<Element, Map<string, string>>} */
let internalAria = new WeakMap();
let internalCount = 0;
/**
 * The element's ARIA attribute `name` (or `role`): its own, else what its internals said at the
 * latest ask (the walk's reads: the ask came just before it).
 * @param {Element} el
 * @param {string} name
 */
export function aria_of(el, name) {
  const own = el.getAttribute(name);
  if (own !== null || internalCount === 0) return own;
  return internalAria.get(el)?.get(name) ?? null;
}
/**
 * [`aria_of`], with the internals asked again for this one element: a state read back after an
 * action changed it, or an element drawn since the ask (an option of a list just opened).
 * @param {Element} el
 * @param {string} name
 */
export function aria_now(el, name) {
  const own = el.getAttribute(name);
  if (own !== null) return own;
  // Asked whether or not it was known: a list's options may have been drawn since the ask.
  const into = takeAria(internalAria);
  document.addEventListener('waymark-aria', into, true);
  try {
    el.dispatchEvent(new CustomEvent('waymark-ask-aria', { composed: true }));
  } finally {
    document.removeEventListener('waymark-aria', into, true);
  }
  return internalAria.get(el)?.get(name) ?? null;
}
/**
 * A `waymark-aria` listener that keeps what the event says in `map`.
 * @param {WeakMap<Element, Map<string, string>>} map
 * @param {() => void} [counted] called for each element kept
 */
function takeAria(map, counted) {
  /** @param {Event} e */
  return (e) => {
    const target = e.composedPath()[0];
    const { detail } = /** @type {CustomEvent} */ (e);
    e.stopImmediatePropagation();
    if (!(target instanceof Element) || typeof detail !== 'string') return;
    try {
      const said = JSON.parse(detail);
      if (typeof said !== 'object' || said === null) return;
      /** @type {Map<string, string>} */
      const values = new Map();
      for (const [name, value] of Object.entries(said)) {
        if (typeof value === 'string' && wantedAria(name)) values.set(name, value.slice(0, 200));
      }
      map.set(target, values);
      if (counted) counted();
    } catch {
      // Not JSON: the page answered in our name; nothing is taken from it.
    }
  };
}
// What the page hooks announced: kept for the document's life, and the hooks announce only
// what they recorded since the last ask (all of it to a new instance: `primed` false).
const listened = new WeakSet();
const droppable = new WeakSet();
let primed = false;
let pending = 0;
/** @param {string} name */
const wantedAria = (name) => name === 'role' || name.startsWith('aria-');
export function ask_page_hooks() {
  const got = listened;
  const drops = droppable;
  /** @type {(set: WeakSet<Element>) => (e: Event) => void} */
  const into = (set) => (e) => {
    const target = e.composedPath()[0];
    if (target instanceof Element) set.add(target);
    e.stopImmediatePropagation();
  };
  const onListener = into(got);
  const onDrop = into(drops);
  /** @type {WeakMap<Element, Map<string, string>>} */
  const aria = new WeakMap();
  let ariaCount = 0;
  const onAria = takeAria(aria, () => { ariaCount += 1; });
  /** @param {Event} e */
  const onPending = (e) => {
    const { detail } = /** @type {CustomEvent} */ (e);
    if (typeof detail === 'number' && detail >= 0) pending = detail;
  };
  pending = 0;
  document.addEventListener('waymark-listener', onListener, true);
  document.addEventListener('waymark-drop', onDrop, true);
  document.addEventListener('waymark-pending', onPending, true);
  document.addEventListener('waymark-aria', onAria, true);
  try {
    document.dispatchEvent(new CustomEvent('waymark-ask', { detail: primed ? 1 : 0 }));
    primed = true;
  } finally {
    document.removeEventListener('waymark-listener', onListener, true);
    document.removeEventListener('waymark-drop', onDrop, true);
    document.removeEventListener('waymark-pending', onPending, true);
    document.removeEventListener('waymark-aria', onAria, true);
  }
  internalAria = aria;
  internalCount = ariaCount;
  return pending;
}
/** @param {Element} el */
export function has_listener(el) {
  return listened.has(el);
}
/** @param {Element} el */
export function takes_drops(el) {
  return droppable.has(el);
}
/**
 * @param {Element} el
 * @param {number} max
 */
export function focusable_text_fields(el, max) {
  /** @type {Element[]} */
  const out = [];
  /** @type {NodeListOf<HTMLInputElement | HTMLTextAreaElement>} */
  const fields = el.querySelectorAll('textarea, input:not([type]), input[type=text]');
  for (const f of fields) {
    if (f.disabled || f.tabIndex < 0) continue;
    out.push(f);
    if (out.length >= max) break;
  }
  return out;
}
/** @param {Node} n */
export function node_facts(n) {
  // Told apart by `nodeType` (3 text, 1 element), which the checker cannot narrow on.
  const node = /** @type {Element & Text} */ (n);
  const type = node.nodeType;
  if (type === 3) return BLANK.test(node.data) ? 0x40100 : 0x100;
  if (type !== 1) return 0;
  let f = 0x200 | (tags.get(node.localName) || 0);
  if (node.shadowRoot) f |= 0x20000;
  if (listened.has(node)) f |= 0x100000;
  if (droppable.has(node)) f |= 0x200000;
  if (node.firstChild !== null) f |= 0x80000;
  if (internalCount !== 0 && internalAria.get(node)?.has('role')) f |= 0x1000;
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
/** @type {Element | null} */
let styled = null;
/** @type {CSSStyleDeclaration} */
let style;
/** @param {Element} el */
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
/**
 * @param {Element} el
 * @param {boolean} layers
 */
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
/** @type {Map<string, number>} */
const colors = new Map();
/** @type {string[]} */
const colorNames = [];
const MAX_COLORS = 4096;
/** @param {string} c */
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
/** @param {number} i */
export function color_name(i) {
  return colorNames[i] || '';
}
// Computed-style facts of an element, as `StyleFacts` bits; `layers`: whether the walk still
// needs to know if the page paints with layers (once it does, those reads are skipped).
/**
 * @param {Element} el
 * @param {Float64Array} out
 * @param {boolean} layers
 */
export function element_facts(el, out, layers) {
  const f = style_facts(el, layers);
  // Not rendered (see `StyleFacts`): no paint is read.
  if ((f & 1) || (f & 8) || ((f & 4) && !(f & 2))) return f;
  // `-webkit-text-security` (a masked field) is Chrome's own, not in the standard declaration.
  const s = /** @type {CSSStyleDeclaration & { webkitTextSecurity: string }} */ (style);
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
    text = c.nodeType === 3 && !BLANK.test(/** @type {Text} */ (c).data);
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
/** @type {(v: string) => string} */
const NONE = (v) => (v === 'none' ? '' : v);
/** @param {Element} el */
export function paint_of(el) {
  const s = styleOf(el);
  const transform = s.transform;
  const overflow = s.overflow;
  const opacity = s.opacity;
  let text = false;
  for (let c = el.firstChild; c !== null && !text; c = c.nextSibling) {
    text = c.nodeType === 3 && !BLANK.test(/** @type {Text} */ (c).data);
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
/** @type {Document | null} */
let rangeDoc = null;
/** @type {Range} */
let range;
/** @param {Node} node */
function rangeOf(node) {
  if (node.ownerDocument !== rangeDoc) {
    rangeDoc = node.ownerDocument;
    range = (rangeDoc ?? document).createRange();
  }
  range.selectNodeContents(node);
  return range;
}
/**
 * @param {Node} node
 * @param {Float64Array} out
 */
export function glyphs_of(node, out) {
  const r = rangeOf(node).getBoundingClientRect();
  out[0] = r.left;
  out[1] = r.top;
  out[2] = r.width;
  out[3] = r.height;
}
const REPLACED = new Set(['img', 'video', 'canvas', 'iframe', 'object', 'embed']);
/** @param {Node} node */
export function text_hit(node) {
  const parent = /** @type {(ParentNode & Partial<ShadowRoot>) | null} */ (node.parentNode);
  const owner = node.parentElement || (parent && parent.host);
  const first = owner && rangeOf(node).getClientRects()[0];
  if (!first) return 0;
  const x = first.left + first.width / 2;
  const y = first.top + first.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return 0;
  const root = /** @type {Node & Partial<DocumentOrShadowRoot>} */ (node.getRootNode());
  let hit = (root.elementFromPoint ? /** @type {DocumentOrShadowRoot} */ (root) : document).elementFromPoint(x, y);
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
/** @param {Float64Array} out */
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
/**
 * @param {Element} el
 * @param {Float64Array} out
 */
export function rect_of(el, out) {
  const r = el.getBoundingClientRect();
  out[0] = r.top;
  out[1] = r.bottom;
  out[2] = r.left;
  out[3] = r.right;
  out[4] = r.width;
  out[5] = r.height;
}
