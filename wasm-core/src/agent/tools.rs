//! The tools offered to the model, from the action table ([`Tool`]): names, descriptions and
//! argument schemas derived from each tool's argument struct. Every tool definition is sent on
//! every navigator call, so each token here is paid on every step.
//!
//! A call of an offered tool is read back into the [`Action`](waymark_page::action::Action) it stands
//! for by [`action_of_call`](waymark_page::action::action_of_call); the actions' own names
//! ([`ActionKind`](waymark_page::action::ActionKind)) are still accepted (scripts and models that
//! learned them).

use std::sync::OnceLock;
use waymark_page::action::Tool;
use waymark_protocol::ToolSpec;

/// The names of the tools offered, in order.
pub const OFFERED_TOOLS: &[&str] = &{
    let mut names = [""; Tool::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Tool::ALL[i].name();
        i += 1;
    }
    names
};

/// Every tool the navigator may call this step (the schemas are derived once per worker).
pub fn navigator_tools() -> Vec<ToolSpec> {
    static TOOLS: OnceLock<Vec<ToolSpec>> = OnceLock::new();
    TOOLS
        .get_or_init(|| {
            Tool::ALL
                .iter()
                .map(|tool| ToolSpec {
                    name: tool.name().into(),
                    description: tool.description().into(),
                    parameters: tool.parameters(),
                })
                .collect()
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value, json};
    use waymark_page::action::{Action, ActionKind, action_of_call};
    use waymark_page::observation::Ref;

    fn action(name: &str, args: Value) -> Action {
        let Value::Object(args) = args else { panic!("object") };
        action_of_call(name, args).expect("reads").expect("known")
    }

    /// Every kind of action is reached by a call of an offered tool, the one the action table
    /// names for it (a new kind no tool reaches fails here).
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
        let calls = [
            ("click", json!({"ref": 1})),
            ("click", json!({"ref": 1, "double": true})),
            ("hover", json!({"ref": 1})),
            ("type", json!({"ref": 1, "text": "a"})),
            ("type", json!({"ref": 1, "text": ""})),
            ("press_keys", json!({"keys": "Enter"})),
            ("click", json!({"ref": 1, "select": "second line"})),
            ("select_option", json!({"ref": 1, "option": "x"})),
            ("check", json!({"ref": 1})),
            ("check", json!({"ref": 1, "checked": false})),
            ("click", json!({"ref": 1, "to": "2"})),
            ("scroll", json!({"direction": "down"})),
            ("scroll", json!({"direction": "into_view", "text": "x"})),
            ("upload", json!({"ref": 1, "file": "a.txt"})),
            ("navigate", json!({"url": "https://example.com/"})),
            ("navigate", json!({"history": "back"})),
            ("navigate", json!({"history": "forward"})),
            ("navigate", json!({"history": "reload"})),
            ("tab", json!({"do": "open", "url": "https://example.com/"})),
            ("tab", json!({"do": "switch", "tab": 3})),
            ("tab", json!({"do": "close"})),
            ("wait", json!({"text": "Loading", "gone": true})),
            ("extract", json!({})),
            ("find", json!({"query": "x"})),
            ("extract", json!({"ref": 3, "columns": [{"name": "n", "example": "x"}]})),
            ("screenshot", json!({})),
            ("done", json!({"answer": "a", "success": true})),
        ];
        let mut kinds = Vec::new();
        for (tool, args) in calls {
            let reached = action(tool, args);
            assert!(OFFERED_TOOLS.contains(&tool), "{tool}");
            assert_eq!(reached.spec().tool.name(), tool, "{reached:?}");
            kinds.push(reached.kind());
        }
        kinds.dedup();
        assert_eq!(kinds, ActionKind::ALL);
        assert_eq!(
            action("type", json!({"ref": 1, "text": ""})),
            Action::Clear { ref_id: Ref::top(1) }
        );
        assert_eq!(
            action("scroll", json!({"direction": "into_view", "text": "x"})),
            Action::ScrollTo { ref_id: None, text: Some("x".into()) }
        );
        assert_eq!(
            action("click", json!({"ref": 1, "double": null})),
            Action::Click { ref_id: Ref::top(1) }
        );
    }

    #[test]
    fn legacy_names_still_work_and_unknown_ones_are_none() {
        assert_eq!(
            action("double_click", json!({"ref": 2})),
            Action::DoubleClick { ref_id: Ref::top(2) }
        );
        assert_eq!(action("back", json!({})), Action::Back);
        assert!(matches!(action_of_call("delete_everything", Map::new()), Ok(None)));
        for bad in [
            ("tab", json!({"do": "explode"})),
            ("tab", json!({"do": "switch"})),
            ("navigate", json!({})),
            ("check", json!({"ref": 1, "checked": "no"})),
        ] {
            let (name, Value::Object(args)) = bad else { panic!() };
            assert!(action_of_call(name, args).is_err(), "{name}");
        }
        // The shape of a listing is learned from the page, never taken from the caller.
        let shaped = json!({"columns": [{"name": "n", "example": "x"}], "shape": {"bogus": 1}});
        let Value::Object(args) = shaped else { panic!() };
        let Ok(Some(Action::Collect(spec))) = action_of_call("collect", args) else { panic!() };
        assert_eq!(spec.shape, None);
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
