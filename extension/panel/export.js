// Where the last export went.
import { $, text } from './dom.js';

export function renderExport(exp) {
  if (!exp) return text($('export-status'), '');
  text($('export-status'), exp.state === 'written' ? `Exported to ${exp.path}` : `Export failed: ${exp.message}`);
}
