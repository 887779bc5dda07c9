//! Actions the agent performs on a page, and what became of them.

use serde::{Deserialize, Serialize};

/// One action, as validated from the model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Click an element.
    Click {
        /// Element ref from the latest observation.
        #[serde(rename = "ref")]
        ref_id: u32,
    },
    /// Replace the text of a field.
    Type {
        /// Element ref from the latest observation.
        #[serde(rename = "ref")]
        ref_id: u32,
        /// Text to enter.
        text: String,
    },
    /// The task is finished (or cannot be): the answer for the user.
    Done {
        /// What the user should read.
        answer: String,
        /// Whether the task succeeded.
        success: bool,
    },
}

impl Action {
    /// The action in plain words for the side panel, naming its target when known.
    pub fn describe(&self, target: Option<&str>) -> String {
        let target = target.map(|t| format!(" “{t}”")).unwrap_or_default();
        match self {
            Self::Click { ref_id } => format!("Click{target} [{ref_id}]"),
            Self::Type { ref_id, text } => format!("Type “{text}” into{target} [{ref_id}]"),
            Self::Done { success: true, .. } => "Finish".to_owned(),
            Self::Done { success: false, .. } => "Give up".to_owned(),
        }
    }

    /// The element this action targets.
    pub fn target_ref(&self) -> Option<u32> {
        match self {
            Self::Click { ref_id } | Self::Type { ref_id, .. } => Some(*ref_id),
            Self::Done { .. } => None,
        }
    }
}

/// What happened when the content script performed an action.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ActionOutcome {
    /// Whether the action was performed.
    pub ok: bool,
    /// Why it failed, in words the model and the user understand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The page navigated (the rest of the batch is dropped).
    #[serde(default)]
    pub navigated: bool,
    /// A field's value changed.
    #[serde(default)]
    pub value_changed: bool,
}

impl ActionOutcome {
    /// A successful outcome.
    pub fn done() -> Self {
        Self { ok: true, ..Self::default() }
    }

    /// A failed outcome with its reason.
    pub fn failed(reason: impl Into<String>) -> Self {
        Self { ok: false, error: Some(reason.into()), ..Self::default() }
    }
}

/// A request from the service worker to the content script of a tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ContentRequest {
    /// Read the page; renews the refs.
    Observe,
    /// Perform one action on the latest refs.
    Act {
        /// The action.
        action: Action,
    },
}
