//! Tools of the agent itself (not of the page): the planner's `plan`, the validator's
//! `verdict`, and the navigator's `progress` report. Page tools live in `tools.rs`.

use serde_json::json;
use waymark_protocol::ToolSpec;

/// Name of the navigator's self-report tool.
pub const PROGRESS_TOOL: &str = "progress";
/// Name of the navigator's search of the session's older tasks.
pub const RECALL_TOOL: &str = "recall";
/// Name of the planner's tool.
pub const PLAN_TOOL: &str = "plan";
/// Name of the validator's tool.
pub const VERDICT_TOOL: &str = "verdict";

/// The navigator's self-report, called alongside its actions. `memory` is what the model keeps
/// of a step's output: page text is shown in full only once, so this is how a finding reaches
/// later steps (and the answer).
pub fn progress_tool() -> ToolSpec {
    ToolSpec {
        name: PROGRESS_TOOL.into(),
        description: "With your actions: evaluation of the last step, confidence 0-1, plan \
                      phase, sub-goal just done, memory (facts from the last output to keep)."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "evaluation": {"type": "string"},
                "confidence": {"type": "number"},
                "phase": {"type": "string"},
                "sub_goal_done": {"type": "string"},
                "memory": {"type": "string"}
            },
            "required": ["evaluation"]
        }),
    }
}

/// The navigator's search of older tasks of the session (offered when the notes fold some).
pub fn recall_tool() -> ToolSpec {
    ToolSpec {
        name: RECALL_TOOL.into(),
        description: "Search this session's older tasks for their findings.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"]
        }),
    }
}

/// The planner's answer.
pub fn plan_tool() -> ToolSpec {
    ToolSpec {
        name: PLAN_TOOL.into(),
        description: "Give a short plan (at most 6 steps, each with its phase such as \
                      searching, reading, comparing, submitting) and 0-3 questions for real \
                      ambiguities in the task."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "questions": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                "steps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"phase": {"type": "string"}, "goal": {"type": "string"}},
                        "required": ["goal"]
                    }
                }
            },
            "required": ["steps"],
            "additionalProperties": false
        }),
    }
}

/// The validator's answer.
pub fn verdict_tool() -> ToolSpec {
    ToolSpec {
        name: VERDICT_TOOL.into(),
        description: "Say whether the page confirms that the task is done as claimed.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"confirmed": {"type": "boolean"}, "reason": {"type": "string"}},
            "required": ["confirmed", "reason"],
            "additionalProperties": false
        }),
    }
}
