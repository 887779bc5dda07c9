// The prompt box: Enter sends, Shift+Enter adds a line, Up/Down walk the history the worker
// keeps (Up with the caret on the first line, Down with it on the last, so moving within a
// multi-line prompt still works), attachments by path.
import { $, closest, el, text } from './dom.js';

/** @type {string[]} */
let history = [];
/** @type {number | null} */
let index = null; // position in `history` while browsing it; null = the user's own draft
let draft = '';

/** @param {PanelView} state */
export function renderPrompt(state) {
  history = state.prompt_history || [];
  $('prompt', HTMLTextAreaElement).disabled = false;
  $('attachments').replaceChildren(...(state.attachments || []).map((a) => {
    const remove = el('button', { type: 'button', className: 'small', textContent: '×', title: `Remove ${a.name}` });
    remove.setAttribute('aria-label', `Remove ${a.name}`);
    remove.dataset.name = a.name;
    return el('li', { title: a.path }, el('span', { textContent: `📎 ${a.name}` }), remove);
  }));
  $('attach-error').hidden = !state.attach_error;
  text($('attach-error'), state.attach_error);
}

/** @param {string} value */
function show(value) {
  const p = $('prompt', HTMLTextAreaElement);
  p.value = value;
  p.setSelectionRange(value.length, value.length);
}

/** @type {(p: HTMLTextAreaElement) => boolean} */
const onFirstLine = (p) => p.selectionStart === p.selectionEnd && !p.value.slice(0, p.selectionStart).includes('\n');
/** @type {(p: HTMLTextAreaElement) => boolean} */
const onLastLine = (p) => p.selectionStart === p.selectionEnd && !p.value.slice(p.selectionEnd).includes('\n');

/**
 * @param {SendToWorker} send
 * @param {() => void} submit
 */
export function initPrompt(send, submit) {
  const p = $('prompt', HTMLTextAreaElement);
  p.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      index = null;
      submit();
    } else if (event.key === 'ArrowUp' && onFirstLine(p) && history.length && index !== 0) {
      event.preventDefault();
      if (index === null) { draft = p.value; index = history.length; }
      index -= 1;
      show(history[index]);
    } else if (event.key === 'ArrowDown' && index !== null && onLastLine(p)) {
      event.preventDefault();
      index += 1;
      if (index >= history.length) { index = null; show(draft); } else show(history[index]);
    }
  });
  p.addEventListener('input', () => { index = null; });
  $('attach-toggle').addEventListener('click', () => {
    const form = $('attach-form');
    form.hidden = !form.hidden;
    $('attach-toggle').setAttribute('aria-expanded', String(!form.hidden));
    if (!form.hidden) $('attach-path').focus();
  });
  $('attach-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send({ type: 'attach', path: $('attach-path', HTMLInputElement).value });
    $('attach-path', HTMLInputElement).value = '';
  });
  $('attachments').addEventListener('click', (event) => {
    const b = closest(event, 'button[data-name]');
    if (b) send({ type: 'detach', name: b.dataset.name ?? '' });
  });
}
