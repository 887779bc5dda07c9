//! The panel's view of a recording in progress (teach by showing): what has been recorded so
//! far, in the words the workflow editor will show, with a password never spelled.

use crate::safety::outbound::REDACTED;
use crate::workflow::{Demonstration, StepAction, WorkflowStep};
use serde::{Deserialize, Serialize};

/// A recording in progress.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordingView {
    /// The tab being recorded.
    pub tab: i32,
    /// Each step so far, in words.
    pub steps: Vec<String>,
    /// Steps that could not be kept, with a sentence for the panel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The view of `demo`.
pub fn view(demo: &Demonstration) -> RecordingView {
    let steps = demo
        .steps
        .iter()
        .map(|step| match &step.action {
            StepAction::Type { text, .. } if text.as_str() == REDACTED => {
                let on = step.target.as_ref().map(|t| t.describe()).unwrap_or_default();
                format!("Type a password into {on} (you type it at each run; it is not recorded)")
            }
            _ => WorkflowStep::describe_default(&step.action, step.target.as_ref()),
        })
        .collect();
    let skipped = (demo.skipped > 0).then(|| {
        format!(
            "{} left out (on something other than a web page, or an element Waymark could not \
             find again)",
            crate::text::counted(demo.skipped, "step")
        )
    });
    RecordingView { tab: demo.tab, steps, skipped }
}
