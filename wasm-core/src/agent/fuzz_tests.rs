//! Property tests over hostile text (`waymark-fuzzgen`) for reading the model's answer: native
//! tool calls with any arguments, the JSON-in-text fallback, and JSON that carries a lone
//! surrogate as a `\ud800` escape (what `JSON.stringify` writes for a page's broken string).
//! No answer may panic; a JSON object in prose is extracted exactly, and a string argument
//! reaches the action as Rust received it or the answer is refused, never altered.

#![allow(
    clippy::let_underscore_must_use,
    reason = "a call made only for the panic it must not cause drops its result"
)]

use super::parse::{ParseError, parse_actions, parse_answer, tool_or_json};
use super::tools::OFFERED_TOOLS;
use crate::text::extract_json;
use proptest::prelude::*;
use serde_json::Value;
use waymark_fuzzgen::{JsString, config, hostile_short, hostile_text, js_string};
use waymark_page::action::Action;
use waymark_protocol::{LlmCompletion, ToolCall};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        hostile_short().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(hostile_short(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Value> {
    proptest::collection::btree_map(hostile_short(), json_value(), 0..6)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

/// Prose around an answer: anything without a `{` (which would start another object).
fn prose() -> impl Strategy<Value = String> {
    hostile_text().prop_map(|t| t.replace('{', "("))
}

fn text_answer(text: String) -> LlmCompletion {
    LlmCompletion { text, ..LlmCompletion::default() }
}

fn tool_call(name: &str, arguments: String) -> LlmCompletion {
    LlmCompletion {
        tool_calls: vec![ToolCall { id: "c1".into(), name: name.to_owned(), arguments }],
        ..LlmCompletion::default()
    }
}

/// `type` into ref 1 with `text`: the one action a JSON answer's string decides (typing
/// nothing is clearing the field).
fn typed(answer: Result<Vec<Action>, ParseError>, js: &JsString) -> Result<(), TestCaseError> {
    match answer {
        Ok(actions) => {
            prop_assert!(!js.has_lone_surrogate(), "a lone surrogate was accepted");
            let lossy = js.lossy();
            prop_assert!(
                match &actions[..] {
                    [Action::Type { text, .. }] => *text == lossy,
                    [Action::Clear { .. }] => lossy.is_empty(),
                    _ => false,
                },
                "{actions:?}"
            );
        }
        Err(_) => prop_assert!(js.has_lone_surrogate()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_parse_text_answer(text in hostile_text()) {
        let _ = parse_answer(&text_answer(text.clone()));
        let _ = tool_or_json::<Value>(&text_answer(text.clone()), "summary");
        if let Some(json) = extract_json(&text) {
            prop_assert!(json.starts_with('{') && json.ends_with('}'), "{json:?}");
        }
    }

    #[test]
    fn fuzz_parse_json_in_prose(before in prose(), value in object(), after in hostile_text(), pretty in any::<bool>()) {
        let json = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) }
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let found = extract_json(&format!("{before}```json\n{json}\n```{after}"));
        prop_assert_eq!(found.as_deref(), Some(json.as_str()));
    }

    #[test]
    fn fuzz_parse_tool_calls(
        name in prop_oneof![proptest::sample::select(OFFERED_TOOLS).prop_map(str::to_owned), hostile_short()],
        arguments in prop_oneof![object().prop_map(|v| v.to_string()), hostile_text()],
    ) {
        let _ = parse_answer(&tool_call(&name, arguments.clone()));
        let _ = tool_or_json::<Value>(&tool_call(&name, arguments), &name);
    }

    #[test]
    fn fuzz_parse_lone_surrogates(js in js_string(), escape in any::<bool>()) {
        let literal = js.json_literal(escape);
        let arguments = format!(r#"{{"ref":1,"text":{literal}}}"#);
        typed(parse_actions(&tool_call("type", arguments.clone())), &js)?;
        let text = format!(r#"Here: {{"actions":[{{"name":"type","arguments":{arguments}}}]}}"#);
        typed(parse_actions(&text_answer(text)), &js)?;
    }
}
