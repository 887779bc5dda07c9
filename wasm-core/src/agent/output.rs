//! Output modes: what the user reads when a task ends.

use super::TaskOutcome;
use crate::session::TaskRecord;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// How a finished task is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// The findings only.
    #[default]
    Default,
    /// Every step's actions and outcomes, then the findings.
    Verbose,
    /// The task record as JSON: the same schema the session export writes per task.
    Json,
}

/// The text shown for a finished task in `mode`.
#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
pub fn render_output(mode: OutputMode, task: &str, outcome: &TaskOutcome, now_ms: f64) -> String {
    match mode {
        OutputMode::Default => outcome.answer.clone(),
        OutputMode::Verbose => {
            let mut out = String::new();
            for (i, s) in outcome.steps.iter().enumerate() {
                let result = match &s.outcome.error {
                    None => "ok".to_owned(),
                    Some(e) => format!("failed: {e}"),
                };
                let _ = writeln!(out, "{}. [step {}] {} → {result}", i + 1, s.step, s.description);
            }
            let _ = write!(
                out,
                "{}\n({}, {:.1} s, {})",
                outcome.answer,
                crate::text::counted(outcome.step_count, "step"),
                outcome.elapsed_ms / 1000.0,
                if outcome.success { "succeeded" } else { "not finished" }
            );
            out
        }
        OutputMode::Json => {
            let record = TaskRecord::from_outcome(0, task, outcome, now_ms);
            serde_json::to_string_pretty(&record)
                .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::StepRecord;
    use waymark_page::action::{Action, ActionOutcome};

    fn outcome() -> TaskOutcome {
        TaskOutcome {
            answer: "Saved Ada.".into(),
            success: true,
            error: None,
            steps: vec![StepRecord {
                step: 1,
                action: Action::Click { ref_id: waymark_page::observation::Ref::top(2) },
                description: "Click “Save” [2]".into(),
                outcome: ActionOutcome::done(),
                located: None,
            }],
            step_count: 2,
            elapsed_ms: 1500.0,
            ending: Default::default(),
        }
    }

    #[test]
    fn default_shows_findings_only_and_verbose_every_action() {
        assert_eq!(render_output(OutputMode::Default, "t", &outcome(), 0.0), "Saved Ada.");
        let v = render_output(OutputMode::Verbose, "t", &outcome(), 0.0);
        assert!(v.starts_with("1. [step 1] Click “Save” [2] → ok\nSaved Ada."), "{v}");
    }

    #[test]
    fn json_is_the_export_schema() {
        let json = render_output(OutputMode::Json, "save", &outcome(), 5.0);
        let back: TaskRecord = serde_json::from_str(&json).expect("a task record");
        assert_eq!(back.summary, "Saved Ada.");
        assert!(back.success);
        assert_eq!(back.actions.len(), 1);
        assert_eq!(back.elapsed_ms, 1500.0);
    }
}
