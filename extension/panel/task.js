// The current task: prompt, progress, step timeline and answer.
import { $, el, text } from './dom.js';

export function renderTask(task) {
  $('task').hidden = !task;
  if (!task) return;
  text($('task-prompt'), task.prompt);
  const where = task.page ? ` · ${task.page}` : '';
  const engine = task.engine ? ` · read with ${task.engine}` : '';
  text($('task-progress'), task.running
    ? `Working… step ${task.step}${where}${engine}`
    : `Finished in ${task.step} step(s), ${((task.elapsed_ms ?? 0) / 1000).toFixed(1)} s${where}${engine}`);
  $('steps').replaceChildren(...task.steps.map((s) => el('li', {
    textContent: s.ok ? s.text : `${s.text} — failed: ${s.error}`,
    className: s.ok ? 'ok' : 'failed',
  })));
  const answer = $('answer');
  answer.hidden = task.answer == null;
  answer.className = task.success ? 'ok' : 'failed';
  text(answer, task.answer);
  $('send').disabled = task.running;
}
