// @ts-check
// The offscreen document that plays the attention sound (`wasm-worker/src/chrome.rs`).
// One offscreen document at a time: opening and closing are queued so they never overlap.
/** @type {Promise<void>} */
let offscreen = Promise.resolve();
/** @param {() => Promise<void>} step */
function queue(step) {
  offscreen = offscreen.then(step).catch(() => {});
  return offscreen;
}
export function play_offscreen_sound() {
  if (!chrome.offscreen) return;
  queue(async () => {
    await chrome.offscreen.closeDocument().catch(() => {});
    await chrome.offscreen.createDocument({
      url: 'offscreen.html',
      reasons: ['AUDIO_PLAYBACK'],
      justification: 'A short sound when Waymark needs you and its side panel is closed.',
    });
  });
}
export function close_offscreen_sound() {
  if (chrome.offscreen) queue(() => chrome.offscreen.closeDocument().catch(() => {}));
}
