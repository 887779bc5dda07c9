//! What the user may change before saving a workflow (and later): its name, its parameters'
//! names and default values, each step's words, and which steps it keeps. Locators, actions
//! and patterns are never taken from the panel: the edit applies to the draft the worker holds.

use super::Workflow;
use super::schema::validate;
use crate::locate::is_param_name;
use serde::{Deserialize, Serialize};

/// The edit form as the user left it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorkflowEdit {
    /// The workflow's name.
    pub name: String,
    /// One per parameter, in the workflow's order.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub params: Vec<ParamEdit>,
    /// One per step, in the workflow's order.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub steps: Vec<StepEdit>,
}

/// One parameter in the edit form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ParamEdit {
    /// Its name now (which parameter this is).
    pub name: String,
    /// The name the user gave it.
    pub rename: String,
    /// The default value (ignored for a secret: those are never stored).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub default: String,
}

/// One step in the edit form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StepEdit {
    /// The step's words.
    pub intent: String,
    /// Keep it (unticked: the step is left out).
    #[serde(default = "yes")]
    pub keep: bool,
}

fn yes() -> bool {
    true
}

impl Workflow {
    /// The workflow with `edit` applied and validated; on any problem the list of them (the
    /// workflow itself is untouched: the caller keeps its copy).
    pub fn edited(&self, edit: &WorkflowEdit) -> Result<Workflow, Vec<String>> {
        let mut problems = Vec::new();
        if edit.params.len() != self.params.len() || edit.steps.len() != self.steps.len() {
            return Err(vec![
                "the form does not match this workflow any more; open it again".into(),
            ]);
        }
        let mut next = self.clone();
        next.name = edit.name.trim().to_owned();
        // Renames go through placeholder names first, so swapping two names works.
        let placeholder = |i: usize| format!("wf_renaming_{i}");
        for (i, (param, change)) in self.params.iter().zip(&edit.params).enumerate() {
            if change.name != param.name {
                return Err(vec![
                    "the form does not match this workflow any more; open it again".into(),
                ]);
            }
            let rename = change.rename.trim();
            if !is_param_name(rename) {
                problems.push(format!(
                    "“{rename}” cannot name an input: use lower-case letters, digits and _, \
                     starting with a letter"
                ));
                continue;
            }
            for template in next.templates_mut() {
                *template = template.rename(&param.name, &placeholder(i));
            }
            let p = &mut next.params[i];
            if !p.secret {
                let default = change.default.trim();
                p.default = (!default.is_empty()).then(|| default.to_owned());
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        for (i, change) in edit.params.iter().enumerate() {
            let rename = change.rename.trim();
            for template in next.templates_mut() {
                *template = template.rename(&placeholder(i), rename);
            }
            next.params[i].name = rename.to_owned();
        }
        let mut kept = Vec::new();
        for (step, change) in next.steps.iter().zip(&edit.steps) {
            if change.keep {
                let mut step = step.clone();
                let intent = change.intent.trim();
                if !intent.is_empty() {
                    step.intent = intent.to_owned();
                }
                kept.push(step);
            }
        }
        next.steps = kept;
        if let Err(more) = validate(&next) {
            problems.extend(more);
        }
        if problems.is_empty() { Ok(next) } else { Err(problems) }
    }

    /// The edit form of this workflow as it is.
    pub fn edit_form(&self) -> WorkflowEdit {
        WorkflowEdit {
            name: self.name.clone(),
            params: self
                .params
                .iter()
                .map(|p| ParamEdit {
                    name: p.name.clone(),
                    rename: p.name.clone(),
                    default: p.default.clone().unwrap_or_default(),
                })
                .collect(),
            steps: self
                .steps
                .iter()
                .map(|s| StepEdit { intent: s.intent.clone(), keep: true })
                .collect(),
        }
    }
}
