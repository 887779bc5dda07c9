//! Anthropic Messages API (`POST {base}/messages`): `x-api-key`, `anthropic-version`,
//! `tool_use` / `tool_result` blocks, and its named SSE events.

use std::collections::BTreeMap;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use waymark_protocol::{ChatRole, ImageInput, LlmCompletion, LlmRequest, TokenUsage, ToolCall};

use super::LlmError;
use super::openai::preview;
use super::provider::{Provider, Step, StreamState, arguments_text};

mod cache;

/// The API version header value this host speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Anthropic requires `max_tokens`; used when the request sets none.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The Anthropic Messages wire format.
#[derive(Debug, Default)]
pub struct Anthropic;

impl Provider for Anthropic {
    fn url(&self, base_url: &str) -> String {
        format!("{base_url}/messages")
    }

    fn headers(&self, api_key: Option<&str>) -> Result<HeaderMap, LlmError> {
        let mut h = HeaderMap::new();
        h.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        if let Some(key) = api_key {
            let mut v = HeaderValue::from_str(key).map_err(|_| {
                LlmError::Internal("the API key contains invalid characters".into())
            })?;
            v.set_sensitive(true);
            h.insert(HeaderName::from_static("x-api-key"), v);
        }
        Ok(h)
    }

    fn body(&self, req: &LlmRequest, model: &str, max_tokens: Option<u32>, stream: bool) -> Value {
        let plan = cache::plan(req);
        let mut body = json!({
            "model": model,
            "max_tokens": max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "messages": messages(req, &plan),
            "stream": stream,
        });
        let system = system(req, &plan);
        if !system.is_empty() {
            body["system"] = Value::Array(system);
        }
        if !req.tools.is_empty() {
            let mut tools: Vec<Value> = req
                .tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
                .collect();
            if plan.mark_last_tool
                && let Some(last) = tools.last_mut()
            {
                cache::mark(last);
            }
            body["tools"] = Value::Array(tools);
        }
        body
    }

    fn parse_response(&self, body: &[u8]) -> Result<LlmCompletion, LlmError> {
        let v: Value = serde_json::from_slice(body).map_err(|e| bad(e.to_string()))?;
        if v.get("type").and_then(Value::as_str) == Some("error") {
            return Err(bad(format!("error object in a 200 answer: {}", v["error"])));
        }
        let content =
            v.get("content").and_then(Value::as_array).ok_or_else(|| bad("no content".into()))?;
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        for block in content {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    text.push_str(block.get("text").and_then(Value::as_str).unwrap_or(""))
                }
                Some("tool_use") => tool_calls.push(ToolCall {
                    id: str_field(block, "id"),
                    name: str_field(block, "name"),
                    arguments: arguments_text(block.get("input").unwrap_or(&Value::Null)),
                }),
                _ => {}
            }
        }
        Ok(LlmCompletion {
            model: str_field(&v, "model"),
            text,
            tool_calls,
            finish_reason: v.get("stop_reason").and_then(Value::as_str).map(finish_reason),
            usage: v.get("usage").map(usage),
            ..LlmCompletion::default()
        })
    }

    fn stream(&self) -> Box<dyn StreamState> {
        Box::<AnthropicStream>::default()
    }
}

/// The top-level `system` blocks: every system message, in order, separated by a blank line,
/// cut at its breaks; the last block ends the first cached prefix (tools, then system).
fn system(req: &LlmRequest, plan: &cache::Plan) -> Vec<Value> {
    let mut blocks: Vec<Value> = Vec::new();
    for (i, m) in req.messages.iter().enumerate() {
        if m.role != ChatRole::System || m.content.trim().is_empty() {
            continue;
        }
        let separator = if blocks.is_empty() { "" } else { "\n\n" };
        for (n, (piece, cached)) in
            cache::pieces(&m.content, &plan.breaks[i]).into_iter().enumerate()
        {
            let text = if n == 0 { format!("{separator}{piece}") } else { piece.to_owned() };
            blocks.push(cache::text_block(&text, cached));
        }
    }
    if plan.mark_system
        && let Some(last) = blocks.last_mut()
    {
        cache::mark(last);
    }
    blocks
}

/// Maps the conversation: system messages go to the top-level `system`, tool results become
/// `tool_result` blocks in a user turn, and consecutive turns of one role are merged (the API
/// wants every tool result of one assistant turn in the next user message). Text is cut into
/// blocks at the message's kept cache breaks.
fn messages(req: &LlmRequest, plan: &cache::Plan) -> Vec<Value> {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for (m, breaks) in req.messages.iter().zip(&plan.breaks) {
        let (role, blocks) = match m.role {
            ChatRole::System => continue,
            ChatRole::User => {
                let mut blocks = image_blocks(&m.images);
                blocks.extend(cache::text_blocks(&m.content, breaks));
                ("user", blocks)
            }
            ChatRole::Tool => {
                let content = if m.images.is_empty() && breaks.is_empty() {
                    json!(m.content)
                } else {
                    let mut blocks = cache::text_blocks(&m.content, breaks);
                    blocks.extend(image_blocks(&m.images));
                    Value::Array(blocks)
                };
                let result = json!({
                    "type": "tool_result",
                    "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                    "content": content,
                });
                ("user", vec![result])
            }
            ChatRole::Assistant => {
                let mut blocks = Vec::new();
                if !m.content.is_empty() {
                    blocks.extend(cache::text_blocks(&m.content, breaks));
                }
                for c in &m.tool_calls {
                    let input = serde_json::from_str::<Value>(&c.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    blocks.push(
                        json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}),
                    );
                }
                ("assistant", blocks)
            }
        };
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    turns.into_iter().map(|(role, content)| json!({"role": role, "content": content})).collect()
}

/// Base64 image blocks (Anthropic puts images before the text they illustrate).
fn image_blocks(images: &[ImageInput]) -> Vec<Value> {
    images
        .iter()
        .map(|i| {
            json!({"type": "image", "source": {
                "type": "base64", "media_type": i.media_type, "data": i.data,
            }})
        })
        .collect()
}

fn finish_reason(r: &str) -> String {
    match r {
        "end_turn" | "stop_sequence" => "stop",
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        other => other,
    }
    .to_owned()
}

/// Anthropic's `usage` as it arrives: `input_tokens` counts only the prompt after the last
/// cache breakpoint, the parts read from and written to the cache come apart.
#[derive(Debug, Default, Clone, Copy)]
struct RawUsage {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
}

impl RawUsage {
    /// Takes every count `u` carries (a stream sends them in `message_start` and, cumulative,
    /// in `message_delta`; later ones win).
    fn update(&mut self, u: &Value) {
        for (key, slot) in [
            ("input_tokens", &mut self.input),
            ("output_tokens", &mut self.output),
            ("cache_read_input_tokens", &mut self.cache_read),
            ("cache_creation_input_tokens", &mut self.cache_write),
        ] {
            if let Some(n) = u.get(key).and_then(Value::as_u64) {
                *slot = n;
            }
        }
    }

    /// The protocol's usage, whose `input_tokens` is the whole prompt like every provider's.
    fn total(self) -> TokenUsage {
        TokenUsage {
            input_tokens: self.input + self.cache_read + self.cache_write,
            output_tokens: self.output,
            cached_input_tokens: self.cache_read,
            cache_write_tokens: self.cache_write,
            estimated: false,
        }
    }
}

fn usage(u: &Value) -> TokenUsage {
    let mut raw = RawUsage::default();
    raw.update(u);
    raw.total()
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

fn bad(detail: String) -> LlmError {
    LlmError::BadResponse { detail }
}

#[derive(Default)]
struct Block {
    id: String,
    name: String,
    json: String,
    is_tool: bool,
}

/// Accumulates `content_block_*` events by block index.
#[derive(Default)]
struct AnthropicStream {
    model: String,
    text: String,
    blocks: BTreeMap<u64, Block>,
    stop_reason: Option<String>,
    usage: RawUsage,
    done: bool,
}

impl StreamState for AnthropicStream {
    fn feed(&mut self, event: &str, data: &str) -> Result<Step, LlmError> {
        if data.trim().is_empty() {
            return Ok(Step::Text(String::new()));
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| bad(format!("stream event is not JSON ({e}): {}", preview(data))))?;
        let kind = v.get("type").and_then(Value::as_str).unwrap_or(event);
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        let mut text = String::new();
        match kind {
            "message_start" => {
                let m = &v["message"];
                self.model = str_field(m, "model");
                self.usage.update(&m["usage"]);
            }
            "content_block_start" => {
                let b = &v["content_block"];
                let block = self.blocks.entry(index).or_default();
                if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                    block.is_tool = true;
                    block.id = str_field(b, "id");
                    block.name = str_field(b, "name");
                } else if let Some(t) = b.get("text").and_then(Value::as_str) {
                    text.push_str(t);
                }
            }
            "content_block_delta" => {
                let d = &v["delta"];
                match d.get("type").and_then(Value::as_str) {
                    Some("text_delta") => text.push_str(d["text"].as_str().unwrap_or("")),
                    Some("input_json_delta") => self
                        .blocks
                        .entry(index)
                        .or_default()
                        .json
                        .push_str(d["partial_json"].as_str().unwrap_or("")),
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(r) = v["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(finish_reason(r));
                }
                self.usage.update(&v["usage"]);
            }
            "message_stop" => {
                self.done = true;
                return Ok(Step::Done);
            }
            "error" => {
                let err = &v["error"];
                let detail = err["message"].as_str().unwrap_or("unknown error").to_owned();
                return Err(match err["type"].as_str() {
                    Some("overloaded_error") => LlmError::Server { status: 529, detail },
                    Some("rate_limit_error") => LlmError::RateLimited { retry_after: None, detail },
                    _ => bad(format!("error inside the stream: {detail}")),
                });
            }
            _ => {} // ping, content_block_stop, unknown future events
        }
        self.text.push_str(&text);
        Ok(Step::Text(text))
    }

    fn finish(self: Box<Self>) -> Result<LlmCompletion, LlmError> {
        if !self.done {
            return Err(LlmError::StreamCut {
                detail: "the stream ended before message_stop".into(),
            });
        }
        let tool_calls = self
            .blocks
            .into_values()
            .filter(|b| b.is_tool)
            .map(|b| ToolCall {
                id: b.id,
                name: b.name,
                arguments: if b.json.is_empty() { "{}".into() } else { b.json },
            })
            .collect();
        Ok(LlmCompletion {
            model: self.model,
            text: self.text,
            tool_calls,
            finish_reason: self.stop_reason,
            usage: Some(self.usage.total()),
            ..LlmCompletion::default()
        })
    }
}

#[cfg(test)]
mod tests;
