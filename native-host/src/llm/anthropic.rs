//! Anthropic Messages API (`POST {base}/messages`): `x-api-key`, `anthropic-version`,
//! `tool_use` / `tool_result` blocks, and its named SSE events.

use std::collections::BTreeMap;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use waymark_protocol::{ChatRole, ImageInput, LlmCompletion, LlmRequest, TokenUsage, ToolCall};

use super::LlmError;
use super::openai::preview;
use super::provider::{Provider, Step, StreamState, arguments_text};

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

    fn body(&self, req: &LlmRequest, model: &str, stream: bool) -> Value {
        let system: Vec<&str> = req
            .messages
            .iter()
            .filter(|m| m.role == ChatRole::System)
            .map(|m| m.content.as_str())
            .collect();
        let mut body = json!({
            "model": model,
            "max_tokens": req.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "messages": messages(req),
            "stream": stream,
        });
        if !system.is_empty() {
            body["system"] = json!(system.join("\n\n"));
        }
        if !req.tools.is_empty() {
            body["tools"] = req
                .tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
                .collect();
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

/// Maps the conversation: system messages go to the top-level `system`, tool results become
/// `tool_result` blocks in a user turn, and consecutive turns of one role are merged (the API
/// wants every tool result of one assistant turn in the next user message).
fn messages(req: &LlmRequest) -> Vec<Value> {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for m in &req.messages {
        let (role, blocks) = match m.role {
            ChatRole::System => continue,
            ChatRole::User => {
                let mut blocks = image_blocks(&m.images);
                blocks.push(json!({"type": "text", "text": m.content}));
                ("user", blocks)
            }
            ChatRole::Tool => {
                let content = if m.images.is_empty() {
                    json!(m.content)
                } else {
                    let mut blocks = vec![json!({"type": "text", "text": m.content})];
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
                    blocks.push(json!({"type": "text", "text": m.content}));
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

fn usage(u: &Value) -> TokenUsage {
    TokenUsage {
        input_tokens: u.get("input_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0),
        estimated: false,
    }
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
    usage: TokenUsage,
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
                self.usage.input_tokens = m["usage"]["input_tokens"].as_u64().unwrap_or(0);
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
                if let Some(n) = v["usage"]["output_tokens"].as_u64() {
                    self.usage.output_tokens = n;
                }
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
            usage: Some(self.usage),
            ..LlmCompletion::default()
        })
    }
}

#[cfg(test)]
mod tests;
