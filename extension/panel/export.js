// Where the last export went, and its prompt for another agent (Claude Code) to copy.
import { $, copyText, text } from './dom.js';

let prompt = '';

/** @param {ExportView | null} exp */
export function renderExport(exp) {
  prompt = exp?.state === 'written' ? exp.prompt : '';
  $('copy-prompt').hidden = !prompt;
  if (!exp) return text($('export-status'), '');
  text($('export-status'), exp.state === 'written' ? `Exported to ${exp.path}` : `Export failed: ${exp.message}`);
}

// What the user chose for tracked values in exports (redacted unless ticked).
/** @returns {TrackedValues} */
export function exportValues() {
  return $('export-values', HTMLInputElement).checked ? 'include' : 'redact';
}

/**
 * @param {ExportFormat} format
 * @returns {PanelRequest}
 */
export function exportRequest(format) {
  return { type: 'export_session', format, values: exportValues() };
}

export function initExport() {
  $('copy-prompt').addEventListener('click', () => copyText($('copy-prompt'), prompt));
}
