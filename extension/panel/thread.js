// The session as a conversation: earlier tasks (the worker picks which) as a thread, each a
// button that unfolds that turn in place; the sessions drawer; the composer's Stop button.
import { $, closest, el } from './dom.js';

/** @type {string | null} */
let shownKey = null;

// Whether the conversation shows its end: new content then keeps it in view (a chat's way),
// while a user who scrolled up to read stays where they are.
export function atEnd() {
  const c = $('conversation');
  return c.scrollHeight - c.scrollTop - c.clientHeight < 40;
}

/** @param {boolean} wasAtEnd */
export function keepEnd(wasAtEnd) {
  const c = $('conversation');
  if (wasAtEnd) c.scrollTop = c.scrollHeight;
}

/** @param {PanelView} state */
export function renderThread(state) {
  const thread = state.thread ?? [];
  const focused = state.focus?.turn.turn;
  const key = JSON.stringify([thread, focused]);
  if (key !== shownKey) {
    shownKey = key;
    $('thread').replaceChildren(...thread.map((entry) => {
      const open = focused === entry.turn;
      const button = el('button', { type: 'button', className: 'link', textContent: entry.line || `Task ${entry.turn}` });
      button.dataset.action = 'jump';
      button.dataset.turn = String(entry.turn);
      button.setAttribute('aria-expanded', String(open));
      return el('li', { className: `turn-item ${entry.success ? 'ok' : 'failed'}` }, button);
    }));
  }
  // The unfolded turn sits under its line in the thread (or in the drawer for another session's).
  const item = [...$('thread').children].find((li) => {
    const first = li.firstChild;
    return first instanceof HTMLElement && first.dataset.turn === String(focused);
  });
  const turn = $('turn');
  if (item && turn.parentElement !== item) item.append(turn);
  else if (!item && turn.parentElement !== $('sessions')) $('search-form').before(turn);
  const running = !!state.task?.running;
  $('composer-stop').hidden = !running;
  $('send').hidden = running;
  $('empty').hidden = !!state.task || thread.length > 0 || !!state.guide;
}

/** @param {SendToWorker} send */
export function initThread(send) {
  $('thread').addEventListener('click', (event) => {
    const button = closest(event, 'button[data-action=jump]');
    if (button) send({ type: 'jump_to_turn', session_id: button.dataset.session || null, turn: Number(button.dataset.turn) });
  });
  $('composer-stop').addEventListener('click', () => send({ type: 'stop' }));
  $('more-toggle').addEventListener('click', () => {
    const more = $('composer-more');
    more.hidden = !more.hidden;
    $('more-toggle').setAttribute('aria-expanded', String(!more.hidden));
  });
  $('drawer-open').addEventListener('click', () => setDrawer(!document.body.classList.contains('drawer-open')));
  // A jump from the drawer shows the turn in the conversation: the drawer closes.
  $('toc').addEventListener('click', (event) => { if (closest(event, 'button')) setDrawer(false); });
}

/** @param {boolean} open */
export function setDrawer(open) {
  document.body.classList.toggle('drawer-open', open);
  $('drawer-open').setAttribute('aria-expanded', String(open));
}
