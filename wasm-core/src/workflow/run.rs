//! Running a workflow: binding its parameters to one run's values, the words the run is
//! recorded with, what a healed step is, and the prompt form `run Weekly report for March`.

use super::store::WorkflowMeta;
use super::{Workflow, WorkflowStep};
use crate::text::counted;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Longest value a parameter may have (a field's text, not a document).
pub const MAX_VALUE_CHARS: usize = 2000;

/// A workflow with the values of one run: what a task that replays it carries (journaled with
/// the task, so a restarted worker goes on with the same values).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowRun {
    /// The workflow as it was when the run started.
    pub workflow: Workflow,
    /// A value for every parameter.
    pub values: BTreeMap<String, String>,
    /// The parameters the user gave a value for: only those are the user's words (a default
    /// is the workflow author's, and a host it names is no site the user named).
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub given: std::collections::BTreeSet<String>,
}

/// Why a run cannot start with the values given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// A value for a parameter the workflow does not have.
    #[error("the workflow “{workflow}” has no input named “{name}” (its inputs: {known})")]
    Unknown {
        /// The workflow.
        workflow: String,
        /// The name given.
        name: String,
        /// Its parameters.
        known: String,
    },
    /// No value for a parameter without a default (a secret, say).
    #[error("the workflow “{workflow}” needs a value for “{name}”")]
    Missing {
        /// The workflow.
        workflow: String,
        /// The parameter.
        name: String,
    },
    /// A value too long or with control characters.
    #[error("the value of “{name}” is not usable: {why}")]
    BadValue {
        /// The parameter.
        name: String,
        /// Why.
        why: String,
    },
}

impl WorkflowRun {
    /// Binds `given` values (empty ones count as not given) over the workflow's defaults.
    pub fn bind(workflow: Workflow, given: BTreeMap<String, String>) -> Result<Self, BindError> {
        let known = || {
            let names: Vec<&str> = workflow.params.iter().map(|p| p.name.as_str()).collect();
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        };
        for name in given.keys() {
            if workflow.param(name).is_none() {
                return Err(BindError::Unknown {
                    workflow: workflow.name.clone(),
                    name: name.clone(),
                    known: known(),
                });
            }
        }
        let mut values = BTreeMap::new();
        let mut said = std::collections::BTreeSet::new();
        for param in &workflow.params {
            let from_user = given.get(&param.name).filter(|v| !v.trim().is_empty());
            if from_user.is_some() {
                said.insert(param.name.clone());
            }
            let value = from_user.or(param.default.as_ref()).ok_or_else(|| BindError::Missing {
                workflow: workflow.name.clone(),
                name: param.name.clone(),
            })?;
            if value.chars().count() > MAX_VALUE_CHARS {
                let why = format!("longer than {MAX_VALUE_CHARS} characters");
                return Err(BindError::BadValue { name: param.name.clone(), why });
            }
            if value.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
                let why = "it has control characters".to_owned();
                return Err(BindError::BadValue { name: param.name.clone(), why });
            }
            values.insert(param.name.clone(), value.clone());
        }
        Ok(Self { workflow, values, given: said })
    }

    /// The run's words as the session records them: the workflow's name and its values
    /// (a secret's value is never shown: it is recorded as given).
    pub fn task_text(&self) -> String {
        let values: Vec<String> = self
            .workflow
            .params
            .iter()
            .map(|p| match (p.secret, self.values.get(&p.name)) {
                (true, _) => format!("{}: (given)", p.name),
                (false, Some(v)) => format!("{}: {v}", p.name),
                (false, None) => format!("{}: (none)", p.name),
            })
            .collect();
        let name = &self.workflow.name;
        if values.is_empty() {
            format!("Run the workflow “{name}”")
        } else {
            format!("Run the workflow “{name}” ({})", values.join(", "))
        }
    }

    /// The run's step budget: one per step, the start page, and the end.
    pub fn max_steps(&self) -> u32 {
        self.workflow.steps.len() as u32 + 2
    }

    /// One line saying what the run did, for its answer.
    pub fn done_line(&self, heals: usize) -> String {
        let steps = counted(self.workflow.steps.len(), "step");
        let name = &self.workflow.name;
        match heals {
            0 => format!("Ran the workflow “{name}”: {steps}, no model call."),
            1 => format!(
                "Ran the workflow “{name}”: {steps}; the page had changed, so 1 step was healed \
                 with one model call (accept or reject it below)."
            ),
            n => format!(
                "Ran the workflow “{name}”: {steps}; the page had changed, so {n} steps were \
                 healed with one model call each (accept or reject them below)."
            ),
        }
    }
}

/// A step the model found again after the page changed: shown to the user after the run, and
/// written into the workflow only if they accept it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heal {
    /// The step (0-based).
    pub index: u32,
    /// Why the recorded step did not resolve.
    pub why: String,
    /// The step as recorded.
    pub was: WorkflowStep,
    /// The step as healed.
    pub now: WorkflowStep,
    /// The workflow's revision the heal applies to.
    pub revision: u32,
}

/// A run asked for in the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRequest {
    /// The workflow's id.
    pub id: String,
    /// Values given in the prompt.
    pub values: BTreeMap<String, String>,
}

/// Words between the name and a lone value that only join them ("for March").
const JOINERS: &[&str] = &["for", "with", "on", "at", "to", "using"];

/// Reads a prompt `run NAME [values]`: `None` when it names no stored workflow (it is an
/// ordinary task then); else the run, or why the values cannot be read. Values are
/// `name=value` (or `name: value`) pairs separated by commas, or one plain value for a
/// workflow with one input ("run Weekly report for March").
pub fn parse_run_prompt(
    prompt: &str,
    workflows: &[WorkflowMeta],
) -> Option<Result<RunRequest, RunValuesError>> {
    let prompt = prompt.trim();
    let rest = strip_word(prompt, "run")?;
    let rest = strip_word(rest, "the").unwrap_or(rest);
    let rest = strip_word(rest, "workflow").unwrap_or(rest);
    let (meta, args) = workflows
        .iter()
        .filter_map(|w| strip_name(rest, &w.name).map(|args| (w, args)))
        .max_by_key(|(w, _)| w.name.len())?;
    Some(read_values(meta, args.trim()).map(|values| RunRequest { id: meta.id.clone(), values }))
}

/// `text` after a leading `word` (case-insensitive, whole word).
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let (head, tail) = text.split_at_checked(word.len())?;
    (head.eq_ignore_ascii_case(word) && tail.starts_with(char::is_whitespace))
        .then(|| tail.trim_start())
}

/// `text` after the workflow's `name` (case-insensitive, quotes allowed around it, ending on
/// a word boundary).
fn strip_name<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    for (open, close) in [("“", "”"), ("\"", "\""), ("'", "'"), ("", "")] {
        let Some(inner) = text.strip_prefix(open) else { continue };
        let Some((head, after)) = inner.split_at_checked(name.len()) else { continue };
        if !head.eq_ignore_ascii_case(name) {
            continue;
        }
        let Some(tail) = after.strip_prefix(close) else { continue };
        if tail.is_empty() || tail.starts_with(|c: char| !c.is_alphanumeric()) {
            return Some(tail);
        }
    }
    None
}

/// Why the values after a workflow's name in a prompt cannot be read (the user is told how to
/// write them).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunValuesError {
    /// Values given to a workflow without inputs.
    #[error("The workflow “{0}” takes no inputs; run it as “run {0}”.")]
    NoInputs(String),
    /// One unnamed value for a workflow with several inputs.
    #[error("The workflow “{name}” has several inputs ({}): give them as {}.", .params.join(", "), named(.params))]
    SeveralInputs {
        /// The workflow's name.
        name: String,
        /// Its inputs.
        params: Vec<String>,
    },
}

/// `a=…, b=…`: how inputs are written.
fn named(params: &[String]) -> String {
    params.iter().map(|n| format!("{n}=…")).collect::<Vec<_>>().join(", ")
}

fn read_values(
    meta: &WorkflowMeta,
    args: &str,
) -> Result<BTreeMap<String, String>, RunValuesError> {
    let args = args.trim_start_matches([':', ',', '-', '–']).trim();
    let mut values = BTreeMap::new();
    if args.is_empty() {
        return Ok(values);
    }
    let pairs: Vec<Option<(&str, &str)>> = args
        .split([',', ';', '\n'])
        .filter(|p| !p.trim().is_empty())
        .map(|p| p.split_once('=').or_else(|| p.split_once(':')))
        .map(|kv| kv.map(|(k, v)| (k.trim(), v.trim())))
        .collect();
    let all_named =
        pairs.iter().all(|p| p.is_some_and(|(k, _)| meta.params.iter().any(|n| n == k)));
    if all_named {
        for (k, v) in pairs.into_iter().flatten() {
            values.insert(k.to_owned(), v.to_owned());
        }
        return Ok(values);
    }
    match meta.params.as_slice() {
        [only] => {
            let lone = JOINERS.iter().find_map(|j| strip_word(args, j)).unwrap_or(args);
            values.insert(only.clone(), lone.trim().to_owned());
            Ok(values)
        }
        [] => Err(RunValuesError::NoInputs(meta.name.clone())),
        many => {
            Err(RunValuesError::SeveralInputs { name: meta.name.clone(), params: many.to_vec() })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(name: &str, params: &[&str]) -> WorkflowMeta {
        WorkflowMeta {
            id: format!("id-{name}"),
            name: name.into(),
            params: params.iter().map(|p| (*p).to_owned()).collect(),
            ..WorkflowMeta::default()
        }
    }

    #[test]
    fn prompts_name_a_workflow_and_its_values() {
        let list = [
            meta("Weekly report", &["month"]),
            meta("Weekly", &["x"]),
            meta("Order a teapot", &["name", "shipping"]),
        ];
        let run = |p: &str| parse_run_prompt(p, &list);
        let got = run("run Weekly report for March").expect("a run").expect("values");
        assert_eq!(got.id, "id-Weekly report", "the longest name wins");
        assert_eq!(got.values, BTreeMap::from([("month".to_owned(), "March".to_owned())]));
        let got = run("Run the workflow “order a teapot”: name=Bob Smith, shipping: Express")
            .expect("a run")
            .expect("values");
        assert_eq!(got.values.get("name").map(String::as_str), Some("Bob Smith"));
        assert_eq!(got.values.get("shipping").map(String::as_str), Some("Express"));
        let defaults = run("run Order a teapot").expect("a run").expect("values");
        assert!(defaults.values.is_empty());
        let unclear = run("run Order a teapot for Bob").expect("a run").expect_err("unclear");
        assert!(unclear.to_string().contains("name=…, shipping=…"), "{unclear}");
        assert_eq!(run("run the tests on this page"), None, "not a workflow: an ordinary task");
        assert_eq!(run("Weekly report for March"), None);
        assert_eq!(run("run Weeklyish"), None);
    }
}
