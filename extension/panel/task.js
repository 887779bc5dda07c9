// The current task: prompt, progress, controls, plan, step timeline, notes and result.
import { $, closest, copyText, el, text } from './dom.js';

let output = '';
// The steps unfold while the task runs (and in verbose mode), and fold once it ends; a user's
// own toggle stands until the task's state changes.
/** @type {string | null} */
let foldedFor = null;

/** @param {TaskView | null} task */
export function renderTask(task) {
  $('task').hidden = !task;
  $('empty').hidden = !!task;
  $('copy-json').hidden = !(task && !task.running && task.mode === 'json' && task.output);
  if (!task) return;
  output = task.output ?? '';
  $('task').dataset.mode = task.mode;
  $('task').dataset.running = String(task.running);
  text($('task-prompt'), task.prompt);
  const where = task.page ? ` · ${task.page}` : '';
  const engine = task.engine ? ` · read with ${task.engine}` : '';
  const c = task.controls || {};
  const state = c.card ? 'Waiting for you'
    : c.taken_over ? (c.waiting ? 'You have control' : 'Handing over after this action…')
    : c.paused ? (c.waiting ? 'Paused' : 'Pausing after this action…')
    : c.stopping ? 'Stopping after this action…' : 'Working…';
  const from = task.workflow ? ` · workflow “${task.workflow}”` : '';
  text($('task-progress'), task.running
    ? `${state} · step ${task.step}${from}${where}${engine}`
    : `${task.heading}${from}${where}${engine}`);
  $('task-controls').hidden = !task.running;
  const held = c.paused || c.taken_over;
  $('pause').hidden = held;
  $('resume').hidden = !held;
  $('take-over', HTMLButtonElement).disabled = !!c.taken_over;
  $('plan').hidden = !task.plan?.length;
  $('plan').replaceChildren(...(task.plan || []).map((p) => el('li', { textContent: p })));
  const fold = `${task.prompt}|${task.running}|${task.mode}`;
  if (fold !== foldedFor) {
    foldedFor = fold;
    $('steps-box', HTMLDetailsElement).open = task.running || task.mode === 'verbose';
  }
  $('steps-box').hidden = !task.steps.length;
  text($('steps-summary'), `${task.steps.length} step${task.steps.length === 1 ? '' : 's'}`);
  $('steps').replaceChildren(...task.steps.map((s) => el('li', {
    textContent: s.ok ? s.text : `${s.text} — failed: ${s.error}`,
    className: s.ok ? 'ok' : 'failed',
  })));
  // The model's streaming words, as plain text; Rust keeps and clears them.
  $('live-text').hidden = !task.live_text;
  text($('live-text'), task.live_text || '');
  $('notes').replaceChildren(...(task.notes || []).map((n) => el('li', { textContent: n })));
  const answer = $('answer');
  answer.hidden = task.answer == null;
  answer.className = task.success ? 'ok' : 'failed';
  const parts = task.output_parts || [];
  if (!parts.length) {
    text(answer, task.output ?? task.answer);
    return;
  }
  // Words as text; a secret's handle as a button that asks the worker for its value.
  answer.replaceChildren(...parts.map((p) => {
    if (p.kind !== 'secret') return document.createTextNode(p.text);
    const chip = el('button', {
      type: 'button',
      className: 'secret-handle',
      textContent: p.value ?? p.handle,
      title: p.value ? p.handle : 'Show the real value (only you see it)',
    });
    chip.dataset.id = String(p.id);
    return chip;
  }));
}

// Buttons forward to the service worker; what they mean is decided there.
/** @param {SendToWorker} send */
export function initTaskControls(send) {
  /** @type {Array<[string, 'pause' | 'resume' | 'step' | 'take_over' | 'stop']>} */
  const controls = [['pause', 'pause'], ['resume', 'resume'], ['step', 'step'],
    ['take-over', 'take_over'], ['stop', 'stop']];
  for (const [id, type] of controls) {
    $(id).addEventListener('click', () => send({ type }));
  }
  $('copy-json').addEventListener('click', () => copyText($('copy-json'), output));
  $('answer').addEventListener('click', (e) => {
    const chip = closest(e, '.secret-handle');
    if (chip) send({ type: 'reveal_secret', id: Number(chip.dataset.id) });
  });
}

// Options the user set for the next task.
/** @returns {{ mode: OutputMode, step_mode: boolean }} */
export function taskOptions() {
  return { mode: /** @type {OutputMode} */ ($('mode', HTMLSelectElement).value), step_mode: $('step-mode', HTMLInputElement).checked };
}
