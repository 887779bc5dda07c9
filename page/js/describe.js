// @ts-check
// The text an element draws, generated content included (`page/src/content/describe.rs`).
const quoted = /"((?:[^"\\]|\\.)*)"/g;
/**
 * @param {Element} el
 * @param {string} pseudo
 */
function generated(el, pseudo) {
  const c = getComputedStyle(el, pseudo).content;
  if (!c || c === 'none' || c === 'normal') return '';
  return Array.from(c.matchAll(quoted), (m) => m[1]).join('');
}
/** @param {Element} el */
export function drawn_parts(el) {
  const s = getComputedStyle(el);
  const reversed = s.direction === 'rtl' && s.unicodeBidi.includes('override');
  return [generated(el, '::before'), /** @type {Partial<HTMLElement>} */ (el).innerText || '', generated(el, '::after'),
    reversed ? 'rtl-override' : ''];
}
