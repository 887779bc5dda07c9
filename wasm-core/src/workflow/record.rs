//! Recording a workflow from a finished task: its performed actions become steps with stable
//! locators, the values the user's words gave become parameters, and values Waymark tracked as
//! secrets (cut from the stored task) become secret parameters that are never stored.

use super::{Param, SCHEMA_VERSION, StepAction, Workflow, WorkflowStep};
use crate::locate::{Template, param_name_from, unique_param_name};
use crate::safety::outbound::REDACTED;
use crate::session::TaskRecord;
use std::collections::BTreeMap;
use waymark_page::action::Action;

/// Shortest value that is turned into a parameter reference inside other texts (an element's
/// name, a URL): shorter ones would match by accident.
const MIN_VALUE_IN_TEXT: usize = 3;

/// Why a finished task cannot become a workflow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Nothing it did can be repeated.
    #[error("the task did no action a workflow can repeat (reading and scrolling are not kept)")]
    NoSteps,
    /// Recorded before Waymark kept locators.
    #[error(
        "this task was done before Waymark recorded where each action went; do it again, then \
         save it as a workflow"
    )]
    NotLocated,
    /// An upload: its file comes from the user's disk per task.
    #[error("the task uploaded a file; uploads cannot be part of a workflow yet")]
    Upload,
    /// A drag (its drop target would need a locator of its own).
    #[error("the task dragged an element; drags cannot be part of a workflow yet")]
    Drag,
    /// A tab switch or close by id (ids change every time).
    #[error("the task switched or closed a tab Waymark could not name by its page")]
    TabById,
    /// The element of an action is known only by a secret (its name was cut).
    #[error("step {0} acts on an element whose name is a secret value; it cannot be saved")]
    SecretTarget(usize),
    /// A URL opened carried a secret value.
    #[error("step {0} opens an address with a secret value in it; it cannot be saved")]
    SecretUrl(usize),
    /// It was interrupted while acting, so what happened is unknown.
    #[error("the task was interrupted while it acted; do it again, then save it")]
    Interrupted,
}

/// The workflow (a draft the user reviews before saving) of the finished task `record`.
pub fn record(record: &TaskRecord, id: String, now_ms: f64) -> Result<Workflow, RecordError> {
    let mut steps = Vec::new();
    for action in &record.actions {
        if action.outcome.interrupted {
            return Err(RecordError::Interrupted);
        }
        if !action.outcome.ok {
            // Refused or failed: it did nothing to repeat.
            continue;
        }
        let kind = match (&action.action, &action.located) {
            (Action::SwitchTab { .. }, Some(located)) => match &located.destination {
                Some(tab) => StepAction::SwitchTab { tab: tab.clone() },
                None => return Err(RecordError::TabById),
            },
            (other, _) => match StepAction::from_action(other) {
                None => continue,
                Some(kind) => kind?,
            },
        };
        let located = action.located.as_ref().ok_or(RecordError::NotLocated)?;
        let target = match kind.target_need() {
            super::TargetNeed::None => None,
            _ => located.target.clone(),
        };
        if kind.target_need() == super::TargetNeed::Required && target.is_none() {
            return Err(RecordError::NotLocated);
        }
        if let Some(t) = &target
            && (t.name.as_str().contains(REDACTED)
                || t.heading.as_ref().is_some_and(|h| h.as_str().contains(REDACTED)))
        {
            return Err(RecordError::SecretTarget(steps.len() + 1));
        }
        if let Action::Navigate { url } | Action::OpenTab { url } = &action.action
            && url.contains(REDACTED)
        {
            return Err(RecordError::SecretUrl(steps.len() + 1));
        }
        let mut target = target;
        if let Some(t) = target.as_mut()
            && t.near.as_ref().is_some_and(|n| n.as_str().contains(REDACTED))
        {
            t.near = None;
        }
        steps.push(WorkflowStep {
            intent: String::new(),
            page: located.page.clone(),
            action: kind,
            target,
            destination: located.destination.clone(),
        });
    }
    if steps.is_empty() {
        return Err(RecordError::NoSteps);
    }
    let params = parameterise(&record.task, &mut steps);
    let values: Vec<(String, String)> =
        params.iter().filter_map(|p| p.default.clone().map(|d| (p.name.clone(), d))).collect();
    let task = Template::from_text(&record.task, &values, 1);
    for step in &mut steps {
        if let Some(t) = step.target.as_mut() {
            for template in t.templates_mut() {
                *template = Template::from_text(template.as_str(), &values, MIN_VALUE_IN_TEXT);
            }
        }
        if let StepAction::Navigate { url } | StepAction::OpenTab { url } = &mut step.action {
            *url = url_with_params(url.as_str(), &values);
        }
        step.intent = WorkflowStep::describe_default(&step.action, step.target.as_ref());
    }
    Ok(Workflow {
        schema_version: SCHEMA_VERSION,
        id,
        name: draft_name(record.task_line()),
        task,
        params,
        steps,
        created_ms: now_ms,
        updated_ms: now_ms,
        revision: 0,
        imported: None,
        shown_writes: Vec::new(),
    })
}

/// Turns the values typed or chosen into parameters: a value the user's task gave (found in
/// its words) becomes an input with that default; a value cut as a secret becomes a secret
/// input (asked at each run, never stored). Other values (ones the model chose) stay as they
/// were. Returns the parameters, in the order the steps first use them.
fn parameterise(task: &str, steps: &mut [WorkflowStep]) -> Vec<Param> {
    let mut params: Vec<Param> = Vec::new();
    let mut by_value: BTreeMap<String, String> = BTreeMap::new();
    for step in steps.iter_mut() {
        let label = step.target.as_ref().map(|t| t.name.as_str().to_owned()).unwrap_or_default();
        let value = match &mut step.action {
            StepAction::Type { text, .. } => text,
            StepAction::SelectOption { option } => option,
            _ => continue,
        };
        let raw = value.as_str().to_owned();
        // A secret the model typed by its handle is a secret too: a handle means something
        // only in the task that gave it.
        let secret = raw.contains(REDACTED) || crate::safety::outbound::has_handle(&raw);
        if !secret && !in_words(task, &raw) {
            continue;
        }
        let key = if secret { format!("{REDACTED}{}", params.len()) } else { raw.to_lowercase() };
        let name = match by_value.get(&key) {
            Some(name) => name.clone(),
            None => {
                let fallback = if secret { "secret" } else { "value" };
                let base = param_name_from(&label, fallback);
                let name = unique_param_name(&base, |n| params.iter().any(|p| p.name == n));
                params.push(Param {
                    name: name.clone(),
                    label: label.clone(),
                    default: (!secret).then(|| raw.clone()),
                    secret,
                });
                by_value.insert(key, name.clone());
                name
            }
        };
        *value = Template(format!("{{{{{name}}}}}"));
    }
    params
}

/// Whether `value` appears in `task` as words (case-insensitive, on word boundaries).
fn in_words(task: &str, value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() {
        return false;
    }
    let probe = [("v".to_owned(), value.to_owned())];
    Template::from_text(task, &probe, 1).as_str() != task
}

/// A URL with parameter values in it (as typed, or form-encoded) turned into references.
fn url_with_params(url: &str, values: &[(String, String)]) -> Template {
    let mut spelled = Vec::new();
    for (name, value) in values {
        spelled.push((name.clone(), value.clone()));
        let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
        if encoded != *value {
            spelled.push((name.clone(), encoded));
        }
    }
    Template::from_text(url, &spelled, MIN_VALUE_IN_TEXT)
}

/// A first name for the draft: the task's first line, shortened.
fn draft_name(task_line: &str) -> String {
    let line = waymark_page::observation::clean(task_line);
    let name = waymark_page::observation::shorten(&line, 60);
    if name.is_empty() { "Workflow".to_owned() } else { name }
}
