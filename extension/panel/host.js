// Host status line: connected, or what is wrong and the exact fix.
import { $, el, text } from './dom.js';

export function renderHost(host) {
  const line = $('host-status');
  line.classList.toggle('missing', host.state === 'missing');
  if (host.state === 'connected') {
    text(line, `Host ${host.version} connected · model ${host.llm.model} at ${host.llm.base_url}`);
  } else if (host.state === 'missing') {
    line.replaceChildren(`${host.message} Fix: `, el('code', { textContent: host.fix }));
  } else {
    text(line, 'Connecting to the Waymark host…');
  }
}
