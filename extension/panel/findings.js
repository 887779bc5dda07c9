// Findings of the finished task as a table; values the worker marked as web links open in a
// new tab. Text only: nothing is parsed as HTML and no image is loaded. Table findings
// (`collect`) are drawn from the worker's view model: captions, cells and links are decided
// in Rust; "Save CSV" asks the worker to write that table through the host.
import { $, closest, el, text } from './dom.js';
import { exportValues } from './export.js';

let turn = 0;

/** @param {FindingsView | null} findings */
export function renderFindings(findings) {
  const rows = findings?.rows ?? [];
  const tables = findings?.tables ?? [];
  $('findings').hidden = !findings || (!rows.length && !findings.summary && !tables.length);
  if (!findings) return;
  turn = findings.turn;
  text($('findings-summary'), findings.summary);
  $('findings-table').hidden = !rows.length;
  $('findings-table', HTMLTableElement).tBodies[0].replaceChildren(...rows.map((r) => el('tr', {},
    el('th', { scope: 'row', textContent: r.key }),
    el('td', {}, cellContent(r.value, r.link)))));
  $('findings-tables').replaceChildren(...tables.map(renderTable));
}

/**
 * @param {string} value
 * @param {string | null} [link]
 */
function cellContent(value, link) {
  return link
    ? el('a', { href: link, target: '_blank', rel: 'noopener noreferrer', textContent: value })
    : value;
}

/** @param {TableView} t */
function renderTable(t) {
  const caption = el('caption', { textContent: t.caption });
  const head = el('thead', {}, el('tr', {}, ...t.columns.map((c) => el('th', { scope: 'col', textContent: c }))));
  const body = el('tbody', {}, ...t.rows.map((row) => el('tr', {},
    ...row.map((c) => el('td', {}, cellContent(c.text, c.link))))));
  const save = el('button', { type: 'button', className: 'small', textContent: 'Save CSV' });
  save.dataset.table = String(t.index);
  const more = el('p', { className: 'muted', textContent: t.more ? `${t.more} more rows in the CSV` : '' });
  more.hidden = !t.more;
  return el('div', { className: 'table-finding' },
    el('div', { className: 'table-scroll' }, el('table', { className: 'collected' }, caption, head, body)),
    more, save);
}

/** @param {SendToWorker} send */
export function initFindings(send) {
  $('findings-tables').addEventListener('click', (e) => {
    const index = closest(e, 'button[data-table]')?.dataset.table;
    if (index === undefined) return;
    send({ type: 'export_table', turn, index: Number(index), values: exportValues() });
  });
}
