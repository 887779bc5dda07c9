// Side panel entry: connects to the service worker, draws each state it sends, and forwards
// the user's input. No agent logic lives here; all state comes from the Rust core.
import { $ } from './panel/dom.js';
import { renderHost } from './panel/host.js';
import { renderTask, initTaskControls, taskOptions } from './panel/task.js';
import { renderExport } from './panel/export.js';
import { renderIntervention, initInterventions } from './panel/interventions.js';
import { bindSessions, renderSessions } from './panel/sessions.js';

let port;
const send = (msg) => port.postMessage(msg);

// When Chrome stops the service worker the port closes; reconnecting wakes it again (and it
// resumes a task it left unfinished).
function connect() {
  port = chrome.runtime.connect({ name: 'panel' });
  port.onMessage.addListener((state) => {
    renderHost(state.host);
    renderTask(state.task);
    renderIntervention(state.task, state.interventions);
    renderExport(state.export);
    document.body.dataset.turns = String(state.turns);
    renderSessions(state);
  });
  port.onDisconnect.addListener(() => setTimeout(connect, 200));
  port.postMessage({ type: 'hello' });
}
connect();

$('prompt-form').addEventListener('submit', (event) => {
  event.preventDefault();
  port.postMessage({ type: 'start_task', prompt: $('prompt').value, ...taskOptions() });
  $('prompt').value = '';
});
$('prompt').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('prompt-form').requestSubmit();
  }
});
$('export').addEventListener('click', () => port.postMessage({ type: 'export' }));
initTaskControls(send);
initInterventions(send);
bindSessions(send);
