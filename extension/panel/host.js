// Host status: the line in the status details (connected, or what is wrong and the exact fix),
// and the install box with the command for this system when the host is missing or outdated.
import { $, copyText, el, text } from './dom.js';

let command = '';

/**
 * @param {HostStatus} host
 * @param {InstallCommand | null} install
 */
export function renderHost(host, install) {
  const line = $('host-status');
  const trouble = host.state === 'missing' || host.state === 'outdated';
  line.classList.toggle('missing', trouble);
  if (host.state === 'connected') {
    text(line, `Host ${host.version} connected · model ${host.llm.model} at ${host.llm.base_url}`);
  } else if (host.state === 'missing') {
    line.replaceChildren(`${host.message} Fix: `, el('code', { textContent: host.fix }));
  } else if (host.state === 'outdated') {
    text(line, host.message);
  } else {
    text(line, 'Connecting to the Waymark host…');
  }
  $('install').hidden = !trouble || !install;
  if (!install) return;
  command = install.command;
  text($('install-heading'), host.state === 'outdated' ? 'Update the Waymark host' : 'Install the Waymark host');
  text($('install-how'), install.how);
  $('install-command').hidden = !command;
  $('install-copy').hidden = !command;
  text($('install-command'), command);
}

export function initHost() {
  $('install-copy').addEventListener('click', () => copyText($('install-copy'), command));
}
