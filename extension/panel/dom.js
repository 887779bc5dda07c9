// Tiny DOM helpers shared by the panel views (text only: nothing from the model or the page is
// ever parsed as HTML).
export const $ = (id) => document.getElementById(id);
export function text(el, value) { el.textContent = value ?? ''; }
// "1 task", "3 tasks": a count with its noun in the right number.
export const counted = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;
export function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}
