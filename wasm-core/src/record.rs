//! What a task did and how it ended, in the terms every part keeps: the agent writes these
//! records, the session stores them, workflows are recorded from them, routines and the bridge
//! report them.
//!
//! Why a leaf of its own: the session, the workflows and the agent all use these types; here
//! they depend on none of those modules, so the core's modules form no circle.

use serde::{Deserialize, Serialize};
use waymark_page::action::{Action, ActionOutcome};

/// One performed action and its outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StepRecord {
    /// The step it belonged to.
    pub step: u32,
    /// The action.
    pub action: Action,
    /// In plain words, with its target.
    pub description: String,
    /// What happened.
    pub outcome: ActionOutcome,
    /// Where it ran and on what, in terms that outlive the page's refs (what a workflow is
    /// recorded from); absent for actions that did not pass the policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub located: Option<Box<Located>>,
}

/// Where an action ran and on what, in stable terms: the page's URL pattern, the element's
/// locator, and where the action sent data as the policy judged it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Located {
    /// The page (origin and path; the query is never kept).
    pub page: crate::locate::UrlPattern,
    /// The element acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<crate::locate::Locator>,
    /// Where it sent data (a form's action, a link's target, a URL opened, a tab switched to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<crate::locate::UrlPattern>,
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskOutcome {
    /// The answer for the user (or why it stopped).
    pub answer: String,
    /// Whether the task succeeded.
    pub success: bool,
    /// Set when the task stopped on an error rather than by the model's choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every action performed.
    pub steps: Vec<StepRecord>,
    /// Number of model steps used.
    pub step_count: u32,
    /// Wall time from start to end.
    pub elapsed_ms: f64,
    /// How it ended (the panel heads the task with it).
    #[serde(default)]
    pub ending: Ending,
}

impl TaskOutcome {
    /// A task that failed before its first step: `message` is its answer and its error.
    pub fn failed_at_start(message: String) -> Self {
        Self {
            answer: message.clone(),
            success: false,
            error: Some(message),
            steps: Vec::new(),
            step_count: 0,
            elapsed_ms: 0.0,
            ending: Ending::Failed,
        }
    }
}

/// How a task ended: typed where it ends, never read back from the answer's words.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The model said the task is done.
    #[default]
    Finished,
    /// The model gave up, or the page did not confirm its claim.
    NotFinished,
    /// The user stopped it.
    Stopped,
    /// Something failed: the model endpoint, storage, the page, the step budget.
    Failed,
    /// It could not go on because what it needed last was refused (by the safety policy or
    /// the user at a card) and the model gave up.
    Refused,
    /// Waymark itself crashed while it ran (a panic in its wasm); it was not run again, and its
    /// last action may or may not have been done.
    Interrupted,
}

impl Ending {
    /// The task's heading once it ended: `Finished in 3 steps`, `Stopped after 1 step`.
    pub fn heading(self, steps: u32) -> String {
        let steps = crate::text::counted(steps as usize, "step");
        match self {
            Self::Finished => format!("Finished in {steps}"),
            Self::NotFinished => format!("Not finished after {steps}"),
            Self::Stopped => format!("Stopped after {steps}"),
            Self::Failed => format!("Failed after {steps}"),
            Self::Refused => format!("Refused after {steps}"),
            Self::Interrupted => format!("Interrupted after {steps}"),
        }
    }
}
