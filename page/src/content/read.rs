//! Text reads for names, done in one JS call each (see `facts.rs` for why): an element's text
//! with spaces between its blocks, the strings an icon-only control carries (class lists,
//! icon references, image file names), and the text a person reads beside a field that no
//! label is tied to. They only read; the names are made in `roles.rs` and
//! [`crate::observation::names`].

use wasm_bindgen::prelude::*;
use web_sys::Element;

#[wasm_bindgen(inline_js = r#"
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em',
  'i', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u',
  'var', 'font', 'label', 'img', 'wbr', 'del', 'ins']);
const SKIP = new Set(['script', 'style', 'template', 'noscript']);
export function spaced_text(el, limit) {
  if (el.childElementCount === 0) return el.textContent;
  let out = '';
  const walk = (n, depth) => {
    let previous = 0;
    for (let c = n.firstChild; c !== null && out.length < limit; c = c.nextSibling) {
      if (c.nodeType === 3) out += c.data;
      else if (c.localName === 'slot') {
        // A shadow tree's text is what its slots show (a web component's label).
        for (const a of c.assignedNodes({ flatten: true })) {
          if (a.nodeType === 3) out += a.data;
          else if (a.nodeType === 1 && depth < 64) { out += ' '; walk(a, depth + 1); out += ' '; }
        }
      } else if (c.nodeType === 1 && !SKIP.has(c.localName)) {
        // Two elements side by side with no text between are two things (flex items, tags).
        const block = !INLINE.has(c.localName) || previous === 1;
        if (block) out += ' ';
        if (depth < 64) walk(c, depth + 1);
        else out += c.textContent;
        if (block) out += ' ';
      }
      if (c.nodeType === 1 || c.nodeType === 3) previous = c.nodeType;
    }
  };
  walk(el, 0);
  return out;
}
export function icon_sources(el) {
  const out = [];
  const add = (n) => {
    const c = n.getAttribute('class');
    if (c) out.push(c);
    const d = n.getAttribute('data-icon');
    if (d) out.push(d);
    if (n.localName === 'use') {
      const h = n.getAttribute('href') || n.getAttribute('xlink:href');
      if (h) out.push(h);
    }
    if (n.localName === 'img') {
      const s = n.getAttribute('src');
      if (s && !s.startsWith('data:')) out.push(s);
    }
  };
  let i = 0;
  for (const n of el.querySelectorAll('*')) {
    if (++i > 12) break;
    add(n);
  }
  add(el);
  return out;
}
const CONTROLS = 'input,select,textarea,button';
function textBefore(n) {
  for (let p = n.previousSibling; p !== null; p = p.previousSibling) {
    if (p.nodeType === 3) {
      if (p.data.trim()) return p.data;
      continue;
    }
    if (p.nodeType !== 1 || p.localName === 'br' || SKIP.has(p.localName)) continue;
    // Text that belongs to another control, or that names one, is not this field's.
    if (p.matches(CONTROLS) || p.querySelector(CONTROLS) !== null) return null;
    if (p.localName === 'label' && p.control) return null;
    if (!p.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    if (p.textContent.trim()) return p.textContent;
  }
  return '';
}
export function nearby_texts(el) {
  const out = [];
  let n = el;
  for (let depth = 0; depth < 3 && n.parentElement !== null; depth++) {
    const text = textBefore(n);
    if (text === null) break;
    if (text) {
      out.push(text);
      break;
    }
    const parent = n.parentElement;
    if (parent.localName === 'td' || parent.localName === 'th') {
      const cell = parent.previousElementSibling;
      if (cell !== null && cell.querySelector(CONTROLS) === null) out.push(cell.textContent);
      break;
    }
    if (parent.localName === 'form' || parent.localName === 'body') break;
    n = parent;
  }
  return out;
}
"#)]
extern "C" {
    /// The element's text with a space at each boundary of a non-inline element (list items,
    /// options, cells), read until about `limit` characters.
    pub(super) fn spaced_text(el: &Element, limit: u32) -> String;
    /// Class lists, `data-icon`, `<use href>` and image `src` of the element's first
    /// descendants (the icon itself), then of the element: what [`crate::observation::names::icon_name`] reads.
    pub(super) fn icon_sources(el: &Element) -> Vec<String>;
    /// The visible text just before a field — in its parent, or its wrapper's, or the previous
    /// table cell — unless a control or a label of another control comes first: what
    /// [`crate::observation::names::nearby_label`] reads.
    pub(super) fn nearby_texts(el: &Element) -> Vec<String>;
}
