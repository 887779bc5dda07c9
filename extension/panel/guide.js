// The first-run guide: three steps the worker tracks (host, model, sample task); this draws
// the step it names and forwards the buttons. Skippable; the worker never shows it again.
import { $, el, text } from './dom.js';

/**
 * @param {GuideView | null} guide
 * @param {PanelView} state
 */
export function renderGuide(guide, state) {
  $('guide').hidden = !guide;
  if (!guide) return;
  $('guide').dataset.step = guide.step;
  text($('guide-number'), `Step ${guide.number} of 3`);
  for (const [id, step] of [['guide-host', 'host'], ['guide-model', 'model'], ['guide-sample', 'sample']]) {
    $(id).hidden = guide.step !== step;
  }
  text($('guide-host-state'), guide.host_ready
    ? 'The host is installed and answers. On to the model.'
    : 'The host is not installed yet: run the command above, then press Check again.');
  $('guide-host-state').className = guide.host_ready ? 'ok' : '';
  text($('guide-model-state'), guide.model_line);
  $('guide-model-state').className = guide.model_ready ? 'ok' : '';
  $('guide-error').hidden = !state.guide_error;
  text($('guide-error'), state.guide_error);
  const doctor = state.settings?.doctor;
  const checks = (doctor?.checks ?? []).filter((c) => c.text.startsWith('LLM'));
  $('guide-checks').replaceChildren(...(doctor?.running ? [el('li', { textContent: 'Testing…' })]
    : checks.map((c) => el('li', { className: c.ok ? 'ok' : 'failed', textContent: c.text }))));
  $('guide-back').hidden = guide.number === 1;
  $('guide-next').hidden = guide.number === 3;
  $('guide-next').textContent = (guide.step === 'host' && !guide.host_ready) || (guide.step === 'model' && !guide.model_ready)
    ? 'Skip this step' : 'Next';
}

/** @param {SendToWorker} send */
export function initGuide(send) {
  /** @type {Array<[string, GuideAction]>} */
  const buttons = [['guide-next', 'next'], ['guide-back', 'back'], ['guide-skip', 'skip']];
  for (const [id, action] of buttons) {
    $(id).addEventListener('click', () => send({ type: 'guide', action }));
  }
  $('guide-recheck').addEventListener('click', () => send({ type: 'hello' }));
  $('guide-model').addEventListener('submit', (event) => {
    event.preventDefault();
    send({
      type: 'guide_model',
      form: {
        preset: /** @type {ModelPreset} */ ($('guide-preset', HTMLSelectElement).value),
        api_key: $('guide-key', HTMLInputElement).value,
        base_url: $('guide-base', HTMLInputElement).value,
        model: $('guide-model-name', HTMLInputElement).value,
      },
    });
    $('guide-key', HTMLInputElement).value = '';
  });
  $('guide-try').addEventListener('click', () => send({ type: 'try_sample' }));
}
