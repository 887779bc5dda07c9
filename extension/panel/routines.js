// Routines view: the schedule form of a saved workflow, and the routines with their last runs.
// It draws what the service worker sends and forwards what the user did; whether a form makes
// a routine, when it runs and what a run is worth telling are decided in Rust.
import { $, all, closest, el, text, valueOf } from './dom.js';

/** @type {string | null} */
let shownList = null;

/** @type {Array<[Every, string]>} */
const EVERY = [['day', 'Every day'], ['weekday', 'On weekdays'], ['week', 'Every week on'], ['hour', 'Every hour']];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** @type {Array<[NotifyChoice, string]>} */
const NOTIFY = [
  ['changes', 'when a finding changes'], ['below', 'when a finding drops below'],
  ['above', 'when a finding rises above'], ['every_run', 'after every run'],
];

/**
 * @param {string} id
 * @param {string} label
 * @param {Array<[string, string]>} options
 * @param {string} value
 */
function select(id, label, options, value) {
  return [
    el('label', { htmlFor: id, textContent: label }),
    el('select', { id }, ...options.map(([v, t]) => el('option', { value: v, textContent: t, selected: v === value }))),
  ];
}

/** The schedule fields, ids prefixed with `p`.
 * @param {string} p */
function scheduleFields(p) {
  return [
    ...select(`${p}-every`, 'Runs', EVERY, 'day'),
    ...select(`${p}-day`, 'Day', DAYS.map((d) => [d, d.charAt(0).toUpperCase() + d.slice(1)]), 'monday'),
    el('label', { htmlFor: `${p}-at`, textContent: 'At' }),
    el('input', { id: `${p}-at`, type: 'time', value: '08:00', required: true }),
    ...select(`${p}-notify`, 'Tell me', NOTIFY, 'changes'),
    el('label', { htmlFor: `${p}-key`, textContent: 'Finding (for a limit)' }),
    el('input', { id: `${p}-key`, autocomplete: 'off', placeholder: 'Price' }),
    el('label', { htmlFor: `${p}-limit`, textContent: 'Limit' }),
    el('input', { id: `${p}-limit`, autocomplete: 'off', inputMode: 'decimal', placeholder: '40' }),
    ...select(`${p}-missed`, 'If the browser was closed at that time', [['run_once', 'run once when it starts'], ['skip', 'skip to the next time']], 'run_once'),
    ...select(`${p}-card`, 'If a step needs your approval', [['wait', 'wait for me (with a notification)'], ['stop', 'stop the run']], 'wait'),
  ];
}

/** The schedule form of one workflow (in its list item; hidden until "Schedule…").
 * @param {WorkflowItem} item */
export function scheduleForm(item) {
  const form = el('form', { className: 'routine-form', hidden: true },
    ...scheduleFields(`routine-${item.id}`),
    el('div', { className: 'row' }, el('button', { type: 'submit', textContent: `Schedule “${item.name}”` })));
  form.dataset.id = item.id;
  return form;
}

// The schedule form of a task in words (under the routines).
function taskForm() {
  return el('form', { id: 'routine-task-form', className: 'routine-form' },
    el('label', { htmlFor: 'routine-task-prompt', textContent: 'Task' }),
    el('textarea', { id: 'routine-task-prompt', rows: 2, placeholder: 'Read the price of the teapot' }),
    el('label', { htmlFor: 'routine-task-url', textContent: 'Start page' }),
    el('input', { id: 'routine-task-url', type: 'url', autocomplete: 'off', placeholder: 'https://…' }),
    ...scheduleFields('routine-task'),
    el('div', { className: 'row' }, el('button', { type: 'submit', textContent: 'Schedule the task' })));
}

/** The schedule fields' values (prefix `p`).
 * @param {string} p
 * @returns {Omit<RoutineForm, 'job' | 'start_url'>} */
function scheduleOf(p) {
  /** @type {(name: string) => string} */
  const value = (name) => valueOf(document.getElementById(`${p}-${name}`));
  return /** @type {Omit<RoutineForm, 'job' | 'start_url'>} */ ({
    every: value('every'), at: value('at'), day: value('day') || null, notify: value('notify'),
    key: value('key'), limit: value('limit'), missed: value('missed'), on_card: value('card'),
  });
}

/**
 * @param {HTMLFormElement} form
 * @returns {RoutineForm}
 */
function formOf(form) {
  const id = form.dataset.id ?? '';
  const item = form.closest('li');
  if (!item) throw new Error('the schedule form is not in its workflow item');
  const values = Object.fromEntries(all(item, '.run-form input', HTMLInputElement)
    .filter((i) => i.type !== 'password').map((i) => [i.name, i.value]));
  return { job: { kind: 'workflow', id, values }, start_url: '', ...scheduleOf(`routine-${id}`) };
}

/**
 * @param {string} label
 * @param {string} action
 * @param {string} id
 */
function button(label, action, id) {
  const node = el('button', { type: 'button', className: 'small', textContent: label });
  Object.assign(node.dataset, { action, id });
  return node;
}

/** @param {RoutineItem} r */
function routineItem(r) {
  const next = r.paused ? 'paused' : `next run ${new Date(r.next_ms).toLocaleString()}`;
  const li = el('li', {},
    el('div', { className: 'workflow-name', textContent: r.name }),
    el('div', { className: 'muted', textContent: `${r.plan} · ${next}` }),
    el('ul', { className: 'routine-runs', ariaLabel: `Last runs of ${r.name}` },
      ...r.runs.map((line) => el('li', { textContent: line }))),
    el('div', { className: 'row' },
      button('Run now', 'run', r.id),
      button(r.paused ? 'Resume' : 'Pause', r.paused ? 'resume' : 'pause', r.id),
      button('Delete', 'delete', r.id)));
  li.dataset.id = r.id;
  return li;
}

/** @param {PanelView} state */
export function renderRoutines(state) {
  const view = state.routines;
  const list = view.list;
  const key = JSON.stringify(list);
  if (key !== shownList) {
    shownList = key;
    $('routine-list').replaceChildren(...list.map(routineItem));
  }
  $('routines-empty').hidden = list.length > 0;
  text($('routines-notice'), view.notice ?? '');
  $('routines-error').hidden = !view.error;
  text($('routines-error'), view.error);
}

/** @param {SendToWorker} send */
export function initRoutines(send) {
  const details = el('details', { id: 'routine-task-box' }, el('summary', { textContent: 'Schedule a task in words…' }), taskForm());
  $('routines').append(details);
  $('routine-task-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send({
      type: 'save_routine',
      form: {
        job: { kind: 'task', prompt: $('routine-task-prompt', HTMLTextAreaElement).value },
        start_url: $('routine-task-url', HTMLInputElement).value,
        ...scheduleOf('routine-task'),
      },
    });
  });
  $('workflow-list').addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('routine-form')) return;
    event.preventDefault();
    send({ type: 'save_routine', form: formOf(form) });
    form.hidden = true;
  });
  $('routine-list').addEventListener('click', (event) => {
    const b = closest(event, 'button[data-action]');
    if (!b) return;
    const { action, id = '' } = b.dataset;
    if (action === 'run') send({ type: 'run_routine', id });
    if (action === 'pause' || action === 'resume') send({ type: 'pause_routine', id, paused: action === 'pause' });
    if (action === 'delete') send({ type: 'delete_routine', id });
  });
}
