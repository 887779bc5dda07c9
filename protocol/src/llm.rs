//! `llm.complete`: chat messages, tools and completions, independent of the provider.

use serde::{Deserialize, Serialize};

pub use role::{LlmRole, UnknownRole};
pub use tokens::{MaxTokens, MaxTokensOutOfRange};

mod role;
mod tokens;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    /// Rules for the model.
    System,
    /// The user's turn (task, observation).
    User,
    /// The model's earlier turn.
    Assistant,
    /// A tool result answering an assistant tool call.
    Tool,
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Speaker.
    pub role: ChatRole,
    /// Text content.
    pub content: String,
    /// Tool calls the assistant made in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `role: tool`, the call this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Images shown to the model with this message (screenshots); ignored by text-only models'
    /// callers, sent as image content parts by the host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageInput>,
    /// Byte offsets in `content` (char boundaries, ascending) where a prefix that repeats from
    /// call to call ends: the host turns them into cache breakpoints where the provider needs
    /// them (Anthropic's `cache_control`); OpenAI-compatible servers cache identical prefixes
    /// on their own and get the content unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cache_breaks: Vec<u32>,
}

impl ChatMessage {
    /// A plain text message.
    pub fn text(role: ChatRole, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            images: Vec::new(),
            cache_breaks: Vec::new(),
        }
    }

    /// This message with `image` attached (a screenshot for a vision model).
    pub fn with_image(mut self, image: ImageInput) -> Self {
        self.images.push(image);
        self
    }
}

/// An image attached to a chat message, inline as base64 (the host never fetches URLs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageInput {
    /// MIME type, e.g. `image/png` or `image/jpeg`.
    pub media_type: String,
    /// Standard base64 of the image bytes, without a `data:` prefix.
    pub data: String,
}

/// A tool the model may call, with a JSON Schema for its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Function name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// A call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider's call id (echoed back in the tool result).
    pub id: String,
    /// Function name.
    pub name: String,
    /// Arguments as the raw JSON text the model produced (parsed by the agent, not the host).
    pub arguments: String,
}

/// Payload of `llm.complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmRequest {
    /// Which role asks; the host may map roles to models. Absent means the navigator.
    #[serde(default = "default_role")]
    pub role: LlmRole,
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// Tools offered; empty for plain text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// Whether the host should stream `llm.delta` events.
    #[serde(default)]
    pub stream: bool,
    /// Upper bound on the reply length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

fn default_role() -> LlmRole {
    LlmRole::Navigator
}

/// Token counts reported by the provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Prompt tokens: the whole prompt, including the parts read from or written to the
    /// provider's prompt cache (Anthropic reports those apart; the host adds them back), so
    /// figures compare across providers.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Of `input_tokens`, those read from the provider's prompt cache (a prefix identical to an
    /// earlier call's): billed at a fraction of the input price. Absent (0) from older hosts
    /// and from providers that report no caching.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
    /// Of `input_tokens`, those written to the prompt cache by this call (Anthropic bills them
    /// above the input price; OpenAI-compatible servers cache for free and report none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// The provider reported no counts (llama.cpp's server streams none), so the host counted
    /// them itself with the o200k tokenizer: close, not exact.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

/// Data of a successful `llm.complete` reply: the whole answer, assembled by the host.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LlmCompletion {
    /// The model that answered.
    pub model: String,
    /// Text content (may be empty when the model only called tools).
    pub text: String,
    /// Tool calls, in order.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`…).
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// Token usage when the provider reports it.
    #[serde(default)]
    pub usage: Option<TokenUsage>,
    /// What the call cost, when usage is known and the model has a price (local models: 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CallCost>,
    /// The role whose endpoint answered, as the host resolved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<LlmRole>,
}

/// The price of one LLM call, so the side panel can show what a task cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CallCost {
    /// Total in US dollars.
    pub usd: f64,
    /// Price applied to prompt tokens, dollars per million.
    pub input_usd_per_mtok: f64,
    /// Price applied to completion tokens, dollars per million.
    pub output_usd_per_mtok: f64,
    /// Price applied to prompt tokens read from the cache, dollars per million (absent from
    /// older hosts; only used when the call read from the cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_usd_per_mtok: Option<f64>,
    /// Price applied to prompt tokens written to the cache, dollars per million (absent from
    /// older hosts; only used when the call wrote to the cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_usd_per_mtok: Option<f64>,
}

/// Whether a count is zero, so counts a provider does not report stay off the wire.
#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_counts_are_optional_on_the_wire_both_ways() {
        // An older host's usage (no cache fields) reads as nothing cached...
        let old: TokenUsage =
            serde_json::from_str(r#"{"input_tokens":10,"output_tokens":2}"#).expect("old usage");
        assert_eq!((old.cached_input_tokens, old.cache_write_tokens), (0, 0));
        // ...and counts of 0 stay off the wire, so an older extension sees what it knows.
        assert_eq!(
            serde_json::to_value(old).expect("json"),
            serde_json::json!({"input_tokens": 10, "output_tokens": 2})
        );
        let cached = TokenUsage { cached_input_tokens: 8, cache_write_tokens: 1, ..old };
        let json = serde_json::to_value(cached).expect("json");
        assert_eq!(
            (json["cached_input_tokens"].as_u64(), json["cache_write_tokens"].as_u64()),
            (Some(8), Some(1))
        );
        assert_eq!(serde_json::from_value::<TokenUsage>(json).expect("back"), cached);
        let cost: CallCost =
            serde_json::from_str(r#"{"usd":0.1,"input_usd_per_mtok":1,"output_usd_per_mtok":2}"#)
                .expect("old cost");
        assert_eq!(cost.cached_input_usd_per_mtok, None);
    }
}
