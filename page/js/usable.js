// @ts-check
// Whether an element can be used as drawn (`page/src/content/usable.rs`).
/** @param {Element} el */
export function effective_opacity(el) {
  let o = 1;
  for (let n = /** @type {Element | null} */ (el); n && o > 0; ) {
    o *= Number(getComputedStyle(n).opacity);
    const root = n.getRootNode();
    n = n.parentElement || (root instanceof ShadowRoot ? root.host : null);
  }
  return o;
}
/** @param {Element} el */
export function toggle_unrendered(el) {
  // A label's control (other elements have none).
  const c = /** @type {Partial<HTMLLabelElement>} */ (el).control;
  const input = c && c.localName === 'input' ? /** @type {HTMLInputElement} */ (c) : null;
  return !!input && (input.type === 'checkbox' || input.type === 'radio')
    && !input.checkVisibility({ visibilityProperty: true });
}
/**
 * @param {Element} el
 * @param {number} min
 * @returns {Element | null}
 */
export function drawing_box(el, min) {
  const r = el.getBoundingClientRect();
  if (Math.min(r.width, r.height) < 1 || Math.max(r.width, r.height) < min) return null;
  /** @type {Element | null} */
  let n = el;
  for (let depth = 0; depth < 4; depth++) {
    const up = /** @type {Node | null} */ (n.parentNode);
    n = n.parentElement || (up instanceof ShadowRoot ? up.host : null);
    if (n === null) return null;
    const b = n.getBoundingClientRect();
    if (b.width < min || b.height < min || Number(getComputedStyle(n).opacity) < 0.2) continue;
    const inside = r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1
      && r.bottom <= b.bottom + 1;
    // Fields the page keeps unrendered or transparent inside the box (a library's original
    // `<select hidden>`, Choices.js's input at `opacity: 0`) are not a second field a person
    // could mistake it for.
    let fields = 0;
    for (const f of n.querySelectorAll('input,textarea,select')) {
      if (f === el || f.checkVisibility({ opacityProperty: true, visibilityProperty: true })) fields += 1;
    }
    return inside && fields <= 1 ? n : null;
  }
  return null;
}
/** @param {Element} el */
export function in_fixed_layer(el) {
  for (let n = /** @type {Element | null} */ (el); n; n = n.parentElement) {
    const p = getComputedStyle(n).position;
    if (p === 'fixed' || p === 'sticky') return true;
  }
  return false;
}
