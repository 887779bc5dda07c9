// Intervention cards (the user answers here), their settings, and the attention sound.
import { $, all, el, text } from './dom.js';
import { playChime } from '../chime.js';

/** @type {number | null} */
let lastChime = null;
/** @type {string | null} */
let shownCard = null;

/**
 * @param {TaskView | null} task
 * @param {InterventionSettings} settings
 */
export function renderIntervention(task, settings) {
  const card = task?.running ? task.controls?.card : null;
  $('intervention').hidden = !card;
  if (card) {
    const key = JSON.stringify(card);
    if (key !== shownCard) $('intervention-answer', HTMLTextAreaElement).value = '';
    shownCard = key;
    // Confirmation cards are answered with Approve or Deny; the others with Continue.
    const confirm = card.kind === 'confirm';
    $('intervention').dataset.kind = card.kind;
    $('intervention-approve').hidden = !confirm;
    $('intervention-deny').hidden = !confirm;
    // Offered only where the policy put the button's words on the card.
    $('intervention-similar').hidden = !card.allow_similar;
    text($('intervention-similar'), card.allow_similar || '');
    $('intervention-send').hidden = confirm;
    text($('intervention-answer-label'), confirm ? 'Note for Waymark (optional)' : 'Your answer (empty = continue)');
    text($('intervention-title'), card.title);
    text($('intervention-message'), card.message);
    $('intervention-questions').replaceChildren(...(card.questions || []).map((q) => el('li', { textContent: q })));
  } else {
    shownCard = null;
  }
  for (const box of all(document, '[data-setting]', HTMLInputElement)) {
    const key = /** @type {keyof InterventionSettings | undefined} */ (box.dataset.setting);
    box.checked = !!key && settings[key];
  }
  const chime = task?.chime ?? 0;
  if (lastChime !== null && chime > lastChime) signal();
  lastChime = chime;
}

/** @param {SendToWorker} send */
export function initInterventions(send) {
  const row = $('intervention-send').parentElement;
  if (!row) throw new Error('#intervention-send is not in the panel');
  const approve = el('button', { id: 'intervention-approve', type: 'button', textContent: 'Approve', hidden: true });
  const deny = el('button', { id: 'intervention-deny', type: 'button', textContent: 'Deny', hidden: true });
  const similar = el('button', { id: 'intervention-similar', type: 'button', textContent: 'Allow this kind of action on this site', hidden: true });
  row.prepend(approve, similar, deny);
  approve.addEventListener('click', () => {
    send({ type: 'answer_intervention', text: $('intervention-answer', HTMLTextAreaElement).value, stop: false, approve: true });
  });
  similar.addEventListener('click', () => {
    send({ type: 'answer_intervention', text: $('intervention-answer', HTMLTextAreaElement).value, stop: false, approve: true, allow_similar: true });
  });
  deny.addEventListener('click', () => {
    send({ type: 'answer_intervention', text: $('intervention-answer', HTMLTextAreaElement).value, stop: false, approve: false });
  });
  $('intervention-send').addEventListener('click', () => {
    send({ type: 'answer_intervention', text: $('intervention-answer', HTMLTextAreaElement).value, stop: false });
  });
  $('intervention-stop').addEventListener('click', () => {
    send({ type: 'answer_intervention', text: '', stop: true });
  });
  for (const box of all(document, '[data-setting]', HTMLInputElement)) {
    box.addEventListener('change', () => {
      const settings = /** @type {InterventionSettings} */ ({});
      for (const b of all(document, '[data-setting]', HTMLInputElement)) {
        const key = /** @type {keyof InterventionSettings | undefined} */ (b.dataset.setting);
        if (key) settings[key] = b.checked;
      }
      send({ type: 'set_intervention_settings', settings });
    });
  }
}

// The worker decides when (it counts `chime` up); the count is what tests read.
function signal() {
  document.body.dataset.chimes = String(Number(document.body.dataset.chimes || 0) + 1);
  playChime();
}
