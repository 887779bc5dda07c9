//! The tools offered to the model, as lean JSON Schemas: every [`Action`] is reachable, rare
//! ones folded into a parameter of a related tool (double-click is `click` with `double`,
//! history moves are `navigate` with `history`, tabs are one `tab` tool…), and what all of them
//! share — what a ref is — is said once in the system prompt. Every tool definition is sent on
//! every navigator call, so each token here is paid on every step.
//!
//! [`to_action_call`] turns a call of an offered tool back into the [`Action`] it stands for;
//! the names of [`Action::TOOL_NAMES`] are still accepted (scripts and models that learned them).

use crate::action::Action;
use crate::protocol::ToolSpec;
use serde_json::{Map, Value, json};

/// The tools offered, in order.
pub const OFFERED_TOOLS: &[&str] = &[
    "click",
    "type",
    "press_keys",
    "select_option",
    "check",
    "hover",
    "scroll",
    "upload",
    "navigate",
    "tab",
    "wait",
    "extract",
    "find",
    "screenshot",
    "done",
];

/// Every tool the navigator may call this step.
pub fn navigator_tools() -> Vec<ToolSpec> {
    OFFERED_TOOLS
        .iter()
        .map(|name| {
            let (description, properties, required) = spec(name);
            let mut parameters = json!({"type": "object", "properties": properties});
            if !required.is_empty() {
                parameters["required"] = json!(required);
            }
            ToolSpec { name: (*name).into(), description: description.into(), parameters }
        })
        .collect()
}

/// Description, properties and required properties of one offered tool.
fn spec(name: &str) -> (&'static str, Value, Vec<&'static str>) {
    // A ref is written "14", or "f2:14" in a frame (the system prompt says so once); the
    // parser also takes a bare number.
    let r = || json!({"type": "string"});
    let text = || json!({"type": "string"});
    let flag = || json!({"type": "boolean"});
    match name {
        "click" => (
            "Click ref; double: double-click; to: drag onto that ref; select: select these words in ref.",
            json!({"ref": r(), "double": flag(), "to": r(), "select": text()}),
            vec!["ref"],
        ),
        "type" => (
            "Set a field's text (append adds; \"\" empties); a slider takes a number.",
            json!({"ref": r(), "text": text(), "append": flag()}),
            vec!["ref", "text"],
        ),
        "press_keys" => (
            "Press keys (\"Enter\", \"Control+a Tab\") on ref or the focus.",
            json!({"keys": text(), "ref": r()}),
            vec!["keys"],
        ),
        "select_option" => (
            "Choose an option by label or value.",
            json!({"ref": r(), "option": text()}),
            vec!["ref", "option"],
        ),
        "check" => (
            "Check a box, radio or switch; checked=false unchecks.",
            json!({"ref": r(), "checked": flag()}),
            vec!["ref"],
        ),
        "hover" => ("Hover over ref.", json!({"ref": r()}), vec!["ref"]),
        "scroll" => (
            "Scroll the page or ref; into_view shows ref or text.",
            json!({"direction": {"enum": ["down", "up", "top", "bottom", "into_view"]}, "ref": r(), "text": text()}),
            vec![],
        ),
        "upload" => (
            "Put a file the user named into a file input.",
            json!({"ref": r(), "file": text()}),
            vec!["ref", "file"],
        ),
        "navigate" => (
            "Load url, or go back/forward/reload.",
            json!({"url": text(), "history": {"enum": ["back", "forward", "reload"]}}),
            vec![],
        ),
        "tab" => (
            "Open url in a new tab; switch or close tab (no id: this one).",
            json!({"do": {"enum": ["open", "switch", "close"]}, "url": text(), "tab": {"type": "integer"}}),
            vec!["do"],
        ),
        "wait" => (
            "Wait for text (gone: until gone) or the page to settle; seconds ≤15.",
            json!({"text": text(), "gone": flag(), "seconds": {"type": "number"}}),
            vec![],
        ),
        "extract" => (
            "Page/ref as markdown; columns [{name, example}]: table of records like ref's, all pages.",
            json!({"ref": r(), "columns": {"type": "array"}, "pages": {"type": "integer"}}),
            vec![],
        ),
        "find" => {
            ("Find elements and text on the whole page.", json!({"query": text()}), vec!["query"])
        }
        "screenshot" => ("Screenshot the viewport.", json!({}), vec![]),
        _ => (
            "End the task: answer and success.",
            json!({"answer": text(), "success": flag()}),
            vec!["answer", "success"],
        ),
    }
}

/// Why a folded call's arguments do not name an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldError(pub String);

/// An [`Action::TOOL_NAMES`] name and the arguments for it.
pub type ActionCall = (&'static str, Map<String, Value>);

/// The [`Action::TOOL_NAMES`] name and arguments a call of an offered (or legacy) tool stands
/// for; `None` for a tool that does not exist.
pub fn to_action_call(
    name: &str,
    mut args: Map<String, Value>,
) -> Result<Option<ActionCall>, FoldError> {
    let take_bool = |args: &mut Map<String, Value>, key: &str| -> Result<bool, FoldError> {
        match args.remove(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(b),
            Some(other) => Err(FoldError(format!("`{key}` must be true or false, not {other}"))),
        }
    };
    let legacy = Action::TOOL_NAMES.iter().copied().find(|n| *n == name);
    let folded = match name {
        "click" if args.get("to").is_some_and(|to| !to.is_null()) => {
            args.remove("double");
            args.remove("select");
            "drag"
        }
        "click" if args.get("select").is_some_and(|s| !s.is_null()) => {
            args.remove("double");
            if let Some(words) = args.remove("select") {
                args.insert("text".into(), words);
            }
            "select_text"
        }
        "click" if take_bool(&mut args, "double")? => {
            args.remove("select");
            "double_click"
        }
        "type" => {
            let empty = args.get("text").and_then(Value::as_str).is_some_and(str::is_empty);
            let append = args.get("append").and_then(Value::as_bool).unwrap_or(false);
            if empty && !append {
                args.remove("text");
                args.remove("append");
                "clear"
            } else {
                "type"
            }
        }
        "check" => match args.remove("checked") {
            None | Some(Value::Null) | Some(Value::Bool(true)) => "check",
            Some(Value::Bool(false)) => "uncheck",
            Some(other) => {
                return Err(FoldError(format!("`checked` must be true or false, not {other}")));
            }
        },
        "scroll" if args.get("direction").and_then(Value::as_str) == Some("into_view") => {
            args.remove("direction");
            "scroll_to"
        }
        "scroll" => {
            // `text` only means something with into_view.
            args.remove("text");
            "scroll"
        }
        "navigate" => match args.remove("history") {
            None | Some(Value::Null) => "navigate",
            Some(Value::String(h)) => {
                let Some(to) = ["back", "forward", "reload"].into_iter().find(|n| *n == h) else {
                    return Err(FoldError(format!(
                        "`history` must be back, forward or reload, not {h:?}"
                    )));
                };
                args.remove("url");
                to
            }
            Some(other) => {
                return Err(FoldError(format!("`history` must be a string, not {other}")));
            }
        },
        "tab" => {
            let what = args.remove("do");
            match what.as_ref().and_then(Value::as_str) {
                Some("open") => {
                    args.remove("tab");
                    "open_tab"
                }
                Some("switch") => {
                    args.remove("url");
                    "switch_tab"
                }
                Some("close") => {
                    args.remove("url");
                    "close_tab"
                }
                _ => {
                    return Err(FoldError(format!(
                        "`do` must be open, switch or close, not {}",
                        what.unwrap_or(Value::Null)
                    )));
                }
            }
        }
        // With columns, extract reads every record of a listing (`collect`).
        "extract" | "collect"
            if args.get("columns").is_some_and(|c| !c.is_null()) || name == "collect" =>
        {
            // The shape is learned from the page, never taken from the caller.
            args.remove("shape");
            "collect"
        }
        "extract" => {
            args.remove("pages");
            args.remove("columns");
            "extract"
        }
        _ => match legacy {
            Some(n) => n,
            None => return Ok(None),
        },
    };
    Ok(Some((folded, args)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::Ref;

    fn action(name: &str, args: Value) -> Action {
        let Value::Object(args) = args else { panic!("object") };
        let (name, mut args) = to_action_call(name, args).expect("folds").expect("known");
        args.insert("action".into(), json!(name));
        serde_json::from_value(Value::Object(args)).expect("action")
    }

    #[test]
    fn required_fields_are_properties_and_every_action_is_reachable() {
        let tools = navigator_tools();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, OFFERED_TOOLS);
        for tool in &tools {
            for field in tool.parameters["required"].as_array().into_iter().flatten() {
                let field = field.as_str().expect("name");
                assert!(
                    tool.parameters["properties"].get(field).is_some(),
                    "{}: {field}",
                    tool.name
                );
            }
        }
        let one = Ref::top(1);
        let reached = [
            action("click", json!({"ref": 1})),
            action("click", json!({"ref": 1, "double": true})),
            action("hover", json!({"ref": 1})),
            action("type", json!({"ref": 1, "text": "a"})),
            action("type", json!({"ref": 1, "text": ""})),
            action("press_keys", json!({"keys": "Enter"})),
            action("click", json!({"ref": 1, "select": "second line"})),
            action("select_option", json!({"ref": 1, "option": "x"})),
            action("check", json!({"ref": 1})),
            action("check", json!({"ref": 1, "checked": false})),
            action("click", json!({"ref": 1, "to": "2"})),
            action("scroll", json!({"direction": "down"})),
            action("scroll", json!({"direction": "into_view", "text": "x"})),
            action("upload", json!({"ref": 1, "file": "a.txt"})),
            action("navigate", json!({"url": "https://example.com/"})),
            action("navigate", json!({"history": "back"})),
            action("navigate", json!({"history": "forward"})),
            action("navigate", json!({"history": "reload"})),
            action("tab", json!({"do": "open", "url": "https://example.com/"})),
            action("tab", json!({"do": "switch", "tab": 3})),
            action("tab", json!({"do": "close"})),
            action("wait", json!({"text": "Loading", "gone": true})),
            action("extract", json!({})),
            action("find", json!({"query": "x"})),
            action("extract", json!({"ref": 3, "columns": [{"name": "n", "example": "x"}]})),
            action("screenshot", json!({})),
            action("done", json!({"answer": "a", "success": true})),
        ];
        let mut names: Vec<&str> = reached.iter().map(Action::name).collect();
        names.dedup();
        assert_eq!(names, Action::TOOL_NAMES);
        assert_eq!(reached[4], Action::Clear { ref_id: one });
        assert_eq!(reached[12], Action::ScrollTo { ref_id: None, text: Some("x".into()) });
        // The same kinds as the vocabulary's own examples (a new action must be offered).
        let examples: Vec<usize> = Action::examples().iter().map(Action::ordinal).collect();
        let mut kinds: Vec<usize> = reached.iter().map(Action::ordinal).collect();
        kinds.dedup();
        assert_eq!(kinds, examples);
    }

    #[test]
    fn legacy_names_still_work_and_unknown_ones_are_none() {
        assert_eq!(
            action("double_click", json!({"ref": 2})),
            Action::DoubleClick { ref_id: Ref::top(2) }
        );
        assert_eq!(action("back", json!({})), Action::Back);
        assert_eq!(to_action_call("delete_everything", Map::new()), Ok(None));
        let bad = json!({"do": "explode"});
        let Value::Object(bad) = bad else { panic!() };
        assert!(to_action_call("tab", bad).is_err());
    }

    /// The whole list as the OpenAI wire sends it stays within the budget.
    #[test]
    fn the_tool_list_is_lean() {
        let mut tools: Vec<Value> = navigator_tools()
            .into_iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
            .collect();
        let progress = super::super::role_tools::progress_tool();
        tools.push(json!({"type": "function", "function": {"name": progress.name, "description": progress.description, "parameters": progress.parameters}}));
        let bpe = tiktoken_rs::o200k_base().expect("o200k");
        let tokens = bpe.encode_ordinary(&Value::Array(tools).to_string()).len();
        // 900 before `extract` learned `columns` (issue 29: every record of a listing as a
        // table without the model costs 35 tokens here and saves one call per page).
        assert!(tokens <= 930, "{tokens} tokens");
        eprintln!("tool list: {tokens} o200k tokens");
    }
}
