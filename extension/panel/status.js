// Status lines: the LLM's state per role (with the rate-limit countdown) and what the task and
// the session cost. The worker decides the lines; this only draws them and ticks the countdown.
import { $, el, text } from './dom.js';

let lines = [];
let timer = null;

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

export function renderStatus(state) {
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
