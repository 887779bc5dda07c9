// Content script glue, injected on demand by the service worker. Loads the Rust core (real
// wasm first; the wasm2js build when the page's CSP refuses to compile WebAssembly) and hands
// each request to it.
(() => {
  if (globalThis.__waymark) return;
  const url = (path) => chrome.runtime.getURL(path);
  let loading = null;
  async function load() {
    try {
      const core = await import(url('pkg/waymark_core.js'));
      await core.default({ module_or_path: url('pkg/waymark_core_bg.wasm') });
      return { core, engine: 'wasm' };
    } catch (err) {
      if (!(err instanceof WebAssembly.CompileError)) throw err;
      const core = await import(url('pkg-wasm2js/waymark_core.js'));
      return { core, engine: 'wasm2js' };
    }
  }
  globalThis.__waymark = {
    handle(msg) {
      loading ??= load();
      return loading
        .then(({ core, engine }) => ({ ok: true, value: core.content_handle(msg, engine) }))
        .catch((err) => ({ ok: false, error: String((err && err.message) || err) }));
    },
  };
})();
