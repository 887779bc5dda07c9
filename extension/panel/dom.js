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

// Copies `value` to the clipboard; `button` says for two seconds whether it worked.
export async function copyText(button, value) {
  let ok = false;
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
  const label = button.dataset.label ?? (button.dataset.label = button.textContent);
  text(button, ok ? 'Copied' : 'Copy failed');
  setTimeout(() => text(button, label), 2000);
}
