// What the extension's scripts add to their global object (hand-written for `checkJs`, see
// jsconfig.json; never shipped). The types the worker and the panel exchange are global too:
// `types/global.d.ts` names each one generated from the Rust types (`wasm-core/src/panel/types.rs`).
interface Window {
  /** Set once `page_hooks.js` has wrapped the page's functions (it runs at most once). */
  __waymarkHooks?: boolean;
}

/** Sends a request to the service worker; its type is generated from the Rust `PanelRequest`
 * (`extension/types/`, see `wasm-core/src/panel/types.rs`). */
type SendToWorker = (msg: PanelRequest) => void;
/** A value the DOM holds as text, read as the Rust enum it names (the worker refuses others). */
type Named<T> = T;

/** Called by the Rust panic hook (`waymark-page`'s `js.rs`) before the wasm traps: `sw.js`
 * and `content.js` set it to start a fresh instance. */
declare var waymarkPanicked: ((message: unknown, location?: unknown) => void) | undefined;

/** `content.js`'s handle in a document: whether its extension is still alive (an updated
 * extension replaces it), and the replies held for the worker to take. */
declare var __waymark: { alive(): boolean; take(id: unknown): unknown } | undefined;
