// Where the last export went, and its prompt for another agent (Claude Code) to copy.
import { $, copyText, text } from './dom.js';

let prompt = '';

export function renderExport(exp) {
  prompt = exp?.state === 'written' ? exp.prompt : '';
  $('copy-prompt').hidden = !prompt;
  if (!exp) return text($('export-status'), '');
  text($('export-status'), exp.state === 'written' ? `Exported to ${exp.path}` : `Export failed: ${exp.message}`);
}

export function initExport() {
  $('copy-prompt').addEventListener('click', () => copyText($('copy-prompt'), prompt));
}
