// The prompt box: Enter sends, Shift+Enter adds a line, Up/Down walk the history the worker
// keeps (Up with the caret at the start, Down with it at the end), attachments by path.
import { $, el, text } from './dom.js';

let history = [];
let index = null; // position in `history` while browsing it; null = the user's own draft
let draft = '';

export function renderPrompt(state) {
  history = state.prompt_history || [];
  $('prompt').disabled = false;
  $('attachments').replaceChildren(...(state.attachments || []).map((a) => {
    const remove = el('button', { type: 'button', className: 'small', textContent: '×', title: `Remove ${a.name}` });
    remove.setAttribute('aria-label', `Remove ${a.name}`);
    remove.dataset.name = a.name;
    return el('li', { title: a.path }, el('span', { textContent: `📎 ${a.name}` }), remove);
  }));
  $('attach-error').hidden = !state.attach_error;
  text($('attach-error'), state.attach_error);
}

function show(value, caretAtStart) {
  const p = $('prompt');
  p.value = value;
  const at = caretAtStart ? 0 : value.length;
  p.setSelectionRange(at, at);
}

export function initPrompt(send, submit) {
  const p = $('prompt');
  p.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      index = null;
      submit();
    } else if (event.key === 'ArrowUp' && p.selectionStart === 0 && p.selectionEnd === 0 && history.length) {
      event.preventDefault();
      if (index === null) { draft = p.value; index = history.length; }
      index = Math.max(0, index - 1);
      show(history[index], true);
    } else if (event.key === 'ArrowDown' && index !== null && p.selectionStart === p.value.length) {
      event.preventDefault();
      index += 1;
      if (index >= history.length) { index = null; show(draft, false); } else show(history[index], false);
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
    send({ type: 'attach', path: $('attach-path').value });
    $('attach-path').value = '';
  });
  $('attachments').addEventListener('click', (event) => {
    const b = event.target.closest('button[data-name]');
    if (b) send({ type: 'detach', name: b.dataset.name });
  });
}
