// @ts-check
// Where a list's items are drawn, when styles move them (`page/src/content/order.rs`).
/**
 * @param {Element} parent
 * @param {number} most
 * @returns {number[] | null}
 */
export function item_places(parent, most) {
  const kids = parent.children;
  if (kids.length < 2 || kids.length > most) return null;
  // The first few items tell how the list is laid out (one style read each).
  let moved = false;
  for (let i = 0; i < kids.length && i < 4; i++) {
    const s = getComputedStyle(kids[i]);
    if (s.position === 'absolute' || s.transform !== 'none' || s.order !== '0'
      || s.gridRowStart !== 'auto') { moved = true; break; }
  }
  if (!moved) return null;
  /** @type {number[]} */
  const out = [];
  for (const k of kids) {
    const r = k.getBoundingClientRect();
    out.push(r.top, r.left);
  }
  return out;
}
