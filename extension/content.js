// Content script glue, injected by the service worker once per document. Loads the content
// build of the Rust core (waymark-content: the DOM walk and actions only; real wasm first, its
// wasm2js build when the page's CSP refuses to compile WebAssembly) and hands each request that
// comes on the worker's port to it.
//
// A panic traps the wasm and leaves its instance unusable: the requests waiting on it fail at
// once (an action's promise would otherwise never settle), and the next request runs on a
// fresh instance of the same module (`__wbg_reset_state`). The worker (Rust) decides what the
// failure means for the action.
(() => {
  // Once per document; an instance left by an earlier run of the extension (reloaded or
  // updated: its `chrome.runtime` is cut off, so no port reaches it) is replaced.
  if (globalThis.__waymark?.alive()) return;
  const runtime = chrome.runtime;
  /** @type {(path: string) => string} */
  const url = (path) => runtime.getURL(path);
  /** @typedef {typeof import('./pkg-content/waymark_content.js')} Core */
  /** @typedef {{ core: Core, engine: 'wasm' | 'wasm2js' }} Loaded */
  /** @typedef {{ ok: true, value: unknown } | { ok: false, name: string, error: string }} Reply */
  /** @type {Promise<Loaded> | null} */
  let loading = null;
  let crashed = false;
  // The reject functions of requests the instance has not answered yet.
  /** @type {Set<(err: unknown) => void>} */
  const waiting = new Set();
  /** @returns {Promise<Loaded>} */
  async function load() {
    try {
      const core = await import(url('pkg-content/waymark_content.js'));
      await core.default({ module_or_path: url('pkg-content/waymark_content_bg.wasm') });
      return { core, engine: 'wasm' };
    } catch (err) {
      if (!(err instanceof WebAssembly.CompileError)) throw err;
      const core = await import(url('pkg-wasm2js/waymark_content.js'));
      return { core, engine: 'wasm2js' };
    }
  }
  /** @param {string} message */
  function crash(message) {
    crashed = true;
    for (const reject of waiting) reject(new WebAssembly.RuntimeError(message));
    waiting.clear();
  }
  // Called by the Rust panic hook before the trap.
  globalThis.waymarkPanicked = (/** @type {unknown} */ message) => crash(String(message));
  /**
   * @param {Core} core
   * @param {unknown} msg
   * @param {Loaded['engine']} engine
   * @param {string} log
   */
  function run(core, msg, engine, log) {
    if (crashed && typeof core.__wbg_reset_state === 'function') {
      crashed = false;
      core.__wbg_reset_state();
    }
    return new Promise((resolve, reject) => {
      waiting.add(reject);
      Promise.resolve()
        .then(() => core.content_handle(msg, engine, log))
        .then(resolve, reject)
        .finally(() => waiting.delete(reject));
    });
  }
  // `log` is the worker's console level. A failure keeps its kind: Rust names its errors
  // (`name`), and the worker reads any other name (a trap's `RuntimeError`) itself.
  /**
   * @param {unknown} msg
   * @param {string} log
   * @returns {Promise<Reply>}
   */
  function handle(msg, log) {
    loading ??= load();
    // An action that takes time in the page (a drag) answers with a promise: awaited here.
    return loading
      .then(({ core, engine }) => run(core, msg, engine, log))
      .then((value) => /** @type {Reply} */ ({ ok: true, value }))
      .catch((/** @type {unknown} */ err) => {
        if (err instanceof WebAssembly.RuntimeError) crash(String(err.message));
        // Rust's named errors, a trap, or whatever else was thrown.
        const e = /** @type {{ name?: unknown, message?: unknown } | null | undefined} */ (err);
        return {
          ok: false,
          name: String((e && e.name) || ''),
          error: String((e && e.message) || err),
        };
      });
  }
  // Replies longer than the worker's `inline` bound, kept until it takes them (a few at most).
  /** @type {Map<unknown, Reply>} */
  const held = new Map();
  const HELD_MAX = 4;
  // The worker's requests come on ports it opens to this document (`chrome.tabs.connect`:
  // only this extension can; the page's scripts see neither this world's `chrome.runtime` nor
  // its ports). The greeting tells the worker a script read the port; each request is
  // `{id, msg, log, inline}` and its reply `{id, reply}`, or `{id, held: true}` for a reply
  // whose JSON is longer than `inline`: the worker takes that one with `take(id)` (a port
  // message is encoded as JSON again, which costs the page more than a script's result for
  // long strings). A port that closed meanwhile takes no reply.
  runtime.onConnect.addListener((port) => {
    if (port.name !== 'waymark-content' || port.sender?.id !== runtime.id) return;
    port.onMessage.addListener(({ id, msg, log, inline }) => {
      handle(msg, log).then((reply) => {
        /** @type {{ id: unknown, reply?: unknown, held?: true }} */
        let out = { id, reply };
        if (reply.ok && typeof reply.value === 'string' && reply.value.length > inline) {
          held.set(id, reply);
          if (held.size > HELD_MAX) held.delete(held.keys().next().value);
          out = { id, held: true };
        }
        try {
          port.postMessage(out);
        } catch {
          // The port closed meanwhile: nobody waits for this reply.
        }
      });
    });
    port.postMessage({ hello: true });
  });
  globalThis.__waymark = {
    alive: () => Boolean(runtime?.id),
    /** @param {unknown} id */
    take(id) {
      const reply = held.get(id);
      held.delete(id);
      return reply;
    },
  };
})();
