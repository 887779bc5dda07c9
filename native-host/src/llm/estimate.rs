//! Token counts for a call whose provider reported none (llama.cpp's server streams no usage,
//! some proxies drop it): counted here with a real BPE tokenizer (o200k, `tiktoken-rs`) over
//! what was sent and received, and marked estimated. The panel then never shows "0 tokens" for
//! a call that sent a prompt.

use waymark_protocol::{LlmCompletion, LlmRequest, TokenUsage};

/// Chat-format tokens around each message (role and separators), as OpenAI documents for its
/// chat models: small, but a long conversation has many messages.
const PER_MESSAGE: u64 = 4;

/// The usage of `done`: the provider's when it reported a prompt, else an estimate.
pub fn complete_usage(req: &LlmRequest, done: &LlmCompletion) -> TokenUsage {
    match done.usage {
        Some(usage) if usage.input_tokens > 0 => usage,
        _ => estimate(req, done),
    }
}

/// Counts the request's messages and tools and the answer's text and tool calls.
pub fn estimate(req: &LlmRequest, done: &LlmCompletion) -> TokenUsage {
    let bpe = tiktoken_rs::o200k_base_singleton();
    let count = |text: &str| bpe.encode_ordinary(text).len() as u64;
    let mut input = 0;
    for message in &req.messages {
        input += PER_MESSAGE + count(&message.content);
        for call in &message.tool_calls {
            input += count(&call.name) + count(&call.arguments);
        }
    }
    for tool in &req.tools {
        input += count(&tool.name) + count(&tool.description) + count(&tool.parameters.to_string());
    }
    let mut output = count(&done.text);
    for call in &done.tool_calls {
        output += count(&call.name) + count(&call.arguments);
    }
    TokenUsage {
        input_tokens: input,
        output_tokens: output,
        estimated: true,
        ..TokenUsage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use waymark_protocol::{ChatMessage, ChatRole, LlmRole, ToolCall};

    fn request(text: &str) -> LlmRequest {
        LlmRequest {
            role: LlmRole::Navigator,
            messages: vec![ChatMessage::text(ChatRole::User, text)],
            tools: Vec::new(),
            stream: true,
            max_tokens: None,
        }
    }

    #[test]
    fn a_call_without_usage_is_counted_and_marked_estimated() {
        let done = LlmCompletion {
            text: "hello world".into(),
            tool_calls: vec![ToolCall {
                id: "c".into(),
                name: "click".into(),
                arguments: r#"{"ref":3}"#.into(),
            }],
            ..LlmCompletion::default()
        };
        let usage = complete_usage(&request("Compare the two offers on this page."), &done);
        assert!(usage.estimated);
        // o200k: "hello world" is 2 tokens; the prompt is 8 tokens plus the message overhead.
        assert_eq!(usage.input_tokens, 8 + PER_MESSAGE);
        assert!(usage.output_tokens > 2, "the tool call counts too: {usage:?}");
    }

    #[test]
    fn the_providers_counts_win_when_it_reported_a_prompt() {
        let reported = TokenUsage { input_tokens: 1200, output_tokens: 7, ..TokenUsage::default() };
        let done = LlmCompletion { usage: Some(reported), ..LlmCompletion::default() };
        assert_eq!(complete_usage(&request("x"), &done), reported);
        let zero = TokenUsage::default();
        let done = LlmCompletion { usage: Some(zero), ..LlmCompletion::default() };
        assert!(complete_usage(&request("x"), &done).estimated, "0 prompt tokens is no count");
    }
}
