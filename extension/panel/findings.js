// Findings of the finished task as a table; values the worker marked as web links open in a
// new tab. Text only: nothing is parsed as HTML and no image is loaded.
import { $, el, text } from './dom.js';

export function renderFindings(findings) {
  const rows = findings?.rows ?? [];
  $('findings').hidden = !findings || (!rows.length && !findings.summary);
  if (!findings) return;
  text($('findings-summary'), findings.summary);
  $('findings-table').hidden = !rows.length;
  $('findings-table').tBodies[0].replaceChildren(...rows.map((r) => el('tr', {},
    el('th', { scope: 'row', textContent: r.key }),
    el('td', {}, r.link
      ? el('a', { href: r.link, target: '_blank', rel: 'noopener noreferrer', textContent: r.value })
      : r.value))));
}
