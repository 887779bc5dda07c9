// Tiny DOM helpers shared by the panel views (text only: nothing from the model or the page is
// ever parsed as HTML).

/**
 * The element `sidepanel.html` (or a view that drew it) gives this id. `kind` names its class
 * when the caller reads what only that kind has (`HTMLInputElement` for `.value`); a missing or
 * different element throws here, naming the id, instead of failing later on `null`.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} id
 * @param {{ new (): T, prototype: T }} [kind]
 * @returns {T}
 */
export function $(id, kind) {
  const node = document.getElementById(id);
  if (!(node instanceof (kind ?? HTMLElement))) {
    throw new Error(`the side panel has no ${kind?.name ?? 'element'} #${id}`);
  }
  return /** @type {T} */ (node);
}
/**
 * Sets `el`'s text (as text, never HTML; nothing for null or undefined).
 * @param {Node} el
 * @param {string | number | null | undefined} value
 */
export function text(el, value) { el.textContent = String(value ?? ''); }
// "1 task", "3 tasks": a count with its noun in the right number.
/** @type {(n: number, noun: string) => string} */
export const counted = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;
/**
 * A new element with these properties and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Partial<HTMLElementTagNameMap[K]>} [props]
 * @param {...(Node | string)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/**
 * Copies `value` to the clipboard; `button` says for two seconds whether it worked.
 * @param {HTMLElement} button
 * @param {string} value
 */
export async function copyText(button, value) {
  let ok;
  try {
    await navigator.clipboard.writeText(value);
    ok = true;
  } catch (_) {
    const area = Object.assign(document.createElement('textarea'), { value });
    document.body.append(area);
    area.select();
    ok = document.execCommand('copy');
    area.remove();
  }
  document.body.dataset.copied = ok ? value : '';
  const label = button.dataset.label ?? (button.dataset.label = button.textContent ?? '');
  text(button, ok ? 'Copied' : 'Copy failed');
  setTimeout(() => text(button, label), 2000);
}

/**
 * The element of kind `kind` nearest around `event`'s target that matches `selector` (a click
 * on a button's label is a click on the button), or null.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {Event} event
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} [kind]
 * @returns {T | null}
 */
export function closest(event, selector, kind) {
  const target = event.target;
  const found = target instanceof Element ? target.closest(selector) : null;
  return found instanceof (kind ?? HTMLElement) ? /** @type {T} */ (found) : null;
}

/**
 * Every element of kind `kind` under `root` that matches `selector`, in document order.
 * @template {HTMLElement} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} kind
 * @returns {T[]}
 */
export function all(root, selector, kind) {
  /** @type {T[]} */
  const found = [];
  for (const node of root.querySelectorAll(selector)) if (node instanceof kind) found.push(node);
  return found;
}

/**
 * The first element of kind `kind` under `root` that matches `selector`; throws, naming the
 * selector, when the view drew none.
 * @template {HTMLElement} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} kind
 * @returns {T}
 */
export function one(root, selector, kind) {
  const node = root.querySelector(selector);
  if (!(node instanceof kind)) throw new Error(`the side panel has no ${kind.name} ${selector}`);
  return node;
}

/**
 * Whether `node` is a form field: an input, a select or a text area.
 * @param {unknown} node
 * @returns {node is HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement}
 */
export function isField(node) {
  return node instanceof HTMLInputElement || node instanceof HTMLSelectElement
    || node instanceof HTMLTextAreaElement;
}

/**
 * What a form field holds.
 * @param {Element | null} node
 * @returns {string}
 */
export function valueOf(node) {
  if (isField(node)) return node.value;
  throw new Error(`the side panel has no form field ${node?.id ?? ''}`);
}
