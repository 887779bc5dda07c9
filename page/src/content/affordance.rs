//! Signs that an element inside another clickable one is a control of its own: `cursor:
//! pointer` declared on it (not merely inherited from the row around it).
//!
//! `cursor` is inherited, so inside a clickable row every icon reads `pointer` from the
//! computed style and the walk used to fold all of them into the row. Whether the page
//! *declared* the pointer on the element itself is what tells a star or delete icon from the
//! row's own text: an inline `style="cursor: pointer"`, or a style rule declaring it whose
//! selector matches the element. The JS below only reads (the page's style sheets, `matches`);
//! the decision to list the element stays in `dom.rs`.

use wasm_bindgen::prelude::*;
use web_sys::Element;

#[wasm_bindgen(inline_js = r#"
let doc = null;
let key = null;
let joined = '';
let checked = false;
const STATEFUL = /:(hover|focus-visible|focus-within|focus|active)(?![\w-])/g;
// Sheets whose rules the page's origin forbids reading (cross-origin): a sheet's origin does
// not change, and a thrown exception per sheet per walk was a visible cost on pages with many.
const unreadable = new WeakSet();
function rulesOf(s) {
  if (unreadable.has(s)) return null;
  try {
    return s.cssRules;
  } catch (e) {
    if (e && e.name === 'SecurityError') unreadable.add(s);
    return null;
  }
}
function sheetKey(d) {
  let k = '';
  for (const s of d.styleSheets) {
    const rules = rulesOf(s);
    k += (rules ? rules.length : -1) + ',';
  }
  return k;
}
function collect(rules, out, depth) {
  for (const r of rules) {
    if (r.style) {
      if (r.style.cursor === 'pointer' && r.selectorText) {
        for (const part of r.selectorText.split(',')) {
          const sel = part.replace(STATEFUL, '').trim();
          // `.row *` and `.row > *` declare it for everything inside: no sign of a control.
          if (sel && !/[*>+~]\s*$/.test(sel)) out.push(sel);
        }
      }
    } else if (r.cssRules && depth < 8) {
      try { collect(r.cssRules, out, depth + 1); } catch (_) {}
    }
  }
}
function valid(d, sel) {
  try { d.documentElement.matches(sel); return true; } catch (_) { return false; }
}
function rebuild(d) {
  const out = [];
  for (const s of d.styleSheets) {
    const rules = rulesOf(s);
    if (rules) {
      try { collect(rules, out, 0); } catch (_) {}
    }
  }
  const unique = [...new Set(out)];
  joined = unique.join(',');
  if (joined && !valid(d, joined)) joined = unique.filter((s) => valid(d, s)).join(',');
}
const CONTROLS = 'a[href],button,input,select,textarea,[role],[tabindex],[onclick],[contenteditable]';
export function few_descendants(el, max) {
  return el.getElementsByTagName('*').length <= max && el.querySelector(CONTROLS) === null;
}
export function pointer_rules_stale() { checked = false; }
export function declared_pointer(el) {
  if (el.style && el.style.cursor === 'pointer') return true;
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
"#)]
extern "C" {
    /// Tells the JS side that style sheets may have changed since the last walk (checked
    /// cheaply by their rule counts before the next [`declared_pointer`]).
    fn pointer_rules_stale();
    /// Whether `cursor: pointer` is declared on the element itself: inline, or by a style
    /// rule whose selector (`:hover` and the like dropped) matches it.
    pub(super) fn declared_pointer(el: &Element) -> bool;
    /// Whether the element holds at most `max` elements and no control of its own.
    fn few_descendants(el: &Element, max: u32) -> bool;
}

/// Called at the start of each walk.
pub(super) fn start_walk() {
    pointer_rules_stale();
}

/// Most elements a listener alone makes a control may hold: a calendar day, a board cell, a
/// card. An element holding more, or holding controls, is where the page delegates its events
/// (an app root, a list), not a control.
const MAX_LISTENER_DESCENDANTS: u32 = 16;

/// Whether an element whose only sign is a page-recorded listener looks like one control.
pub(super) fn listener_control(el: &Element) -> bool {
    few_descendants(el, MAX_LISTENER_DESCENDANTS)
}
