//! The worker's ports to `content.js`, one per document, kept open between requests.
//!
//! Why: one `chrome.scripting.executeScript` per request made the page compile and run a new
//! function and convert its arguments and result every time; a message on a port that is
//! already open costs the page a fraction of that (BENCHMARKS.md, issue 28). Only this
//! extension can open these ports (`chrome.tabs.connect` reaches its own content scripts; a
//! page's scripts see neither the isolated world's `chrome.runtime` nor its ports).
//!
//! A port is bound to one document: when the document goes (navigation, removal, the
//! back/forward cache) Chrome closes it, and the next request opens a new one. `content.js`
//! greets every port it accepts before reading anything on it, so a port that closes without
//! the greeting reached no script — the request was never read (see [`Answer`]).

use super::chrome::{self, Port};
use super::frames::Answer;
use serde::Deserialize;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// What a port's requests share with its listeners.
#[derive(Default)]
struct State {
    /// `content.js` greeted the port.
    greeted: Cell<bool>,
    closed: Cell<bool>,
    /// The resolve functions of requests not answered yet, by id.
    pending: RefCell<HashMap<u64, js_sys::Function>>,
}

impl State {
    /// Marks the port closed and ends every request waiting on it (they resolve to `null`).
    fn close(&self) {
        self.closed.set(true);
        let waiting: Vec<js_sys::Function> =
            self.pending.borrow_mut().drain().map(|(_, f)| f).collect();
        for resolve in waiting {
            // Calling a promise's resolve function does not throw.
            let _ignored = resolve.call1(&JsValue::NULL, &JsValue::NULL);
        }
    }
}

struct Channel {
    document: String,
    port: Port,
    state: Rc<State>,
    _on_message: Closure<dyn FnMut(JsValue)>,
    _on_disconnect: Closure<dyn FnMut(JsValue)>,
}

impl Channel {
    /// Closes the port from this end (Chrome then tells only the other end).
    fn close(&self) {
        if !self.state.closed.get() {
            self.port.disconnect();
        }
        self.state.close();
    }
}

/// A message from `content.js`: its greeting, or the reply to request `id` (or word that it
/// kept the reply, which is too long for the port, for [`chrome::take_content_reply`]).
#[derive(Deserialize)]
struct FromContent {
    #[serde(default)]
    hello: bool,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    held: bool,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    reply: JsValue,
}

/// The longest reply (characters of its JSON) sent on the port; a longer one is taken with one
/// `executeScript` instead. Chrome encodes a port message as JSON, and for long strings that
/// costs the page ~5 µs per KiB against ~1.3 µs per KiB for a script's result; the extra
/// round trip (~0.2 ms of the page's time) pays from about here (BENCHMARKS.md, issue 28).
const INLINE_CHARS: usize = 32 * 1024;

thread_local! {
    /// The open port of each frame, by tab and frame id (at most one: the frame's document).
    static CHANNELS: RefCell<HashMap<(i32, u32), Rc<Channel>>> = RefCell::default();
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

/// The open port to `document` in frame `frame` of `tab`: the one kept, or a new one (a port
/// kept for another document of the frame is closed).
fn channel(tab: i32, frame: u32, document: &str) -> Result<Rc<Channel>, JsValue> {
    let kept = CHANNELS.with(|c| c.borrow().get(&(tab, frame)).cloned());
    if let Some(kept) = kept {
        if kept.document == document && !kept.state.closed.get() {
            return Ok(kept);
        }
        kept.close();
        forget(tab, frame, &kept.state);
    }
    let port = chrome::connect_content(tab, frame, document)?;
    let state = Rc::new(State::default());
    let on_message = {
        let state = Rc::clone(&state);
        Closure::<dyn FnMut(JsValue)>::new(move |msg: JsValue| {
            let msg: FromContent = match serde_wasm_bindgen::from_value(msg) {
                Ok(msg) => msg,
                Err(e) => return tracing::warn!(error = %e, "unreadable message from a page"),
            };
            state.greeted.set(state.greeted.get() || msg.hello);
            let resolve = msg.id.and_then(|id| state.pending.borrow_mut().remove(&id));
            if let Some(resolve) = resolve {
                let reply = if msg.held { JsValue::TRUE } else { msg.reply };
                let _ignored = resolve.call1(&JsValue::NULL, &reply);
            }
        })
    };
    let on_disconnect = {
        let state = Rc::clone(&state);
        Closure::<dyn FnMut(JsValue)>::new(move |_port: JsValue| {
            // Read so Chrome does not report it unchecked; why a port closed is not needed.
            let why = chrome::last_error_message();
            tracing::trace!(tab, frame, why, "content port closed");
            state.close();
            // Dropped after this listener returns, not while it runs.
            let state = Rc::clone(&state);
            wasm_bindgen_futures::spawn_local(async move { forget(tab, frame, &state) });
        })
    };
    port.on_message().add_listener(on_message.as_ref().unchecked_ref());
    port.on_disconnect().add_listener(on_disconnect.as_ref().unchecked_ref());
    let channel = Rc::new(Channel {
        document: document.to_owned(),
        port,
        state,
        _on_message: on_message,
        _on_disconnect: on_disconnect,
    });
    CHANNELS.with(|c| c.borrow_mut().insert((tab, frame), Rc::clone(&channel)));
    Ok(channel)
}

/// Drops the kept port of a frame if it is still the one whose state is `state`.
fn forget(tab: i32, frame: u32, state: &Rc<State>) {
    CHANNELS.with(|c| {
        let mut channels = c.borrow_mut();
        if channels.get(&(tab, frame)).is_some_and(|ch| Rc::ptr_eq(&ch.state, state)) {
            channels.remove(&(tab, frame));
        }
    });
}

/// Sends `msg` to `content.js` in `document` (frame `frame` of `tab`) and waits for its reply,
/// at most `within` ms (0: no bound). `log` is the worker's console level, which the content
/// script takes on. Errors: the tab cannot be reached (closed).
pub(super) async fn ask(
    tab: i32,
    frame: u32,
    document: &str,
    msg: &JsValue,
    log: &str,
    within: u32,
) -> Result<Answer<JsValue>, JsValue> {
    let envelope = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| {
        // Setting a property of a new plain object does not throw.
        let _ignored = js_sys::Reflect::set(&envelope, &JsValue::from_str(key), value);
    };
    set("msg", msg);
    set("log", &JsValue::from_str(log));
    set("inline", &JsValue::from_f64(INLINE_CHARS as f64));
    // A kept port whose document went a moment ago throws on send (nothing was sent): a new
    // port to the same document is tried once.
    let mut sent = None;
    for _ in 0..2 {
        let channel = channel(tab, frame, document)?;
        let id = NEXT_ID.with(|n| n.replace(n.get() + 1));
        set("id", &JsValue::from_f64(id as f64));
        let reply = js_sys::Promise::new(&mut |resolve, _reject| {
            channel.state.pending.borrow_mut().insert(id, resolve);
        });
        if channel.port.post_message(&envelope).is_ok() {
            sent = Some((channel, id, reply));
            break;
        }
        channel.state.pending.borrow_mut().remove(&id);
        channel.close();
        forget(tab, frame, &channel.state);
    }
    let Some((channel, id, reply)) = sent else { return Ok(Answer::Absent) };
    let reply = if within == 0 {
        reply
    } else {
        // The timer resolves to `undefined`; a closed port to `null`; a reply is an object.
        js_sys::Promise::race(&js_sys::Array::of2(&reply, &chrome::sleep_ms(within)))
    };
    let value = JsFuture::from(reply).await?;
    Ok(if value.is_undefined() {
        channel.state.pending.borrow_mut().remove(&id);
        Answer::TimedOut
    } else if value.is_null() {
        if channel.state.greeted.get() { Answer::Gone } else { Answer::Absent }
    } else if value == JsValue::TRUE {
        // Kept in the page: taken now (a document that went meanwhile has nothing to give).
        match JsFuture::from(chrome::take_content_reply(tab, document, id as f64)).await {
            Ok(reply) if reply.is_object() => Answer::Replied(reply),
            _ => Answer::Gone,
        }
    } else {
        Answer::Replied(value)
    })
}
