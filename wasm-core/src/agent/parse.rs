//! Turns the model's answer into actions: native tool calls first, else strict JSON in text.
//!
//! Repairs only the cosmetic (code fences, prose around the JSON, trailing commas); a truncated
//! or malformed action is an error, never completed by guessing.

use crate::action::Action;
use crate::protocol::LlmCompletion;
use serde::Deserialize;
use serde_json::Value;

/// Why an answer could not be used; the text goes back to the model once.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    /// Neither a tool call nor a JSON object was found.
    #[error("the answer contained no tool call and no JSON object with \"actions\"")]
    NoActions,
    /// The JSON did not parse.
    #[error("the JSON could not be parsed: {0}")]
    BadJson(String),
    /// The model named a tool that does not exist.
    #[error("unknown tool `{0}`; use one of {tools}", tools = Action::TOOL_NAMES.join(", "))]
    UnknownTool(String),
    /// The arguments did not match the tool's schema.
    #[error("bad arguments for `{tool}`: {reason}")]
    BadArguments {
        /// The tool.
        tool: String,
        /// What was wrong.
        reason: String,
    },
}

/// The JSON shape asked of models without native tool calling.
#[derive(Deserialize)]
struct TextAnswer {
    actions: Vec<TextAction>,
}

#[derive(Deserialize)]
struct TextAction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// Extracts the actions from a completion.
pub fn parse_actions(completion: &LlmCompletion) -> Result<Vec<Action>, ParseError> {
    if !completion.tool_calls.is_empty() {
        return completion
            .tool_calls
            .iter()
            .map(|call| {
                let args: Value = if call.arguments.trim().is_empty() {
                    Value::Object(Default::default())
                } else {
                    serde_json::from_str(&call.arguments).map_err(|e| ParseError::BadArguments {
                        tool: call.name.clone(),
                        reason: e.to_string(),
                    })?
                };
                to_action(&call.name, args)
            })
            .collect();
    }
    let json = extract_json(&completion.text).ok_or(ParseError::NoActions)?;
    let answer: TextAnswer =
        serde_json::from_str(&json).map_err(|e| ParseError::BadJson(e.to_string()))?;
    if answer.actions.is_empty() {
        return Err(ParseError::NoActions);
    }
    answer.actions.into_iter().map(|a| to_action(&a.name, a.arguments)).collect()
}

fn to_action(name: &str, args: Value) -> Result<Action, ParseError> {
    let mut object = match args {
        Value::Object(map) => map,
        Value::Null => Default::default(),
        other => {
            return Err(ParseError::BadArguments {
                tool: name.to_owned(),
                reason: format!("expected an object, got {other}"),
            });
        }
    };
    if !Action::TOOL_NAMES.contains(&name) {
        return Err(ParseError::UnknownTool(name.to_owned()));
    }
    object.insert("action".into(), Value::String(name.to_owned()));
    serde_json::from_value(Value::Object(object))
        .map_err(|e| ParseError::BadArguments { tool: name.to_owned(), reason: e.to_string() })
}

/// Finds the JSON object in a text answer: strips code fences and surrounding prose and drops
/// trailing commas. Returns `None` when there is no balanced object.
pub fn extract_json(text: &str) -> Option<String> {
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut end = None;
    for (i, ch) in text[start..].char_indices() {
        if in_string {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(start + i + 1);
                    break;
                }
            }
            _ => {}
        }
    }
    Some(drop_trailing_commas(&text[start..end?]))
}

fn drop_trailing_commas(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    let chars: Vec<char> = json.chars().collect();
    for (i, &ch) in chars.iter().enumerate() {
        if in_string {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if ch == '"' {
            in_string = true;
        } else if ch == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolCall;

    fn tool(name: &str, args: &str) -> LlmCompletion {
        LlmCompletion {
            tool_calls: vec![ToolCall {
                id: "c".into(),
                name: name.into(),
                arguments: args.into(),
            }],
            ..LlmCompletion::default()
        }
    }

    fn text(t: &str) -> LlmCompletion {
        LlmCompletion { text: t.into(), ..LlmCompletion::default() }
    }

    #[test]
    fn native_tool_calls_become_actions() {
        assert_eq!(
            parse_actions(&tool("type", r#"{"ref":3,"text":"Ada"}"#)),
            Ok(vec![Action::Type {
                ref_id: crate::observation::Ref::top(3),
                text: "Ada".into(),
                append: false
            }])
        );
    }

    #[test]
    fn unknown_tools_are_refused_not_guessed() {
        assert_eq!(
            parse_actions(&tool("delete_everything", "{}")),
            Err(ParseError::UnknownTool("delete_everything".into()))
        );
    }

    #[test]
    fn truncated_arguments_are_an_error() {
        assert!(matches!(
            parse_actions(&tool("click", r#"{"ref":"#)),
            Err(ParseError::BadArguments { .. })
        ));
    }

    #[test]
    fn json_in_text_with_fences_prose_and_trailing_commas() {
        let answer = "Sure! ```json\n{\"actions\": [{\"name\": \"click\", \"arguments\": {\"ref\": 2,},},]}\n```";
        assert_eq!(
            parse_actions(&text(answer)),
            Ok(vec![Action::Click { ref_id: crate::observation::Ref::top(2) }])
        );
    }

    #[test]
    fn braces_inside_strings_do_not_confuse_extraction() {
        let answer =
            r#"{"actions":[{"name":"done","arguments":{"answer":"a } b, ]","success":true}}]}"#;
        assert_eq!(
            parse_actions(&text(answer)),
            Ok(vec![Action::Done { answer: "a } b, ]".into(), success: true }])
        );
    }

    #[test]
    fn truncated_json_text_is_not_completed() {
        assert_eq!(
            parse_actions(&text(r#"{"actions":[{"name":"click","arguments":{"ref":1}"#)),
            Err(ParseError::NoActions)
        );
    }

    #[test]
    fn garbage_is_an_error() {
        assert_eq!(parse_actions(&text("I think I'll click it")), Err(ParseError::NoActions));
    }
}
