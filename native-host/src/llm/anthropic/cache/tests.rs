use serde_json::{Value, json};
use waymark_protocol::{ChatMessage, ChatRole, LlmRequest, LlmRole, ToolCall, ToolSpec};

use super::MAX_BREAKPOINTS;
use crate::llm::anthropic::Anthropic;
use crate::llm::provider::Provider;

fn msg(role: ChatRole, content: &str, breaks: &[u32]) -> ChatMessage {
    ChatMessage { cache_breaks: breaks.to_vec(), ..ChatMessage::text(role, content) }
}

fn request(messages: Vec<ChatMessage>, tools: bool) -> LlmRequest {
    let tools = if tools {
        vec![ToolSpec {
            name: "click".into(),
            description: "Click".into(),
            parameters: json!({"type": "object"}),
        }]
    } else {
        Vec::new()
    };
    LlmRequest { role: LlmRole::Navigator, messages, tools, stream: true, max_tokens: None }
}

fn body(req: &LlmRequest) -> Value {
    Anthropic.body(req, "claude-x", req.max_tokens, true)
}

/// Every block in the body carrying `cache_control`, as (where, its text).
fn marked(body: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut visit = |place: String, block: &Value| {
        if block.get("cache_control").is_some() {
            assert_eq!(block["cache_control"], json!({"type": "ephemeral"}), "{block}");
            let text = block.get("text").or_else(|| block.get("name")).and_then(Value::as_str);
            out.push((place, text.unwrap_or_default().to_owned()));
        }
    };
    for (i, t) in body["tools"].as_array().into_iter().flatten().enumerate() {
        visit(format!("tool {i}"), t);
    }
    for (i, b) in body["system"].as_array().into_iter().flatten().enumerate() {
        visit(format!("system {i}"), b);
    }
    for (i, m) in body["messages"].as_array().into_iter().flatten().enumerate() {
        for (j, b) in m["content"].as_array().into_iter().flatten().enumerate() {
            visit(format!("message {i} block {j}"), b);
            for (k, inner) in b["content"].as_array().into_iter().flatten().enumerate() {
                visit(format!("message {i} block {j} part {k}"), inner);
            }
        }
    }
    out
}

/// The text blocks of message `i` of the body.
fn texts(body: &Value, i: usize) -> Vec<String> {
    body["messages"][i]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_user_message_is_cut_at_its_breaks_and_the_system_prompt_ends_the_first_prefix() {
    let page = "TOOLS+RULES|SESSION NOTES|TASK AND PLAN|the page right now";
    let req = request(
        vec![msg(ChatRole::System, "rules", &[]), msg(ChatRole::User, page, &[12, 26, 40])],
        true,
    );
    let b = body(&req);
    assert_eq!(
        b["system"],
        json!([{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}])
    );
    assert!(b["tools"][0].get("cache_control").is_none(), "the system block ends the prefix");
    assert_eq!(
        texts(&b, 0),
        ["TOOLS+RULES|", "SESSION NOTES|", "TASK AND PLAN|", "the page right now"]
    );
    let marks: Vec<String> = marked(&b).into_iter().map(|(_, t)| t).collect();
    assert_eq!(marks, ["rules", "TOOLS+RULES|", "SESSION NOTES|", "TASK AND PLAN|"]);
    // A break at the very end marks the last block; no empty block follows it.
    let req = request(vec![msg(ChatRole::User, "whole prompt", &[12])], false);
    let b = body(&req);
    assert_eq!(
        b["messages"][0]["content"],
        json!([{"type": "text", "text": "whole prompt", "cache_control": {"type": "ephemeral"}}])
    );
    assert!(b.get("system").is_none());
}

#[test]
fn offsets_that_cannot_cut_the_text_are_ignored() {
    // "é" is bytes 3..5, so 4 is inside it; 0 would leave an empty block, 99 is past the end,
    // 15 would leave a block of only spaces, and duplicates or disorder change nothing.
    let text = "Café, ok.     then the rest";
    let req = request(vec![msg(ChatRole::User, text, &[99, 10, 0, 5, 10, 15, 4, u32::MAX])], false);
    let b = body(&req);
    assert_eq!(texts(&b, 0), ["Café", ", ok.", "     then the rest"]);
    let marks: Vec<String> = marked(&b).into_iter().map(|(_, t)| t).collect();
    assert_eq!(marks, ["Café", ", ok."]);
    // A blank rest after the last break would be a blank block: that break goes.
    let req = request(vec![msg(ChatRole::User, "prefix\n\n", &[6])], false);
    assert_eq!(texts(&body(&req), 0), ["prefix\n\n"]);
    assert!(marked(&body(&req)).is_empty());
}

#[test]
fn at_most_four_breakpoints_keep_the_system_one_and_the_latest_breaks() {
    let text = "aaaa bbbb cccc dddd eeee ffff gggg";
    let req = request(
        vec![
            msg(ChatRole::System, "rules", &[]),
            msg(ChatRole::User, text, &[5, 10, 15, 20, 25, 30]),
        ],
        true,
    );
    let b = body(&req);
    let marks: Vec<String> = marked(&b).into_iter().map(|(_, t)| t).collect();
    assert_eq!(marks.len(), MAX_BREAKPOINTS);
    // The earliest breaks are dropped: their text merges into the first kept block.
    assert_eq!(marks, ["rules", "aaaa bbbb cccc dddd ", "eeee ", "ffff "]);
    assert_eq!(texts(&b, 0).concat(), text);

    // Across messages: the last breaks of the last user message win over older turns'.
    let req = request(
        vec![
            msg(ChatRole::System, "rules", &[2]),
            msg(ChatRole::User, "old task one", &[3, 8]),
            ChatMessage {
                tool_calls: vec![ToolCall {
                    id: "t".into(),
                    name: "click".into(),
                    arguments: "{}".into(),
                }],
                ..msg(ChatRole::Assistant, "clicking", &[])
            },
            ChatMessage {
                tool_call_id: Some("t".into()),
                ..msg(ChatRole::Tool, "clicked it", &[7])
            },
            msg(ChatRole::User, "new page text", &[3, 8]),
        ],
        true,
    );
    let b = body(&req);
    let marks = marked(&b);
    assert_eq!(marks.len(), MAX_BREAKPOINTS, "{marks:?} in {b:#}");
    assert_eq!(
        marks[0],
        ("system 0".to_owned(), "rules".to_owned()),
        "the system prompt's end is always a breakpoint; its own early break was dropped"
    );
    let last: Vec<&str> = marks[1..].iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(last, ["clicked", "new", " page"]);
    // The dropped breaks left the text whole.
    let system: Vec<&str> =
        b["system"].as_array().into_iter().flatten().filter_map(|s| s["text"].as_str()).collect();
    assert_eq!(system.concat(), "rules");
    assert_eq!(texts(&b, 0), ["old task one"]);
    let result = &b["messages"][2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["content"][0]["text"], "clicked");
    assert_eq!(result["content"][1]["text"], " it");
}

#[test]
fn without_a_system_prompt_the_tools_end_the_first_prefix() {
    let req = request(vec![msg(ChatRole::User, "one two three four five", &[4, 8, 14, 19])], true);
    let b = body(&req);
    let marks = marked(&b);
    assert_eq!(marks[0], ("tool 0".to_owned(), "click".to_owned()));
    assert_eq!(marks.len(), MAX_BREAKPOINTS);
    // Neither system nor tools: every breakpoint is the worker's.
    let req = request(vec![msg(ChatRole::User, "one two three four five", &[4, 8, 14, 19])], false);
    assert_eq!(marked(&body(&req)).len(), MAX_BREAKPOINTS);
    assert!(marked(&body(&req)).iter().all(|(place, _)| place.starts_with("message 0")));
}

#[test]
fn several_system_messages_stay_one_prompt_separated_by_a_blank_line() {
    let req = request(
        vec![msg(ChatRole::System, "rules", &[]), msg(ChatRole::System, "more rules", &[4])],
        false,
    );
    let b = body(&req);
    let system: Vec<&str> =
        b["system"].as_array().into_iter().flatten().filter_map(|s| s["text"].as_str()).collect();
    assert_eq!(system, ["rules", "\n\nmore", " rules"]);
    let marks: Vec<String> = marked(&b).into_iter().map(|(_, t)| t).collect();
    assert_eq!(marks, ["\n\nmore", " rules"]);
}

#[test]
fn random_offsets_never_panic_lose_text_or_pass_the_limit() {
    let text = "Ünïcödé 🚀 page: [1] button \"Save\"\n[2] textbox Name\n\n  end ";
    let mut rng = fastrand::Rng::with_seed(14);
    for _ in 0..2000 {
        let n = rng.usize(0..12);
        let breaks: Vec<u32> = (0..n).map(|_| rng.u32(0..=(text.len() as u32 + 3))).collect();
        let system = if rng.bool() { &[][..] } else { &[3u32, 7][..] };
        let req = request(
            vec![
                msg(ChatRole::System, "rules and more", system),
                msg(ChatRole::User, text, &breaks),
            ],
            rng.bool(),
        );
        let b = body(&req);
        assert_eq!(texts(&b, 0).concat(), text, "{breaks:?}");
        let marks = marked(&b);
        assert!(marks.len() <= MAX_BREAKPOINTS, "{breaks:?}: {marks:?}");
        assert!(texts(&b, 0).iter().all(|t| !t.trim().is_empty()), "{breaks:?}");
        // Every block but the last of the message ends at a breakpoint (cuts happen nowhere else).
        let blocks = b["messages"][0]["content"].as_array().cloned().unwrap_or_default();
        for block in blocks.iter().take(blocks.len().saturating_sub(1)) {
            assert!(block.get("cache_control").is_some(), "{breaks:?}: {blocks:?}");
        }
    }
}
