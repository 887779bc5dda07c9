//! Property tests over hostile text (`waymark-fuzzgen`) for sessions: notes (the next task's
//! context, recall), summaries from the model's text, titles, the table of contents, search,
//! inert markdown and the markdown/JSON exports. No input may panic; clipped text keeps its
//! bound, page text never opens a heading of its own in an export, and the JSON export reads
//! back with every task.

#![allow(
    clippy::let_underscore_must_use,
    reason = "a call made only for the panic it must not cause drops its result"
)]

use super::inert::{fence_for, inert};
use super::*;
use crate::record::{StepRecord, TaskOutcome};
use crate::safety::TaintLedger;
use proptest::prelude::*;
use waymark_fuzzgen::{
    config, costly, glued_url, hostile_short, hostile_text, js_string, secretish,
};
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::Ref;
use waymark_protocol::{ExportFormat, TrackedValues};

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        any::<u32>().prop_map(|i| Action::Click { ref_id: Ref::top(i) }),
        hostile_text().prop_map(|text| Action::Type { ref_id: Ref::top(1), text, append: false }),
        hostile_short().prop_map(|keys| Action::PressKeys { keys, ref_id: None }),
        hostile_short().prop_map(|option| Action::SelectOption { ref_id: Ref::top(2), option }),
        glued_url().prop_map(|url| Action::Navigate { url }),
        hostile_short().prop_map(|query| Action::Find { query }),
    ]
}

fn step() -> impl Strategy<Value = StepRecord> {
    (any::<u32>(), action(), hostile_text(), proptest::option::of(hostile_text()), any::<bool>())
        .prop_map(|(step, action, description, text, ok)| StepRecord {
            step,
            action,
            description,
            outcome: match (ok, text) {
                (true, Some(text)) => ActionOutcome::with_text(text),
                (true, None) => ActionOutcome::done(),
                (false, reason) => ActionOutcome::failed(reason.unwrap_or_default()),
            },
            located: None,
        })
}

fn outcome(answer: String, steps: Vec<StepRecord>) -> TaskOutcome {
    TaskOutcome {
        answer,
        success: true,
        error: None,
        step_count: steps.len() as u32,
        steps,
        elapsed_ms: 1.0,
        ending: Default::default(),
    }
}

/// A task as the session stores it: read on a hostile page, secrets cut by its ledger, with
/// a summary parsed from a hostile model answer (or the extractive one).
fn record() -> impl Strategy<Value = TaskRecord> {
    (
        (hostile_text(), hostile_text(), any::<bool>(), proptest::collection::vec(step(), 0..4)),
        (hostile_text(), glued_url(), secretish()),
        (proptest::option::of(hostile_text()), any::<f64>()),
    )
        .prop_map(
            |((task, answer, success, steps), (page, url, secret), (summary, now_ms))| {
                let mut ledger = TaintLedger::default();
                ledger.record_page_text(&url, &format!("{page} {secret}"));
                ledger.record_user_text(&task, crate::safety::UserText::Task);
                let outcome =
                    TaskOutcome { success, ..outcome(format!("{answer} {secret}"), steps) };
                let mut record = TaskRecord::noted(1, &task, &outcome, now_ms, &ledger);
                if let Some(parsed) = summary.and_then(|text| parse_summary(&text, &record)) {
                    record.apply_summary(parsed, true);
                }
                record
            },
        )
}

fn session() -> impl Strategy<Value = Session> {
    (
        hostile_short(),
        proptest::collection::vec(record(), 0..5),
        proptest::option::of(hostile_short()),
    )
        .prop_map(|(id, records, title)| {
            let mut session = Session::new(id, 0.0);
            for record in records {
                session.push(record);
            }
            if let Some(title) = title {
                session.set_title(&title, 1, false);
            }
            session
        })
}

fn clipped(text: &str, max: usize) -> Result<(), TestCaseError> {
    prop_assert!(text.chars().count() <= max, "{} > {max}: {text:?}", text.chars().count());
    prop_assert!(!text.contains('\n'), "{text:?}");
    Ok(())
}

proptest! {
    #![proptest_config(costly(4))]

    #[test]
    fn fuzz_session_notes(session in session(), task in hostile_text(), query in hostile_short(), limit in 0usize..5) {
        let context = build_context(&session.records);
        let _ = task_with_context(&context, &task);
        let _ = recallable(&session.records);
        let _ = recall(&session.records, &query, limit);
        let _ = context_provenance(&session.records);
        for entry in toc(&session) {
            clipped(&entry.line, MAX_TOC_CHARS)?;
        }
        for n in 0..=session.records.len() as u32 + 1 {
            let _ = session.turn_with_neighbours(n);
        }
        for record in &session.records {
            let _ = transcript_record(&session, record);
        }
    }

    #[test]
    fn fuzz_session_titles(mut session in session(), title in hostile_text(), proposed in proptest::option::of(hostile_text())) {
        if let Some(next) = title_change(&session, proposed.as_deref()) {
            clipped(&next, MAX_TITLE_CHARS)?;
            prop_assert!(!next.is_empty(), "an empty title proposed");
        }
        let _ = extractive_title(&session);
        let locked = session.set_title(&title, 2, true);
        clipped(&session.title, MAX_TITLE_CHARS)?;
        prop_assert!(session.title_history.len() <= MAX_TITLE_HISTORY);
        let _ = session.display_title();
        if locked {
            prop_assert_eq!(title_change(&session, proposed.as_deref()), None, "locked by the user");
        }
    }

    #[test]
    fn fuzz_session_search(sessions in proptest::collection::vec(session(), 1..3), query in hostile_short(), limit in 0usize..6) {
        let mut index = SearchIndex::new();
        for s in &sessions {
            index.add_session(s);
        }
        prop_assert!(index.search(&query, None, limit).len() <= limit);
        let first = &sessions[0];
        index.set_title(&first.id, &query);
        if let Some(record) = first.records.first() {
            index.upsert(&first.id, record);
        }
        let _ = index.search(&query, Some(&first.id), limit);
        index.remove_session(&first.id);
        let _ = index.search(&query, None, limit);
    }

    #[test]
    fn fuzz_export_session(session in session(), now_ms in any::<f64>(), include in any::<bool>(), path in hostile_short()) {
        let values = if include { TrackedValues::Include } else { TrackedValues::Redact };
        let markdown = to_markdown(&session, now_ms, values);
        let (body, follow_up) = markdown
            .split_once("\n## Suggested follow-up\n")
            .ok_or_else(|| TestCaseError::fail("no follow-up section"))?;
        let tasks = body.lines().filter(|l| l.starts_with("## Task ")).count();
        prop_assert_eq!(tasks, session.records.len(), "{}", markdown);
        prop_assert_eq!(body.lines().filter(|l| l.starts_with("# ")).count(), 1, "{}", markdown);
        prop_assert!(follow_up.ends_with("```\n"));
        let json = to_json(&session, now_ms, values).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let read: serde_json::Value = serde_json::from_str(&json).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(read["tasks"].as_array().map(Vec::len), Some(session.records.len()));
        let _ = portable_prompt(&session, &path, ExportFormat::Md);
        let hint = export_name_hint(now_ms);
        prop_assert!(hint.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'), "{hint}");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_session_inert(text in hostile_text()) {
        let written = inert(&text);
        prop_assert!(written.chars().all(|c| !c.is_whitespace() || c == ' '), "{written:?}");
        prop_assert!(!written.contains('\0'), "{written:?}");
        prop_assert!(!written.starts_with(['#', '>', '|']), "{written:?}");
        let fence = fence_for(&text);
        prop_assert!(!text.contains(&fence));
    }

    #[test]
    fn fuzz_session_summary(text in hostile_text(), task in hostile_text(), answer in hostile_text(), js in js_string()) {
        let record = TaskRecord::from_outcome(1, &task, &outcome(answer.clone(), Vec::new()), 0.0);
        if let Some(summary) = parse_summary(&text, &record) {
            clipped(&summary.toc_line, MAX_TOC_CHARS)?;
            if let Some(title) = &summary.title {
                clipped(title, MAX_TITLE_CHARS)?;
            }
        }
        let fallback = extractive_summary(&task, &answer);
        clipped(&fallback.toc_line, MAX_TOC_CHARS)?;
        let literal = js.json_literal(false);
        let json = format!(r#"{{"summary":{literal},"toc":{literal},"title":{literal},"data":{{"k":{literal}}}}}"#);
        if js.has_lone_surrogate() {
            prop_assert!(parse_summary(&json, &record).is_none());
        }
        clipped(&toc_line(&text), MAX_TOC_CHARS)?;
    }
}

// Failures the properties found, each as its minimal input.

/// A title the user typed with a line break stayed two lines (found by
/// `fuzz_session_titles`); every other title is one line.
#[test]
fn a_title_is_one_line_however_it_was_typed() {
    let mut session = Session::new("s".into(), 0.0);
    assert!(session.set_title("0\n¡", 1, true));
    assert_eq!(session.title, "0 ¡");
}

/// A titled session whose newest task has no words was offered an empty title (found by
/// `fuzz_session_titles`).
#[test]
fn a_task_without_words_proposes_no_title() {
    let mut session = Session::new("s".into(), 0.0);
    session.push(tests::record(1, " \n ", "Found"));
    session.set_title("Flights", 1, false);
    assert_eq!(title_change(&session, None), None);
}
