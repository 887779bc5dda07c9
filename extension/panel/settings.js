// Settings view: draws the host's settings (never a key: only "key set"), the extension's own
// settings, field errors and the setup check, all from the state the worker sends; Save sends
// the form as it stands and Rust validates it.
import { $, all, el, isField, one, text, valueOf } from './dom.js';

/** @type {string | null} */
let shownHost = null;
/** @type {string | null} */
let shownAgent = null;
let builtRoles = '';

/** @type {(s: string) => string} */
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * @param {HTMLInputElement} node
 * @param {string} describedBy
 */
function keyInput(node, describedBy) {
  node.setAttribute('aria-describedby', describedBy);
  return node;
}

/** @param {LlmRole} role */
function roleFieldset(role) {
  /** @type {(f: string) => string} */
  const id = (f) => `${role}-${f}`;
  /** @type {(f: string, props: Partial<HTMLInputElement>) => HTMLInputElement} */
  const input = (f, props) => el('input', { id: id(f), name: `roles.${role}.${f}`, autocomplete: 'off', spellcheck: false, ...props });
  const provider = el('select', { id: id('provider'), name: `roles.${role}.provider` },
    el('option', { value: 'openai', textContent: 'OpenAI-compatible' }),
    el('option', { value: 'anthropic', textContent: 'Anthropic' }));
  return el('fieldset', { className: 'role' },
    el('legend', { textContent: cap(role) }),
    el('label', { htmlFor: id('provider'), textContent: 'Provider' }), provider,
    el('label', { htmlFor: id('model'), textContent: 'Model' }), input('model', {}),
    el('label', { htmlFor: id('base_url'), textContent: 'Base URL' }), input('base_url', { type: 'url' }),
    el('label', { htmlFor: id('max_tokens'), textContent: 'Reply limit (tokens)' }), input('max_tokens', { inputMode: 'numeric' }),
    el('label', { htmlFor: id('api_key'), textContent: 'API key' }),
    keyInput(input('api_key', { type: 'password', placeholder: 'type a new key to replace it' }), id('key-state')),
    el('p', { id: id('key-state'), className: 'muted key-state' }));
}

// One row per model the roles use: its name and where the price comes from, then the input
// and output prices (each with its own label, named as Rust names its errors).
/**
 * @param {PriceRow} row
 * @param {number} i
 */
function priceRow(row, i) {
  /** @type {(side: 'input' | 'output') => HTMLInputElement} */
  const input = (side) => el('input', {
    id: `price-${i}-${side}`, name: `prices.${row.model}.${side}`, value: row[side],
    inputMode: 'decimal', autocomplete: 'off', spellcheck: false, placeholder: 'unknown',
  });
  /** @type {(side: 'input' | 'output') => HTMLLabelElement} */
  const label = (side) => el('label', { htmlFor: `price-${i}-${side}`, className: 'visually-hidden',
    textContent: `${cap(side)} price of ${row.model}` });
  return el('div', { className: 'price-row' },
    el('div', { className: 'price-model' }, el('span', { textContent: row.model }),
      el('span', { className: 'muted', textContent: row.note })),
    label('input'), input('input'), label('output'), input('output'));
}

/** @param {PriceRow[]} rows */
function renderPrices(rows) {
  const head = el('div', { className: 'price-row price-head', ariaHidden: 'true' },
    el('span', { textContent: 'Model' }), el('span', { textContent: 'Input' }), el('span', { textContent: 'Output' }));
  $('prices').replaceChildren(...(rows.length ? [head, ...rows.map(priceRow)]
    : [el('p', { className: 'muted', textContent: 'No model is configured yet.' })]));
}

/** @param {SettingsView} view */
export function renderSettings(view) {
  const roles = view.roles || [];
  if (roles.join() !== builtRoles) {
    $('roles').replaceChildren(...roles.map(roleFieldset));
    builtRoles = roles.join();
  }
  $('settings-host-error').hidden = !view.host_error;
  text($('settings-host-error'), view.host_error ? `Could not reach the host's settings: ${view.host_error}` : '');
  const host = view.host;
  // Without the host there is nothing to edit there; the error above says why.
  for (const part of all(document, '#settings .needs-host', HTMLElement)) part.hidden = !host;
  const hostKey = JSON.stringify(host);
  // Fields are filled when the host's settings change, not while the user types.
  if (host && hostKey !== shownHost) {
    for (const role of roles) {
      const r = host.roles[role] || host.llm;
      $(`${role}-provider`, HTMLSelectElement).value = r.provider;
      $(`${role}-model`, HTMLInputElement).value = r.model;
      $(`${role}-base_url`, HTMLInputElement).value = r.base_url;
      $(`${role}-api_key`, HTMLInputElement).value = '';
    }
    $('transcripts', HTMLInputElement).checked = host.transcripts.enabled;
    $('export-dir', HTMLInputElement).value = host.export_dir;
    const f = view.fields;
    if (f) {
      for (const limit of f.limits) {
        const field = $(`${limit.role}-max_tokens`, HTMLInputElement);
        field.value = limit.value;
        field.placeholder = limit.placeholder;
      }
      $('retention-days', HTMLInputElement).value = f.retention_days;
      $('read-dirs', HTMLTextAreaElement).value = f.allowed_read_dirs;
      $('max-read-mb', HTMLInputElement).value = f.max_read_mb;
      renderPrices(f.prices);
    }
    const notes = [`Config file: ${host.config_path}`];
    if (host.env_overrides.length) notes.push(`Set by environment variables (they win over this form): ${host.env_overrides.join(', ')}`);
    for (const p of host.problems) notes.push(`Problem: ${p}`);
    text($('settings-host-notes'), notes.join('\n'));
  }
  shownHost = hostKey;
  if (host) {
    for (const role of roles) {
      const r = host.roles[role] || host.llm;
      text($(`${role}-key-state`), r.has_key ? 'key set' : 'no key set');
    }
  }
  const agentKey = JSON.stringify(view.agent);
  if (agentKey !== shownAgent) $('allowed-sites', HTMLTextAreaElement).value = (view.agent?.allowed_sites || []).join('\n');
  shownAgent = agentKey;

  for (const field of document.querySelectorAll('#settings-form [aria-invalid]')) field.removeAttribute('aria-invalid');
  $('settings-errors').replaceChildren(...view.errors.map((e) => {
    const field = document.querySelector(`#settings-form [name="${CSS.escape(e.field)}"]`);
    field?.setAttribute('aria-invalid', 'true');
    const label = (isField(field) ? field.labels?.[0]?.textContent : null) ?? e.field;
    const where = field?.closest('fieldset.role')?.querySelector('legend')?.textContent;
    return el('li', { textContent: `${where ? `${where} · ` : ''}${label}: ${e.message}` });
  }));
  text($('settings-notice'), view.notice);

  const d = view.doctor;
  text($('doctor-status'), !d ? '' : d.running ? 'Checking…' : d.error ? `Could not run the checks: ${d.error}`
    : `${d.checks.filter((c) => c.ok).length} of ${d.checks.length} checks passed`);
  $('check-setup', HTMLButtonElement).disabled = !!d?.running;
  $('doctor-results').replaceChildren(...(d?.checks || []).map((c) => el('li', { className: c.ok ? 'ok' : 'fix' },
    el('span', { className: 'badge', textContent: c.ok ? 'OK' : 'FIX' }), ` ${c.text}`)));
}

/** @returns {SettingsForm} */
function formValue() {
  const roles = [...document.querySelectorAll('#roles fieldset.role')].map((fs) => {
    /** @type {(f: string) => string} */
    const v = (f) => valueOf(fs.querySelector(`[name$=".${f}"]`));
    const role = one(fs, 'select', HTMLSelectElement).id.replace(/-provider$/, '');
    return { role: /** @type {Named<LlmRole>} */ (role), provider: v('provider'), model: v('model'), base_url: v('base_url'), api_key: v('api_key'), max_tokens: v('max_tokens') };
  });
  return {
    roles,
    transcripts: $('transcripts', HTMLInputElement).checked,
    export_dir: $('export-dir', HTMLInputElement).value,
    allowed_sites: $('allowed-sites', HTMLTextAreaElement).value,
    retention_days: $('retention-days', HTMLInputElement).value,
    allowed_read_dirs: $('read-dirs', HTMLTextAreaElement).value,
    max_read_mb: $('max-read-mb', HTMLInputElement).value,
    prices: [...document.querySelectorAll('#prices .price-row:not(.price-head)')].map((row) => ({
      model: one(row, '.price-model span', HTMLSpanElement).textContent,
      input: valueOf(row.querySelector('[name$=".input"]')),
      output: valueOf(row.querySelector('[name$=".output"]')),
    })),
  };
}

/** Opening and closing is view state; opening asks the worker for the host's settings.
 * @param {boolean} open
 * @param {SendToWorker} send */
export function setSettingsOpen(open, send) {
  document.body.classList.toggle('settings-open', open);
  $('settings').hidden = !open;
  $('settings-open').setAttribute('aria-expanded', String(open));
  if (open) {
    send({ type: 'open_settings' });
    $('settings-heading').focus();
  } else {
    $('settings-open').focus();
  }
}

/** @param {SendToWorker} send */
export function initSettings(send) {
  $('settings-open').addEventListener('click', () => setSettingsOpen($('settings').hidden, send));
  $('settings-close').addEventListener('click', () => setSettingsOpen(false, send));
  $('settings-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send({ type: 'save_settings', form: formValue() });
    // Keys go to the host once; the fields never keep them.
    for (const key of all(document, '#roles input[type=password]', HTMLInputElement)) key.value = '';
  });
  $('check-setup').addEventListener('click', () => send({ type: 'check_setup' }));
}
