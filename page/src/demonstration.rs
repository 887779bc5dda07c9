//! Teach by showing: what the content script reports, while Waymark records, for each thing
//! the user does in the top frame of the recording tab. The worker turns each report into a
//! workflow step with the same locators a task's steps get (`waymark_core::workflow`).
//!
//! Only trusted events count (a page's scripts cannot fake one), and a password field's value
//! never leaves the page: it is reported as [`DemonstratedAct::TypeSecret`].

use crate::observation::{Observation, Ref};
use serde::{Deserialize, Serialize};

/// One thing the user did, with the frame as it was read right before it took effect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Demonstrated {
    /// The frame as the agent would have read it at that moment: the step's locator is
    /// captured from it exactly as from a task's observation.
    pub observation: Observation,
    /// The element the user acted on, in `observation`.
    #[serde(rename = "ref")]
    pub target: Ref,
    /// What they did to it.
    pub act: DemonstratedAct,
    /// Where the step sends: a link's target, or the form's action when it submits one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
}

/// What the user did to the element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DemonstratedAct {
    /// Clicked it (a button, a link, a tab, a custom control).
    Click,
    /// Ticked a checkbox or radio button (its state after the click).
    Check,
    /// Unticked a checkbox.
    Uncheck,
    /// Committed a value in a text field (on change, or before Enter).
    Type {
        /// The field's value.
        text: String,
    },
    /// Committed a value in a password field: the value is not reported, the workflow asks
    /// for it at each run.
    TypeSecret,
    /// Chose an option of a `<select>`.
    Choose {
        /// The option's label as shown.
        option: String,
    },
    /// Pressed keys in it (Enter in a field, which submits its form).
    Press {
        /// `Enter`.
        keys: String,
    },
}

/// The content script's answer to [`crate::action::ContentRequest::Record`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordingArmed {
    /// Whether the frame now reports the user's actions.
    pub recording: bool,
}

/// The message the content script sends the worker for each step (`chrome.runtime`; the
/// worker takes it only from the top frame of the tab it records).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DemonstratedMessage {
    /// Always `"demonstrated"`: what kind of message this is.
    pub waymark: String,
    /// The [`Demonstrated`] step as JSON.
    pub step: String,
}

/// The `waymark` value of a [`DemonstratedMessage`].
pub const DEMONSTRATED: &str = "demonstrated";
