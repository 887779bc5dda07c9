//! A scripted LLM server on `127.0.0.1:0` speaking the real OpenAI chat-completions and Anthropic
//! Messages wire formats.
//!
//! Why: end-to-end tests must exercise Waymark's real HTTP client (the native host) against the
//! real wire format, including streaming, tool calls and failures, while each test decides every
//! reply deterministically. A per-test *script* (a closure) sees each recorded request and returns a
//! [`ScriptedReply`]; the server renders it in the wire format of the request (OpenAI for
//! `/v1/chat/completions`, Anthropic for `/v1/messages`) and in streaming (SSE) or plain JSON form
//! depending on the request's `stream` flag. Every request is recorded for assertions.
//!
//! The server runs on its own thread with its own Tokio runtime, so tests stay plain sync
//! `#[test]`s; dropping the [`ScriptedLlm`] stops it.
//!
//! ```no_run
//! use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
//! let llm = ScriptedLlm::start(|req| match req.index {
//!     0 => ScriptedReply::error(500, "overloaded"),
//!     _ => ScriptedReply::tool_call("fill", serde_json::json!({"target": 3, "text": "Ada"})),
//! })
//! .expect("start scripted LLM");
//! println!("point the host at {}", llm.base_url());
//! ```

use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Result, bail};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::oneshot;

pub use cache::CacheReport;
use cache::{CacheCounts, PromptCache};

mod cache;

/// Which wire format a request arrived in; replies are rendered in the same one.
///
/// Why: the same per-test script drives both providers, so tests of the Anthropic path reuse the
/// scripts written for OpenAI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    /// OpenAI chat completions: `POST /v1/chat/completions`, `Authorization: Bearer …`.
    OpenAi,
    /// Anthropic Messages: `POST /v1/messages`, `x-api-key`, `anthropic-version`.
    Anthropic,
}

/// One HTTP request the server received, as the script and the assertions see it.
///
/// Why: tests assert on what Waymark actually sent (prompt contents, tools offered, headers such as
/// the API key) and scripts branch on it (call number, last user text).
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// 0-based number of this completion call (models listings and unknown paths are not counted).
    pub index: usize,
    /// Wire format inferred from the path (and, for `/v1/models`, from the headers).
    pub format: WireFormat,
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Request path without the query, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers with lower-cased names, in arrival order.
    pub headers: Vec<(String, String)>,
    /// Parsed JSON body, or `Value::Null` when the body is empty or not JSON.
    pub body: Value,
    /// The body exactly as received (lossy UTF-8).
    pub raw_body: String,
}

impl RecordedRequest {
    /// First value of header `name` (case-insensitive), e.g. to check the API key that was sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// Whether the client asked for a streamed (SSE) reply.
    pub fn is_stream(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    /// Whether an OpenAI client asked for the trailing usage chunk (`stream_options.include_usage`).
    pub fn include_usage(&self) -> bool {
        self.body.pointer("/stream_options/include_usage").and_then(Value::as_bool) == Some(true)
    }

    /// The requested model name, if any.
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// The `messages` array (empty when absent).
    pub fn messages(&self) -> &[Value] {
        self.body.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Names of the tools offered in the request, in order (OpenAI `tools[].function.name` or
    /// Anthropic `tools[].name`).
    pub fn tool_names(&self) -> Vec<String> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| {
                        t.pointer("/function/name")
                            .or_else(|| t.get("name"))
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Text of the last message with role `user` (string content or the text parts of an array),
    /// ignoring Anthropic `tool_result` blocks. Scripts typically branch on it.
    pub fn last_user_text(&self) -> Option<String> {
        self.messages()
            .iter()
            .rev()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .map(|m| content_text(m.get("content").unwrap_or(&Value::Null), false))
            .find(|t| !t.is_empty())
    }

    /// All text in the request: system prompt, every message's content (including tool results and
    /// tool-call arguments), joined by newlines. Handy for `contains` assertions on the prompt.
    pub fn all_text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(system) = self.body.get("system") {
            parts.push(content_text(system, true));
        }
        for m in self.messages() {
            if let Some(c) = m.get("content") {
                parts.push(content_text(c, true));
            }
            if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
                for call in calls {
                    if let Some(f) = call.get("function") {
                        parts.push(format!(
                            "{}({})",
                            f.get("name").and_then(Value::as_str).unwrap_or_default(),
                            f.get("arguments").and_then(Value::as_str).unwrap_or_default()
                        ));
                    }
                }
            }
        }
        parts.retain(|p| !p.is_empty());
        parts.join("\n")
    }

    /// Contents of the tool results sent back in this request (OpenAI `role: tool` messages and
    /// Anthropic `tool_result` blocks), in order, as `(tool_call_id, text)`.
    pub fn tool_results(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for m in self.messages() {
            if m.get("role").and_then(Value::as_str) == Some("tool") {
                out.push((
                    str_field(m, "tool_call_id"),
                    content_text(m.get("content").unwrap_or(&Value::Null), true),
                ));
            }
            if let Some(blocks) = m.get("content").and_then(Value::as_array) {
                for b in blocks {
                    if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                        out.push((
                            str_field(b, "tool_use_id"),
                            content_text(b.get("content").unwrap_or(&Value::Null), true),
                        ));
                    }
                }
            }
        }
        out
    }
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// Text of a message `content` in any of the shapes both APIs allow.
fn content_text(content: &Value, include_tools: bool) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p.get("type").and_then(Value::as_str) {
                Some("text") | None => p.get("text").and_then(Value::as_str).map(str::to_owned),
                Some("tool_result") if include_tools => {
                    Some(content_text(p.get("content").unwrap_or(&Value::Null), true))
                }
                Some("tool_use") if include_tools => Some(format!(
                    "{}({})",
                    p.get("name").and_then(Value::as_str).unwrap_or_default(),
                    p.get("input").map(Value::to_string).unwrap_or_default()
                )),
                _ => None,
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// One tool call the scripted model makes.
///
/// Why: arguments are kept as the raw JSON *string* the wire carries, so a test can also send
/// malformed arguments; [`ScriptedReply::tool_call`] builds them from any `Serialize` value.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// Function name.
    pub name: String,
    /// Arguments as a JSON text (normally an object).
    pub arguments: String,
}

/// What the scripted model answers to one request.
///
/// Why: one format-neutral value per reply keeps scripts short; the server renders it as OpenAI or
/// Anthropic, streamed or not, as the request asked.
#[derive(Debug, Clone)]
pub enum ScriptedReply {
    /// A plain assistant text answer (`finish_reason: stop` / `stop_reason: end_turn`).
    Text(String),
    /// Tool calls, optionally preceded by assistant text
    /// (`finish_reason: tool_calls` / `stop_reason: tool_use`).
    ToolCalls {
        /// Assistant text sent before the calls, if any.
        text: Option<String>,
        /// The calls, in order.
        calls: Vec<ToolCall>,
    },
    /// A non-200 status with a body (e.g. 500, 401, 429), optionally with `Retry-After` seconds.
    Status {
        /// HTTP status code.
        code: u16,
        /// Response body, sent verbatim with `Content-Type: application/json`.
        body: String,
        /// Value of a `Retry-After` header in seconds, if any.
        retry_after: Option<u64>,
    },
    /// HTTP 200 whose body is sent verbatim: nonsense for the client to reject. Content type is
    /// `text/event-stream` for streaming requests and `application/json` otherwise.
    Garbage(String),
    /// Wait this many milliseconds before answering with the inner reply.
    Delay(u64, Box<ScriptedReply>),
    /// Send the start of a streamed text answer, then drop the connection without finishing
    /// (for a non-streaming request: half a JSON body, then drop).
    CutStream,
    /// A plain text answer whose OpenAI response carries no token counts at all, even when
    /// asked (`stream_options.include_usage`), as llama.cpp's server streams. Anthropic
    /// responses always carry usage, so they are sent as [`ScriptedReply::Text`].
    TextWithoutUsage(String),
    /// Full control: status, extra headers and a verbatim body.
    Raw {
        /// HTTP status code.
        status: u16,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// Body sent verbatim.
        body: String,
    },
}

impl ScriptedReply {
    /// A plain text answer.
    pub fn text(text: impl Into<String>) -> Self {
        ScriptedReply::Text(text.into())
    }

    /// A single tool call whose arguments are `args` serialised as JSON.
    pub fn tool_call(name: impl Into<String>, args: impl serde::Serialize) -> Self {
        Self::tool_calls([(name, args)])
    }

    /// Several tool calls (parallel tool calling), each `(name, args)`.
    pub fn tool_calls<N: Into<String>, A: serde::Serialize>(
        calls: impl IntoIterator<Item = (N, A)>,
    ) -> Self {
        ScriptedReply::ToolCalls {
            text: None,
            calls: calls
                .into_iter()
                .map(|(name, args)| ToolCall {
                    name: name.into(),
                    arguments: serde_json::to_string(&args)
                        .unwrap_or_else(|e| format!("<unserialisable arguments: {e}>")),
                })
                .collect(),
        }
    }

    /// A tool call with raw (possibly invalid) argument text, to test the client's validation.
    pub fn tool_call_raw(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ScriptedReply::ToolCalls {
            text: None,
            calls: vec![ToolCall { name: name.into(), arguments: arguments.into() }],
        }
    }

    /// Adds assistant text before the tool calls of a [`ScriptedReply::ToolCalls`] (no-op otherwise).
    pub fn with_text(self, text: impl Into<String>) -> Self {
        match self {
            ScriptedReply::ToolCalls { calls, .. } => {
                ScriptedReply::ToolCalls { text: Some(text.into()), calls }
            }
            other => other,
        }
    }

    /// A status reply with a verbatim body.
    pub fn status(code: u16, body: impl Into<String>) -> Self {
        ScriptedReply::Status { code, body: body.into(), retry_after: None }
    }

    /// A status reply whose body is an OpenAI-style error object
    /// (`{"error":{"message","type","code"}}`), which Anthropic clients also parse well enough.
    pub fn error(code: u16, message: impl Into<String>) -> Self {
        let kind = match code {
            401 => "invalid_api_key",
            429 => "rate_limit_exceeded",
            400..=499 => "invalid_request_error",
            _ => "server_error",
        };
        Self::status(
            code,
            json!({"error": {"message": message.into(), "type": kind, "param": null, "code": kind}})
                .to_string(),
        )
    }

    /// HTTP 429 with `Retry-After: secs`.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        match Self::error(429, "Rate limit reached (scripted)") {
            ScriptedReply::Status { code, body, .. } => {
                ScriptedReply::Status { code, body, retry_after: Some(retry_after_secs) }
            }
            other => other,
        }
    }

    /// HTTP 200 with a nonsense body.
    pub fn garbage(body: impl Into<String>) -> Self {
        ScriptedReply::Garbage(body.into())
    }

    /// This reply, delayed by `ms` milliseconds.
    pub fn delayed(self, ms: u64) -> Self {
        ScriptedReply::Delay(ms, Box::new(self))
    }
}

type Script = dyn Fn(&RecordedRequest) -> ScriptedReply + Send + Sync + 'static;

struct Shared {
    script: Box<Script>,
    chunk_delay: Duration,
    log: Mutex<Log>,
    changed: Condvar,
    cache: Mutex<PromptCache>,
}

#[derive(Default)]
struct Log {
    completions: Vec<RecordedRequest>,
    others: Vec<RecordedRequest>,
    script_panics: Vec<String>,
    /// Completion indices whose client went away before the whole reply was sent.
    closed_early: Vec<usize>,
}

/// Held while one completion is answered (the delay, then a streamed body to its end); dropped
/// unfinished, it records that the client closed the connection first: hyper drops the handler
/// and the body when it sees the client's EOF.
struct ReplyWatch {
    shared: Arc<Shared>,
    index: usize,
    finished: bool,
}

impl ReplyWatch {
    fn finished(mut self) {
        self.finished = true;
    }
}

impl Drop for ReplyWatch {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let mut log = self.shared.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        log.closed_early.push(self.index);
        self.shared.changed.notify_all();
    }
}

/// Options for [`ScriptedLlm::start_with`].
///
/// Why: most tests need none, but UI tests that watch deltas arrive want a slower stream.
#[derive(Debug, Clone)]
pub struct LlmServerOptions {
    /// Pause between two streamed chunks (default 5 ms, so chunks leave as separate writes).
    pub chunk_delay: Duration,
}

impl Default for LlmServerOptions {
    fn default() -> Self {
        LlmServerOptions { chunk_delay: Duration::from_millis(5) }
    }
}

/// A running scripted LLM server; stops when dropped.
///
/// Why: one per test gives each test its own port, script and request log, so tests run in
/// parallel without interfering.
pub struct ScriptedLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptedLlm {
    /// Starts a server on a free 127.0.0.1 port whose every completion reply is decided by `script`.
    pub fn start(
        script: impl Fn(&RecordedRequest) -> ScriptedReply + Send + Sync + 'static,
    ) -> Result<ScriptedLlm> {
        Self::start_with(LlmServerOptions::default(), script)
    }

    /// Starts a server that answers every completion with the same text: the simplest script.
    pub fn always_text(text: impl Into<String>) -> Result<ScriptedLlm> {
        let text = text.into();
        Self::start(move |_| ScriptedReply::Text(text.clone()))
    }

    /// Starts a server with explicit [`LlmServerOptions`].
    pub fn start_with(
        options: LlmServerOptions,
        script: impl Fn(&RecordedRequest) -> ScriptedReply + Send + Sync + 'static,
    ) -> Result<ScriptedLlm> {
        let shared = Arc::new(Shared {
            script: Box::new(script),
            chunk_delay: options.chunk_delay,
            log: Mutex::new(Log::default()),
            changed: Condvar::new(),
            cache: Mutex::new(PromptCache::default()),
        });
        let app = Router::new()
            .fallback(handle)
            .layer(DefaultBodyLimit::disable())
            .with_state(shared.clone());
        let (addr, shutdown, thread) = crate::serve::spawn_server("scripted-llm", app)?;
        Ok(ScriptedLlm { addr, shared, shutdown: Some(shutdown), thread: Some(thread) })
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL an OpenAI-compatible client is configured with.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `http://127.0.0.1:PORT`: the base URL without `/v1` (Anthropic SDKs append `/v1/messages`).
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every completion request received so far, in order (index 0 first).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock_log().completions.clone()
    }

    /// Requests that were not completions (model listings, unknown paths), in order.
    pub fn other_requests(&self) -> Vec<RecordedRequest> {
        self.lock_log().others.clone()
    }

    /// Number of completion requests received so far.
    pub fn request_count(&self) -> usize {
        self.lock_log().completions.len()
    }

    /// Waits until at least `n` completion requests have arrived and returns them all; fails with
    /// the count seen after `timeout` (a failure bound, not a timing assertion).
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> Result<Vec<RecordedRequest>> {
        self.wait_until(timeout, |log| {
            if log.completions.len() >= n {
                Ok(log.completions.clone())
            } else {
                Err(format!("{n} completion request(s), got {}", log.completions.len()))
            }
        })
    }

    /// Completion requests (by index) whose client closed the connection before the whole
    /// reply was sent: a held ([`ScriptedReply::delayed`]) or streamed reply the client gave up
    /// on, as when the host cancels a call.
    pub fn closed_early(&self) -> Vec<usize> {
        self.lock_log().closed_early.clone()
    }

    /// Waits until the client of completion request `index` has closed the connection before
    /// the reply was complete; fails after `timeout` (a failure bound, not a timing assertion).
    pub fn wait_for_close(&self, index: usize, timeout: Duration) -> Result<()> {
        self.wait_until(timeout, |log| {
            if log.closed_early.contains(&index) {
                Ok(())
            } else {
                Err(format!(
                    "the client of request {index} to close the connection; closed early so \
                     far: {:?}",
                    log.closed_early
                ))
            }
        })
    }

    /// Waits on the log's change signal until `ready` returns `Ok`; its `Err` says what was
    /// awaited and what was seen, for the failure after `timeout`.
    fn wait_until<T>(
        &self,
        timeout: Duration,
        ready: impl Fn(&Log) -> std::result::Result<T, String>,
    ) -> Result<T> {
        let deadline = Instant::now() + timeout;
        let mut log = self.lock_log();
        loop {
            let waited_for = match ready(&log) {
                Ok(value) => return Ok(value),
                Err(what) => what,
            };
            let now = Instant::now();
            if now >= deadline {
                bail!("scripted LLM: waited {timeout:?} for {waited_for}");
            }
            log = self
                .shared
                .changed
                .wait_timeout(log, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Sets what the usage of later replies says about prompt caching (see [`CacheReport`]);
    /// [`CacheReport::Off`] until called.
    pub fn report_cache(&self, report: CacheReport) {
        self.shared.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).report = report;
    }

    /// Messages of script panics so far (a panicking script answers HTTP 500 instead of hanging).
    pub fn script_panics(&self) -> Vec<String> {
        self.lock_log().script_panics.clone()
    }

    /// Fails if the script panicked on any request, quoting the panic messages.
    pub fn assert_no_script_panics(&self) -> Result<()> {
        let panics = self.script_panics();
        if panics.is_empty() {
            Ok(())
        } else {
            bail!("scripted LLM script panicked: {}", panics.join(" | "))
        }
    }

    fn lock_log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.shared.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for ScriptedLlm {
    #[allow(
        clippy::let_underscore_must_use,
        reason = "cleanup: what is being stopped may be gone already"
    )]
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Request handling

enum Route {
    Completion(WireFormat),
    Models(WireFormat),
    Unknown,
}

fn route(method: &Method, path: &str, headers: &HeaderMap) -> Route {
    let path = path.trim_end_matches('/');
    let anthropic_headers =
        headers.contains_key("x-api-key") || headers.contains_key("anthropic-version");
    match (method.as_str(), path) {
        ("POST", "/v1/chat/completions" | "/chat/completions") => {
            Route::Completion(WireFormat::OpenAi)
        }
        ("POST", "/v1/messages" | "/messages") => Route::Completion(WireFormat::Anthropic),
        ("GET", "/v1/models" | "/models") => Route::Models(if anthropic_headers {
            WireFormat::Anthropic
        } else {
            WireFormat::OpenAi
        }),
        _ => Route::Unknown,
    }
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    let raw_body = String::from_utf8_lossy(&bytes).into_owned();
    let route = route(&parts.method, parts.uri.path(), &parts.headers);
    let mut recorded = RecordedRequest {
        index: 0,
        format: WireFormat::OpenAi,
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())
            })
            .collect(),
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        raw_body,
    };
    let format = match route {
        Route::Completion(f) => f,
        Route::Models(f) => {
            recorded.format = f;
            record_other(&shared, recorded);
            return models_response(f);
        }
        Route::Unknown => {
            let path = recorded.path.clone();
            record_other(&shared, recorded);
            return plain(
                StatusCode::NOT_FOUND,
                "application/json",
                json!({"error": {"message": format!("scripted LLM: no route for {path}"),
                                 "type": "invalid_request_error"}})
                .to_string(),
            );
        }
    };
    recorded.format = format;
    {
        let mut log = shared.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        recorded.index = log.completions.len();
        log.completions.push(recorded.clone());
        shared.changed.notify_all();
    }
    let watch = ReplyWatch { shared: shared.clone(), index: recorded.index, finished: false };
    let reply = match catch_unwind(AssertUnwindSafe(|| (shared.script)(&recorded))) {
        Ok(reply) => reply,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "non-string panic".to_owned());
            let msg = format!("request {}: {msg}", recorded.index);
            shared
                .log
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .script_panics
                .push(msg.clone());
            ScriptedReply::error(500, format!("scripted LLM script panicked: {msg}"))
        }
    };
    let response = render(&shared, &recorded, reply).await;
    watch_body(response, watch)
}

/// Keeps `watch` until a streamed body has been sent to its end (a sized body goes out whole:
/// the reply is complete once it is handed to hyper).
fn watch_body(response: Response, watch: ReplyWatch) -> Response {
    use axum::body::HttpBody as _;
    use futures_util::StreamExt;
    if response.body().size_hint().exact().is_some() {
        watch.finished();
        return response;
    }
    let (parts, body) = response.into_parts();
    let stream = futures_util::stream::unfold(
        (body.into_data_stream(), Some(watch)),
        |(mut data, mut watch)| async move {
            let item = data.next().await;
            // The end, or an error the script chose (CutStream): the server ended the reply.
            if !matches!(item, Some(Ok(_)))
                && let Some(w) = watch.take()
            {
                w.finished();
            }
            item.map(|item| (item, (data, watch)))
        },
    );
    Response::from_parts(parts, Body::from_stream(stream))
}

fn record_other(shared: &Shared, mut recorded: RecordedRequest) {
    let mut log = shared.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    recorded.index = log.others.len();
    log.others.push(recorded);
    shared.changed.notify_all();
}

fn models_response(format: WireFormat) -> Response {
    let body = match format {
        WireFormat::OpenAi => json!({
            "object": "list",
            "data": [{"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "waymark-tests"}]
        }),
        WireFormat::Anthropic => json!({
            "data": [{"type": "model", "id": MODEL_ID, "display_name": "Scripted model",
                      "created_at": "2025-01-01T00:00:00Z"}],
            "has_more": false, "first_id": MODEL_ID, "last_id": MODEL_ID
        }),
    };
    plain(StatusCode::OK, "application/json", body.to_string())
}

/// Model id reported by `GET /v1/models` and used in replies when the request names none.
pub const MODEL_ID: &str = "scripted-model";

fn plain(status: StatusCode, content_type: &'static str, body: String) -> Response {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp
}

async fn render(shared: &Shared, req: &RecordedRequest, reply: ScriptedReply) -> Response {
    let mut reply = reply;
    while let ScriptedReply::Delay(ms, inner) = reply {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        reply = *inner;
    }
    let stream = req.is_stream();
    match reply {
        ScriptedReply::Delay(..) => unreachable_delay(),
        ScriptedReply::Status { code, body, retry_after } => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut resp = plain(status, "application/json", body);
            if let Some(secs) = retry_after {
                resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
            }
            resp
        }
        ScriptedReply::Garbage(body) => plain(
            StatusCode::OK,
            if stream { "text/event-stream" } else { "application/json" },
            body,
        ),
        ScriptedReply::Raw { status, headers, body } => {
            let mut resp = Response::new(Body::from(body));
            *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            for (n, v) in headers {
                if let (Ok(n), Ok(v)) =
                    (header::HeaderName::from_bytes(n.as_bytes()), HeaderValue::from_str(&v))
                {
                    resp.headers_mut().append(n, v);
                }
            }
            resp
        }
        ScriptedReply::CutStream => {
            let text = "This answer is cut short before it";
            let (events, content_type) = if stream {
                let events = match req.format {
                    WireFormat::OpenAi => openai_stream(req, &Answer::text(text), false),
                    WireFormat::Anthropic => anthropic_stream(req, &Answer::text(text)),
                };
                // Keep the opening and a couple of deltas, never the finish.
                let keep = events.len().min(3);
                (events[..keep].to_vec(), "text/event-stream")
            } else {
                let full = match req.format {
                    WireFormat::OpenAi => openai_json(req, &Answer::text(text)),
                    WireFormat::Anthropic => anthropic_json(req, &Answer::text(text)),
                }
                .to_string();
                let half = full.len() / 2;
                (vec![full[..half].to_owned()], "application/json")
            };
            stream_response(shared.chunk_delay, events, content_type, true)
        }
        ScriptedReply::Text(text) => answer(shared, req, Answer::text(&text)),
        ScriptedReply::TextWithoutUsage(text) => match (req.format, stream) {
            (WireFormat::OpenAi, true) => stream_response(
                shared.chunk_delay,
                openai_stream(req, &Answer::text(&text), false),
                "text/event-stream",
                false,
            ),
            (WireFormat::OpenAi, false) => {
                let mut body = openai_json(req, &Answer::text(&text));
                if let Some(object) = body.as_object_mut() {
                    object.remove("usage");
                }
                plain(StatusCode::OK, "application/json", body.to_string())
            }
            (WireFormat::Anthropic, _) => answer(shared, req, Answer::text(&text)),
        },
        ScriptedReply::ToolCalls { text, calls } => {
            answer(shared, req, Answer { text: text.unwrap_or_default(), calls, cache: None })
        }
    }
}

fn unreachable_delay() -> Response {
    // `render` unwraps every Delay before matching; keep a well-formed answer rather than panic.
    plain(
        StatusCode::INTERNAL_SERVER_ERROR,
        "text/plain",
        "scripted LLM: internal error (nested delay)".to_owned(),
    )
}

struct Answer {
    text: String,
    calls: Vec<ToolCall>,
    /// Cache figures for the usage; `None`: the usage has no cache fields.
    cache: Option<CacheCounts>,
}

impl Answer {
    fn text(text: &str) -> Answer {
        Answer { text: text.to_owned(), calls: Vec::new(), cache: None }
    }
}

fn answer(shared: &Shared, req: &RecordedRequest, mut answer: Answer) -> Response {
    answer.cache =
        shared.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).counts(req);
    match (req.format, req.is_stream()) {
        (WireFormat::OpenAi, false) => {
            plain(StatusCode::OK, "application/json", openai_json(req, &answer).to_string())
        }
        (WireFormat::Anthropic, false) => {
            plain(StatusCode::OK, "application/json", anthropic_json(req, &answer).to_string())
        }
        (WireFormat::OpenAi, true) => stream_response(
            shared.chunk_delay,
            openai_stream(req, &answer, req.include_usage()),
            "text/event-stream",
            false,
        ),
        (WireFormat::Anthropic, true) => stream_response(
            shared.chunk_delay,
            anthropic_stream(req, &answer),
            "text/event-stream",
            false,
        ),
    }
}

/// Streams `pieces` with `delay` between them; with `cut`, ends the body with an error so hyper
/// drops the connection without the terminating chunk.
fn stream_response(
    delay: Duration,
    pieces: Vec<String>,
    content_type: &'static str,
    cut: bool,
) -> Response {
    struct St {
        pieces: std::vec::IntoIter<String>,
        first: bool,
        cut: bool,
    }
    let state = St { pieces: pieces.into_iter(), first: true, cut };
    let stream = futures_util::stream::unfold(state, move |mut st| async move {
        match st.pieces.next() {
            Some(piece) => {
                if !st.first && !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                st.first = false;
                Some((Ok::<Bytes, std::io::Error>(Bytes::from(piece)), st))
            }
            None if st.cut => {
                st.cut = false;
                tokio::time::sleep(Duration::from_millis(20)).await;
                Some((
                    Err(std::io::Error::new(
                        std::io::ErrorKind::ConnectionAborted,
                        "scripted LLM: CutStream drops the connection",
                    )),
                    st,
                ))
            }
            None => None,
        }
    });
    let mut resp = Response::new(Body::from_stream(stream));
    resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

// ---------------------------------------------------------------------------------------------
// Wire formats

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default()
}

fn model_of(req: &RecordedRequest) -> String {
    req.model().unwrap_or(MODEL_ID).to_owned()
}

/// Rough token counts (4 chars per token) so clients that read `usage` see plausible numbers.
fn usage_counts(req: &RecordedRequest, answer: &Answer) -> (u64, u64) {
    let prompt = match answer.cache {
        Some(cache) => cache.prompt,
        None => (req.all_text().chars().count() / 4).max(1) as u64,
    };
    let completion = ((answer.text.chars().count()
        + answer.calls.iter().map(|c| c.name.len() + c.arguments.len()).sum::<usize>())
        / 4)
    .max(1) as u64;
    (prompt, completion)
}

fn call_id(format: WireFormat, req_index: usize, call_index: usize) -> String {
    match format {
        WireFormat::OpenAi => format!("call_wm{req_index:03}x{call_index:02}"),
        WireFormat::Anthropic => format!("toolu_wm{req_index:03}x{call_index:02}"),
    }
}

/// Splits `s` into word-sized pieces (each keeps its trailing whitespace) so text arrives as
/// several deltas the way real models stream tokens.
pub fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_space = false;
    for ch in s.chars() {
        if ch.is_whitespace() {
            in_space = true;
        } else if in_space {
            out.push(std::mem::take(&mut cur));
            in_space = false;
        }
        cur.push(ch);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Splits `s` into `n` nearly equal pieces on char boundaries (fewer when `s` is short): tool-call
/// arguments arrive as fragments that are not valid JSON on their own.
pub fn split_n(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let n = n.clamp(1, chars.len());
    let size = chars.len().div_ceil(n);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

fn openai_json(req: &RecordedRequest, answer: &Answer) -> Value {
    let (prompt, completion) = usage_counts(req, answer);
    let mut message = json!({
        "role": "assistant",
        "content": if answer.text.is_empty() && !answer.calls.is_empty() {
            Value::Null
        } else {
            Value::String(answer.text.clone())
        },
        "refusal": null,
    });
    if !answer.calls.is_empty() {
        message["tool_calls"] = answer
            .calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                json!({
                    "id": call_id(WireFormat::OpenAi, req.index, i),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                })
            })
            .collect();
    }
    json!({
        "id": format!("chatcmpl-wm{:04}", req.index),
        "object": "chat.completion",
        "created": now_secs(),
        "model": model_of(req),
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": if answer.calls.is_empty() { "stop" } else { "tool_calls" },
        }],
        "usage": openai_usage(answer, prompt, completion),
        "system_fingerprint": "fp_waymark_tests",
    })
}

/// OpenAI's `usage`, with `prompt_tokens_details.cached_tokens` when the cache reports.
fn openai_usage(answer: &Answer, prompt: u64, completion: u64) -> Value {
    let mut usage = json!({"prompt_tokens": prompt, "completion_tokens": completion,
                           "total_tokens": prompt + completion});
    if let Some(cache) = answer.cache {
        usage["prompt_tokens_details"] = json!({"cached_tokens": cache.read, "audio_tokens": 0});
    }
    usage
}

/// Anthropic's `usage`: with the cache reporting, `input_tokens` is only the prompt after the
/// cached and written parts, as Anthropic counts it.
fn anthropic_usage(answer: &Answer, input: u64, output: u64) -> Value {
    match answer.cache {
        None => json!({"input_tokens": input, "output_tokens": output}),
        Some(cache) => json!({
            "input_tokens": input.saturating_sub(cache.read + cache.written),
            "cache_read_input_tokens": cache.read,
            "cache_creation_input_tokens": cache.written,
            "output_tokens": output,
        }),
    }
}

fn sse_data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

fn openai_stream(req: &RecordedRequest, answer: &Answer, include_usage: bool) -> Vec<String> {
    let id = format!("chatcmpl-wm{:04}", req.index);
    let created = now_secs();
    let model = model_of(req);
    let chunk = |delta: Value, finish: Value| {
        let mut c = json!({
            "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
            "system_fingerprint": "fp_waymark_tests",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if include_usage {
            c["usage"] = Value::Null;
        }
        sse_data(&c)
    };
    let mut out =
        vec![chunk(json!({"role": "assistant", "content": "", "refusal": null}), Value::Null)];
    for piece in split_words(&answer.text) {
        out.push(chunk(json!({"content": piece}), Value::Null));
    }
    for (i, call) in answer.calls.iter().enumerate() {
        out.push(chunk(
            json!({"tool_calls": [{
                "index": i, "id": call_id(WireFormat::OpenAi, req.index, i), "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }]}),
            Value::Null,
        ));
        for frag in split_n(&call.arguments, 3) {
            out.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": frag}}]}),
                Value::Null,
            ));
        }
    }
    let finish = if answer.calls.is_empty() { "stop" } else { "tool_calls" };
    out.push(chunk(json!({}), json!(finish)));
    if include_usage {
        let (prompt, completion) = usage_counts(req, answer);
        out.push(sse_data(&json!({
            "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
            "system_fingerprint": "fp_waymark_tests", "choices": [],
            "usage": openai_usage(answer, prompt, completion),
        })));
    }
    out.push("data: [DONE]\n\n".to_owned());
    out
}

fn tool_input(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()))
}

fn anthropic_json(req: &RecordedRequest, answer: &Answer) -> Value {
    let (input, output) = usage_counts(req, answer);
    let mut content = Vec::new();
    if !answer.text.is_empty() {
        content.push(json!({"type": "text", "text": answer.text}));
    }
    for (i, c) in answer.calls.iter().enumerate() {
        content.push(json!({
            "type": "tool_use", "id": call_id(WireFormat::Anthropic, req.index, i),
            "name": c.name, "input": tool_input(&c.arguments),
        }));
    }
    json!({
        "id": format!("msg_wm{:04}", req.index),
        "type": "message",
        "role": "assistant",
        "model": model_of(req),
        "content": content,
        "stop_reason": if answer.calls.is_empty() { "end_turn" } else { "tool_use" },
        "stop_sequence": null,
        "usage": anthropic_usage(answer, input, output),
    })
}

fn sse_event(name: &str, v: &Value) -> String {
    format!("event: {name}\ndata: {v}\n\n")
}

fn anthropic_stream(req: &RecordedRequest, answer: &Answer) -> Vec<String> {
    let (input, output) = usage_counts(req, answer);
    let mut out = vec![sse_event(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": format!("msg_wm{:04}", req.index), "type": "message", "role": "assistant",
            "model": model_of(req), "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": anthropic_usage(answer, input, 1),
        }}),
    )];
    let mut index = 0;
    if !answer.text.is_empty() {
        out.push(sse_event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "text", "text": ""}}),
        ));
        out.push(sse_event("ping", &json!({"type": "ping"})));
        for piece in split_words(&answer.text) {
            out.push(sse_event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": piece}}),
            ));
        }
        out.push(sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for (i, c) in answer.calls.iter().enumerate() {
        out.push(sse_event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": call_id(WireFormat::Anthropic, req.index, i),
                "name": c.name, "input": {},
            }}),
        ));
        for frag in split_n(&c.arguments, 3) {
            out.push(sse_event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": frag}}),
            ));
        }
        out.push(sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    out.push(sse_event(
        "message_delta",
        &json!({"type": "message_delta",
                "delta": {"stop_reason": if answer.calls.is_empty() { "end_turn" } else { "tool_use" },
                          "stop_sequence": null},
                "usage": {"output_tokens": output}}),
    ));
    out.push(sse_event("message_stop", &json!({"type": "message_stop"})));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_words_keeps_all_text() {
        let s = "Fill the  name field\nwith Ada.";
        let parts = split_words(s);
        assert!(parts.len() >= 5);
        assert_eq!(parts.concat(), s);
    }

    #[test]
    fn split_n_fragments_arguments() {
        let s = r#"{"target":3,"text":"Ada"}"#;
        let parts = split_n(s, 3);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.concat(), s);
        assert!(split_n("", 3).is_empty());
        assert_eq!(split_n("ab", 3).concat(), "ab");
    }
}
