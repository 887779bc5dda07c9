// Status lines: the LLM's state (with the rate-limit countdown) and what the task and the
// session cost. The worker decides the state; this only draws it and ticks the countdown.
import { $, text } from './dom.js';

let llm = null;
let timer = null;

function drawLlm() {
  const line = $('llm-status');
  line.hidden = !llm || llm.state === 'unknown';
  line.className = llm?.state ?? '';
  if (!llm) return;
  if (llm.state === 'ready') text(line, `LLM ready · ${llm.model}`);
  else if (llm.state === 'rate_limited') {
    const left = llm.retry_at_ms == null ? null : Math.max(0, Math.ceil((llm.retry_at_ms - Date.now()) / 1000));
    text(line, left == null ? `LLM rate limited: ${llm.message}` : `LLM rate limited · retrying in ${left} s`);
  } else if (llm.state === 'key_invalid') text(line, `API key rejected: ${llm.message}. Fix: ${llm.fix}`);
  else if (llm.state === 'failing') text(line, `LLM problem: ${llm.message}. Fix: ${llm.fix}`);
}

export function renderStatus(state) {
  llm = state.llm;
  drawLlm();
  clearInterval(timer);
  if (llm?.state === 'rate_limited' && llm.retry_at_ms != null) timer = setInterval(drawLlm, 1000);
  const task = state.task;
  const session = state.session_usage_text;
  $('usage').hidden = !task?.usage_text && !session;
  text($('task-usage'), task?.usage_text ? `This task: ${task.usage_text}` : '');
  text($('session-usage'), session ? `Session: ${session}` : '');
  text($('live'), task?.announce ?? '');
}
