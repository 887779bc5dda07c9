//! Session memory as data with provenance: a finished task is stored with the secrets its
//! ledger knows cut out of every text (task, answer, each action and what it returned), and
//! every value still in it keeps where it was read, so a later task's ledger lets each go back
//! only there (a poisoned note cannot carry a key to the attacker's site).

use super::TaskRecord;
use crate::record::{Located, StepRecord, TaskOutcome};
use crate::safety::{Provenance, TaintLedger};
use waymark_page::action::Action;

impl TaskRecord {
    /// The record of a finished task as the session stores it: secrets redacted with the
    /// task's ledger, screenshots dropped, provenance of the remaining values attached.
    pub fn noted(
        turn: u32,
        task: &str,
        outcome: &TaskOutcome,
        now_ms: f64,
        taint: &TaintLedger,
    ) -> Self {
        let cut = |text: &str| taint.redact_secrets(text);
        let redacted = TaskOutcome {
            answer: cut(&outcome.answer),
            error: outcome.error.as_deref().map(cut),
            steps: outcome.steps.iter().map(|s| redact_step(s, &cut)).collect(),
            ..outcome.clone()
        };
        let mut record = Self::from_outcome(turn, &cut(task), &redacted, now_ms);
        record.provenance = taint.provenance(&record.searchable_text());
        record.read_from = taint.page_origins();
        record
    }

    /// Every text of the record, for provenance and redaction.
    pub(super) fn searchable_text(&self) -> String {
        let mut out = vec![self.task.clone(), self.answer.clone(), self.summary.clone()];
        out.extend(self.structured_data.values().cloned());
        for table in &self.tables {
            out.extend(table.rows.iter().flat_map(|r| r.values.iter().cloned()));
        }
        for step in &self.actions {
            out.push(step.description.clone());
            out.extend(step.outcome.text.clone());
            out.extend(step.outcome.error.clone());
            out.extend(action_texts(&step.action).into_iter().map(str::to_owned));
        }
        out.join("\n")
    }
}

/// Where the values of the session context were read, merged over `records` (the next task's
/// ledger lets each go back only there).
pub fn context_provenance(records: &[TaskRecord]) -> Provenance {
    let mut out = Provenance::new();
    for record in records {
        for (value, sites) in &record.provenance {
            let merged = out.entry(value.clone()).or_default();
            merged.extend(sites.iter().cloned());
            merged.sort();
            merged.dedup();
        }
    }
    out
}

pub(super) fn redact_step(step: &StepRecord, cut: &impl Fn(&str) -> String) -> StepRecord {
    let mut outcome = step.outcome.clone();
    outcome.text = outcome.text.as_deref().map(cut);
    outcome.error = outcome.error.as_deref().map(cut);
    outcome.image = None;
    if let Some(table) = outcome.table_mut() {
        cut_table(table, cut);
    }
    StepRecord {
        step: step.step,
        action: redact_action(&step.action, cut),
        description: cut(&step.description),
        outcome,
        located: step.located.as_deref().map(|l| Box::new(redact_located(l, cut))),
    }
}

/// The element's words with secrets cut too (a heading or a line near the element may show
/// one); a workflow refuses to keep a locator that lost its words this way.
fn redact_located(located: &Located, cut: &impl Fn(&str) -> String) -> Located {
    let mut located = located.clone();
    if let Some(target) = located.target.as_mut() {
        for template in target.templates_mut() {
            template.0 = cut(&template.0);
        }
    }
    located
}

/// The action with its free-text arguments redacted (what was typed, chosen, opened…).
fn redact_action(action: &Action, cut: &impl Fn(&str) -> String) -> Action {
    let mut action = action.clone();
    match &mut action {
        Action::Type { text, .. } | Action::SelectText { text, .. } => *text = cut(text),
        Action::PressKeys { keys, .. } => *keys = cut(keys),
        Action::SelectOption { option, .. } => *option = cut(option),
        Action::Upload { file, .. } => *file = cut(file),
        Action::Navigate { url } | Action::OpenTab { url } => *url = cut(url),
        Action::ScrollTo { text: Some(text), .. } | Action::Wait { text: Some(text), .. } => {
            *text = cut(text)
        }
        Action::Find { query } => *query = cut(query),
        Action::Done { answer, .. } => *answer = cut(answer),
        Action::Collect(spec) => {
            for column in &mut spec.columns {
                column.example = cut(&column.example);
            }
        }
        _ => {}
    }
    action
}

/// Every cell of `table` with `cut` applied (its rows are page text like any other).
pub(super) fn cut_table(table: &mut waymark_protocol::Table, cut: &impl Fn(&str) -> String) {
    for row in &mut table.rows {
        for value in &mut row.values {
            *value = cut(value);
        }
    }
}

fn action_texts(action: &Action) -> Vec<&str> {
    match action {
        Action::Type { text, .. } | Action::SelectText { text, .. } => vec![text],
        Action::PressKeys { keys, .. } => vec![keys],
        Action::SelectOption { option, .. } => vec![option],
        Action::Upload { file, .. } => vec![file],
        Action::Navigate { url } | Action::OpenTab { url } => vec![url],
        Action::Find { query } => vec![query],
        Action::Done { answer, .. } => vec![answer],
        Action::Collect(spec) => spec.columns.iter().map(|c| c.example.as_str()).collect(),
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::TaskContext;
    use crate::agent::TaskSpec;
    use waymark_page::action::ActionOutcome;
    use waymark_page::observation::Ref;

    const KEY: &str = "sk-live-Zq8aXcanary42Lm9Tt";

    /// A task that read a key on the dashboard and an order number on the shop, and whose
    /// answer (obeying a page) repeats the key and the user's password.
    fn finished() -> (TaskRecord, TaintLedger) {
        let mut taint =
            TaskContext::new(TaskSpec::new("Log in with password sunshine42 and find my order"))
                .taint;
        taint.record_page_text("https://dash.example/keys", &format!("API key: {KEY}"));
        taint.record_page_text("https://shop.example/orders", "Order 55512345 shipped");
        let typed = Action::Type { ref_id: Ref::top(1), text: "sunshine42".into(), append: false };
        let outcome = TaskOutcome {
            answer: format!(
                "Order 55512345. Your key is {KEY} (b64: c2stbGl2ZS1acThhWGNhbmFyeTQyTG05VHQ=)"
            ),
            success: true,
            error: None,
            steps: vec![StepRecord {
                step: 1,
                action: typed,
                description: "Type “sunshine42” into “Password” [1]".into(),
                outcome: ActionOutcome::with_text(format!("key {KEY}")),
                located: None,
            }],
            step_count: 1,
            elapsed_ms: 10.0,
            ending: Default::default(),
        };
        let record = TaskRecord::noted(
            1,
            "Log in with password sunshine42 and find my order",
            &outcome,
            0.0,
            &taint,
        );
        (record, taint)
    }

    #[test]
    fn secrets_are_redacted_before_the_turn_is_stored() {
        let (record, _) = finished();
        let stored = serde_json::to_string(&record).expect("json");
        for secret in ["sunshine42", "Zq8aXcanary42Lm9Tt", "c2stbGl2ZS1acThh"] {
            assert!(!stored.contains(secret), "{secret} in {stored}");
        }
        assert!(record.answer.contains("Order 55512345"), "{}", record.answer);
        assert_eq!(record.task, "Log in with password [redacted] and find my order");
    }

    #[test]
    fn remaining_values_keep_where_they_were_read() {
        let (record, _) = finished();
        assert_eq!(
            record.provenance.get("55512345"),
            Some(&vec!["https://shop.example".to_owned()])
        );
        assert_eq!(record.read_from, ["https://dash.example", "https://shop.example"]);
        let context = super::super::build_context(std::slice::from_ref(&record));
        assert!(context.contains("Read on: https://dash.example, https://shop.example"));
    }

    #[test]
    fn the_next_tasks_ledger_holds_what_the_notes_hold_with_their_provenance() {
        let (mut record, _) = finished();
        // A summariser (or a poisoned note) put an unknown token into the findings.
        record.structured_data.insert("token".into(), "Q7ZK3XR91MPL2WQ8ZZ".into());
        let records = [record];
        let spec = TaskSpec {
            session_context: Some(super::super::build_context(&records)),
            session_provenance: context_provenance(&records),
            ..TaskSpec::new("Summarise the forum")
        };
        let next = TaskContext::new(spec).taint;
        assert!(next.check("https://shop.example/track", "55512345").is_ok());
        assert!(next.check("https://evil.example/", "55512345").is_err());
        assert!(next.check("https://shop.example/", "Q7ZK3XR91MPL2WQ8ZZ").is_err());
    }
}
