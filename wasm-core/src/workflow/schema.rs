//! The workflow file: versioned JSON, validated whenever a workflow comes from outside (an
//! imported file) or from the user's edits. A file of a newer version, or one that is not a
//! workflow, is refused with a clear error and changes nothing.

use super::{StepAction, TargetNeed, Workflow};
use crate::locate::is_param_name;
use crate::safety::WebUrl;
use std::collections::{BTreeMap, BTreeSet};

/// The version this Waymark writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// Largest file read.
pub const MAX_FILE_BYTES: usize = 512 * 1024;
/// Most steps in one workflow.
pub const MAX_STEPS: usize = 200;
/// Most parameters.
pub const MAX_PARAMS: usize = 20;
/// Longest name.
pub const MAX_NAME_CHARS: usize = 80;
/// Longest text anywhere else.
pub const MAX_TEXT_CHARS: usize = 4000;

/// Why a file was not imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// Larger than [`MAX_FILE_BYTES`].
    #[error("the file is too large for a workflow ({bytes} bytes; at most {MAX_FILE_BYTES})")]
    TooLarge {
        /// Its size.
        bytes: usize,
    },
    /// Not JSON at all.
    #[error("the file is not JSON ({0})")]
    NotJson(String),
    /// JSON, but no workflow (no `schema_version`).
    #[error("the file is not a Waymark workflow (it has no schema_version)")]
    NotAWorkflow,
    /// Written by a newer Waymark.
    #[error(
        "the workflow was saved by a newer Waymark (schema version {found}; this one reads up to \
         {SCHEMA_VERSION}): update Waymark to import it"
    )]
    FutureVersion {
        /// The file's version.
        found: u64,
    },
    /// A version that never existed.
    #[error("the workflow's schema_version {0} is not valid")]
    BadVersion(u64),
    /// The shape does not match the schema.
    #[error("the workflow file is malformed: {0}")]
    Malformed(String),
    /// The shape matches but the content is not usable.
    #[error("the workflow is not valid: {}", .0.join("; "))]
    Invalid(Vec<String>),
}

/// The workflow as a file (pretty JSON).
pub fn export_json(workflow: &Workflow) -> String {
    // Whether it was imported here is this browser's business, not the file's.
    let workflow = Workflow { imported: None, ..workflow.clone() };
    serde_json::to_string_pretty(&workflow).unwrap_or_else(|e| {
        // Workflows are plain data; a failure here is a bug worth seeing, not a crash.
        tracing::error!(error = %e, "a workflow could not be written as JSON");
        String::new()
    })
}

/// Reads and validates a workflow file. Its id and times are the file's; the store gives an
/// imported workflow its own id.
pub fn import_json(text: &str) -> Result<Workflow, ImportError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(ImportError::TooLarge { bytes: text.len() });
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ImportError::NotJson(e.to_string()))?;
    let version = value.get("schema_version").ok_or(ImportError::NotAWorkflow)?;
    let version = version
        .as_u64()
        .ok_or_else(|| ImportError::Malformed("schema_version is not a number".into()))?;
    if version > u64::from(SCHEMA_VERSION) {
        return Err(ImportError::FutureVersion { found: version });
    }
    if version == 0 {
        return Err(ImportError::BadVersion(version));
    }
    let workflow: Workflow =
        serde_json::from_value(value).map_err(|e| ImportError::Malformed(e.to_string()))?;
    validate(&workflow).map_err(ImportError::Invalid)?;
    Ok(workflow)
}

/// Everything wrong with a workflow, or `Ok`.
pub fn validate(w: &Workflow) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    fn check_text(problems: &mut Vec<String>, what: &str, text: &str, max: usize) {
        if text.chars().count() > max {
            problems.push(format!("{what} is longer than {max} characters"));
        }
        if text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            problems.push(format!("{what} has control characters"));
        }
    }
    if w.schema_version != SCHEMA_VERSION {
        problems
            .push(format!("schema_version is {} (expected {SCHEMA_VERSION})", w.schema_version));
    }
    if w.name.trim().is_empty() {
        problems.push("the name is empty".into());
    }
    check_text(&mut problems, "the name", &w.name, MAX_NAME_CHARS);
    check_text(&mut problems, "the task", w.task.as_str(), MAX_TEXT_CHARS);
    check_text(&mut problems, "the id", &w.id, MAX_NAME_CHARS);
    if w.params.len() > MAX_PARAMS {
        problems.push(format!("it has {} inputs (at most {MAX_PARAMS})", w.params.len()));
    }
    let mut declared = BTreeSet::new();
    for p in &w.params {
        if !is_param_name(&p.name) {
            problems.push(format!(
                "“{}” cannot name an input",
                p.name.chars().take(60).collect::<String>()
            ));
        }
        if !declared.insert(p.name.as_str()) {
            problems.push(format!("two inputs are named “{}”", p.name));
        }
        if p.secret && p.default.is_some() {
            problems.push(format!("the secret input “{}” has a stored value", p.name));
        }
        check_text(&mut problems, &format!("the label of “{}”", p.name), &p.label, MAX_NAME_CHARS);
        if let Some(d) = &p.default {
            check_text(&mut problems, &format!("the value of “{}”", p.name), d, MAX_TEXT_CHARS);
        }
    }
    if w.steps.is_empty() {
        problems.push("it has no steps".into());
    }
    if w.steps.len() > MAX_STEPS {
        problems.push(format!("it has {} steps (at most {MAX_STEPS})", w.steps.len()));
    }
    let mut used: BTreeMap<String, ()> = BTreeMap::new();
    for name in w.task.params() {
        used.insert(name.to_owned(), ());
    }
    for (i, step) in w.steps.iter().enumerate() {
        let n = i + 1;
        check_text(&mut problems, &format!("step {n}'s words"), &step.intent, MAX_TEXT_CHARS);
        for t in step.action.templates() {
            check_text(&mut problems, &format!("step {n}"), t.as_str(), MAX_TEXT_CHARS);
            for name in t.params() {
                used.insert(name.to_owned(), ());
            }
        }
        match (step.action.target_need(), &step.target) {
            (TargetNeed::Required, None) => {
                problems.push(format!("step {n} ({}) has no element", step.action.kind().name()))
            }
            (TargetNeed::None, Some(_)) => problems
                .push(format!("step {n} ({}) cannot have an element", step.action.kind().name())),
            _ => {}
        }
        if let Some(target) = &step.target {
            if target.role.trim().is_empty() || target.role.chars().count() > 40 {
                problems.push(format!("step {n}'s element has no usable role"));
            }
            if target.of == 0 || target.nth >= target.of {
                problems.push(format!(
                    "step {n}'s element position {} of {} is impossible",
                    target.nth + 1,
                    target.of
                ));
            }
            if target.frames.len() > 8 {
                problems.push(format!("step {n}'s element is nested in too many frames"));
            }
            for t in target.templates() {
                check_text(
                    &mut problems,
                    &format!("step {n}'s element"),
                    t.as_str(),
                    MAX_TEXT_CHARS,
                );
                for name in t.params() {
                    used.insert(name.to_owned(), ());
                }
            }
        }
        match &step.action {
            StepAction::Navigate { url } | StepAction::OpenTab { url } => {
                // Every value a run may fill in still has to make a web address.
                let sample: BTreeMap<String, String> =
                    url.params().into_iter().map(|p| (p.to_owned(), "x".to_owned())).collect();
                if let Err(e) = WebUrl::parse_for_navigation(&url.fill(&sample)) {
                    problems.push(format!("step {n}: {e}"));
                }
            }
            StepAction::Wait { seconds: Some(s), .. }
                if !(0.0..=waymark_page::action::MAX_WAIT_SECONDS).contains(s) =>
            {
                problems.push(format!(
                    "step {n} waits {s} s (at most {})",
                    waymark_page::action::MAX_WAIT_SECONDS
                ));
            }
            StepAction::PressKeys { keys }
                if keys.trim().is_empty() || keys.chars().count() > 200 =>
            {
                problems.push(format!("step {n} presses no usable keys"));
            }
            _ => {}
        }
    }
    for name in used.keys() {
        if !declared.contains(name.as_str()) {
            problems.push(format!("“{{{{{name}}}}}” is used but no input has that name"));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}
