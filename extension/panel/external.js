// External agents (Claude Code, Cursor… through `waymark-host mcp`): the Settings switch, who
// is connected, a Disconnect button each, and why the bridge is down. The worker decides all.
import { $, el, text } from './dom.js';

/** @param {ExternalView} external */
export function renderExternal(external) {
  const view = external ?? { enabled: false, clients: [], line: '' };
  $('external-agents', HTMLInputElement).checked = view.enabled;
  const error = $('external-error');
  error.hidden = !view.error;
  text(error, view.error);
  const banner = $('external');
  banner.hidden = view.clients.length === 0;
  text($('external-line'), view.line);
  $('external-clients').replaceChildren(...view.clients.map((c) => el('button', {
    type: 'button',
    className: 'small',
    textContent: view.clients.length === 1 ? 'Disconnect' : `Disconnect ${c.name}`,
    onclick: () => send({ type: 'disconnect_external', client: c.id }),
  })));
}

/** @type {SendToWorker} */
let send = () => {};

/** @param {SendToWorker} sendMessage */
export function initExternal(sendMessage) {
  send = sendMessage;
  $('external-agents').addEventListener('change', () => {
    send({ type: 'set_external_agents', on: $('external-agents', HTMLInputElement).checked });
  });
}
