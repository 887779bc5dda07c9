//! The tools offered to the model, as JSON Schemas: one per [`Action`] variant, in the order
//! of [`Action::TOOL_NAMES`] (the parser accepts exactly these names).

use crate::action::Action;
use crate::protocol::ToolSpec;
use serde_json::{Value, json};

/// Every tool the navigator may call this step.
pub fn navigator_tools() -> Vec<ToolSpec> {
    Action::TOOL_NAMES
        .iter()
        .map(|name| {
            let (description, properties, required) = spec(name);
            ToolSpec {
                name: (*name).into(),
                description: description.into(),
                parameters: json!({
                    "type": "object",
                    "properties": properties,
                    "required": required,
                    "additionalProperties": false
                }),
            }
        })
        .collect()
}

fn element_ref() -> Value {
    json!({"type": ["integer", "string"], "description": "element ref: 14, or \"f2:14\" in a frame"})
}

/// Description, properties and required properties of one tool.
fn spec(name: &str) -> (&'static str, Value, Vec<&'static str>) {
    let r = element_ref;
    let text = || json!({"type": "string"});
    match name {
        "click" => ("Click the element with this ref.", json!({"ref": r()}), vec!["ref"]),
        "double_click" => ("Double-click the element.", json!({"ref": r()}), vec!["ref"]),
        "hover" => ("Move the pointer over the element.", json!({"ref": r()}), vec!["ref"]),
        "type" => (
            "Replace the text of a field (or append with append=true).",
            json!({"ref": r(), "text": text(), "append": {"type": "boolean"}}),
            vec!["ref", "text"],
        ),
        "clear" => ("Empty a field.", json!({"ref": r()}), vec!["ref"]),
        "press_keys" => (
            "Press keys on the focused element or on ref: Enter, Tab, Escape, ArrowDown, Control+a; spaces separate presses.",
            json!({"keys": text(), "ref": r()}),
            vec!["keys"],
        ),
        "select_option" => (
            "Choose an option of a select or dropdown by its label or value.",
            json!({"ref": r(), "option": text()}),
            vec!["ref", "option"],
        ),
        "check" => ("Make a checkbox, radio or switch checked.", json!({"ref": r()}), vec!["ref"]),
        "uncheck" => ("Make a checkbox or switch unchecked.", json!({"ref": r()}), vec!["ref"]),
        "scroll" => (
            "Scroll the page, or the element ref, by a screen or to an end.",
            json!({"direction": {"type": "string", "enum": ["down", "up", "top", "bottom"]}, "ref": r()}),
            vec![],
        ),
        "scroll_to" => (
            "Scroll until the element ref, or a text, is in view.",
            json!({"ref": r(), "text": text()}),
            vec![],
        ),
        "upload" => (
            "Put a file from the user's machine into a file input.",
            json!({"ref": r(), "file": {"type": "string", "description": "path or name the user gave"}}),
            vec!["ref", "file"],
        ),
        "navigate" => ("Load a URL in this tab.", json!({"url": text()}), vec!["url"]),
        "back" => ("Go back in history.", json!({}), vec![]),
        "forward" => ("Go forward in history.", json!({}), vec![]),
        "reload" => ("Reload the page.", json!({}), vec![]),
        "open_tab" => {
            ("Open a URL in a new tab and work there.", json!({"url": text()}), vec!["url"])
        }
        "switch_tab" => {
            ("Work on another open tab.", json!({"tab": {"type": "integer"}}), vec!["tab"])
        }
        "close_tab" => (
            "Close a tab (this one when tab is absent).",
            json!({"tab": {"type": "integer"}}),
            vec![],
        ),
        "wait" => (
            "Wait until a text appears, or until loading finishes; at most seconds (≤15).",
            json!({"text": text(), "seconds": {"type": "number"}}),
            vec![],
        ),
        "extract" => (
            "Read the page, or the element ref, as markdown (tables kept).",
            json!({"ref": r()}),
            vec![],
        ),
        "find" => (
            "Find elements and text anywhere on the page matching words.",
            json!({"query": text()}),
            vec!["query"],
        ),
        "screenshot" => ("Take a screenshot of the visible part of the tab.", json!({}), vec![]),
        _ => (
            "Finish the task: the answer for the user, and whether it succeeded.",
            json!({"answer": text(), "success": {"type": "boolean"}}),
            vec!["answer", "success"],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tool_per_action_with_matching_required_fields() {
        let tools = navigator_tools();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, Action::TOOL_NAMES);
        let done = tools.iter().find(|t| t.name == "done").expect("done");
        assert_eq!(done.parameters["required"], json!(["answer", "success"]));
        for tool in &tools {
            for field in tool.parameters["required"].as_array().expect("array") {
                let field = field.as_str().expect("name");
                assert!(
                    tool.parameters["properties"].get(field).is_some(),
                    "{}: {field}",
                    tool.name
                );
            }
        }
    }
}
