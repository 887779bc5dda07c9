// Side panel view: sends the user's input to the service worker and draws each state it gets.
// It holds no agent logic; all state comes from the Rust core in the worker.
const $ = (id) => document.getElementById(id);
const port = chrome.runtime.connect({ name: 'panel' });

function text(el, value) { el.textContent = value ?? ''; }

function renderHost(host) {
  const el = $('host-status');
  el.classList.toggle('missing', host.state === 'missing');
  if (host.state === 'connected') {
    text(el, `Host ${host.version} connected · model ${host.llm.model} at ${host.llm.base_url}`);
  } else if (host.state === 'missing') {
    el.replaceChildren(`${host.message} Fix: `, Object.assign(document.createElement('code'), { textContent: host.fix }));
  } else {
    text(el, 'Connecting to the Waymark host…');
  }
}

function renderTask(task) {
  $('task').hidden = !task;
  if (!task) return;
  text($('task-prompt'), task.prompt);
  const where = task.page ? ` · ${task.page}` : '';
  const engine = task.engine ? ` · read with ${task.engine}` : '';
  text($('task-progress'), task.running
    ? `Working… step ${task.step}${where}${engine}`
    : `Finished in ${task.step} step(s), ${((task.elapsed_ms ?? 0) / 1000).toFixed(1)} s${where}${engine}`);
  $('steps').replaceChildren(...task.steps.map((s) => {
    const li = document.createElement('li');
    li.textContent = s.ok ? s.text : `${s.text} — failed: ${s.error}`;
    li.className = s.ok ? 'ok' : 'failed';
    return li;
  }));
  const answer = $('answer');
  answer.hidden = task.answer == null;
  answer.className = task.success ? 'ok' : 'failed';
  text(answer, task.answer);
  $('send').disabled = task.running;
}

function renderExport(exp) {
  if (!exp) return text($('export-status'), '');
  text($('export-status'), exp.state === 'written' ? `Exported to ${exp.path}` : `Export failed: ${exp.message}`);
}

port.onMessage.addListener((state) => {
  renderHost(state.host);
  renderTask(state.task);
  renderExport(state.export);
  document.body.dataset.turns = String(state.turns);
});

$('prompt-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const prompt = $('prompt').value;
  port.postMessage({ type: 'start_task', prompt });
  $('prompt').value = '';
});
$('prompt').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('prompt-form').requestSubmit();
  }
});
$('export').addEventListener('click', () => port.postMessage({ type: 'export' }));
port.postMessage({ type: 'hello' });
