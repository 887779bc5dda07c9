// Side panel entry: connects to the service worker, draws each state it sends, and forwards
// the user's input. No agent logic lives here; all state comes from the Rust core.
import { $ } from './panel/dom.js';
import { renderHost } from './panel/host.js';
import { renderTask } from './panel/task.js';
import { renderExport } from './panel/export.js';
import { bindSessions, renderSessions } from './panel/sessions.js';

const port = chrome.runtime.connect({ name: 'panel' });

port.onMessage.addListener((state) => {
  renderHost(state.host);
  renderTask(state.task);
  renderExport(state.export);
  document.body.dataset.turns = String(state.turns);
  renderSessions(state);
});

$('prompt-form').addEventListener('submit', (event) => {
  event.preventDefault();
  port.postMessage({ type: 'start_task', prompt: $('prompt').value });
  $('prompt').value = '';
});
$('prompt').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('prompt-form').requestSubmit();
  }
});
$('export').addEventListener('click', () => port.postMessage({ type: 'export' }));
bindSessions((msg) => port.postMessage(msg));
port.postMessage({ type: 'hello' });
