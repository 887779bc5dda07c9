// Sessions view: the current session's title (history on hover), its table of contents, the
// focused turn, the session list, cross-session search and deletion confirmation. It draws the
// state the service worker sends and forwards clicks; every decision is taken in Rust.
import { $, closest, counted, el, text } from './dom.js';
import { exportRequest } from './export.js';

/** @type {{ toc: string | null, list: string | null }} */
const shown = { toc: null, list: null };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** @type {(n: number) => string} */
const twoDigits = (n) => String(n).padStart(2, '0');
// Local date and time, e.g. "22 Nov 2026, 08:30", in the panel's language. Built by hand:
// `toLocaleString` loads the ICU locale data on first use, ~30 ms of a freshly started panel.
/** @type {(ms: number) => string} */
const when = (ms) => {
  const d = new Date(ms);
  return `${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()}, ${twoDigits(d.getHours())}:${twoDigits(d.getMinutes())}`;
};

/** Wires the controls once; `send` posts a request to the service worker.
 * @param {SendToWorker} send */
export function bindSessions(send) {
  $('new-session').addEventListener('click', () => send({ type: 'new_session' }));
  $('export-json').addEventListener('click', () => send(exportRequest('json')));
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send({ type: 'search', query: $('search', HTMLInputElement).value, current_only: $('search-current', HTMLInputElement).checked });
  });
  $('rename').addEventListener('click', () => {
    $('rename-form').hidden = false;
    $('rename-input', HTMLInputElement).value = $('session-title').textContent;
    $('rename-input').focus();
  });
  $('rename-form').addEventListener('submit', (event) => {
    event.preventDefault();
    $('rename-form').hidden = true;
    send({ type: 'rename_session', id: $('session-title').dataset.id ?? '', title: $('rename-input', HTMLInputElement).value });
  });
  $('confirm-yes').addEventListener('click', () => send({ type: 'confirm_delete', id: $('confirm-delete').dataset.id ?? '' }));
  $('confirm-no').addEventListener('click', () => send({ type: 'cancel_delete' }));
  $('sessions').addEventListener('click', (event) => {
    const button = closest(event, 'button[data-action]');
    if (!button) return;
    const { action, session, turn } = button.dataset;
    if (action === 'jump') send({ type: 'jump_to_turn', session_id: session || null, turn: Number(turn) });
    if (action === 'continue') send({ type: 'continue_session', id: session ?? '' });
    if (action === 'delete') send({ type: 'delete_session', id: session ?? '' });
  });
}

// A button carrying its request in data attributes (read by the click handler above).
/**
 * @param {string} label
 * @param {Record<string, string>} data
 * @param {string} [className]
 */
function button(label, data, className = 'link') {
  const node = el('button', { type: 'button', className, textContent: label });
  Object.assign(node.dataset, data);
  return node;
}

/** @type {(label: string, turn: number, session: string | null) => HTMLButtonElement} */
const jumpButton = (label, turn, session) =>
  button(label, { action: 'jump', turn: String(turn), session: session ?? '' });

/** @param {PanelView} state */
export function renderSessions(state) {
  const session = state.session;
  text($('session-title'), session.title);
  $('session-title').dataset.id = session.id;
  $('session-title').title = session.title_history.length
    ? `Earlier titles:\n${session.title_history.map((h) => `${h.title} (turn ${h.turn})`).join('\n')}`
    : '';
  text($('session-meta'), `${counted(session.tasks, 'task')} · started ${when(session.created_ms)}`);
  $('title-history').replaceChildren(...session.title_history.map((h) => el('li', {},
    jumpButton(h.by_user ? `${h.title} (renamed)` : h.title, h.turn, null),
    ` · turn ${h.turn}`)));

  // The TOC and the list can be long: redrawn only when they change, not on every step.
  const tocKey = JSON.stringify([state.toc, state.focus?.turn.turn]);
  $('toc-box').hidden = !state.toc.length;
  if (tocKey !== shown.toc) $('toc').replaceChildren(...state.toc.map((entry) => el('li', {
    className: [entry.success ? 'ok' : 'failed', state.focus?.turn.turn === entry.turn ? 'focused' : ''].join(' '),
  }, jumpButton(`${entry.turn}. ${entry.line}`, entry.turn, null))));
  shown.toc = tocKey;

  renderFocus(state.focus);

  const listKey = JSON.stringify(state.sessions);
  if (listKey !== shown.list) $('session-list').replaceChildren(...state.sessions.map((s) => el('li', { className: s.current ? 'current' : '' },
    button(s.title, { action: 'continue', session: s.id }),
    el('span', { className: 'muted', textContent: ` · ${when(s.updated_ms)} · ${counted(s.tasks, 'task')} ` }),
    button('Delete', { action: 'delete', session: s.id }, 'small'))));
  shown.list = listKey;

  const search = state.search;
  $('search-results').hidden = !search;
  $('search-results').replaceChildren(...(search?.hits ?? []).map((h) => el('li', {},
    jumpButton(`${h.session_title} · turn ${h.turn}`, h.turn, h.session_id),
    el('div', { className: 'snippet', textContent: h.snippet }))));
  text($('search-status'), search ? `${counted(search.hits.length, 'result')} for “${search.query}”` : '');

  const confirm = state.confirm_delete;
  const opening = confirm && $('confirm-delete').hidden;
  $('confirm-delete').hidden = !confirm;
  if (opening) $('confirm-no').focus();
  $('confirm-delete').dataset.id = confirm?.id ?? '';
  text($('confirm-text'), confirm ? `Delete “${confirm.title}” and its ${counted(confirm.tasks, 'task')}? This cannot be undone.` : '');

  $('storage-error').hidden = !state.storage_error;
  text($('storage-error'), state.storage_error);
}

/** @param {TurnWithNeighbours | null} focus */
function renderFocus(focus) {
  $('turn').hidden = !focus;
  if (!focus) return;
  const t = focus.turn;
  $('turn').dataset.turn = String(t.turn);
  text($('turn-task'), `Turn ${t.turn}: ${t.task}`);
  text($('turn-summary'), t.summary);
  text($('turn-answer'), t.answer);
  $('turn-data').replaceChildren(...Object.entries(t.structured_data).map(([k, v]) => el('li', {},
    el('strong', { textContent: `${k}: ` }), v ?? '')));
  $('turn-nav').replaceChildren(
    ...(focus.previous ? [jumpButton(`← ${focus.previous.turn}. ${focus.previous.line}`, focus.previous.turn, null)] : []),
    ...(focus.next ? [jumpButton(`${focus.next.turn}. ${focus.next.line} →`, focus.next.turn, null)] : []));
}
