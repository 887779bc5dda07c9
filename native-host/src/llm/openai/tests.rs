use serde_json::json;
use waymark_protocol::{ChatMessage, ChatRole, LlmRequest, ToolCall, ToolSpec};

use super::*;

fn request() -> LlmRequest {
    LlmRequest {
        role: waymark_protocol::LlmRole::Navigator,
        messages: vec![
            ChatMessage::text(ChatRole::System, "rules"),
            ChatMessage::text(ChatRole::User, "fill the form"),
            ChatMessage {
                role: ChatRole::Assistant,
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "click".into(),
                    arguments: "{\"ref\":3}".into(),
                }],
                tool_call_id: None,
                images: vec![],
                cache_breaks: vec![],
            },
            ChatMessage {
                role: ChatRole::Tool,
                content: "clicked".into(),
                tool_calls: vec![],
                tool_call_id: Some("c1".into()),
                images: vec![],
                cache_breaks: vec![],
            },
        ],
        tools: vec![ToolSpec {
            name: "click".into(),
            description: "Click an element".into(),
            parameters: json!({"type": "object"}),
        }],
        stream: true,
        max_tokens: Some(100),
    }
}

#[test]
fn request_body_maps_messages_and_tools() {
    let body = OpenAi.body(&request(), "m1", Some(100), true);
    assert_eq!(body["model"], "m1");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["max_tokens"], 100);
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "click");
    assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
    let msgs = body["messages"].as_array().expect("messages");
    assert_eq!(msgs[0], json!({"role": "system", "content": "rules"}));
    assert_eq!(msgs[2]["content"], Value::Null);
    assert_eq!(msgs[2]["tool_calls"][0]["function"]["arguments"], "{\"ref\":3}");
    assert_eq!(msgs[3], json!({"role": "tool", "tool_call_id": "c1", "content": "clicked"}));
    let plain =
        OpenAi.body(&LlmRequest { stream: false, tools: vec![], ..request() }, "m", None, false);
    assert!(plain.get("stream_options").is_none() && plain.get("tools").is_none());
    assert!(plain.get("max_tokens").is_none(), "no limit: the server's default");
}

#[test]
fn non_streamed_response_parses_text_tools_and_usage() {
    let body = json!({
        "model": "gpt-x",
        "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "type_text", "arguments": "{\"text\":\"Ada\"}"}},
            {"type": "function", "function": {"name": "click", "arguments": {"ref": 2}}}
        ]}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    });
    let c = OpenAi.parse_response(body.to_string().as_bytes()).expect("parse");
    assert_eq!(c.model, "gpt-x");
    assert_eq!(c.text, "");
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[0].arguments, "{\"text\":\"Ada\"}");
    assert_eq!(c.tool_calls[1].id, "call_1", "missing ids are made up by position");
    assert_eq!(c.tool_calls[1].arguments, "{\"ref\":2}");
    assert_eq!(c.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(c.usage.map(|u| (u.input_tokens, u.output_tokens)), Some((10, 5)));
}

#[test]
fn garbage_bodies_are_bad_responses() {
    for body in ["<html>oops</html>", "{}", "{\"choices\":[]}", "{\"error\":{\"message\":\"x\"}}"] {
        let err = OpenAi.parse_response(body.as_bytes()).expect_err(body);
        assert_eq!(err.code(), waymark_protocol::ErrorCode::LlmBadResponse, "{body}");
    }
}

fn feed_all(chunks: &[Value]) -> (Vec<String>, Box<dyn StreamState>) {
    let mut s = OpenAi.stream();
    let mut texts = Vec::new();
    for c in chunks {
        match s.feed("", &c.to_string()).expect("feed") {
            Step::Text(t) if !t.is_empty() => texts.push(t),
            _ => {}
        }
    }
    (texts, s)
}

#[test]
fn stream_accumulates_text_and_tool_call_fragments_by_index() {
    let chunks = [
        json!({"model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "lo"}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_a", "type": "function", "function": {"name": "type_", "arguments": ""}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"name": "text", "arguments": "{\"te"}},
            {"index": 1, "id": "call_b", "function": {"name": "click", "arguments": "{}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": "xt\":\"Ada\"}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}),
    ];
    let (texts, mut s) = feed_all(&chunks);
    assert_eq!(texts, vec!["Hel", "lo"]);
    assert_eq!(s.feed("", "[DONE]").expect("done"), Step::Done);
    let c = s.finish().expect("finish");
    assert_eq!(c.text, "Hello");
    assert_eq!(c.model, "m");
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[0].id, "call_a");
    assert_eq!(c.tool_calls[0].name, "type_text");
    assert_eq!(c.tool_calls[0].arguments, "{\"text\":\"Ada\"}");
    assert_eq!(c.tool_calls[1].name, "click");
    assert_eq!(c.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(c.usage.map(|u| u.output_tokens), Some(4));
}

#[test]
fn whole_calls_without_index_are_kept_apart() {
    let chunks = [
        json!({"choices": [{"delta": {"tool_calls": [
            {"id": "x1", "function": {"name": "a", "arguments": {"k": 1}}}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [
            {"id": "x2", "function": {"name": "b", "arguments": "{}"}}]}, "finish_reason": "stop"}]}),
    ];
    let (_, s) = feed_all(&chunks);
    let c = s.finish().expect("finish without [DONE] but with a finish reason");
    let names: Vec<_> = c.tool_calls.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b"]);
    assert_eq!(c.tool_calls[0].arguments, "{\"k\":1}");
}

#[test]
fn cut_or_garbage_streams_fail() {
    let (_, s) = feed_all(&[json!({"choices": [{"delta": {"content": "Hi"}}]})]);
    assert_eq!(s.finish().expect_err("cut").code(), waymark_protocol::ErrorCode::LlmBadResponse);
    let mut s = OpenAi.stream();
    assert!(s.feed("", "not json").is_err());
    assert!(s.feed("", "{\"error\":{\"message\":\"boom\"}}").is_err());
}

#[test]
fn cached_prompt_tokens_are_read_in_both_forms_and_in_both_shapes() {
    let body = json!({
        "model": "gpt-x",
        "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 2006, "completion_tokens": 300,
                  "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0}}
    });
    let u = OpenAi.parse_response(body.to_string().as_bytes()).expect("parse").usage;
    let u = u.expect("usage");
    assert_eq!((u.input_tokens, u.cached_input_tokens, u.cache_write_tokens), (2006, 1920, 0));
    // DeepSeek's own field; `null` details (some proxies) mean nothing cached.
    let deepseek = json!({"choices": [{"message": {"content": "ok"}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 1, "prompt_cache_hit_tokens": 64,
                  "prompt_cache_miss_tokens": 36}});
    let u = OpenAi.parse_response(deepseek.to_string().as_bytes()).expect("parse").usage;
    assert_eq!(u.map(|u| u.cached_input_tokens), Some(64));
    let null = json!({"choices": [{"message": {"content": "ok"}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "prompt_tokens_details": null}});
    let u = OpenAi.parse_response(null.to_string().as_bytes()).expect("parse").usage;
    assert_eq!(u.map(|u| u.cached_input_tokens), Some(0));
    // A server claiming more cached than prompt tokens is capped at the prompt.
    let odd = json!({"choices": [{"message": {"content": "ok"}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1,
                  "prompt_tokens_details": {"cached_tokens": 50}}});
    let u = OpenAi.parse_response(odd.to_string().as_bytes()).expect("parse").usage;
    assert_eq!(u.map(|u| u.cached_input_tokens), Some(5));

    // Streamed: the usage chunk at the end carries the same details.
    let chunks = [
        json!({"model": "m", "choices": [{"index": 0, "delta": {"content": "Hi"}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": null}),
        json!({"choices": [], "usage": {"prompt_tokens": 1500, "completion_tokens": 4,
               "prompt_tokens_details": {"cached_tokens": 1024}}}),
    ];
    let (_, mut s) = feed_all(&chunks);
    assert_eq!(s.feed("", "[DONE]").expect("done"), Step::Done);
    let u = s.finish().expect("finish").usage.expect("usage");
    assert_eq!((u.input_tokens, u.cached_input_tokens, u.output_tokens), (1500, 1024, 4));
}

#[test]
fn cache_breaks_leave_the_openai_body_unchanged() {
    let mut req = request();
    let plain = OpenAi.body(&req, "m", req.max_tokens, true);
    req.messages[0].cache_breaks = vec![2, 5];
    req.messages[1].cache_breaks = vec![4, 13, 999];
    let with_breaks = OpenAi.body(&req, "m", req.max_tokens, true);
    assert_eq!(plain, with_breaks, "servers cache identical prefixes by themselves");
    assert!(!with_breaks.to_string().contains("cache"), "no unknown fields: {with_breaks}");
}
