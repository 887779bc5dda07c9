//! The panel's view of a recording in progress (teach by showing): what has been recorded so
//! far, in the words the workflow editor will show (a password was never read).

use crate::workflow::{Demonstration, WorkflowStep};
use serde::{Deserialize, Serialize};

/// A recording in progress.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecordingView {
    /// Where the recording stands, in words ("Recording · 3 steps so far").
    pub status: String,
    /// Each step so far, in words.
    pub steps: Vec<String>,
    /// Steps that could not be kept, with a sentence for the panel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The view of `demo`; `ready`: the page the tab shows reports the user's steps (a page
/// still loading does not yet).
pub fn view(demo: &Demonstration, ready: bool) -> RecordingView {
    let steps = demo
        .steps
        .iter()
        .map(|step| WorkflowStep::describe_default(&step.action, step.target.as_ref()))
        .collect();
    let skipped = (demo.skipped > 0).then(|| {
        format!(
            "{} left out (on something other than a web page, or an element Waymark could not \
             find again)",
            crate::text::counted(demo.skipped, "step")
        )
    });
    let so_far = crate::text::counted(demo.steps.len(), "step");
    let status = if ready {
        format!("Recording · {so_far} so far")
    } else {
        format!("Recording · {so_far} so far · wait for the page to load before you go on")
    };
    RecordingView { status, steps, skipped }
}
