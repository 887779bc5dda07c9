//! One dispatch match over every request type, plus the envelope checks before it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinSet;
use waymark_protocol::{
    BridgeAck, ConfigSet, DoctorReport, ErrorCode, EventFrame, FileRead, HelloData, HostEvent,
    LlmCancelled, LlmCompletion, LlmRequest, LlmStatus, PROTOCOL_VERSION, ReplyFrame, Request,
    RequestBody, RequestType, TranscriptRecord, TranscriptRecorded,
};

use crate::config::{Config, ProcessEnv};
use crate::export::write_export;
use crate::framing::Inbound;
use crate::host::Outbox;
use crate::llm::{EventSink, Gateway};
use crate::transcript::TranscriptStore;

/// Request types this host serves, announced in `hello`: every type the protocol defines
/// (the dispatch match below is exhaustive, so a new type cannot be left unserved).
pub const CAPABILITIES: &[RequestType] = RequestType::ALL;

/// LLM requests still running, by id; whoever removes an entry owns the reply.
type InFlight = Arc<Mutex<HashMap<u64, oneshot::Sender<()>>>>;

/// Routes frames to handlers and tracks in-flight `llm.complete` calls for cancel.
pub struct Dispatcher {
    config: Arc<Result<Config, String>>,
    /// Built on the first `llm.complete` (HTTP clients cost start-up time), dropped on reload.
    gateway: Option<Result<Arc<Gateway>, String>>,
    transcripts: Option<TranscriptStore>,
    outbox: Outbox,
    in_flight: InFlight,
    tasks: JoinSet<()>,
    /// External agents' way in, while the worker keeps it open.
    bridge: crate::bridge::server::Bridge,
}

impl Dispatcher {
    /// A dispatcher replying through `outbox`. A config error is kept and reported per request.
    pub fn new(config: Arc<Result<Config, String>>, outbox: Outbox) -> Self {
        let transcripts =
            config.as_ref().as_ref().ok().map(|c| TranscriptStore::new(c.transcripts.clone()));
        Self {
            config,
            gateway: None,
            transcripts,
            outbox,
            in_flight: InFlight::default(),
            tasks: JoinSet::new(),
            bridge: crate::bridge::server::Bridge::default(),
        }
    }

    /// Periodic work: writes transcript lines that have waited since the last tick.
    pub fn tick(&mut self) {
        if let Some(t) = self.transcripts.as_mut().filter(|t| t.has_pending())
            && let Err(e) = t.flush()
        {
            // Kept pending: the next tick (or the store's drop) writes them.
            tracing::warn!(error = %e, "transcript lines not written yet");
        }
    }

    /// Handles one inbound item. Cheap requests are answered before the next frame is read;
    /// `llm.complete` runs as its own task so several can be in flight.
    pub async fn handle(&mut self, item: Inbound) {
        // Reap finished LLM tasks so the set does not grow for the port's lifetime.
        while self.tasks.try_join_next().is_some() {}
        let request = match item {
            Inbound::Frame(text) => match parse_request(&text) {
                Ok(r) => r,
                Err(reply) => return self.reply::<()>(reply),
            },
            Inbound::NotUtf8 => {
                return self.reply::<()>(ReplyFrame::err(
                    0,
                    ErrorCode::BadJson,
                    "frame is not UTF-8",
                ));
            }
            Inbound::TooLarge { len } => {
                let msg = format!("frame of {len} bytes exceeds the limit and was skipped");
                return self.reply::<()>(ReplyFrame::err(0, ErrorCode::FrameTooLarge, msg));
            }
            Inbound::End(_) => return,
        };
        let id = request.id;
        tracing::debug!(id, kind = %request.body.request_type(), "request");
        match request.body {
            RequestBody::Hello(hello) => {
                tracing::info!(extension_version = %hello.extension_version, "hello");
                self.reply(ReplyFrame::ok(id, self.hello(&hello.extension_version)));
            }
            RequestBody::Echo(echo) => self.reply(ReplyFrame::ok(id, echo)),
            RequestBody::LlmComplete(req) => self.start_llm(id, req),
            RequestBody::LlmCancel(cancel) => self.cancel(id, cancel.target),
            RequestBody::ExportWrite(req) => {
                let reply = match self.config.as_ref() {
                    Ok(cfg) => {
                        let dir = cfg.export_dir.clone();
                        match tokio::task::spawn_blocking(move || write_export(&dir, &req)).await {
                            Ok(Ok(written)) => ReplyFrame::ok(id, written),
                            Ok(Err(e)) => {
                                ReplyFrame::err(id, ErrorCode::ExportFailed, e.to_string())
                            }
                            Err(e) => ReplyFrame::err(id, ErrorCode::Internal, e.to_string()),
                        }
                    }
                    Err(e) => ReplyFrame::err(id, ErrorCode::ExportFailed, e.clone()),
                };
                self.reply(reply);
            }
            RequestBody::ConfigGet(_) => {
                self.reply(ReplyFrame::ok(id, crate::settings::view(&self.config)));
            }
            RequestBody::ConfigSet(req) => self.config_set(id, &req).await,
            RequestBody::TranscriptRecord(req) => self.transcript(id, req),
            RequestBody::FileRead(req) => self.file_read(id, req),
            RequestBody::Doctor(_) => self.doctor(id),
            RequestBody::BridgeOpen(req) => {
                match self.bridge.open(id, &req.label, self.outbox.clone(), &ProcessEnv) {
                    Ok(serve) => {
                        self.tasks.spawn(serve);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "the bridge did not open");
                        self.reply(crate::bridge::server::open_failed(id, &e));
                    }
                }
            }
            RequestBody::BridgeAnswer(req) => {
                self.reply(if self.bridge.answer(req.call, req.result) {
                    ReplyFrame::ok(id, BridgeAck {})
                } else {
                    ReplyFrame::err(id, ErrorCode::BridgeGone, "no one waits for that call")
                });
            }
            RequestBody::BridgeProgress(req) => {
                self.reply(if self.bridge.progress(req) {
                    ReplyFrame::ok(id, BridgeAck {})
                } else {
                    ReplyFrame::err(id, ErrorCode::BridgeGone, "no one waits for that call")
                });
            }
            RequestBody::BridgeDisconnect(req) => {
                self.reply(if self.bridge.disconnect(req.client) {
                    ReplyFrame::ok(id, BridgeAck {})
                } else {
                    ReplyFrame::err(id, ErrorCode::BridgeGone, "that client is gone already")
                });
            }
            RequestBody::BridgeClose(_) => {
                let was_open = self.bridge.close();
                tracing::info!(was_open, "bridge closed by the extension");
                self.reply(ReplyFrame::ok(id, BridgeAck {}));
            }
        }
    }

    /// Stops in-flight calls (nobody is listening any more), waits for them to end, and
    /// writes buffered transcript lines.
    pub async fn shutdown(mut self) {
        self.tasks.shutdown().await;
        if let Some(t) = self.transcripts.as_mut()
            && let Err(e) = t.flush()
        {
            tracing::warn!(%e, "transcript lines lost at exit");
        }
    }

    async fn config_set(&mut self, id: u64, req: &ConfigSet) {
        let settings = req.settings.clone();
        let result =
            tokio::task::spawn_blocking(move || crate::settings::apply(&settings, &ProcessEnv))
                .await;
        let cfg = match result {
            Ok(Ok(cfg)) => cfg,
            Ok(Err(e)) => {
                return self.reply::<()>(ReplyFrame::err(
                    id,
                    ErrorCode::ConfigInvalid,
                    e.to_string(),
                ));
            }
            Err(e) => {
                return self.reply::<()>(ReplyFrame::err(id, ErrorCode::Internal, e.to_string()));
            }
        };
        tracing::info!(keys = ?req.settings.iter().map(|s| s.key().to_string()).collect::<Vec<_>>(), "settings changed by the extension");
        // Calls in flight keep the old gateway; the next one uses the new settings.
        self.tick();
        self.transcripts = Some(TranscriptStore::new(cfg.transcripts.clone()));
        self.gateway = None;
        self.config = Arc::new(Ok(cfg));
        self.reply(ReplyFrame::ok(id, crate::settings::view(&self.config)));
    }

    fn transcript(&mut self, id: u64, req: TranscriptRecord) {
        let reply = match self.transcripts.as_mut() {
            None => ReplyFrame::err(
                id,
                ErrorCode::TranscriptFailed,
                self.config.as_ref().as_ref().err().cloned().unwrap_or_default(),
            ),
            Some(store) => {
                let enabled = store.enabled();
                match store.record(&req.session_id, req.events) {
                    Ok(accepted) => ReplyFrame::ok(id, TranscriptRecorded { enabled, accepted }),
                    Err(e) => ReplyFrame::err(id, ErrorCode::TranscriptFailed, e.to_string()),
                }
            }
        };
        self.reply(reply);
    }

    fn file_read(&mut self, id: u64, req: FileRead) {
        let files = match self.config.as_ref() {
            Ok(cfg) => cfg.files.clone(),
            Err(e) => {
                return self.reply::<()>(ReplyFrame::err(id, ErrorCode::NotConfigured, e.clone()));
            }
        };
        let outbox = self.outbox.clone();
        // Its own task so a large file does not hold up other requests; the chunks and then
        // the reply go out from this one task, in order.
        self.tasks.spawn(async move {
            let out = outbox.clone();
            let result = tokio::task::spawn_blocking(move || {
                crate::files::read_chunked(&req.path, &files, |seq, data| {
                    out.event(EventFrame::new(id, HostEvent::FileChunk { seq, data }));
                })
            })
            .await;
            let reply = match result {
                Ok(Ok(info)) => ReplyFrame::ok(id, info),
                Ok(Err(e)) => ReplyFrame::err(id, e.code(), e.to_string()),
                Err(e) => ReplyFrame::err(id, ErrorCode::Internal, e.to_string()),
            };
            outbox.reply(reply);
        });
    }

    /// Runs the doctor's checks on a thread of their own (they make network calls with long
    /// failure bounds; other requests keep being answered meanwhile). A plain detached thread,
    /// not `spawn_blocking`: the host must exit at once when the browser closes the port, even
    /// with checks still waiting on an endpoint.
    fn doctor(&mut self, id: u64) {
        let outbox = self.outbox.clone();
        let (tx, rx) = oneshot::channel();
        let started = std::thread::Builder::new().name("doctor".into()).spawn(move || {
            let report =
                tokio::runtime::Builder::new_current_thread().enable_all().build().map(|runtime| {
                    let opts = crate::doctor::DoctorOptions {
                        from_browser: true,
                        ..crate::doctor::DoctorOptions::default()
                    };
                    DoctorReport {
                        checks: runtime.block_on(crate::doctor::run(&opts, &ProcessEnv)),
                    }
                });
            #[allow(
                clippy::let_underscore_must_use,
                reason = "the request may have timed out: no one waits for the report then"
            )]
            let _ = tx.send(report);
        });
        if let Err(e) = started {
            return self.reply::<()>(ReplyFrame::err(id, ErrorCode::Internal, e.to_string()));
        }
        self.tasks.spawn(async move {
            let reply = match rx.await {
                Ok(Ok(report)) => ReplyFrame::ok(id, report),
                Ok(Err(e)) => ReplyFrame::err(id, ErrorCode::Internal, e.to_string()),
                Err(e) => ReplyFrame::err(id, ErrorCode::Internal, e.to_string()),
            };
            outbox.reply(reply);
        });
    }

    fn reply<T: serde::Serialize>(&self, reply: ReplyFrame<T>) {
        self.outbox.reply(reply);
    }

    /// The `hello` reply; an extension older than this host works with gets a problem line
    /// saying so (the extension checks the other direction with the same rule).
    fn hello(&self, extension_version: &str) -> HelloData {
        let llm = match self.config.as_ref() {
            Ok(cfg) => cfg.llm.status(),
            Err(_) => LlmStatus {
                provider: "unconfigured".into(),
                base_url: String::new(),
                model: String::new(),
                has_key: false,
                max_tokens: None,
            },
        };
        HelloData {
            host_version: crate::HOST_VERSION.into(),
            protocol: PROTOCOL_VERSION,
            capabilities: CAPABILITIES.to_vec(),
            llm,
            problems: crate::settings::problems(&self.config)
                .into_iter()
                .chain(extension_outdated(extension_version, crate::HOST_VERSION))
                .collect(),
        }
    }

    fn gateway(&mut self) -> Result<Arc<Gateway>, String> {
        let config = &self.config;
        self.gateway
            .get_or_insert_with(|| match config.as_ref() {
                Ok(cfg) => Gateway::from_config(cfg).map(Arc::new).map_err(|e| e.to_string()),
                Err(e) => Err(e.clone()),
            })
            .clone()
    }

    fn start_llm(&mut self, id: u64, req: LlmRequest) {
        let gateway = match self.gateway() {
            Ok(g) => g,
            Err(e) => return self.reply::<()>(ReplyFrame::err(id, ErrorCode::NotConfigured, e)),
        };
        let (cancel_tx, cancel_rx) = oneshot::channel();
        {
            let mut map = self.in_flight.lock().unwrap_or_else(PoisonError::into_inner);
            if map.contains_key(&id) {
                drop(map);
                let msg = format!("request id {id} is already in flight");
                return self.reply::<()>(ReplyFrame::err(id, ErrorCode::BadRequest, msg));
            }
            // Registered before the task starts, so a fast task always finds itself.
            map.insert(id, cancel_tx);
        }
        let ctx =
            RequestCtx { id, outbox: self.outbox.clone(), in_flight: Arc::clone(&self.in_flight) };
        self.tasks.spawn(async move {
            let result = tokio::select! {
                r = gateway.complete(&req, &ctx) => r,
                _ = cancel_rx => return,
            };
            let reply = match result {
                Ok(done) => ReplyFrame::ok(id, done),
                Err(e) => ReplyFrame::<LlmCompletion>::error(id, e.body()),
            };
            ctx.finish(reply);
        });
    }

    /// Ends an in-flight `llm.complete`: its task drops the call's future (and with it the
    /// upstream HTTP request or stream, so the endpoint stops generating), and the call is
    /// answered `cancelled` here, at once.
    fn cancel(&self, id: u64, target: u64) {
        let entry = self.in_flight.lock().unwrap_or_else(PoisonError::into_inner).remove(&target);
        let cancelled = match entry {
            Some(stop) => {
                tracing::info!(request = target, "llm call cancelled by the extension");
                #[allow(
                    clippy::let_underscore_must_use,
                    reason = "the call may have just ended: then there is nothing to stop"
                )]
                let _ = stop.send(());
                let msg = format!("request {target} was cancelled by the extension");
                self.reply::<()>(ReplyFrame::err(target, ErrorCode::Cancelled, msg));
                true
            }
            None => false,
        };
        self.reply(ReplyFrame::ok(id, LlmCancelled { cancelled }));
    }
}

/// Sends an LLM request's events and reply, but only while it is still in flight, so nothing
/// follows the `cancelled` reply that `llm.cancel` sent in its place.
struct RequestCtx {
    id: u64,
    outbox: Outbox,
    in_flight: InFlight,
}

impl RequestCtx {
    fn event(&self, event: HostEvent) {
        // The lock is held while queueing so a concurrent cancel cannot slip in between.
        let map = self.in_flight.lock().unwrap_or_else(PoisonError::into_inner);
        if map.contains_key(&self.id) {
            self.outbox.event(EventFrame::new(self.id, event));
        }
    }

    fn finish(self, reply: ReplyFrame<LlmCompletion>) {
        let mut map = self.in_flight.lock().unwrap_or_else(PoisonError::into_inner);
        if map.remove(&self.id).is_some() {
            self.outbox.reply(reply);
        }
    }
}

/// A model call whose task ended without answering — it panicked (a bug in the host: tokio
/// keeps the panic inside the task and drops it) — is answered `internal` here, so the
/// extension's call ends with an error it reports instead of waiting for a reply that would
/// never come. A finished or cancelled call is no longer in flight: nothing more is sent.
impl Drop for RequestCtx {
    fn drop(&mut self) {
        let mut map = self.in_flight.lock().unwrap_or_else(PoisonError::into_inner);
        if map.remove(&self.id).is_some() {
            tracing::error!(request = self.id, "a model call's task ended without an answer");
            self.outbox.reply(ReplyFrame::<()>::err(
                self.id,
                ErrorCode::Internal,
                "the Waymark host failed while handling this call (a bug: its log has the \
                 details); the call was not completed",
            ));
        }
    }
}

impl EventSink for RequestCtx {
    fn delta(&self, text: &str) {
        self.event(HostEvent::LlmDelta { text: text.to_owned() });
    }

    fn retry(&self, attempt: u32, delay: Duration, code: ErrorCode, reason: &str) {
        let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self.event(HostEvent::LlmRetry { attempt, delay_ms, code, reason: reason.to_owned() });
    }
}

/// The problem line for an extension too old for this host (see
/// [`waymark_protocol::compatibility`]).
fn extension_outdated(extension_version: &str, host_version: &str) -> Option<String> {
    match waymark_protocol::compatibility(extension_version, host_version) {
        waymark_protocol::Compatibility::ExtensionOutdated { extension, needed } => {
            tracing::warn!(%extension, %needed, "the extension is older than this host supports");
            Some(format!(
                "This Waymark extension ({extension}) is older than the host supports ({needed} \
                 or later): update the extension from the Chrome Web Store (or load the newer \
                 release's zip)."
            ))
        }
        _ => None,
    }
}

/// Checks the envelope and decodes a request, or builds the error reply for it.
///
/// The id is recovered from the raw JSON whenever possible so even a rejected request gets an
/// answer the extension can correlate; 0 means the id itself was unreadable.
pub fn parse_request(text: &str) -> Result<Request, ReplyFrame<()>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        ReplyFrame::err(0, ErrorCode::BadJson, format!("frame is not valid JSON: {e}"))
    })?;
    let Some(obj) = value.as_object() else {
        return Err(ReplyFrame::err(0, ErrorCode::BadRequest, "a request must be a JSON object"));
    };
    let id = obj.get("id").and_then(Value::as_u64).unwrap_or(0);
    match obj.get("v").and_then(Value::as_u64) {
        Some(v) if v == u64::from(PROTOCOL_VERSION) => {}
        Some(v) => {
            let msg = format!(
                "the extension speaks protocol {v} but this host speaks {PROTOCOL_VERSION}; \
                 update both to the same Waymark release"
            );
            return Err(ReplyFrame::err(id, ErrorCode::VersionMismatch, msg));
        }
        None => {
            return Err(ReplyFrame::err(id, ErrorCode::BadRequest, "missing protocol version `v`"));
        }
    }
    serde_json::from_value(value)
        .map_err(|e| ReplyFrame::err(id, ErrorCode::BadRequest, format!("invalid request: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_call_whose_task_panics_is_answered_with_an_error() {
        let (outbox, mut frames) = Outbox::for_test();
        let in_flight: InFlight = Arc::default();
        let (cancel, _kept) = oneshot::channel();
        in_flight.lock().expect("lock").insert(7, cancel);
        let ctx = RequestCtx { id: 7, outbox, in_flight: Arc::clone(&in_flight) };
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            let _held = ctx;
            panic!("a bug while reading the model's stream");
        }));
        assert!(panicked.is_err());
        let frame = frames.try_recv().expect("a reply was sent");
        let reply: Value = serde_json::from_slice(&frame[4..]).expect("json");
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["ok"], false);
        assert_eq!(reply["error"]["code"], "internal");
        assert!(in_flight.lock().expect("lock").is_empty(), "no longer in flight");
        assert!(frames.try_recv().is_err(), "one reply");
    }

    #[test]
    fn a_model_call_that_finishes_is_answered_once() {
        let (outbox, mut frames) = Outbox::for_test();
        let in_flight: InFlight = Arc::default();
        let (cancel, _kept) = oneshot::channel();
        in_flight.lock().expect("lock").insert(8, cancel);
        let ctx = RequestCtx { id: 8, outbox, in_flight };
        ctx.finish(ReplyFrame::<LlmCompletion>::err(8, ErrorCode::LlmHttp, "500"));
        assert!(frames.try_recv().is_ok());
        assert!(frames.try_recv().is_err(), "dropping the finished call sends nothing more");
    }

    #[test]
    fn hello_tells_an_extension_two_releases_behind_to_update_and_no_one_else() {
        let line = extension_outdated("0.1.0", "0.3.0").expect("outdated");
        assert!(
            line.contains("0.1.0")
                && line.contains("0.2.0")
                && line.contains("update the extension")
        );
        assert_eq!(extension_outdated("0.2.0", "0.3.0"), None, "the previous release works");
        assert_eq!(extension_outdated("0.4.0", "0.3.0"), None, "the extension judges a newer one");
    }
    use waymark_protocol::Reply;

    fn code(r: Result<Request, ReplyFrame<()>>) -> (u64, ErrorCode) {
        let frame = r.expect_err("must be rejected");
        match frame.reply {
            Reply::Err { error, .. } => (frame.id, error.code),
            Reply::Ok { .. } => panic!("not an error"),
        }
    }

    #[test]
    fn envelope_errors_carry_the_best_id_known() {
        assert_eq!(code(parse_request("{nope")), (0, ErrorCode::BadJson));
        assert_eq!(code(parse_request("[1]")), (0, ErrorCode::BadRequest));
        assert_eq!(code(parse_request(r#"{"v":1,"id":4,"type":"x"}"#)), (4, ErrorCode::BadRequest));
        assert_eq!(
            code(parse_request(r#"{"v":1,"id":5,"type":"echo"}"#)),
            (5, ErrorCode::BadRequest)
        );
        assert_eq!(code(parse_request(r#"{"id":6,"type":"echo"}"#)), (6, ErrorCode::BadRequest));
        assert_eq!(
            code(parse_request(r#"{"v":2,"id":7,"type":"hello","extension_version":"9"}"#)),
            (7, ErrorCode::VersionMismatch)
        );
    }

    #[test]
    fn valid_request_parses() {
        let r = parse_request(r#"{"v":1,"id":3,"type":"echo","payload":"12"}"#).expect("ok");
        assert_eq!(r.id, 3);
        assert_eq!(r.body.request_type(), RequestType::Echo);
        let doctor = parse_request(r#"{"v":1,"id":9,"type":"doctor"}"#).expect("doctor");
        assert_eq!(doctor.body, RequestBody::Doctor(waymark_protocol::Doctor {}));
        assert!(CAPABILITIES.contains(&doctor.body.request_type()), "doctor is announced");
    }
}
