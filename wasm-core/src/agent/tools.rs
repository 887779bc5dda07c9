//! The tools offered to the model, as JSON Schemas.

use crate::protocol::ToolSpec;
use serde_json::json;

/// Every tool the navigator may call this step.
pub fn navigator_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "click".into(),
            description: "Click the element with this ref.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"ref": {"type": "integer", "description": "element ref"}},
                "required": ["ref"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "type".into(),
            description: "Replace the text of a field with this ref.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "ref": {"type": "integer", "description": "element ref"},
                    "text": {"type": "string"}
                },
                "required": ["ref", "text"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "done".into(),
            description: "Finish the task: the answer for the user, and whether it succeeded."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "answer": {"type": "string"},
                    "success": {"type": "boolean"}
                },
                "required": ["answer", "success"],
                "additionalProperties": false
            }),
        },
    ]
}
