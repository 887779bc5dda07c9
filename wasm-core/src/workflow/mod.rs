//! Workflows: a task done once with the model, repeated without it.
//!
//! A workflow is recorded from a finished task ([`record`]): each action becomes a step with a
//! stable [`Locator`] (never a ref), the page it ran on as a [`UrlPattern`], where it sent data
//! (its destination) and, where the user's words gave a value, a named parameter. A run
//! ([`WorkflowRun`], carried by the task's `TaskSpec`) is a task of the session that the agent
//! loop replays step by step without a model call while every locator finds exactly one
//! element, under the same safety policy as a live task; a step whose element cannot be found
//! is healed with one navigator call, and the user decides whether the healed step replaces the
//! recorded one. Workflows are stored next to the sessions ([`store`]) and exported and
//! imported as versioned JSON ([`schema`]).

mod demonstration;
mod edit;
mod record;
mod run;
pub mod schema;
pub mod store;

pub use demonstration::{
    Demonstration, LoadCause, MAX_DEMONSTRATED_STEPS, ShownWrite, SkipReason, grant_shown,
};
pub use edit::{ParamEdit, StepEdit, WorkflowEdit};
pub use record::{RecordError, record};
pub use run::{BindError, Heal, RunRequest, RunValuesError, WorkflowRun, parse_run_prompt};
pub use schema::{ImportError, SCHEMA_VERSION, export_json, import_json, validate};
pub use store::{WorkflowError, WorkflowMeta, WorkflowStore};

use crate::locate::{Locator, Template, UrlPattern};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use waymark_page::action::{Action, ActionKind};
use waymark_page::observation::Ref;

/// A saved workflow: the steps of a task done once, with named inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workflow {
    /// The version of this format ([`SCHEMA_VERSION`]); a file of a newer one is refused.
    pub schema_version: u32,
    /// Stable id (its storage key derives from it).
    pub id: String,
    /// What the user calls it ("Weekly report"); a prompt "run Weekly report …" names it.
    pub name: String,
    /// The task it was recorded from, its values turned into `{{parameters}}`.
    pub task: Template,
    /// Its named inputs.
    #[serde(default)]
    pub params: Vec<Param>,
    /// The steps, in order.
    pub steps: Vec<WorkflowStep>,
    /// Created (ms since the epoch).
    #[serde(default)]
    pub created_ms: f64,
    /// Last changed (ms since the epoch).
    #[serde(default)]
    pub updated_ms: f64,
    /// Counts saved changes: healed steps are accepted only into the revision they were
    /// healed from.
    #[serde(default)]
    pub revision: u32,
    /// Set when the workflow came from a file (never from the file itself: the import sets
    /// it): its steps are its author's, so its first run asks about every step that changes
    /// something, each described from what it does, not from its author's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<Imported>,
    /// For a workflow the user showed ([`Demonstration`]): the writes the demonstration's own
    /// requests made, which its runs may make again (its task has no words of the user's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shown_writes: Vec<ShownWrite>,
}

/// Where an imported workflow stands with the user.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Imported {
    /// When it was imported (ms since the epoch).
    pub at_ms: f64,
    /// A run went through every step with the user's approval: later runs are policed like
    /// the user's own workflows.
    #[serde(default)]
    pub reviewed: bool,
}

impl Workflow {
    /// Whether a run must ask about every state-changing step (an imported workflow's runs
    /// until one went through all its steps).
    pub fn needs_review(&self) -> bool {
        self.imported.is_some_and(|i| !i.reviewed)
    }

    /// The origins the workflow's own steps name (the pages they run on and where they send
    /// data): where its secret inputs may be typed.
    pub fn origins(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .steps
            .iter()
            .flat_map(|s| std::iter::once(&s.page).chain(s.destination.as_ref()))
            .map(|p| p.origin().to_owned())
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// A named input of a workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// How steps refer to it: `{{name}}` (lower case, digits, `_`).
    pub name: String,
    /// What the form calls it (the field it went into: "Full name").
    #[serde(default)]
    pub label: String,
    /// The value a run uses when none is given (the one of the recorded task); never set for a
    /// secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// A value Waymark tracked as a secret: never stored, asked for at each run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
}

/// One step of a workflow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowStep {
    /// What the step does, in words (the user may edit it); also what healing tells the model.
    pub intent: String,
    /// The page it runs on.
    pub page: UrlPattern,
    /// What it does.
    pub action: StepAction,
    /// The element it acts on, for actions that have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Locator>,
    /// Where it sent data when recorded (a form's action, a link's target, a URL opened):
    /// a run that would send elsewhere always asks the user first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<UrlPattern>,
}

/// What a step does, without refs: its element comes from the step's locator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum StepAction {
    /// Click the element.
    Click,
    /// Double-click the element.
    DoubleClick,
    /// Hover over the element.
    Hover,
    /// Tick the checkbox, radio or switch.
    Check,
    /// Untick it.
    Uncheck,
    /// Empty the field.
    Clear,
    /// Type into the field.
    Type {
        /// What to type (may name parameters).
        text: Template,
        /// Add to the field's text instead of replacing it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        append: bool,
    },
    /// Select words inside an editor (what the next step formats or types over).
    SelectText {
        /// The words (may name parameters).
        text: Template,
    },
    /// Choose an option.
    SelectOption {
        /// The option's label or value (may name parameters).
        option: Template,
    },
    /// Press keys (on the element, when the step has one).
    PressKeys {
        /// `Enter`, `Control+a`, …
        keys: String,
    },
    /// The user types into the element themselves (a password shown while recording: Waymark
    /// never types one); a run hands the page to them at this step.
    YouType,
    /// Load a URL.
    Navigate {
        /// The URL (may name parameters).
        url: Template,
    },
    /// Open a URL in a new tab and work there.
    OpenTab {
        /// The URL (may name parameters).
        url: Template,
    },
    /// Work on the open tab whose page matches.
    SwitchTab {
        /// The tab's page.
        tab: UrlPattern,
    },
    /// Close the current tab.
    CloseTab,
    /// History back.
    Back,
    /// History forward.
    Forward,
    /// Reload.
    Reload,
    /// Wait for a text (or, with `gone`, for it to disappear), or for the page to settle.
    Wait {
        /// The text (may name parameters).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<Template>,
        /// At most this long.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seconds: Option<f64>,
        /// Wait until `text` is gone instead (a "Loading…" line).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        gone: bool,
    },
    /// Read the page's text (or the element's): what the run reports.
    Extract,
}

/// Whether a step's action needs, may have or never has an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetNeed {
    /// Always acts on an element.
    Required,
    /// On an element if it has one, else on the page.
    Optional,
    /// Never.
    None,
}

impl StepAction {
    /// Whether this action acts on an element.
    pub fn target_need(&self) -> TargetNeed {
        match self {
            Self::Click
            | Self::DoubleClick
            | Self::Hover
            | Self::Check
            | Self::Uncheck
            | Self::Clear
            | Self::Type { .. }
            | Self::YouType
            | Self::SelectText { .. }
            | Self::SelectOption { .. } => TargetNeed::Required,
            Self::PressKeys { .. } | Self::Extract => TargetNeed::Optional,
            _ => TargetNeed::None,
        }
    }

    /// The kind of the action it becomes (what a healed step must stay).
    pub fn kind(&self) -> ActionKind {
        match self {
            Self::Click => ActionKind::Click,
            Self::DoubleClick => ActionKind::DoubleClick,
            Self::Hover => ActionKind::Hover,
            Self::Check => ActionKind::Check,
            Self::Uncheck => ActionKind::Uncheck,
            Self::Clear => ActionKind::Clear,
            Self::Type { .. } | Self::YouType => ActionKind::Type,
            Self::SelectText { .. } => ActionKind::SelectText,
            Self::SelectOption { .. } => ActionKind::SelectOption,
            Self::PressKeys { .. } => ActionKind::PressKeys,
            Self::Navigate { .. } => ActionKind::Navigate,
            Self::OpenTab { .. } => ActionKind::OpenTab,
            Self::SwitchTab { .. } => ActionKind::SwitchTab,
            Self::CloseTab => ActionKind::CloseTab,
            Self::Back => ActionKind::Back,
            Self::Forward => ActionKind::Forward,
            Self::Reload => ActionKind::Reload,
            Self::Wait { .. } => ActionKind::Wait,
            Self::Extract => ActionKind::Extract,
        }
    }

    /// Every text of the action that may name parameters.
    pub fn templates(&self) -> Vec<&Template> {
        match self {
            Self::Type { text, .. } | Self::SelectText { text } => vec![text],
            Self::SelectOption { option } => vec![option],
            Self::Navigate { url } | Self::OpenTab { url } => vec![url],
            Self::Wait { text: Some(text), .. } => vec![text],
            _ => vec![],
        }
    }

    /// Every text of the action that may name parameters, mutably.
    pub fn templates_mut(&mut self) -> Vec<&mut Template> {
        match self {
            Self::Type { text, .. } | Self::SelectText { text } => vec![text],
            Self::SelectOption { option } => vec![option],
            Self::Navigate { url } | Self::OpenTab { url } => vec![url],
            Self::Wait { text: Some(text), .. } => vec![text],
            _ => vec![],
        }
    }

    /// The agent's action for this step, on `target` (the element its locator found) and, for
    /// a tab switch, `tab`; `values` fill the parameters. `None` when an element or tab it
    /// needs is missing.
    pub fn to_action(
        &self,
        target: Option<Ref>,
        tab: Option<i32>,
        values: &BTreeMap<String, String>,
    ) -> Option<Action> {
        let on = || target;
        Some(match self {
            Self::Click => Action::Click { ref_id: on()? },
            Self::DoubleClick => Action::DoubleClick { ref_id: on()? },
            Self::Hover => Action::Hover { ref_id: on()? },
            Self::Check => Action::Check { ref_id: on()? },
            Self::Uncheck => Action::Uncheck { ref_id: on()? },
            Self::Clear => Action::Clear { ref_id: on()? },
            Self::Type { text, append } => {
                Action::Type { ref_id: on()?, text: text.fill(values), append: *append }
            }
            Self::SelectText { text } => {
                Action::SelectText { ref_id: on()?, text: text.fill(values) }
            }
            Self::SelectOption { option } => {
                Action::SelectOption { ref_id: on()?, option: option.fill(values) }
            }
            Self::PressKeys { keys } => Action::PressKeys { keys: keys.clone(), ref_id: target },
            Self::Navigate { url } => Action::Navigate { url: url.fill(values) },
            Self::OpenTab { url } => Action::OpenTab { url: url.fill(values) },
            Self::SwitchTab { .. } => Action::SwitchTab { tab: tab? },
            Self::CloseTab => Action::CloseTab { tab: None },
            Self::Back => Action::Back,
            Self::Forward => Action::Forward,
            Self::Reload => Action::Reload,
            // The user does it: the run hands the page over instead.
            Self::YouType => return None,
            Self::Wait { text, seconds, gone } => Action::Wait {
                text: text.as_ref().map(|t| t.fill(values)),
                seconds: *seconds,
                gone: *gone,
            },
            Self::Extract => Action::Extract { ref_id: target },
        })
    }

    /// The step's action read from a recorded one; `None` for actions a workflow does not
    /// keep (reading aids such as scroll, find, screenshot; the final answer).
    pub fn from_action(action: &Action) -> Option<Result<Self, RecordError>> {
        Some(Ok(match action {
            Action::Click { .. } => Self::Click,
            Action::DoubleClick { .. } => Self::DoubleClick,
            Action::Hover { .. } => Self::Hover,
            Action::Check { .. } => Self::Check,
            Action::Uncheck { .. } => Self::Uncheck,
            Action::Clear { .. } => Self::Clear,
            Action::Type { text, append, .. } => {
                Self::Type { text: Template::literal(text.clone()), append: *append }
            }
            Action::SelectText { text, .. } => {
                Self::SelectText { text: Template::literal(text.clone()) }
            }
            Action::SelectOption { option, .. } => {
                Self::SelectOption { option: Template::literal(option.clone()) }
            }
            Action::PressKeys { keys, .. } => Self::PressKeys { keys: keys.clone() },
            Action::Navigate { url } => Self::Navigate { url: Template::literal(url.clone()) },
            Action::OpenTab { url } => Self::OpenTab { url: Template::literal(url.clone()) },
            Action::CloseTab { tab: None } => Self::CloseTab,
            Action::Back => Self::Back,
            Action::Forward => Self::Forward,
            Action::Reload => Self::Reload,
            Action::Wait { text, seconds, gone } => Self::Wait {
                text: text.clone().map(Template::literal),
                seconds: *seconds,
                gone: *gone,
            },
            // A drag needs a second locator (where it drops), which steps do not keep yet.
            Action::Drag { .. } => return Some(Err(RecordError::Drag)),
            Action::Extract { .. } => Self::Extract,
            Action::Upload { .. } => return Some(Err(RecordError::Upload)),
            // Which tab is resolved when the step is read with its page facts (record.rs).
            Action::SwitchTab { .. } | Action::CloseTab { tab: Some(_) } => {
                return Some(Err(RecordError::TabById));
            }
            Action::Scroll { .. }
            | Action::ScrollTo { .. }
            | Action::Find { .. }
            | Action::Collect(_)
            | Action::Screenshot
            | Action::Done { .. } => return None,
        }))
    }
}

impl StepAction {
    /// Whether the action can change something (an order, a setting, a post): acting on an
    /// element other than hovering or reading it. Loading a page is judged by the scope.
    pub fn changes_state(&self) -> bool {
        !matches!(
            self,
            Self::Hover
                | Self::SelectText { .. }
                | Self::Extract
                | Self::Navigate { .. }
                | Self::OpenTab { .. }
                | Self::SwitchTab { .. }
                | Self::CloseTab
                | Self::Back
                | Self::Forward
                | Self::Reload
                | Self::Wait { .. }
        )
    }
}

impl WorkflowStep {
    /// What the step does, from its action and locator — never its author's words (an
    /// imported step labelled "Close the banner" may press Delete).
    pub fn described(&self) -> String {
        Self::describe_default(&self.action, self.target.as_ref())
    }

    /// The step in words for the timeline and the heal card: `Click button “Save” under
    /// “Your order”`, `Type “{{name}}” into textbox “Name”`.
    pub fn describe_default(action: &StepAction, target: Option<&Locator>) -> String {
        let on = target.map(|t| t.describe()).unwrap_or_else(|| "the page".to_owned());
        match action {
            StepAction::Click => format!("Click {on}"),
            StepAction::DoubleClick => format!("Double-click {on}"),
            StepAction::Hover => format!("Hover over {on}"),
            StepAction::Check => format!("Check {on}"),
            StepAction::Uncheck => format!("Uncheck {on}"),
            StepAction::Clear => format!("Clear {on}"),
            StepAction::Type { text, append: false } => {
                format!("Type “{}” into {on}", text.as_str())
            }
            StepAction::Type { text, append: true } => {
                format!("Append “{}” to {on}", text.as_str())
            }
            StepAction::YouType => {
                format!("You type your password into {on} (Waymark never types it)")
            }
            StepAction::SelectText { text } => format!("Select “{}” in {on}", text.as_str()),
            StepAction::SelectOption { option } => format!("Choose “{}” in {on}", option.as_str()),
            StepAction::PressKeys { keys } if target.is_some() => format!("Press {keys} on {on}"),
            StepAction::PressKeys { keys } => format!("Press {keys}"),
            StepAction::Navigate { url } => format!("Go to {}", url.as_str()),
            StepAction::OpenTab { url } => format!("Open {} in a new tab", url.as_str()),
            StepAction::SwitchTab { tab } => format!("Switch to the tab of {tab}"),
            StepAction::CloseTab => "Close this tab".to_owned(),
            StepAction::Back => "Go back".to_owned(),
            StepAction::Forward => "Go forward".to_owned(),
            StepAction::Reload => "Reload the page".to_owned(),
            StepAction::Wait { text: Some(t), gone: true, .. } => {
                format!("Wait until “{}” is gone", t.as_str())
            }
            StepAction::Wait { text: Some(t), .. } => format!("Wait for “{}”", t.as_str()),
            StepAction::Wait { text: None, .. } => "Wait for the page to settle".to_owned(),
            StepAction::Extract if target.is_some() => format!("Read the text of {on}"),
            StepAction::Extract => "Read the page's text".to_owned(),
        }
    }
}

impl Workflow {
    /// Every template of the workflow, mutably (parameter renames).
    pub fn templates_mut(&mut self) -> Vec<&mut Template> {
        let mut out = vec![&mut self.task];
        for step in &mut self.steps {
            out.extend(step.action.templates_mut());
            if let Some(t) = step.target.as_mut() {
                out.extend(t.templates_mut());
            }
        }
        out
    }

    /// The parameter named `name`.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
pub(crate) mod tests;
