// Service worker glue: load the Rust core, forward Chrome's events to it. No decisions here.
//
// A Rust panic traps the wasm (`panic = "abort"`) and leaves its instance unusable. The glue
// notices (the panic hook calls `waymarkPanicked` first; any call that throws a
// `WebAssembly.RuntimeError` or an uncaught one does too), starts a fresh instance, hands it
// what the crashed one said (`sw_recover`: Rust decides what becomes of the task and what the
// user is told) and introduces the open side panels to it again.
import init, {
  __wbg_reset_state,
  sw_start,
  sw_recover,
  sw_panel_connected,
  sw_panel_message,
  sw_panel_disconnected,
  sw_request_error,
  sw_request_started,
  sw_request_completed,
  sw_tab_removed,
  sw_alarm,
  sw_content_message,
  sw_debugger_event,
  sw_debugger_detached,
} from './pkg/waymark_worker.js';

let ready = init().then(() => sw_start());
// Every port that connected and is still open (Rust keeps only its own panel's).
const ports = new Set();
// What the panic hook said, until a fresh instance is told.
/** @type {{ message: string, location: string | null } | null} */
let crash = null;
let restarting = false;
// Crashes in a row (each within a minute of the last restart) wait longer before the next.
let lastRestart = 0;
let pause = 0;

globalThis.waymarkPanicked = (/** @type {unknown} */ message, /** @type {unknown} */ location) => {
  crash ??= { message: String(message), location: location == null ? null : String(location) };
  // Still inside the crashing wasm: the restart runs once it has unwound.
  setTimeout(restart, 0);
};

/** Whether `err` is a trap of the wasm (a fresh instance is then on its way).
 * @param {unknown} err */
function trapped(err) {
  if (!(err instanceof WebAssembly.RuntimeError)) return false;
  crash ??= { message: String(err.message), location: null };
  restart();
  return true;
}

function restart() {
  if (restarting || crash === null) return;
  restarting = true;
  const now = Date.now();
  pause = now - lastRestart < 60_000 ? Math.min(Math.max(pause * 2, 250), 30_000) : 0;
  ready = new Promise((resolve) => setTimeout(resolve, pause)).then(() => {
    const told = crash;
    crash = null;
    if (told === null) return;
    const { message, location } = told;
    restarting = false;
    lastRestart = Date.now();
    __wbg_reset_state();
    return sw_recover(message, location);
  });
  ready.then(() => ports.forEach((port) => sw_panel_connected(port))).catch(trapped);
}

/** Runs `f` once the core is ready; a trap inside it starts a fresh instance.
 * @param {() => unknown} f */
function call(f) {
  return ready.then(f).catch((err) => {
    if (!trapped(err)) throw err;
  });
}

self.addEventListener('error', (event) => trapped(event.error));
self.addEventListener('unhandledrejection', (event) => trapped(event.reason));

// Listeners are registered synchronously so Chrome can wake the worker for them.
chrome.runtime.onConnect.addListener((port) => {
  ports.add(port);
  port.onMessage.addListener((msg) => call(() => sw_panel_message(port, msg)));
  port.onDisconnect.addListener(() => {
    ports.delete(port);
    call(() => sw_panel_disconnected(port));
  });
  call(() => sw_panel_connected(port));
});

// Requests that failed (the network guard's blocks among them); Rust keeps the ones it blocked.
chrome.webRequest.onErrorOccurred.addListener(
  (details) => call(() => sw_request_error(details)),
  { urls: ['<all_urls>'] },
);

// What a request carries (observe only): the body of a request the guard holds is shown on
// its card, and what an approved request sent is checked against the card.
chrome.webRequest.onBeforeRequest.addListener(
  (details) => void ready.then(() => sw_request_started(details)),
  { urls: ['<all_urls>'] },
  ['requestBody'],
);

// Requests that got an answer, and closed tabs: the log external agents read (in memory).
chrome.webRequest.onCompleted.addListener(
  (details) => call(() => sw_request_completed(details)),
  { urls: ['<all_urls>'] },
);
chrome.tabs.onRemoved.addListener((tabId) => call(() => sw_tab_removed(tabId)));
// Messages of this extension's content scripts (pages cannot send these): the steps of a
// recording. Rust keeps them only from the top frame of the tab it records.
chrome.runtime.onMessage.addListener((msg, sender) => {
  call(() => sw_content_message(msg, sender.tab?.id ?? -1, sender.frameId ?? -1));
});
// A routine's time came (Chrome wakes the worker for it).
chrome.alarms.onAlarm.addListener((alarm) => call(() => sw_alarm(alarm.name)));

// The debugger is attached only while an approved request's body is pinned (pin.rs): its
// paused requests and its end go to Rust, which continues or fails each.
chrome.debugger.onEvent.addListener((source, method, params) =>
  call(() => sw_debugger_event(source.tabId ?? -1, method, params)),
);
chrome.debugger.onDetach.addListener((source, reason) =>
  call(() => sw_debugger_detached(source.tabId ?? -1, String(reason))),
);

chrome.runtime.onInstalled.addListener(() => {
  chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
});
