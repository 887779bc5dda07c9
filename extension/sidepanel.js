// Side panel entry: connects to the service worker, draws each state it sends, and forwards
// the user's input. No agent logic lives here; all state comes from the Rust core.
import { $ } from './panel/dom.js';
import { initHost, renderHost } from './panel/host.js';
import { renderTask, initTaskControls, taskOptions } from './panel/task.js';
import { exportRequest, initExport, renderExport } from './panel/export.js';
import { renderIntervention, initInterventions } from './panel/interventions.js';
import { bindSessions, renderSessions } from './panel/sessions.js';
import { initSettings, renderSettings, setSettingsOpen } from './panel/settings.js';
import { initStatus, renderStatus } from './panel/status.js';
import { initGuide, renderGuide } from './panel/guide.js';
import { atEnd, initThread, keepEnd, renderThread, setDrawer } from './panel/thread.js';
import { initFindings, renderFindings } from './panel/findings.js';
import { initPrompt, renderPrompt } from './panel/prompt.js';
import { initExternal, renderExternal } from './panel/external.js';
import { initWorkflows, renderWorkflows, setWorkflowsOpen } from './panel/workflows.js';
import { initRoutines, renderRoutines } from './panel/routines.js';
import { initCrash, renderCrash } from './panel/crash.js';

/** @type {chrome.runtime.Port | null} */
let port = null;
// Input given before the port is open (the first few ms) waits for it.
/** @type {PanelRequest[]} */
const queued = [];
/** @type {SendToWorker} */
const send = (msg) => {
  if (port) port.postMessage(msg);
  else queued.push(msg);
};

let live = false;

/** Draws one state from the worker.
 * @param {PanelView} state */
function draw(state) {
  const arrived = performance.now();
  const wasAtEnd = atEnd();
  renderHost(state.host, state.install);
  $('panel-error').hidden = !state.panel_error;
  $('panel-error').textContent = state.panel_error ?? '';
  renderCrash(state.crash);
  renderTask(state.task);
  renderIntervention(state.task, state.interventions);
  renderExport(state.export);
  document.body.dataset.turns = String(state.turns);
  renderSessions(state);
  renderSettings(state.settings);
  renderStatus(state);
  renderFindings(state.findings);
  renderPrompt(state);
  renderGuide(state.guide, state);
  renderThread(state);
  keepEnd(wasAtEnd);
  renderExternal(state.external);
  renderWorkflows(state);
  renderRoutines(state);
  // When the panel first became usable with its session (read by `cargo xtask bench panel`).
  if (!document.body.dataset.readyMs && state.session.id) {
    document.body.dataset.stateMs = String(arrived);
    document.body.dataset.readyMs = String(performance.now());
  }
}

// When Chrome stops the service worker the port closes; reconnecting wakes it again (and it
// resumes a task it left unfinished).
function connect() {
  const opened = chrome.runtime.connect({ name: 'panel' });
  port = opened;
  opened.onMessage.addListener((/** @type {PanelView} */ state) => {
    if (!live) document.body.dataset.liveMs = String(performance.now());
    live = true;
    draw(state);
  });
  opened.onDisconnect.addListener(() => { port = null; setTimeout(connect, 200); });
  opened.postMessage({ type: 'hello' });
  queued.splice(0).forEach((msg) => opened.postMessage(msg));
}
// First the session as the worker last wrote it (no task, no dialog), then the live state.
// Connecting wakes a stopped worker, whose start (wasm, session load) would compete with this
// first draw for the CPU, so it waits until the snapshot is drawn (a few ms). The in-memory copy
// is the quicker read; the stored one is there after a browser restart.
/** @param {'session' | 'local'} area
 * @returns {Promise<PanelView | undefined>} */
const snapshotIn = (area) => chrome.storage[area].get('panel_snapshot')
  .then((items) => /** @type {PanelView | undefined} */ (items.panel_snapshot));
snapshotIn('session').then((snapshot) => snapshot ?? snapshotIn('local')).then((snapshot) => {
  if (!live && snapshot) draw(snapshot);
}).catch(() => {}).finally(connect);

$('prompt-form').addEventListener('submit', (event) => {
  event.preventDefault();
  send({ type: 'start_task', prompt: $('prompt', HTMLTextAreaElement).value, ...taskOptions() });
  $('prompt', HTMLTextAreaElement).value = '';
});
$('export').addEventListener('click', () => send(exportRequest('md')));
initPrompt(send, () => $('prompt-form', HTMLFormElement).requestSubmit());
initSettings(send);
initExternal(send);
initWorkflows(send);
initRoutines(send);
initCrash(send);
initFindings(send);

// Keyboard: Ctrl/Cmd+E exports; Escape closes the settings, or else stops the running task
// (the worker ignores it when nothing runs).
document.addEventListener('keydown', (event) => {
  if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'e') {
    event.preventDefault();
    send(exportRequest('md'));
  } else if (event.key === 'Escape' && !event.isComposing) {
    if (!$('settings').hidden) setSettingsOpen(false, send);
    else if (!$('workflows').hidden) setWorkflowsOpen(false);
    else if (document.body.classList.contains('drawer-open')) setDrawer(false);
    else if (!$('confirm-delete').hidden) send({ type: 'cancel_delete' });
    else send({ type: 'stop' });
  }
});
initTaskControls(send);
initHost();
initStatus();
initGuide(send);
initThread(send);
initExport();
initInterventions(send);
bindSessions(send);
