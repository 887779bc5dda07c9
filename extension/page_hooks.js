// Runs in the page's own (MAIN) world at document_start, in every frame. A listener added with
// `addEventListener` is invisible from the content script's isolated world, so this records
// which elements the page gave click-like listeners (and `onclick`-style properties), which
// accept drops (`drop` listeners: a kanban column), and how many of the page's fetch/XHR
// requests are in flight. It answers only when the content script asks, through DOM events
// that touch no node: each recorded element receives a non-bubbling `waymark-listener` (or
// `waymark-drop`) event (the content script catches it in the capture phase and reads its
// target), then the document a `waymark-pending` event carrying the count.
//
// SECURITY: the page controls this world, so everything recorded here is page-controlled input.
// It may only ADD candidate elements to the observation, each of which the content script then
// judges with its own live checks (visibility, size, hit-testing, the safety policy's risk), and
// make Waymark wait longer for the page to settle (always capped). It never marks anything
// safe and never carries text: the content script reads an element's name from the DOM itself,
// as it does for every element. No decisions here, and the page sees its functions behave as
// before.
(() => {
  if (window.__waymarkHooks) return;
  Object.defineProperty(window, '__waymarkHooks', { value: true });
  const KINDS = new Set(['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown',
    'pointerup', 'touchstart', 'touchend']);
  const recorder = () => {
    const known = new WeakSet();
    const list = { refs: [] };
    list.remember = (target) => {
      if (target instanceof Element && !known.has(target)) {
        known.add(target);
        list.refs.push(new WeakRef(target));
      }
    };
    return list;
  };
  const clicks = recorder();
  const drops = recorder();
  const remember = clicks.remember;
  let pending = 0;
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function addEventListener(type, listener, options) {
    if (KINDS.has(type)) remember(this);
    else if (type === 'drop') drops.remember(this);
    return add.call(this, type, listener, options);
  };
  for (const proto of [HTMLElement.prototype, SVGElement.prototype]) {
    for (const name of ['onclick', 'onmousedown', 'onpointerdown', 'ondrop']) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!d || !d.set) continue;
      const into = name === 'ondrop' ? drops.remember : remember;
      Object.defineProperty(proto, name, {
        ...d,
        set(value) {
          if (value) into(this);
          return d.set.call(this, value);
        },
      });
    }
  }
  const done = () => { pending = Math.max(0, pending - 1); };
  const fetch0 = window.fetch;
  if (fetch0) {
    window.fetch = function fetch(...args) {
      const p = fetch0.apply(this, args);
      pending += 1;
      p.then(done, done);
      return p;
    };
  }
  const send0 = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function send(...args) {
    pending += 1;
    add.call(this, 'loadend', done, { once: true });
    try {
      return send0.apply(this, args);
    } catch (err) {
      done();
      throw err;
    }
  };
  const announce = (list, name) => {
    const live = [];
    for (const ref of list.refs) {
      const el = ref.deref();
      if (!el) continue;
      live.push(ref);
      if (el.isConnected) el.dispatchEvent(new CustomEvent(name, { composed: true }));
    }
    list.refs = live;
  };
  add.call(document, 'waymark-ask', () => {
    announce(clicks, 'waymark-listener');
    announce(drops, 'waymark-drop');
    document.dispatchEvent(new CustomEvent('waymark-pending', { detail: pending }));
  });
})();
