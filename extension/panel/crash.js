// The notice after Waymark's own wasm crashed and restarted (Rust words it and builds the
// report): its text, the report to copy, and Dismiss.
import { $, copyText, text } from './dom.js';

/** @param {SendToWorker} send */
export function initCrash(send) {
  $('crash-copy').addEventListener('click', () => copyText($('crash-copy'), $('crash-report').textContent));
  $('crash-dismiss').addEventListener('click', () => send({ type: 'dismiss_crash' }));
}

/** @param {CrashNotice | null} crash */
export function renderCrash(crash) {
  $('crash').hidden = !crash;
  text($('crash-text'), crash?.text);
  text($('crash-report'), crash?.report);
}
