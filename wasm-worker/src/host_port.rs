//! The service worker's side of the native port: one request at a time per id, replies routed
//! back to the awaiting future, and the host's status for the side panel.

use super::chrome::{self, Port};

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use waymark_core::host_retry::{Reconnect, with_reconnect};
use waymark_core::panel::{HostStatus, host_missing};
use waymark_protocol::{
    ErrorBody, ErrorCode, EventFrame, HOST_NAME, Hello, HelloData, HostEvent, HostRequest,
    LlmCancel, LlmCompletion, LlmRequest, ReplyFrame, Request, RequestBody, RequestType,
};

/// A connected (or connectable) native host.
pub struct HostClient {
    port: RefCell<Option<Connection>>,
    next_id: Cell<u64>,
    pending: RefCell<HashMap<u64, js_sys::Function>>,
    /// Stream events of requests that asked for them (`file.chunk`), by request id.
    listeners: RefCell<HashMap<u64, EventListener>>,
    status: RefCell<HostStatus>,
    on_status: RefCell<Option<Box<dyn Fn()>>>,
    /// Told when an LLM call is retried after the host went away (the task's timeline shows it).
    on_retry: RefCell<Option<RetryNote>>,
}

/// Receives a note for the user when an LLM call is sent again on a new host process.
type RetryNote = Box<dyn Fn(String)>;

/// Receives the stream events of one request, in order.
type EventListener = Rc<RefCell<dyn FnMut(HostEvent)>>;

/// Pause before reconnecting, so a host that is being replaced has time to go.
const RECONNECT_DELAY_MS: u32 = 300;

struct Connection {
    port: Port,
    /// The host answered on this port at least once (so a disconnect is a crash or a kill,
    /// not a host that cannot start).
    answered: Cell<bool>,
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
            listeners: RefCell::new(HashMap::new()),
            status: RefCell::new(HostStatus::Unknown),
            on_status: RefCell::new(None),
            on_retry: RefCell::new(None),
        })
    }

    /// Called with a note for the user whenever an LLM call is retried on a new host process.
    pub fn set_on_retry(&self, f: impl Fn(String) + 'static) {
        *self.on_retry.borrow_mut() = Some(Box::new(f));
    }

    /// Called whenever the status changes (the worker re-renders the panel).
    pub fn set_on_status(&self, f: impl Fn() + 'static) {
        *self.on_status.borrow_mut() = Some(Box::new(f));
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
        let hello: HelloData =
            self.request(Hello { extension_version: chrome::extension_version() }).await?;
        self.set_status(waymark_core::panel::setup::after_hello(
            &chrome::extension_version(),
            &hello,
        ));
        Ok(hello)
    }

    /// [`Self::hello`] where the caller only needs the status updated: a failure is already
    /// in the status the panel shows (or in the caller's next request), and is logged.
    pub async fn refresh(self: &Rc<Self>) {
        if let Err(e) = self.hello().await {
            tracing::warn!(code = %e.code, message = %e.message, "the host did not answer hello");
        }
    }

    /// Sends one request and waits for its reply, read as the type that request answers.
    pub async fn request<R: HostRequest>(
        self: &Rc<Self>,
        request: R,
    ) -> Result<R::Reply, ErrorBody> {
        self.request_inner::<R>(request.into(), None).await
    }

    /// Sends one request whose stream events go to `on_event` (in order) until its reply.
    pub async fn request_with_events<R: HostRequest>(
        self: &Rc<Self>,
        request: R,
        on_event: impl FnMut(HostEvent) + 'static,
    ) -> Result<R::Reply, ErrorBody> {
        self.request_inner::<R>(request.into(), Some(Rc::new(RefCell::new(on_event)))).await
    }

    async fn request_inner<R: HostRequest>(
        self: &Rc<Self>,
        body: RequestBody,
        listener: Option<EventListener>,
    ) -> Result<R::Reply, ErrorBody> {
        let id = self.next_id();
        // Whatever ends this future (its reply, or being dropped unfinished) forgets the request.
        let _in_flight =
            InFlight { client: self, id, cancel_at_host: R::TYPE == RequestType::LlmComplete };
        if let Some(listener) = listener {
            self.listeners.borrow_mut().insert(id, listener);
        }
        let reply = self.send_and_wait(id, body).await?;
        let frame = serde_wasm_bindgen::from_value::<ReplyFrame<R::Reply>>(reply).map_err(|e| {
            ErrorBody::new(
                ErrorCode::BadReply,
                format!("the host's reply to {} did not decode: {e}", R::TYPE),
            )
        })?;
        frame.reply.into_result()
    }

    fn next_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    /// Tells the host to abandon the model call `target` (its upstream HTTP request ends, no
    /// more tokens are spent). The host's replies to both requests find no one waiting and are
    /// dropped. Without a port there is nothing to cancel: the host process is gone.
    fn cancel_at_host(&self, target: u64) {
        let Some(port) = self.port.borrow().as_ref().map(|c| c.port.clone()) else { return };
        let id = self.next_id();
        // A port that fails to post is closing: the host sees EOF and drops every call anyway.
        let sent = waymark_page::js::to_js(&Request::new(id, LlmCancel { target }))
            .map_err(|e| e.to_string())
            .and_then(|frame| port.post_message(&frame).map_err(|e| super::js_message(&e)));
        if let Err(e) = sent {
            tracing::debug!(error = %e, "cancel not sent: the host port is closing");
        }
    }

    /// Sends a request and waits for the frame that answers it, undecoded (its type is the
    /// caller's to know).
    async fn send_and_wait(
        self: &Rc<Self>,
        id: u64,
        body: RequestBody,
    ) -> Result<JsValue, ErrorBody> {
        let frame = waymark_page::js::to_js(&Request::new(id, body))
            .map_err(|e| unavailable(e.to_string()))?;
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
        Ok(reply)
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
            answered: Cell::new(false),
            _on_message: on_message,
            _on_disconnect: on_disconnect,
        });
        Ok(port)
    }

    /// Closes the native port at once, the host process exiting on its EOF: for an instance
    /// that is crashing, whose listeners will never run again (the fresh instance connects
    /// its own host). Does nothing while the port's state is borrowed by the crashed code.
    pub fn close_now(&self) {
        if let Ok(conn) = self.port.try_borrow()
            && let Some(conn) = conn.as_ref()
        {
            conn.port.disconnect();
        }
    }

    fn on_frame(&self, msg: JsValue) {
        if let Some(conn) = &*self.port.borrow() {
            conn.answered.set(true);
        }
        let id = js_sys::Reflect::get(&msg, &"id".into()).ok().and_then(|v| v.as_f64());
        let is_event = js_sys::Reflect::has(&msg, &"event".into()).unwrap_or(false);
        let Some(id) = id else { return };
        if is_event {
            // Events go to the request's listener (streamed text, retries, file chunks); a
            // request without one is not told, and its events are not even decoded.
            let listener = self.listeners.borrow().get(&(id as u64)).cloned();
            if let Some(listener) = listener
                && let Ok(frame) = serde_wasm_bindgen::from_value::<EventFrame>(msg)
            {
                (listener.borrow_mut())(frame.event);
            }
            return;
        }
        if let Some(resolve) = self.pending.borrow_mut().remove(&(id as u64)) {
            settle(&resolve, &msg);
        }
    }

    fn on_disconnect(&self, reason: String) {
        let answered = self.port.borrow_mut().take().is_some_and(|c| c.answered.get());
        let reason = if reason.is_empty() { "Native host has exited.".to_owned() } else { reason };
        let pending: Vec<_> = self.pending.borrow_mut().drain().collect();
        for (_, resolve) in pending {
            settle(&resolve, &JsValue::from_str(&reason));
        }
        self.set_status(if answered {
            host_stopped(&reason)
        } else {
            host_missing(super::chrome_error::native_host_error(&reason), &reason)
        });
    }
}

/// Resolves a waiting request's promise with its reply (or the reason the host went away).
fn settle(resolve: &js_sys::Function, value: &JsValue) {
    // `resolve` is a Promise's own resolve function, which does not throw; a failure would be
    // broken glue, and the request would then wait for its timeout.
    if let Err(e) = resolve.call1(&JsValue::NULL, value) {
        tracing::error!(error = %super::js_message(&e), "a host request could not be resolved");
    }
}

impl HostClient {
    /// One completion whose events (streamed text piece by piece, rate-limit retries) go to
    /// `on_event` as they arrive (the side panel shows them), sent again on a new host process
    /// like every host call (see [`waymark_core::host_retry`]).
    pub async fn complete_with_events(
        self: &Rc<Self>,
        request: LlmRequest,
        on_event: Rc<dyn Fn(HostEvent)>,
    ) -> Result<LlmCompletion, ErrorBody> {
        with_reconnect(&Reconnecting(self), "a model call", || {
            let on_event = on_event.clone();
            self.request_with_events(request.clone(), move |event| on_event(event))
        })
        .await
    }
}

/// The host as [`with_reconnect`] sees it: a call that failed because the host went away is
/// sent again once a new host process answers `hello`.
pub struct Reconnecting<'a>(pub &'a Rc<HostClient>);

impl Reconnect for Reconnecting<'_> {
    async fn reconnect(&self) -> bool {
        // A moment for a host that is being replaced to go.
        chrome::sleep(RECONNECT_DELAY_MS).await;
        self.0.hello().await.is_ok()
    }

    fn note(&self, text: String) {
        if let Some(note) = &*self.0.on_retry.borrow() {
            note(text);
        }
    }
}

/// A request waiting for its reply. Dropped before the reply came (the caller gave up: the user
/// stopped the task, the worker moved on), it forgets the request and, for a model call, has the
/// host cancel it, so the upstream request stops spending time and tokens. A Drop guard rather
/// than a call at each place that gives up: any drop cancels.
struct InFlight<'a> {
    client: &'a HostClient,
    id: u64,
    /// The request is an `llm.complete` the host can cancel.
    cancel_at_host: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.client.listeners.borrow_mut().remove(&self.id);
        // Still pending: no reply came and the port did not go away (both remove the entry).
        let unanswered = self.client.pending.borrow_mut().remove(&self.id).is_some();
        if unanswered && self.cancel_at_host {
            self.client.cancel_at_host(self.id);
        }
    }
}

/// The status after a host that was working went away (crashed, killed, replaced): the next
/// request starts a new one, so the user need not do anything unless it keeps happening.
fn host_stopped(browser_error: &str) -> HostStatus {
    HostStatus::Missing {
        message: format!(
            "The Waymark host stopped ({browser_error}); Waymark starts it again with the next \
             request."
        ),
        fix: "If this keeps happening, run `waymark-host doctor` in a terminal.".to_owned(),
    }
}

fn unavailable(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorCode::HostUnavailable, message)
}

/// The host as the core's platform trait sees it.
#[derive(Clone)]
pub(crate) struct HostLink(pub Rc<HostClient>);

impl waymark_core::platform::Host for HostLink {
    async fn request<R: HostRequest>(&self, request: R) -> Result<R::Reply, ErrorBody> {
        self.0.request(request).await
    }

    async fn refresh(&self) {
        self.0.refresh().await;
    }
}
