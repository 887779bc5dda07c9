//! Turns the model's answer into actions: native tool calls first, else strict JSON in text.
//!
//! Repairs only the cosmetic (code fences, prose around the JSON, trailing commas); a truncated
//! or malformed action is an error, never completed by guessing.

use super::interventions::ProgressReport;
use super::role_tools::{PROGRESS_TOOL, RECALL_TOOL};
use super::tools::OFFERED_TOOLS;
use crate::text::extract_json;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use waymark_page::action::{Action, action_of_call};
use waymark_protocol::LlmCompletion;

/// Why an answer could not be used; the text goes back to the model once.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    /// Neither a tool call nor a JSON object was found.
    #[error("the answer contained no tool call and no JSON object with \"actions\"")]
    NoActions,
    /// The JSON did not parse.
    #[error("the JSON could not be parsed: {0}")]
    BadJson(String),
    /// The arguments did not match the tool's schema (or were cut off).
    #[error("bad arguments for `{tool}`: {reason}")]
    BadArguments {
        /// The tool.
        tool: String,
        /// What was wrong.
        reason: String,
    },
}

/// One call of the navigator's answer: an action to check and run, or a refusal to report
/// back to the model (an unknown tool is never guessed into a known one).
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// A well-formed action of a known tool.
    Act(Action),
    /// A tool that does not exist.
    Refused {
        /// The name the model used.
        tool: String,
        /// What to tell the model.
        reason: String,
    },
}

/// The navigator's whole answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NavigatorAnswer {
    /// Page actions (and refusals), in order.
    pub calls: Vec<Call>,
    /// The model's progress report, if it gave one.
    pub progress: Option<ProgressReport>,
    /// Searches of the session's older tasks the model asked for.
    pub recalls: Vec<String>,
}

#[derive(Deserialize)]
struct RecallArgs {
    query: String,
}

/// The JSON shape asked of models without native tool calling.
#[derive(Deserialize)]
struct TextAnswer {
    #[serde(default)]
    actions: Vec<TextAction>,
    #[serde(default)]
    progress: Option<ProgressReport>,
}

#[derive(Deserialize)]
struct TextAction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// Extracts the actions (and the progress report) from a completion.
pub fn parse_answer(completion: &LlmCompletion) -> Result<NavigatorAnswer, ParseError> {
    let mut answer = NavigatorAnswer::default();
    if !completion.tool_calls.is_empty() {
        for call in &completion.tool_calls {
            let args = parse_arguments(&call.name, &call.arguments)?;
            if call.name == PROGRESS_TOOL {
                answer.progress = Some(from_args(&call.name, args)?);
            } else if call.name == RECALL_TOOL {
                answer.recalls.push(from_args::<RecallArgs>(&call.name, args)?.query);
            } else {
                answer.calls.push(to_call(&call.name, args)?);
            }
        }
    } else {
        let json = extract_json(&completion.text).ok_or(ParseError::NoActions)?;
        let text: TextAnswer =
            serde_json::from_str(&json).map_err(|e| ParseError::BadJson(e.to_string()))?;
        answer.progress = text.progress;
        for a in text.actions {
            if a.name == PROGRESS_TOOL {
                answer.progress = Some(from_args(&a.name, a.arguments)?);
            } else if a.name == RECALL_TOOL {
                answer.recalls.push(from_args::<RecallArgs>(&a.name, a.arguments)?.query);
            } else {
                answer.calls.push(to_call(&a.name, a.arguments)?);
            }
        }
    }
    if answer.calls.is_empty() && answer.recalls.is_empty() {
        return Err(ParseError::NoActions);
    }
    Ok(answer)
}

/// The page actions of a completion (refusals and progress dropped): for callers that only
/// need the actions.
pub fn parse_actions(completion: &LlmCompletion) -> Result<Vec<Action>, ParseError> {
    Ok(parse_answer(completion)?
        .calls
        .into_iter()
        .filter_map(|c| match c {
            Call::Act(a) => Some(a),
            Call::Refused { .. } => None,
        })
        .collect())
}

/// A role's single answer: the named tool's arguments, else the JSON object in the text.
pub fn tool_or_json<T: DeserializeOwned>(
    completion: &LlmCompletion,
    tool: &str,
) -> Result<T, ParseError> {
    if let Some(call) = completion.tool_calls.iter().find(|c| c.name == tool) {
        return from_args(tool, parse_arguments(tool, &call.arguments)?);
    }
    let json = extract_json(&completion.text).ok_or(ParseError::NoActions)?;
    serde_json::from_str(&json).map_err(|e| ParseError::BadJson(e.to_string()))
}

fn parse_arguments(tool: &str, raw: &str) -> Result<Value, ParseError> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(raw)
        .map_err(|e| ParseError::BadArguments { tool: tool.to_owned(), reason: e.to_string() })
}

fn from_args<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ParseError> {
    serde_json::from_value(args)
        .map_err(|e| ParseError::BadArguments { tool: tool.to_owned(), reason: e.to_string() })
}

fn to_call(name: &str, args: Value) -> Result<Call, ParseError> {
    let object = match args {
        Value::Object(map) => map,
        Value::Null => Default::default(),
        other => {
            return Err(ParseError::BadArguments {
                tool: name.to_owned(),
                reason: format!("expected an object, got {other}"),
            });
        }
    };
    let bad = |e: waymark_page::action::CallError| ParseError::BadArguments {
        tool: name.to_owned(),
        reason: e.to_string(),
    };
    match action_of_call(name, object).map_err(bad)? {
        Some(action) => Ok(Call::Act(action)),
        None => Ok(Call::Refused {
            tool: name.to_owned(),
            reason: format!(
                "unknown tool `{name}` was refused; use one of: {}",
                OFFERED_TOOLS.join(", ")
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use waymark_protocol::ToolCall;

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
                ref_id: waymark_page::observation::Ref::top(3),
                text: "Ada".into(),
                append: false
            }])
        );
    }

    #[test]
    fn unknown_tools_are_refused_not_guessed() {
        let answer = parse_answer(&tool("delete_everything", "{}")).expect("answer");
        assert!(
            matches!(&answer.calls[..], [Call::Refused { tool, .. }] if tool == "delete_everything")
        );
    }

    #[test]
    fn progress_reports_come_with_the_actions_in_both_paths() {
        let native = LlmCompletion {
            tool_calls: vec![
                ToolCall {
                    id: "a".into(),
                    name: "progress".into(),
                    arguments: r#"{"evaluation":"ok","phase":"filling"}"#.into(),
                },
                ToolCall { id: "b".into(), name: "click".into(), arguments: r#"{"ref":2}"#.into() },
            ],
            ..LlmCompletion::default()
        };
        let a = parse_answer(&native).expect("native");
        assert_eq!(
            a.calls,
            vec![Call::Act(Action::Click { ref_id: waymark_page::observation::Ref::top(2) })]
        );
        assert_eq!(a.progress.and_then(|p| p.phase).as_deref(), Some("filling"));
        let json = text(
            r#"{"progress":{"evaluation":"unsure"},"actions":[{"name":"click","arguments":{"ref":2}}]}"#,
        );
        let a = parse_answer(&json).expect("json");
        assert_eq!(a.progress.map(|p| p.evaluation).as_deref(), Some("unsure"));
    }

    #[test]
    fn a_progress_report_alone_is_not_an_answer() {
        assert_eq!(
            parse_answer(&tool("progress", r#"{"evaluation":"thinking"}"#)),
            Err(ParseError::NoActions)
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
            Ok(vec![Action::Click { ref_id: waymark_page::observation::Ref::top(2) }])
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

    /// Every kind of action reads back from both the native tool call and the JSON fallback,
    /// under its vocabulary name (a new action the parser drops fails here).
    #[test]
    fn every_action_parses_in_both_paths() {
        for example in Action::examples() {
            let Value::Object(mut args) = serde_json::to_value(&example).expect("ser") else {
                panic!("object");
            };
            args.remove("action");
            let args = Value::Object(args);
            let native = parse_actions(&tool(example.name(), &args.to_string()));
            assert_eq!(native, Ok(vec![example.clone()]), "{}", example.name());
            let fallback =
                serde_json::json!({"actions": [{"name": example.name(), "arguments": args}]});
            let json = parse_actions(&text(&format!("Here: {fallback}")));
            assert_eq!(json, Ok(vec![example.clone()]), "{}", example.name());
        }
    }

    #[test]
    fn garbage_is_an_error() {
        assert_eq!(parse_actions(&text("I think I'll click it")), Err(ParseError::NoActions));
    }
}
