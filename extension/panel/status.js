// Status: one dot and a few words (ready, working, needs you, problem) that open the details
// on click; the LLM's state per role (with the rate-limit countdown) in those details; what the
// task and the session cost in the task's footer. The worker decides every word.
import { $, el, one, text } from './dom.js';

/** @type {LlmLine[]} */
let lines = [];
/** @type {ReturnType<typeof setInterval> | undefined} */
let timer;

// One line per state the worker reports (its words); a rate limit's line ends with the
// seconds left before the host retries, counted down here.
function drawLlm() {
  const box = $('llm-status');
  box.hidden = !lines.length;
  box.replaceChildren(...lines.map((line) => {
    const left = line.retry_at_ms == null ? null : Math.max(0, Math.ceil((line.retry_at_ms - Date.now()) / 1000));
    return el('span', { className: line.kind, textContent: left == null ? line.text : `${line.text} ${left} s` });
  }));
}

/** @param {PanelView} state */
export function renderStatus(state) {
  const status = state.status ?? { dot: 'working', text: 'Connecting…', details: [] };
  one($('status'), '.dot', HTMLSpanElement).dataset.dot = status.dot;
  text($('status-text'), status.text);
  $('status').title = status.details.join('\n');
  lines = state.llm?.lines ?? [];
  drawLlm();
  clearInterval(timer);
  if (lines.some((line) => line.retry_at_ms != null)) timer = setInterval(drawLlm, 1000);
  const task = state.task;
  const session = state.session_usage?.text;
  const spent = task?.usage?.text;
  $('usage').hidden = !spent && !session;
  text($('task-usage'), spent ? `This task: ${spent}` : '');
  text($('session-usage'), session ? `Session: ${session}` : '');
  text($('live'), task?.announce ?? '');
}

export function initStatus() {
  $('status').addEventListener('click', () => {
    const open = $('status-details').hidden;
    $('status-details').hidden = !open;
    $('status').setAttribute('aria-expanded', String(open));
  });
}
