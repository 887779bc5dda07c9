// The attention sound: a short two-tone chime generated with WebAudio (no remote assets). The
// side panel plays it when it is open, the offscreen document when it is not; the worker decides.
export function playChime() {
  try {
    const ctx = new AudioContext();
    const gain = ctx.createGain();
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.4);
    gain.connect(ctx.destination);
    for (const [freq, at] of [[880, 0], [1320, 0.12]]) {
      const osc = ctx.createOscillator();
      osc.frequency.value = freq;
      osc.connect(gain);
      osc.start(ctx.currentTime + at);
      osc.stop(ctx.currentTime + at + 0.25);
    }
  } catch (_) { /* no audio device: the badge and the notification still tell */ }
}
