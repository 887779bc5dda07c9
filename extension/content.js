// Content script glue, injected by the service worker once per document. Loads the content
// build of the Rust core (waymark-content: the DOM walk and actions only; real wasm first, its
// wasm2js build when the page's CSP refuses to compile WebAssembly) and hands each request to it.
(() => {
  if (globalThis.__waymark) return;
  const url = (path) => chrome.runtime.getURL(path);
  let loading = null;
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
  // `log` is the worker's console level. A failure keeps its kind: Rust names its errors
  // (`name`), and the worker reads any other name as the script itself failing.
  globalThis.__waymark = {
    handle(msg, log) {
      loading ??= load();
      // An action that takes time in the page (a drag) answers with a promise: awaited here.
      return loading
        .then(({ core, engine }) => core.content_handle(msg, engine, log))
        .then((value) => ({ ok: true, value }))
        .catch((err) => ({
          ok: false,
          name: String((err && err.name) || ''),
          error: String((err && err.message) || err),
        }));
    },
  };
})();
