//! OpenAI-compatible chat completions (`POST {base}/chat/completions`): OpenAI, Ollama,
//! LM Studio, vLLM, llama.cpp server, OpenRouter, Groq, DeepSeek, Gemini's OpenAI endpoint.

use std::collections::BTreeMap;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde::Deserialize;
use serde_json::{Value, json};
use waymark_protocol::{ChatMessage, ChatRole, LlmCompletion, LlmRequest, TokenUsage, ToolCall};

use super::LlmError;
use super::provider::{Provider, Step, StreamState, arguments_text};

/// The OpenAI chat-completions wire format.
#[derive(Debug, Default)]
pub struct OpenAi;

impl Provider for OpenAi {
    fn url(&self, base_url: &str) -> String {
        format!("{base_url}/chat/completions")
    }

    fn headers(&self, api_key: Option<&str>) -> Result<HeaderMap, LlmError> {
        let mut h = HeaderMap::new();
        if let Some(key) = api_key {
            let mut v = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                LlmError::Internal("the API key contains invalid characters".into())
            })?;
            v.set_sensitive(true);
            h.insert(AUTHORIZATION, v);
        }
        Ok(h)
    }

    fn body(&self, req: &LlmRequest, model: &str, max_tokens: Option<u32>, stream: bool) -> Value {
        let mut body = json!({
            "model": model,
            "messages": req.messages.iter().flat_map(message).collect::<Vec<_>>(),
            "stream": stream,
        });
        if !req.tools.is_empty() {
            body["tools"] = req
                .tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.parameters,
                    }})
                })
                .collect();
        }
        if let Some(n) = max_tokens {
            body["max_tokens"] = json!(n);
        }
        if stream {
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    }

    fn parse_response(&self, body: &[u8]) -> Result<LlmCompletion, LlmError> {
        let resp: Response = serde_json::from_slice(body).map_err(|e| bad(format!("{e}")))?;
        if let Some(err) = resp.error {
            return Err(bad(format!("error object in a 200 answer: {err}")));
        }
        let choice = resp.choices.into_iter().next().ok_or_else(|| bad("no choices".into()))?;
        let tool_calls = choice
            .message
            .tool_calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: c.id.unwrap_or_else(|| format!("call_{i}")),
                name: c.function.name,
                arguments: arguments_text(&c.function.arguments),
            })
            .collect();
        Ok(LlmCompletion {
            model: resp.model.unwrap_or_default(),
            text: choice.message.content.unwrap_or_default(),
            tool_calls,
            finish_reason: choice.finish_reason,
            usage: resp.usage.map(Usage::into_protocol),
            ..LlmCompletion::default()
        })
    }

    fn stream(&self) -> Box<dyn StreamState> {
        Box::<OpenAiStream>::default()
    }
}

/// One message in OpenAI's shape; a tool result with images becomes the tool message plus a
/// user message carrying the images (tool messages cannot hold images in this format).
fn message(m: &ChatMessage) -> Vec<Value> {
    let one = match m.role {
        ChatRole::System => json!({"role": "system", "content": m.content}),
        ChatRole::User => json!({"role": "user", "content": user_content(&m.content, m)}),
        ChatRole::Assistant if m.tool_calls.is_empty() => {
            json!({"role": "assistant", "content": m.content})
        }
        ChatRole::Assistant => json!({
            "role": "assistant",
            "content": if m.content.is_empty() { Value::Null } else { json!(m.content) },
            "tool_calls": m.tool_calls.iter().map(|c| json!({
                "id": c.id, "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            })).collect::<Vec<_>>(),
        }),
        ChatRole::Tool => {
            let tool = json!({
                "role": "tool",
                "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
                "content": m.content,
            });
            if m.images.is_empty() {
                tool
            } else {
                let images = json!({"role": "user", "content": user_content("", m)});
                return vec![tool, images];
            }
        }
    };
    vec![one]
}

/// Plain text, or content parts (text then `image_url` data URLs) when images are attached.
fn user_content(text: &str, m: &ChatMessage) -> Value {
    if m.images.is_empty() {
        return json!(text);
    }
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(json!({"type": "text", "text": text}));
    }
    for img in &m.images {
        parts.push(json!({"type": "image_url", "image_url": {
            "url": format!("data:{};base64,{}", img.media_type, img.data),
        }}));
    }
    Value::Array(parts)
}

fn bad(detail: String) -> LlmError {
    LlmError::BadResponse { detail }
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    message: WireMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default, deserialize_with = "null_as_empty")]
    tool_calls: Vec<WireToolCall>,
}

#[derive(Deserialize)]
struct WireToolCall {
    #[serde(default)]
    id: Option<String>,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// OpenAI's `usage`; `prompt_tokens` is the whole prompt, cached part included.
#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    /// OpenAI, vLLM, OpenRouter, DeepSeek (newer), Gemini: `{"cached_tokens": N}`; some servers
    /// send `null`.
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's own name for the cached part.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl Usage {
    fn into_protocol(self) -> TokenUsage {
        let cached = self
            .prompt_tokens_details
            .and_then(|d| d.cached_tokens)
            .or(self.prompt_cache_hit_tokens)
            .unwrap_or(0);
        TokenUsage {
            input_tokens: self.prompt_tokens,
            output_tokens: self.completion_tokens,
            // Never more than the prompt, whatever a server claims.
            cached_input_tokens: cached.min(self.prompt_tokens),
            cache_write_tokens: 0,
            estimated: false,
        }
    }
}

fn null_as_empty<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

// ---- streaming -------------------------------------------------------------------------------

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    model: Option<String>,
    #[serde(default, deserialize_with = "null_as_empty")]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default, deserialize_with = "null_as_empty")]
    tool_calls: Vec<DeltaCall>,
}

#[derive(Deserialize)]
struct DeltaCall {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<DeltaFunction>,
}

#[derive(Deserialize)]
struct DeltaFunction {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Default, Debug)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Accumulates text and tool-call fragments (keyed by their `index`) from chunks.
#[derive(Default)]
struct OpenAiStream {
    model: String,
    text: String,
    calls: BTreeMap<usize, PartialCall>,
    finish_reason: Option<String>,
    usage: Option<TokenUsage>,
    done: bool,
}

impl OpenAiStream {
    fn add_call_fragment(&mut self, frag: DeltaCall) {
        // Servers that send whole calls (Ollama) may omit `index`: a new id means a new call.
        let index = match frag.index {
            Some(i) => i,
            None => match (&frag.id, self.calls.last_key_value()) {
                (Some(id), Some((&i, last))) if last.id == *id => i,
                (None, Some((&i, _))) => i,
                _ => self.calls.keys().next_back().map_or(0, |i| i + 1),
            },
        };
        let call = self.calls.entry(index).or_default();
        if let Some(id) = frag.id.filter(|s| !s.is_empty()) {
            call.id = id;
        }
        if let Some(f) = frag.function {
            if let Some(name) = f.name {
                call.name.push_str(&name);
            }
            match f.arguments {
                Some(Value::String(s)) => call.arguments.push_str(&s),
                Some(Value::Null) | None => {}
                Some(other) => call.arguments.push_str(&other.to_string()),
            }
        }
    }
}

impl StreamState for OpenAiStream {
    fn feed(&mut self, _event: &str, data: &str) -> Result<Step, LlmError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(Step::Done);
        }
        if data.is_empty() {
            return Ok(Step::Text(String::new()));
        }
        let chunk: Chunk = serde_json::from_str(data)
            .map_err(|e| bad(format!("stream chunk is not JSON ({e}): {}", preview(data))))?;
        if let Some(err) = chunk.error {
            return Err(bad(format!("error inside the stream: {err}")));
        }
        if let Some(m) = chunk.model.filter(|m| !m.is_empty()) {
            self.model = m;
        }
        if let Some(u) = chunk.usage {
            self.usage = Some(u.into_protocol());
        }
        let mut text = String::new();
        for choice in chunk.choices {
            let delta = choice.delta.unwrap_or_default();
            if let Some(t) = delta.content {
                text.push_str(&t);
            }
            for frag in delta.tool_calls {
                self.add_call_fragment(frag);
            }
            if let Some(r) = choice.finish_reason {
                self.finish_reason = Some(r);
            }
        }
        self.text.push_str(&text);
        Ok(Step::Text(text))
    }

    fn finish(self: Box<Self>) -> Result<LlmCompletion, LlmError> {
        if !self.done && self.finish_reason.is_none() {
            return Err(LlmError::StreamCut {
                detail: "the stream ended without a finish reason or [DONE]".into(),
            });
        }
        let tool_calls = self
            .calls
            .into_iter()
            .map(|(i, c)| ToolCall {
                id: if c.id.is_empty() { format!("call_{i}") } else { c.id },
                name: c.name,
                arguments: if c.arguments.is_empty() { "{}".into() } else { c.arguments },
            })
            .collect();
        Ok(LlmCompletion {
            model: self.model,
            text: self.text,
            tool_calls,
            finish_reason: self.finish_reason,
            usage: self.usage,
            ..LlmCompletion::default()
        })
    }
}

/// The first characters of a bad chunk, for the error message.
pub(crate) fn preview(s: &str) -> String {
    let mut p: String = s.chars().take(120).collect();
    if p.len() < s.len() {
        p.push('…');
    }
    p
}

#[cfg(test)]
mod tests;
