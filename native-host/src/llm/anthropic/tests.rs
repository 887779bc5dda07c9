use serde_json::json;
use waymark_protocol::{ChatMessage, ChatRole, LlmRequest, ToolCall, ToolSpec};

use super::*;

fn tool_msg(id: &str, content: &str) -> ChatMessage {
    ChatMessage {
        role: ChatRole::Tool,
        content: content.into(),
        tool_calls: vec![],
        tool_call_id: Some(id.into()),
        images: vec![],
        cache_breaks: vec![],
    }
}

#[test]
fn request_body_moves_system_and_merges_tool_results() {
    let req = LlmRequest {
        role: waymark_protocol::LlmRole::Navigator,
        messages: vec![
            ChatMessage::text(ChatRole::System, "rules"),
            ChatMessage::text(ChatRole::User, "go"),
            ChatMessage {
                role: ChatRole::Assistant,
                content: "ok".into(),
                tool_calls: vec![
                    ToolCall { id: "t1".into(), name: "a".into(), arguments: "{\"x\":1}".into() },
                    ToolCall { id: "t2".into(), name: "b".into(), arguments: "not json".into() },
                ],
                tool_call_id: None,
                images: vec![],
                cache_breaks: vec![],
            },
            tool_msg("t1", "done a"),
            tool_msg("t2", "done b"),
        ],
        tools: vec![ToolSpec {
            name: "a".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }],
        stream: false,
        max_tokens: None,
    };
    let body = Anthropic.body(&req, "claude", req.max_tokens, false);
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
    let msgs = body["messages"].as_array().expect("messages");
    assert_eq!(msgs.len(), 3);
    assert_eq!(
        msgs[1]["content"][1],
        json!({"type": "tool_use", "id": "t1", "name": "a", "input": {"x": 1}})
    );
    assert_eq!(msgs[1]["content"][2]["input"], json!({}));
    assert_eq!(msgs[2]["role"], "user");
    assert_eq!(msgs[2]["content"].as_array().map(Vec::len), Some(2));
    assert_eq!(msgs[2]["content"][1]["tool_use_id"], "t2");
    let h = Anthropic.headers(Some("k")).expect("headers");
    assert_eq!(h["anthropic-version"], ANTHROPIC_VERSION);
    assert_eq!(h["x-api-key"], "k");
}

#[test]
fn non_streamed_response_parses() {
    let body = json!({
        "type": "message", "model": "claude-x", "stop_reason": "tool_use",
        "content": [{"type": "text", "text": "Sure"}, {"type": "tool_use", "id": "tu1", "name": "click", "input": {"ref": 1}}],
        "usage": {"input_tokens": 7, "output_tokens": 2}
    });
    let c = Anthropic.parse_response(body.to_string().as_bytes()).expect("parse");
    assert_eq!(c.text, "Sure");
    assert_eq!(c.tool_calls[0].arguments, "{\"ref\":1}");
    assert_eq!(c.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(c.usage.map(|u| u.input_tokens), Some(7));
    assert!(Anthropic.parse_response(b"{\"type\":\"error\",\"error\":{}}").is_err());
    assert!(Anthropic.parse_response(b"nope").is_err());
}

#[test]
fn stream_events_accumulate() {
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"model": "claude-x", "usage": {"input_tokens": 5}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
        ),
        ("ping", json!({"type": "ping"})),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "tu", "name": "click", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"ref\""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ":4}"}}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        ),
    ];
    let mut s = Anthropic.stream();
    let mut text = String::new();
    for (name, data) in &events {
        if let Step::Text(t) = s.feed(name, &data.to_string()).expect("feed") {
            text.push_str(&t);
        }
    }
    assert_eq!(text, "Hi");
    assert_eq!(s.feed("message_stop", "{\"type\":\"message_stop\"}").expect("stop"), Step::Done);
    let c = s.finish().expect("finish");
    assert_eq!(c.model, "claude-x");
    assert_eq!(c.tool_calls[0].arguments, "{\"ref\":4}");
    assert_eq!(c.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(c.usage.map(|u| (u.input_tokens, u.output_tokens)), Some((5, 9)));
}

#[test]
fn stream_errors_and_cuts() {
    let mut s = Anthropic.stream();
    let err = s
        .feed(
            "error",
            &json!({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
                .to_string(),
        )
        .expect_err("error event");
    assert!(err.is_retryable());
    let s = Anthropic.stream();
    assert!(s.finish().is_err());
}

#[test]
fn cache_reads_and_writes_are_counted_into_the_whole_prompt() {
    // Anthropic's `input_tokens` is only the part after the last breakpoint.
    let body = json!({
        "type": "message", "model": "claude-x", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "ok"}],
        "usage": {"input_tokens": 50, "output_tokens": 12,
                  "cache_read_input_tokens": 9800, "cache_creation_input_tokens": 2550}
    });
    let u = Anthropic.parse_response(body.to_string().as_bytes()).expect("parse").usage;
    let u = u.expect("usage");
    assert_eq!(
        (u.input_tokens, u.cached_input_tokens, u.cache_write_tokens, u.output_tokens),
        (12_400, 9800, 2550, 12)
    );
    // No cache fields (older models, proxies): nothing cached.
    let body =
        json!({"type": "message", "content": [], "usage": {"input_tokens": 7, "output_tokens": 2}});
    let u = Anthropic.parse_response(body.to_string().as_bytes()).expect("parse").usage;
    assert_eq!(
        u.map(|u| (u.input_tokens, u.cached_input_tokens, u.cache_write_tokens)),
        Some((7, 0, 0))
    );

    // Streamed: `message_start` carries the prompt's counts, `message_delta` the cumulative
    // ones (newer API versions repeat the input counts there too; the later ones win).
    for delta_usage in [
        json!({"output_tokens": 9}),
        json!({"output_tokens": 9, "input_tokens": 50, "cache_read_input_tokens": 9800,
               "cache_creation_input_tokens": 2550}),
    ] {
        let mut s = Anthropic.stream();
        let events = [
            json!({"type": "message_start", "message": {"model": "claude-x", "usage": {
                "input_tokens": 50, "output_tokens": 1,
                "cache_read_input_tokens": 9800, "cache_creation_input_tokens": 2550}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": delta_usage}),
        ];
        for e in &events {
            s.feed("", &e.to_string()).expect("feed");
        }
        assert_eq!(
            s.feed("message_stop", "{\"type\":\"message_stop\"}").expect("stop"),
            Step::Done
        );
        let u = s.finish().expect("finish").usage.expect("usage");
        assert_eq!(
            (u.input_tokens, u.cached_input_tokens, u.cache_write_tokens, u.output_tokens),
            (12_400, 9800, 2550, 9)
        );
    }
}
