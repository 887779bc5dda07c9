//! The service worker's side of the native port: one request at a time per id, replies routed
//! back to the awaiting future, and the host's status for the side panel.

use super::chrome::{self, Port};
use crate::agent::Llm;
use crate::panel::{HostStatus, host_missing};
use crate::protocol::{
    ErrorBody, ErrorCode, HOST_NAME, HelloData, HostEvent, HostFrame, LlmCompletion, LlmRequest,
    Request, RequestBody,
};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// A connected (or connectable) native host.
pub struct HostClient {
    port: RefCell<Option<Connection>>,
    next_id: Cell<u64>,
    pending: RefCell<HashMap<u64, js_sys::Function>>,
    status: RefCell<HostStatus>,
    on_status: RefCell<Option<Box<dyn Fn()>>>,
    on_event: RefCell<Option<EventHook>>,
}

/// What the worker does with the host's stream events.
type EventHook = Box<dyn Fn(HostEvent)>;

struct Connection {
    port: Port,
    _on_message: Closure<dyn FnMut(JsValue)>,
    _on_disconnect: Closure<dyn FnMut(JsValue)>,
}

impl HostClient {
    /// A client that connects on first use.
    pub fn new() -> Rc<Self> {
        Rc::new(Self {
            port: RefCell::new(None),
            next_id: Cell::new(1),
            pending: RefCell::new(HashMap::new()),
            status: RefCell::new(HostStatus::Unknown),
            on_status: RefCell::new(None),
            on_event: RefCell::new(None),
        })
    }

    /// Called whenever the status changes (the worker re-renders the panel).
    pub fn set_on_status(&self, f: impl Fn() + 'static) {
        *self.on_status.borrow_mut() = Some(Box::new(f));
    }

    /// Called with each stream event (retries, deltas) the host sends.
    pub fn set_on_event(&self, f: impl Fn(HostEvent) + 'static) {
        *self.on_event.borrow_mut() = Some(Box::new(f));
    }

    /// The host's status as last seen.
    pub fn status(&self) -> HostStatus {
        self.status.borrow().clone()
    }

    fn set_status(&self, status: HostStatus) {
        *self.status.borrow_mut() = status;
        if let Some(f) = &*self.on_status.borrow() {
            f();
        }
    }

    /// Connects if needed and exchanges `hello`; updates the status either way.
    pub async fn hello(self: &Rc<Self>) -> Result<HelloData, ErrorBody> {
        let data = self
            .request(RequestBody::Hello { extension_version: chrome::extension_version() })
            .await?;
        let hello: HelloData = serde_json::from_value(data).map_err(|e| ErrorBody {
            code: ErrorCode::BadJson,
            message: format!("unexpected hello reply: {e}"),
        })?;
        self.set_status(HostStatus::Connected {
            version: hello.host_version.clone(),
            llm: hello.llm.clone(),
        });
        Ok(hello)
    }

    /// Sends one request and waits for its reply.
    pub async fn request(
        self: &Rc<Self>,
        body: RequestBody,
    ) -> Result<serde_json::Value, ErrorBody> {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let frame = to_js(&Request::new(id, body)).map_err(unavailable)?;
        let mut resolve_slot = None;
        let promise = js_sys::Promise::new(&mut |resolve, _reject| resolve_slot = Some(resolve));
        if let Some(resolve) = resolve_slot {
            self.pending.borrow_mut().insert(id, resolve);
        }
        let sent = self.ensure_connected().and_then(|port| port.post_message(&frame));
        if let Err(e) = sent {
            self.pending.borrow_mut().remove(&id);
            return Err(unavailable(super::js_message(&e)));
        }
        let reply =
            JsFuture::from(promise).await.map_err(|e| unavailable(super::js_message(&e)))?;
        if let Some(message) = reply.as_string() {
            return Err(unavailable(message));
        }
        match serde_wasm_bindgen::from_value::<HostFrame>(reply) {
            Ok(HostFrame::Reply(frame)) => frame.reply.into_result(),
            Ok(HostFrame::Event(_)) => Err(unavailable("event routed as a reply")),
            Err(e) => Err(ErrorBody { code: ErrorCode::BadJson, message: e.to_string() }),
        }
    }

    fn ensure_connected(self: &Rc<Self>) -> Result<Port, JsValue> {
        if let Some(conn) = &*self.port.borrow() {
            return Ok(conn.port.clone());
        }
        let port = chrome::connect_native(HOST_NAME)?;
        let weak = Rc::downgrade(self);
        let on_message = Closure::<dyn FnMut(JsValue)>::new(move |msg: JsValue| {
            if let Some(this) = weak.upgrade() {
                this.on_frame(msg);
            }
        });
        let weak = Rc::downgrade(self);
        let on_disconnect = Closure::<dyn FnMut(JsValue)>::new(move |_port: JsValue| {
            if let Some(this) = weak.upgrade() {
                this.on_disconnect(chrome::last_error_message());
            }
        });
        port.on_message().add_listener(on_message.as_ref().unchecked_ref());
        port.on_disconnect().add_listener(on_disconnect.as_ref().unchecked_ref());
        *self.port.borrow_mut() = Some(Connection {
            port: port.clone(),
            _on_message: on_message,
            _on_disconnect: on_disconnect,
        });
        Ok(port)
    }

    fn on_frame(&self, msg: JsValue) {
        let id = js_sys::Reflect::get(&msg, &"id".into()).ok().and_then(|v| v.as_f64());
        let is_event = js_sys::Reflect::has(&msg, &"event".into()).unwrap_or(false);
        let Some(id) = id else { return };
        if is_event {
            // Streamed deltas are not shown yet (the reply carries the whole completion);
            // retries tell the panel the LLM is rate limited. Deltas are not decoded at all.
            let kind = js_sys::Reflect::get(&msg, &"event".into()).ok().and_then(|k| k.as_string());
            if kind.as_deref() == Some("llm.delta") {
                return;
            }
            if let (Some(f), Ok(frame)) = (
                &*self.on_event.borrow(),
                serde_wasm_bindgen::from_value::<crate::protocol::EventFrame>(msg),
            ) {
                f(frame.event);
            }
            return;
        }
        if let Some(resolve) = self.pending.borrow_mut().remove(&(id as u64)) {
            let _ = resolve.call1(&JsValue::NULL, &msg);
        }
    }

    fn on_disconnect(&self, reason: String) {
        self.port.borrow_mut().take();
        let reason = if reason.is_empty() { "Native host has exited.".to_owned() } else { reason };
        let pending: Vec<_> = self.pending.borrow_mut().drain().collect();
        for (_, resolve) in pending {
            let _ = resolve.call1(&JsValue::NULL, &JsValue::from_str(&reason));
        }
        self.set_status(host_missing(&reason));
    }
}

impl Llm for Rc<HostClient> {
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        let data = self.request(RequestBody::LlmComplete(request)).await?;
        serde_json::from_value(data).map_err(|e| ErrorBody {
            code: ErrorCode::LlmBadResponse,
            message: format!("the host's completion did not parse: {e}"),
        })
    }
}

fn unavailable(message: impl Into<String>) -> ErrorBody {
    ErrorBody { code: ErrorCode::HostUnavailable, message: message.into() }
}

/// Plain-object serialisation (maps as objects, u64 as numbers) for `postMessage`.
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, String> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| e.to_string())
}
