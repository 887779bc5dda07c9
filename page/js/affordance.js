// @ts-check
import { aria_of } from './facts.js';
// Whether the page's own style sheets declare `cursor: pointer` for an element (a sign of a
// control its markup does not show; `page/src/content/affordance.rs`).
/** @type {Document | null} */
let doc = null;
/** @type {string | null} */
let key = null;
let joined = '';
let checked = false;
const STATEFUL = /:(hover|focus-visible|focus-within|focus|active)(?![\w-])/g;
// Sheets whose rules the page's origin forbids reading (cross-origin): a sheet's origin does
// not change, and a thrown exception per sheet per walk was a visible cost on pages with many.
const unreadable = new WeakSet();
/**
 * @param {CSSStyleSheet} s
 * @returns {CSSRuleList | null}
 */
function rulesOf(s) {
  if (unreadable.has(s)) return null;
  try {
    return s.cssRules;
  } catch (e) {
    if (/** @type {{ name?: unknown } | null} */ (e)?.name === 'SecurityError') unreadable.add(s);
    return null;
  }
}
/** @param {Document} d */
function sheetKey(d) {
  let k = '';
  for (const s of d.styleSheets) {
    const rules = rulesOf(s);
    k += (rules ? rules.length : -1) + ',';
  }
  return k;
}
/**
 * @param {CSSRuleList} rules
 * @param {string[]} out
 * @param {number} depth
 */
function collect(rules, out, depth) {
  // Style rules have `style`, grouping rules (`@media`, `@supports`) `cssRules`.
  for (const r of /** @type {Iterable<CSSStyleRule & CSSGroupingRule>} */ (rules)) {
    if (r.style) {
      if (r.style.cursor === 'pointer' && r.selectorText) {
        for (const part of r.selectorText.split(',')) {
          const sel = part.replace(STATEFUL, '').trim();
          // `.row *` and `.row > *` declare it for everything inside: no sign of a control.
          if (sel && !/[*>+~]\s*$/.test(sel)) out.push(sel);
        }
      }
    } else if (r.cssRules && depth < 8) {
      try { collect(r.cssRules, out, depth + 1); } catch (_) { /* an unreadable group: skipped */ }
    }
  }
}
/**
 * @param {Document} d
 * @param {string} sel
 */
function valid(d, sel) {
  try { d.documentElement.matches(sel); return true; } catch (_) { return false; }
}
/** @param {Document} d */
function rebuild(d) {
  /** @type {string[]} */
  const out = [];
  for (const s of d.styleSheets) {
    const rules = rulesOf(s);
    if (rules) {
      try { collect(rules, out, 0); } catch (_) { /* an unreadable sheet: skipped */ }
    }
  }
  const unique = [...new Set(out)];
  joined = unique.join(',');
  if (joined && !valid(d, joined)) joined = unique.filter((s) => valid(d, s)).join(',');
}
const CONTROLS = 'a[href],button,input,select,textarea,[role],[tabindex],[onclick],[contenteditable]';
/**
 * @param {Element} el
 * @param {number} max
 */
export function few_descendants(el, max) {
  const all = el.getElementsByTagName('*');
  if (all.length > max || el.querySelector(CONTROLS) !== null || drawsControl(el)) return false;
  for (const d of all) {
    if (drawsControl(d) || aria_of(d, 'role') !== null) return false;
  }
  return true;
}
/**
 * The first control `el` holds: in its light DOM, in its own shadow root, or a descendant
 * component that draws one or whose ElementInternals give it a role (among its first
 * [MAX_SCANNED] descendants); null when it holds none.
 * @param {Element} el
 */
export function first_control(el) {
  const inner = el.querySelector(WIDGETS) ?? el.shadowRoot?.querySelector(WIDGETS) ?? null;
  if (inner) return inner;
  const all = el.getElementsByTagName('*');
  for (let i = 0; i < all.length && i < MAX_SCANNED; i += 1) {
    const d = all[i];
    const role = aria_of(d, 'role');
    if ((role !== null && WIDGET_ROLES.includes(role)) || d.shadowRoot?.querySelector(WIDGETS)) return d;
  }
  return null;
}
const MAX_SCANNED = 64;
// Controls a person operates (not a `role=presentation` span or a focusable box).
const WIDGET_ROLES = ['button', 'checkbox', 'switch', 'radio', 'combobox', 'textbox', 'searchbox',
  'slider', 'spinbutton', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'link',
  'listbox'];
const WIDGETS = ['a[href]', 'button', 'input:not([type=hidden])', 'select', 'textarea',
  '[contenteditable]:not([contenteditable=false])', ...WIDGET_ROLES.map((r) => `[role=${r}]`)].join(',');
// A web component that draws a control in its shadow root (`<md-switch>`'s input, a text
// field's `<input>`) holds that control: the listener on it or around it is the control's.
/** @param {Element} el */
const drawsControl = (el) => el.shadowRoot !== null && el.shadowRoot.querySelector(CONTROLS) !== null;
export function pointer_rules_stale() { checked = false; }
/** @param {Element} el */
export function declared_pointer(el) {
  const { style } = /** @type {Partial<ElementCSSInlineStyle>} */ (el);
  if (style && style.cursor === 'pointer') return true;
  const d = el.ownerDocument;
  if (!d || !d.documentElement) return false;
  if (!checked || d !== doc) {
    const k = sheetKey(d);
    if (d !== doc || k !== key) {
      doc = d;
      key = k;
      rebuild(d);
    }
    checked = true;
  }
  if (!joined) return false;
  try { return el.matches(joined); } catch (_) { return false; }
}
