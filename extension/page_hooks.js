// Runs in the page's own (MAIN) world at document_start, in every frame. A listener added with
// `addEventListener` is invisible from the content script's isolated world, so this records
// which elements the page gave click-like listeners (and `onclick`-style properties), which
// accept drops (`drop` listeners: a kanban column), and how many of the page's fetch/XHR
// requests are in flight. It answers only when the content script asks, through DOM events
// that touch no node: each recorded element receives a non-bubbling `waymark-listener` (or
// `waymark-drop`) event (the content script catches it in the capture phase and reads its
// target), then the document a `waymark-pending` event carrying the count.
//
// It also keeps the ElementInternals web components attach, to tell the content script the
// role and ARIA states they give themselves there (`waymark-aria`, see below).
//
// For settling after an action it also counts what the action started: between the content
// script's `waymark-mark` (an action begins; `detail` 1) and `waymark-mark` with `detail` 0
// (its own events are dispatched), every timer armed with a delay up to 1 s (a debounce) is
// followed until it fires or is cleared, and so are the timers armed by those timers'
// callbacks (a few generations deep: a debounce that re-arms itself, not a page's endless
// loop), or in the `await` continuation of a followed request (armed while one runs or within
// 50 ms of one ending or of the mark; followed one generation only); every request sent after
// the mark is followed until it ends. The document's own loading counts as such an action for
// its timers (not its requests): from document_start until just after `load`, timers up to
// 600 ms are followed the same way (a toast a library fades in 150 ms after it is shown),
// until the first mark. `waymark-ask-settle`
// answers with `waymark-pending` (as above), `waymark-waiting` (how many are still running) and `waymark-activity` (when
// the last of them ended or fired, on the document's clock).
//
// SECURITY: the page controls this world, so everything recorded here is page-controlled input.
// A role or state from a component's internals is the page's word exactly as a `role` or
// `aria-checked` attribute is, and is read the same way. Otherwise it may only ADD candidate
// elements to the observation, each of which the content script then
// judges with its own live checks (visibility, size, hit-testing, the safety policy's risk), and
// make Waymark wait longer for the page to settle (always capped). It never marks anything
// safe, and the only text it carries is the page's console, which external agents read as
// fenced page data, and the internals' ARIA values (an `aria-label` there is page text like one
// in an attribute, bounded by the content script): every other name is read from the DOM
// itself, as for every element. No decisions here, and the page sees its functions behave as
// before.
(() => {
  if (window.__waymarkHooks) return;
  Object.defineProperty(window, '__waymarkHooks', { value: true });
  const KINDS = new Set(['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown',
    'pointerup', 'touchstart', 'touchend']);
  /**
   * @typedef {object} Recorder
   * @property {WeakRef<Element>[]} refs
   * @property {WeakRef<Element>[]} fresh
   * @property {number} compacted
   * @property {(target: unknown) => void} remember
   */
  /** @returns {Recorder} */
  const recorder = () => {
    const known = new WeakSet();
    // `fresh`: recorded and not yet announced to the content script (see `announce`).
    /** @type {Recorder} */
    const list = {
      refs: [],
      fresh: [],
      compacted: 0,
      remember: (target) => {
        if (target instanceof Element && !known.has(target)) {
          known.add(target);
          const ref = new WeakRef(target);
          list.refs.push(ref);
          list.fresh.push(ref);
        }
      },
    };
    return list;
  };
  const clicks = recorder();
  const drops = recorder();
  const remember = clicks.remember;
  let pending = 0;
  const add = EventTarget.prototype.addEventListener;
  // What a `waymark-*` event of the content script carries (a `CustomEvent`'s detail).
  /** @param {Event} e */
  const detailOf = (e) => /** @type {CustomEvent} */ (e).detail;
  /**
   * @this {EventTarget}
   * @param {string} type
   * @param {EventListenerOrEventListenerObject | null} listener
   * @param {boolean | AddEventListenerOptions} [options]
   */
  EventTarget.prototype.addEventListener = function addEventListener(type, listener, options) {
    if (KINDS.has(type)) remember(this);
    else if (type === 'drop') drops.remember(this);
    return add.call(this, type, listener, options);
  };
  for (const proto of [HTMLElement.prototype, SVGElement.prototype]) {
    for (const name of ['onclick', 'onmousedown', 'onpointerdown', 'ondrop']) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      const setter = d?.set;
      if (!d || !setter) continue;
      const into = name === 'ondrop' ? drops.remember : remember;
      Object.defineProperty(proto, name, {
        ...d,
        set(value) {
          if (value) into(this);
          setter.call(this, value);
        },
      });
    }
  }
  // What the latest action started (see above).
  let marked = false;
  let acting = false;
  let started = 0;
  let epoch = 0;
  let activity = 0;
  let requestEnded = -Infinity;
  let markedAt = -Infinity;
  const timers = new Map();
  let generation = 0;
  const MAX_DEBOUNCE_MS = 1000;
  const MAX_LOAD_DELAY_MS = 600;
  const MAX_GENERATIONS = 3;
  const RECENT_MS = 50;
  // The document is loading: its timers are followed as an action's are (see above).
  let loading = true;
  const now = () => performance.now();
  const done = () => { pending = Math.max(0, pending - 1); };
  // A request: followed when sent after the mark. Returns its end.
  const sent = () => {
    pending += 1;
    if (!marked) return done;
    started += 1;
    const mine = epoch;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      done();
      if (mine !== epoch) return;
      started = Math.max(0, started - 1);
      activity = now();
      requestEnded = activity;
    };
  };
  const fetch0 = window.fetch;
  if (fetch0) {
    window.fetch = function fetch(...args) {
      const p = fetch0.apply(this, args);
      const end = sent();
      p.then(end, end);
      return p;
    };
  }
  const send0 = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = /** @type {XMLHttpRequest['send']} */ (function send(...args) {
    const end = sent();
    add.call(this, 'loadend', end, { once: true });
    try {
      return send0.apply(this, args);
    } catch (err) {
      end();
      throw err;
    }
  });
  const setTimeout0 = window.setTimeout;
  const clearTimeout0 = window.clearTimeout;
  window.setTimeout = function setTimeout(callback, delay, ...args) {
    const ms = Number(delay) || 0;
    // Also armed in an `await` continuation of what the action started (a slow answer
    // awaited after its request): while a followed request runs, or just after one ended or
    // the action began. Such a timer is the last generation followed, so two unrelated
    // loops cannot keep each other followed.
    const chained = generation > 0 && generation < MAX_GENERATIONS;
    const t = now();
    const soon = generation === 0
      && (started > 0 || t - requestEnded < RECENT_MS || t - markedAt < RECENT_MS);
    const first = acting || (loading && !marked && ms <= MAX_LOAD_DELAY_MS);
    const follow = typeof callback === 'function' && ms <= MAX_DEBOUNCE_MS
      && (first || chained || (marked && soon));
    if (!follow) return setTimeout0.call(this, callback, delay, ...args);
    const depth = first ? 1 : chained ? generation + 1 : MAX_GENERATIONS;
    let id = 0;
    /** @this {unknown} @param {...unknown} a */
    const run = function (...a) {
      timers.delete(id);
      activity = now();
      const outer = generation;
      generation = depth;
      try {
        return callback.apply(this, a);
      } finally {
        generation = outer;
      }
    };
    id = setTimeout0.call(this, run, delay, ...args);
    timers.set(id, true);
    return id;
  };
  window.clearTimeout = function clearTimeout(id) {
    if (timers.delete(id)) activity = now();
    return clearTimeout0.call(this, id);
  };
  // Timers armed by the page's own `load` listeners (which run after this one) still count.
  add.call(window, 'load', () => setTimeout0.call(window, () => { loading = false; }, 0));
  add.call(document, 'waymark-mark', (e) => {
    if (detailOf(e) === 1) {
      loading = false;
      marked = true;
      acting = true;
      epoch += 1;
      started = 0;
      timers.clear();
      activity = now();
      markedAt = activity;
      requestEnded = -Infinity;
    } else {
      acting = false;
    }
  });
  add.call(document, 'waymark-ask-settle', () => {
    document.dispatchEvent(new CustomEvent('waymark-pending', { detail: pending }));
    document.dispatchEvent(new CustomEvent('waymark-waiting', { detail: started + timers.size }));
    document.dispatchEvent(new CustomEvent('waymark-activity', { detail: activity }));
  });
  // The console, for external agents' `browser_console_messages`: the latest entries of
  // `console.*` calls, uncaught errors and unhandled rejections. Arguments are kept as given
  // and formatted only when the content script asks (`waymark-ask-console`, answered with one
  // `waymark-console` event whose detail is a JSON string), so logging costs the page next to
  // nothing. Page-controlled text, like the rest of the page.
  const MAX_ENTRIES = 200;
  const MAX_CHARS = 2000;
  /** @typedef {{ level: string, source: string, args: unknown[] }} ConsoleEntry */
  /** @type {ConsoleEntry[]} */
  const entries = [];
  /** @type {(level: string, source: string, args: unknown[]) => void} */
  const keep = (level, source, args) => {
    if (entries.length >= MAX_ENTRIES) entries.shift();
    entries.push({ level, source, args });
  };
  /** @type {Array<['debug' | 'log' | 'info' | 'warn' | 'error', string]>} */
  const LEVELS = [['debug', 'debug'], ['log', 'info'], ['info', 'info'], ['warn', 'warning'], ['error', 'error']];
  for (const [name, level] of LEVELS) {
    const original = console[name];
    if (typeof original !== 'function') continue;
    /** @this {unknown} @param {...unknown} args */
    console[name] = function (...args) {
      keep(level, 'console', args);
      return original.apply(this, args);
    };
  }
  add.call(window, 'error', (e) => {
    const { error, message } = /** @type {ErrorEvent} */ (e);
    keep('error', 'uncaught', [error !== undefined && error !== null ? error : message]);
  });
  add.call(window, 'unhandledrejection', (e) => {
    keep('error', 'rejection', [/** @type {PromiseRejectionEvent} */ (e).reason]);
  });
  /** @type {(value: unknown) => string} */
  const format = (value) => {
    try {
      if (typeof value === 'string') return value;
      if (value instanceof Error) return value.stack || `${value.name}: ${value.message}`;
      if (value === null || typeof value !== 'object') return String(value);
      const json = JSON.stringify(value);
      return json === undefined ? Object.prototype.toString.call(value) : json;
    } catch {
      return Object.prototype.toString.call(value);
    }
  };
  add.call(document, 'waymark-ask-console', () => {
    const out = entries.map(({ level, source, args }) => ({
      level,
      source,
      text: args.map(format).join(' ').slice(0, MAX_CHARS),
    }));
    document.dispatchEvent(new CustomEvent('waymark-console', { detail: JSON.stringify(out) }));
  });
  // The page's dialogs. A native `alert`/`confirm`/`prompt` stops the page until it is
  // answered, and no extension API can answer one already open; so when Waymark armed an
  // answer for an action (`waymark-dialog-arm`, detail a JSON string `{accept, text}`, sent
  // just before the action's mark), the dialogs it opens are answered here with it, from the
  // mark until the action's settling can last (SETTLE_CAP_MS after its events); otherwise the
  // browser shows them to the user as always. Each one is recorded, with its answer, for the
  // content script (`waymark-ask-dialogs`, answered with one `waymark-dialogs` event).
  const SETTLE_CAP_MS = 3000;
  /** @typedef {{ accept?: unknown, text?: unknown }} Armed */
  /** @type {Armed | null} */
  let armed = null;
  /** @type {Armed | null} */
  let answer = null;
  let answerUntil = Infinity;
  /** @type {Array<{ kind: string, message: string, accepted: boolean, by: 'waymark' | 'user' }>} */
  const met = [];
  add.call(document, 'waymark-dialog-arm', (e) => {
    try {
      armed = typeof detailOf(e) === 'string' ? JSON.parse(detailOf(e)) : null;
    } catch {
      armed = null;
    }
  });
  add.call(document, 'waymark-mark', (e) => {
    if (detailOf(e) === 1) {
      answer = armed;
      armed = null;
      answerUntil = Infinity;
    } else {
      answerUntil = now() + SETTLE_CAP_MS;
    }
  });
  /**
   * @param {string} kind `alert`, `confirm` or `prompt`
   * @param {Function} original
   */
  const dialog = (kind, original) => /** @this {unknown} @param {unknown} message @param {unknown} [value] */ function (message, value) {
    const text = message === undefined ? '' : String(message);
    if (answer && now() < answerUntil) {
      const accept = answer.accept === true;
      if (met.length < 20) met.push({ kind, message: text, accepted: accept, by: 'waymark' });
      if (kind === 'confirm') return accept;
      if (kind === 'prompt') {
        if (!accept) return null;
        return typeof answer.text === 'string' ? answer.text : (value === undefined ? '' : String(value));
      }
      return undefined;
    }
    const result = original.apply(this, arguments);
    const accepted = kind === 'alert' || (kind === 'confirm' ? result === true : result !== null);
    if (met.length < 20) met.push({ kind, message: text, accepted, by: 'user' });
    return result;
  };
  /** @type {Array<'alert' | 'confirm' | 'prompt'>} */
  const DIALOGS = ['alert', 'confirm', 'prompt'];
  for (const kind of DIALOGS) {
    const original = window[kind];
    if (typeof original === 'function') Object.assign(window, { [kind]: dialog(kind, original) });
  }
  add.call(document, 'waymark-ask-dialogs', () => {
    const out = JSON.stringify(met.splice(0));
    document.dispatchEvent(new CustomEvent('waymark-dialogs', { detail: out }));
  });
  // Roles and states a web component gives itself through its ElementInternals
  // (`internals.role = 'option'`, `internals.ariaChecked = 'true'`) are in no attribute, so the
  // content script cannot see them: the elements that attached internals are kept, and on each
  // ask every one of them that is in the document and has a role or state receives a
  // non-bubbling `waymark-aria` event whose detail is a JSON object of those ARIA attributes
  // (page-controlled like a role attribute, and judged the same way). States change, so all of
  // them are announced each time.
  /** @type {Array<[string, string]>} */
  const ARIA = [['role', 'role'], ['ariaChecked', 'aria-checked'],
    ['ariaSelected', 'aria-selected'], ['ariaExpanded', 'aria-expanded'],
    ['ariaPressed', 'aria-pressed'], ['ariaDisabled', 'aria-disabled'],
    ['ariaRequired', 'aria-required'], ['ariaInvalid', 'aria-invalid'],
    ['ariaCurrent', 'aria-current'], ['ariaValueNow', 'aria-valuenow'],
    ['ariaValueText', 'aria-valuetext'], ['ariaValueMin', 'aria-valuemin'],
    ['ariaValueMax', 'aria-valuemax'], ['ariaLabel', 'aria-label'],
    ['ariaPlaceholder', 'aria-placeholder'], ['ariaLevel', 'aria-level']];
  /** @type {WeakMap<Element, ElementInternals>} */
  const internalsOf = new WeakMap();
  /** @type {WeakRef<Element>[]} */
  let withInternals = [];
  const attach = HTMLElement.prototype.attachInternals;
  if (typeof attach === 'function') {
    HTMLElement.prototype.attachInternals = function attachInternals() {
      const internals = attach.call(this);
      internalsOf.set(this, internals);
      withInternals.push(new WeakRef(this));
      return internals;
    };
  }
  /** @param {Element} el */
  const announceOne = (el) => {
    const internals = internalsOf.get(el);
    if (!internals || !el.isConnected) return;
    /** @type {Record<string, string>} */
    const said = {};
    let any = false;
    for (const [property, attribute] of ARIA) {
      const value = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (internals))[property];
      if (typeof value === 'string') {
        said[attribute] = value;
        any = true;
      }
    }
    if (any) el.dispatchEvent(new CustomEvent('waymark-aria', { composed: true, detail: JSON.stringify(said) }));
  };
  const announceAria = () => {
    withInternals = withInternals.filter((ref) => ref.deref() !== undefined);
    for (const ref of withInternals) {
      const el = ref.deref();
      if (el) announceOne(el);
    }
  };
  // One element's, now (a state read after an action): `waymark-ask-aria` dispatched on it.
  add.call(document, 'waymark-ask-aria', (e) => {
    const el = e.composedPath()[0];
    if (el instanceof Element) announceOne(el);
  }, true);
  // The content script keeps what it was told (its sets live as long as the document): it asks
  // with `detail` 1 for the elements recorded since, 0 (a new instance) for all of them. An
  // element not in the document yet is announced once it is.
  /** @type {(list: Recorder, name: string, all: boolean) => void} */
  const announce = (list, name, all) => {
    const later = [];
    for (const ref of all ? list.refs : list.fresh) {
      const el = ref.deref();
      if (!el) continue;
      if (el.isConnected) el.dispatchEvent(new CustomEvent(name, { composed: true }));
      else later.push(ref);
    }
    list.fresh = later;
    if (all || list.refs.length > list.compacted + 1024) {
      list.refs = list.refs.filter((ref) => ref.deref() !== undefined);
      list.compacted = list.refs.length;
    }
  };
  add.call(document, 'waymark-ask', (e) => {
    const all = detailOf(e) !== 1;
    announce(clicks, 'waymark-listener', all);
    announce(drops, 'waymark-drop', all);
    announceAria();
    document.dispatchEvent(new CustomEvent('waymark-pending', { detail: pending }));
  });
})();
