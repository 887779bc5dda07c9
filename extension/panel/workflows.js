// Workflows view: the saved workflows with a run form each, the editor of a draft or a saved
// workflow, export and import, and the healed steps of the last run. It draws what the service
// worker sends and forwards what the user did; every decision (what a workflow holds, whether
// it is valid, whether it runs) is taken in Rust.
import { $, all, closest, copyText, counted, el, one, text, valueOf } from './dom.js';
import { scheduleForm } from './routines.js';

/** @type {{ list: string | null, editor: string | null, heals: string | null, recording: string | null }} */
const shown = { list: null, editor: null, heals: null, recording: null };

/** @param {boolean} open */
export function setWorkflowsOpen(open) {
  document.body.classList.toggle('workflows-open', open);
  $('workflows').hidden = !open;
  $('workflows-open').setAttribute('aria-expanded', String(open));
  if (open) $('workflows-heading').focus();
}

// A button carrying its request in data attributes (read by the list's click handler).
/**
 * @param {string} label
 * @param {string} action
 * @param {string} id
 * @param {string} [className]
 */
function button(label, action, id, className = 'small') {
  const node = el('button', { type: 'button', className, textContent: label });
  Object.assign(node.dataset, { action, id });
  return node;
}

// The run form of one workflow: one field per input, prefilled with its default.
/** @param {WorkflowItem} item */
function runForm(item) {
  const fields = item.params.flatMap((p, i) => {
    const id = `run-${item.id}-${i}`;
    return [
      el('label', { htmlFor: id, textContent: p.label ? `${p.label} ({{${p.name}}})` : p.name }),
      el('input', {
        id, name: p.name, defaultValue: p.default, autocomplete: 'off', spellcheck: false,
        type: p.secret ? 'password' : 'text',
        placeholder: p.secret ? 'a secret: asked at each run, never stored' : '',
      }),
    ];
  });
  const form = el('form', { className: 'run-form', hidden: true }, ...fields,
    el('div', { className: 'row' }, el('button', { type: 'submit', textContent: `Run “${item.name}”` })));
  form.dataset.id = item.id;
  return form;
}

/** @param {WorkflowItem} item */
function renameForm(item) {
  const id = `rename-${item.id}`;
  const form = el('form', { className: 'rename-workflow', hidden: true },
    el('label', { htmlFor: id, className: 'visually-hidden', textContent: `New name for ${item.name}` }),
    el('input', { id, value: item.name, maxLength: 80, autocomplete: 'off' }),
    el('button', { type: 'submit', className: 'small', textContent: 'Rename' }));
  form.dataset.id = item.id;
  return form;
}

/** @param {WorkflowItem} item */
function listItem(item) {
  const inputs = item.params.length ? ` · inputs: ${item.params.map((p) => p.name).join(', ')}` : '';
  const li = el('li', {},
    el('div', { className: 'workflow-name', textContent: item.name }),
    el('div', { className: 'muted', textContent: `${counted(item.steps, 'step')}${inputs}` }),
    el('div', { className: 'row' },
      button('Run…', 'run', item.id, ''),
      button('Edit', 'edit', item.id),
      button('Rename', 'rename', item.id),
      button('Duplicate', 'duplicate', item.id),
      button('Schedule…', 'schedule', item.id),
      button('Export', 'export', item.id),
      button('Delete', 'delete', item.id)),
    runForm(item),
    renameForm(item),
    scheduleForm(item));
  li.dataset.id = item.id;
  return li;
}

/** @param {WorkflowEditor | null} editor */
function renderEditor(editor) {
  $('workflow-editor').hidden = !editor;
  if (!editor) return;
  const form = editor.form;
  // Optional in the form the panel sends back; the worker always fills them.
  const params = form.params ?? [];
  text($('workflow-editor-heading'), editor.heading);
  $('workflow-problems').replaceChildren(...editor.problems.map((p) => el('li', { textContent: p })));
  $('workflow-name', HTMLInputElement).value = form.name;
  $('workflow-params-box').hidden = !params.length;
  $('workflow-params').replaceChildren(...params.map((p, i) => {
    const info = editor.params.at(i);
    const row = el('div', { className: 'param-row' },
      el('label', { htmlFor: `param-name-${i}`, textContent: `Input ${i + 1}: name` }),
      el('label', { htmlFor: `param-default-${i}`, textContent: info?.secret ? 'Value (secret: never stored)' : 'Default value' }),
      el('input', { id: `param-name-${i}`, className: 'param-name', value: p.rename, autocomplete: 'off', spellcheck: false }),
      el('input', { id: `param-default-${i}`, className: 'param-default', value: info?.secret ? '' : p.default, disabled: !!info?.secret, autocomplete: 'off' }),
      el('p', { className: 'muted', textContent: info?.label ? `typed into “${info?.label}”` : '' }));
    row.dataset.name = p.name;
    return row;
  }));
  $('workflow-steps').replaceChildren(...(form.steps ?? []).map((s, i) => el('li', {},
    el('label', { htmlFor: `step-intent-${i}`, className: 'visually-hidden', textContent: `Step ${i + 1}` }),
    el('input', { id: `step-intent-${i}`, className: 'step-intent', value: s.intent, autocomplete: 'off' }),
    el('p', { className: 'muted step-detail', textContent: editor.steps[i] ?? '' }),
    el('label', { className: 'check' }, el('input', { type: 'checkbox', className: 'step-keep', checked: s.keep }), 'Keep this step'))));
}

// The editor's form as the user left it (Rust validates it).
/** @returns {WorkflowEdit} */
function editorForm() {
  return {
    name: $('workflow-name', HTMLInputElement).value,
    params: all($('workflow-params'), ':scope > *', HTMLElement).map((row) => ({
      name: row.dataset.name ?? '',
      rename: valueOf(row.querySelector('.param-name')),
      default: valueOf(row.querySelector('.param-default')),
    })),
    steps: [...$('workflow-steps').children].map((li) => ({
      intent: valueOf(li.querySelector('.step-intent')),
      keep: one(li, '.step-keep', HTMLInputElement).checked,
    })),
  };
}

/** @param {HealReview | null} review */
function renderHeals(review) {
  $('heals').hidden = !review;
  const key = JSON.stringify(review);
  if (!review || key === shown.heals) return;
  shown.heals = key;
  text($('heals-heading'), `“${review.workflow_name}”: ${counted(review.steps.length, 'step')} healed`);
  $('heal-list').replaceChildren(...review.steps.map((s) => el('li', {},
    el('strong', { textContent: `Step ${s.step}: ` }),
    `was ${s.was}; now ${s.now}`,
    el('div', { className: 'muted', textContent: s.why }))));
}

// The recording in progress (teach by showing): its steps so far, in Rust's words.
/** @param {RecordingView | null} recording */
function renderRecording(recording) {
  const key = JSON.stringify(recording ?? null);
  if (key === shown.recording) return;
  const starting = recording && !shown.recording?.startsWith('{');
  shown.recording = key;
  $('record-start').hidden = !!recording;
  $('recording-how').hidden = !!recording;
  $('recording-live').hidden = !recording;
  if (!recording) return;
  text($('recording-status'), recording.status);
  $('recording-steps').replaceChildren(...recording.steps.map((s) => el('li', { textContent: s })));
  $('recording-skipped').hidden = !recording.skipped;
  text($('recording-skipped'), recording.skipped);
  if (starting) {
    setWorkflowsOpen(true);
    $('record-stop').focus();
  }
}

/** @param {PanelView} state */
export function renderWorkflows(state) {
  const view = state.workflows;
  renderRecording(view.recording);
  const list = view.list;
  const listKey = JSON.stringify(list);
  if (listKey !== shown.list) {
    shown.list = listKey;
    $('workflow-list').replaceChildren(...list.map(listItem));
  }
  $('workflows-empty').hidden = list.length > 0;
  const editorKey = JSON.stringify(view.editor ?? null);
  if (editorKey !== shown.editor) {
    const opening = view.editor && !shown.editor?.startsWith('{');
    shown.editor = editorKey;
    renderEditor(view.editor);
    if (opening) {
      setWorkflowsOpen(true);
      $('workflow-name').focus();
    }
  }
  text($('workflows-notice'), view.notice ?? '');
  $('workflows-error').hidden = !view.error;
  text($('workflows-error'), view.error);
  const confirm = view.confirm_delete;
  $('workflow-confirm-delete').hidden = !confirm;
  $('workflow-confirm-delete').dataset.id = confirm?.id ?? '';
  text($('workflow-confirm-text'), confirm ? `Delete the workflow “${confirm.name}”? This cannot be undone.` : '');
  const exported = view.export;
  $('workflow-export').hidden = !exported;
  if (exported) {
    text($('workflow-export-status'), exported.path
      ? `“${exported.name}” was written to ${exported.path}`
      : `“${exported.name}” could not be written to a file (${exported.error}); copy its JSON below.`);
    if ($('workflow-export-json', HTMLTextAreaElement).value !== exported.json) $('workflow-export-json', HTMLTextAreaElement).value = exported.json;
  }
  renderHeals(view.heals);
  const task = state.task;
  const turn = !task?.running ? state.task_turn : null;
  $('save-workflow').hidden = turn == null;
  $('save-workflow').dataset.turn = turn == null ? '' : String(turn);
  $('turn-save-workflow').dataset.turn = state.focus ? String(state.focus.turn.turn) : '';
}

/** @param {SendToWorker} send */
export function initWorkflows(send) {
  $('workflows-open').addEventListener('click', () => setWorkflowsOpen($('workflows').hidden));
  $('workflows-close').addEventListener('click', () => setWorkflowsOpen(false));
  $('save-workflow').addEventListener('click', () => send({ type: 'save_as_workflow', turn: Number($('save-workflow').dataset.turn) }));
  $('turn-save-workflow').addEventListener('click', () => send({ type: 'save_as_workflow', turn: Number($('turn-save-workflow').dataset.turn) }));
  $('workflow-editor').addEventListener('submit', (event) => {
    event.preventDefault();
    send({ type: 'save_workflow', form: editorForm() });
  });
  $('workflow-cancel').addEventListener('click', () => send({ type: 'close_workflow_editor' }));
  $('workflow-list').addEventListener('click', (event) => {
    const b = closest(event, 'button[data-action]');
    if (!b) return;
    const { action, id = '' } = b.dataset;
    const li = b.closest('li');
    if (action === 'run' && li) { const f = one(li, '.run-form', HTMLFormElement); f.hidden = !f.hidden; if (!f.hidden) all(f, 'input, button', HTMLElement)[0]?.focus(); }
    if (action === 'rename' && li) { const f = one(li, '.rename-workflow', HTMLFormElement); f.hidden = !f.hidden; if (!f.hidden) one(f, 'input', HTMLInputElement).focus(); }
    if (action === 'schedule' && li) { const f = one(li, '.routine-form', HTMLFormElement); f.hidden = !f.hidden; if (!f.hidden) one(f, 'select', HTMLSelectElement).focus(); }
    if (action === 'edit') send({ type: 'edit_workflow', id });
    if (action === 'duplicate') send({ type: 'duplicate_workflow', id });
    if (action === 'export') send({ type: 'export_workflow', id });
    if (action === 'delete') send({ type: 'delete_workflow', id });
  });
  $('workflow-list').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.classList.contains('run-form')) {
      const values = Object.fromEntries([...form.querySelectorAll('input')].map((i) => [i.name, i.value]));
      send({ type: 'run_workflow', id: form.dataset.id ?? '', values });
      // Back to the defaults (a secret never stays in the form).
      form.reset();
      form.hidden = true;
      setWorkflowsOpen(false);
    } else if (form.classList.contains('rename-workflow')) {
      send({ type: 'rename_workflow', id: form.dataset.id ?? '', name: one(form, 'input', HTMLInputElement).value });
    }
  });
  $('workflow-confirm-yes').addEventListener('click', () => send({ type: 'confirm_delete_workflow', id: $('workflow-confirm-delete').dataset.id ?? '' }));
  $('workflow-confirm-no').addEventListener('click', () => send({ type: 'cancel_delete_workflow' }));
  $('workflow-export-copy').addEventListener('click', () => copyText($('workflow-export-copy'), $('workflow-export-json', HTMLTextAreaElement).value));
  $('workflow-import-file').addEventListener('change', async () => {
    const file = $('workflow-import-file', HTMLInputElement).files?.[0];
    if (file) $('workflow-import-json', HTMLTextAreaElement).value = await file.text();
  });
  $('workflow-import').addEventListener('click', () => send({ type: 'import_workflow', json: $('workflow-import-json', HTMLTextAreaElement).value }));
  $('record-start').addEventListener('click', () => send({ type: 'start_recording' }));
  $('record-stop').addEventListener('click', () => send({ type: 'stop_recording' }));
  $('record-cancel').addEventListener('click', () => send({ type: 'cancel_recording' }));
  $('heals-accept').addEventListener('click', () => send({ type: 'accept_heals' }));
  $('heals-reject').addEventListener('click', () => send({ type: 'reject_heals' }));
}
