//! The seam between the generic HTTP/retry/stream driver and one wire format.
//!
//! Everything here is synchronous and pure, so each provider's mapping and stream
//! accumulation is unit-tested without a server.

use reqwest::header::HeaderMap;
use serde_json::Value;
use waymark_protocol::{LlmCompletion, LlmRequest};

use super::LlmError;

/// One LLM wire format (OpenAI chat completions, Anthropic Messages).
pub trait Provider: Send + Sync {
    /// Full URL of the completion endpoint under `base_url`.
    fn url(&self, base_url: &str) -> String;

    /// Authentication and version headers.
    fn headers(&self, api_key: Option<&str>) -> Result<HeaderMap, LlmError>;

    /// The JSON request body, asking for at most `max_tokens` (the endpoint's limit, else the
    /// request's; `None`: the wire's default).
    fn body(&self, req: &LlmRequest, model: &str, max_tokens: Option<u32>, stream: bool) -> Value;

    /// Parses a whole (non-streamed) response body.
    fn parse_response(&self, body: &[u8]) -> Result<LlmCompletion, LlmError>;

    /// A fresh accumulator for one streamed response.
    fn stream(&self) -> Box<dyn StreamState>;
}

/// Accumulates one streamed answer from its server-sent events.
pub trait StreamState: Send {
    /// Feeds one SSE event (`event` is empty for unnamed events).
    fn feed(&mut self, event: &str, data: &str) -> Result<Step, LlmError>;

    /// Ends the stream and returns the whole answer; fails if it was cut short.
    fn finish(self: Box<Self>) -> Result<LlmCompletion, LlmError>;
}

/// What one event produced.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// Keep reading; forward this text (may be empty).
    Text(String),
    /// The provider signalled the end of the answer.
    Done,
}

/// Turns a JSON `arguments` value into the raw JSON text the protocol carries: some servers
/// send a string (OpenAI), others an object (Ollama, Anthropic `input`).
pub fn arguments_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "{}".into(),
        other => other.to_string(),
    }
}
