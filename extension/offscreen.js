// Plays one short two-tone chime, generated with WebAudio (no remote assets), when the service
// worker opens this document; the worker decides when (see worker/interventions.rs).
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
document.body.dataset.chimed = '1';
