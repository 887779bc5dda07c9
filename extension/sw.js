// Service worker glue: load the Rust core, forward Chrome's events to it. No decisions here.
import init, {
  sw_start,
  sw_panel_connected,
  sw_panel_message,
  sw_panel_disconnected,
  sw_request_error,
  sw_request_started,
} from './pkg/waymark_worker.js';

const ready = init().then(() => sw_start());

// Listeners are registered synchronously so Chrome can wake the worker for them.
chrome.runtime.onConnect.addListener((port) => {
  port.onMessage.addListener((msg) => ready.then(() => sw_panel_message(port, msg)));
  port.onDisconnect.addListener(() => ready.then(() => sw_panel_disconnected(port)));
  ready.then(() => sw_panel_connected(port));
});

// Requests that failed (the network guard's blocks among them); Rust keeps the ones it blocked.
chrome.webRequest.onErrorOccurred.addListener(
  (details) => ready.then(() => sw_request_error(details)),
  { urls: ['<all_urls>'] },
);

// What a request carries (observe only): the body of a request the guard holds is shown on
// its card, and what an approved request sent is checked against the card.
chrome.webRequest.onBeforeRequest.addListener(
  (details) => ready.then(() => sw_request_started(details)),
  { urls: ['<all_urls>'] },
  ['requestBody'],
);

chrome.runtime.onInstalled.addListener(() => {
  chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
});
