// @ts-check
// The worker's clock and a yield to the event loop (`wasm-worker/src/worker/env.rs`).
/** @returns {number} */
export function precise_now() { return performance.now(); }
/** @returns {Promise<void>} */
export function next_tick() { return new Promise((resolve) => setTimeout(resolve, 0)); }
