// @ts-check
// What an element reads as: its text with spaces where the layout separates words, its icons'
// names, and the text just before a field or under it (`page/src/content/read.rs`).
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em',
  'i', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u',
  'var', 'font', 'label', 'img', 'wbr', 'del', 'ins']);
const SKIP = new Set(['script', 'style', 'template', 'noscript']);
/**
 * @param {Element} el
 * @param {number} limit
 * @returns {string}
 */
export function spaced_text(el, limit) {
  if (el.childElementCount === 0) return el.textContent ?? '';
  let out = '';
  // Node types are told by `nodeType` (3 text, 1 element), which the checker cannot narrow on.
  /** @typedef {Text & Element & HTMLSlotElement} AnyNode */
  /** @type {(n: Node, depth: number) => void} */
  const walk = (n, depth) => {
    let previous = 0;
    for (let c = /** @type {AnyNode | null} */ (n.firstChild); c !== null && out.length < limit; c = /** @type {AnyNode | null} */ (c.nextSibling)) {
      if (c.nodeType === 3) out += c.data;
      else if (c.localName === 'slot') {
        // A shadow tree's text is what its slots show (a web component's label).
        for (const a of c.assignedNodes({ flatten: true })) {
          if (a.nodeType === 3) out += /** @type {Text} */ (a).data;
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
/** @param {Element} el */
export function icon_sources(el) {
  /** @type {string[]} */
  const out = [];
  /** @param {Element} n */
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
  // Last: the control's own id (`send-reply`), when nothing drawn in it says more.
  const id = el.getAttribute('id');
  if (id) out.push(id);
  return out;
}
const CONTROLS = 'input,select,textarea,button';
/**
 * @param {Element} n
 * @returns {string | null}
 */
function textBefore(n) {
  /** @typedef {Text & HTMLLabelElement} AnyNode */
  for (let p = /** @type {AnyNode | null} */ (n.previousSibling); p !== null; p = /** @type {AnyNode | null} */ (p.previousSibling)) {
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
// What a field's own group may hold besides it: anything else a person operates.
const OTHER_CONTROLS = 'input:not([type=hidden]),select,textarea,button,a[href],[role=button]';
/**
 * The field's own group: its outermost ancestor (a few levels up, inside the form) that holds
 * no other control, so every text in it belongs to this field; the field itself when its
 * parent holds another control.
 * @param {Element} el
 * @returns {Element}
 */
function ownGroup(el) {
  let group = el;
  for (let depth = 0; depth < 4; depth++) {
    const parent = group.parentElement;
    if (parent === null || parent.localName === 'form' || parent.localName === 'body') break;
    if (parent.querySelectorAll(OTHER_CONTROLS).length > 1) break;
    group = parent;
  }
  return group;
}
/**
 * The first text after the field inside its own group, when it is drawn under or over the
 * field (a caption below the box, a label laid on it) rather than beside it (a unit, `kg`).
 * @param {Element} el
 * @param {Element} group
 * @returns {string}
 */
function textUnder(el, group) {
  const box = el.getBoundingClientRect();
  for (let n = el; n !== group && n.parentElement !== null; n = n.parentElement) {
    for (let p = n.nextElementSibling; p !== null; p = p.nextElementSibling) {
      if (p.localName === 'br' || SKIP.has(p.localName)) continue;
      if (p.localName === 'label' && /** @type {HTMLLabelElement} */ (p).control) return '';
      if (!p.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      const text = p.textContent ?? '';
      if (!text.trim()) continue;
      const r = p.getBoundingClientRect();
      const across = r.left < box.right && r.right > box.left;
      return across ? text : '';
    }
  }
  return '';
}
/** @param {Element} el */
export function nearby_texts(el) {
  /** @type {string[]} */
  const out = [];
  const group = ownGroup(el);
  let looked = group === el;
  let n = el;
  for (let depth = 0; depth < 3 && n.parentElement !== null; depth++) {
    // About to look outside the group only this field is in: a caption under the field in
    // it is its label (text before the group names the list of groups, not this field).
    if (n === group && !looked) {
      looked = true;
      const under = textUnder(el, group);
      if (under.trim()) {
        out.push(under);
        break;
      }
    }
    const text = textBefore(n);
    if (text === null) break;
    if (text) {
      out.push(text);
      break;
    }
    const parent = n.parentElement;
    if (parent.localName === 'td' || parent.localName === 'th') {
      const cell = parent.previousElementSibling;
      if (cell !== null && cell.querySelector(CONTROLS) === null) out.push(cell.textContent ?? '');
      break;
    }
    if (parent.localName === 'form' || parent.localName === 'body') break;
    n = parent;
  }
  if (!looked && !out.some((t) => t.trim())) out.push(textUnder(el, group));
  return out;
}
