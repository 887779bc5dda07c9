//! The journal in an in-memory store: written and read back, and every way it can be damaged.

use super::*;
use crate::agent::TaskSpec;
use crate::platform::memory::MemStore;
use crate::record::StepRecord;
use futures::executor::block_on;
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::Ref;

fn record(step: u32, description: &str) -> StepRecord {
    StepRecord {
        step,
        action: Action::Click { ref_id: Ref::top(step) },
        description: description.into(),
        outcome: ActionOutcome::done(),
        located: None,
    }
}

/// A task with two finished actions and a third in flight: 6 entries.
fn write_task(store: &MemStore) {
    let journal = StoredJournal::new(store, "t1".into(), 7);
    let click = |step| Action::Click { ref_id: Ref::top(step) };
    let entries = [
        JournalEntry::Started { spec: TaskSpec::new("book a table") },
        JournalEntry::Outcome { record: record(1, "Click “Tables”") },
        JournalEntry::StepBegun { step: 2 },
        JournalEntry::Outcome { record: record(2, "Click “Friday”") },
        JournalEntry::Note { text: "note".into() },
        JournalEntry::Intent { step: 3, action: click(3), description: "Click “Book”".into() },
    ];
    for entry in &entries {
        block_on(journal.write(entry)).expect("written");
    }
}

fn corrupt(store: &MemStore, seq: u32) {
    let bogus = serde_json::json!({ "entry": "from_a_newer_build", "x": 1 });
    store.map.borrow_mut().insert(entry_key("t1", seq), bogus);
}

fn damaged(recovery: Recovery<&MemStore>) -> (Option<StoredJournal<&MemStore>>, DamageReport) {
    match recovery {
        Recovery::Damaged { journal, report } => (journal, report),
        Recovery::Nothing => panic!("nothing found"),
        Recovery::Resume { ctx, .. } => panic!("resumed: {ctx:?}"),
    }
}

#[test]
fn nothing_stored_is_nothing_to_resume() {
    let store = MemStore::default();
    assert!(matches!(block_on(load_active(&store)), Recovery::Nothing));
}

#[test]
fn a_whole_journal_resumes_and_never_repeats_the_action_in_flight() {
    let store = MemStore::default();
    write_task(&store);
    let Recovery::Resume { journal, ctx } = block_on(load_active(&store)) else {
        panic!("not resumed")
    };
    assert_eq!(journal.tab_id(), 7);
    assert_eq!(ctx.spec.task, "book a table");
    assert_eq!(ctx.steps.len(), 3);
    assert!(ctx.interrupted_record().is_some());
    block_on(journal.clear()).expect("cleared");
    assert!(store.map.borrow().is_empty(), "{:?}", store.map.borrow().keys());
}

#[test]
fn an_unreadable_entry_is_reported_with_what_was_recovered_and_the_task_is_not_resumed() {
    let store = MemStore::default();
    write_task(&store);
    corrupt(&store, 4);
    let (journal, report) = damaged(block_on(load_active(&store)));
    assert_eq!(report.damage, Damage::Entries { unreadable: 1, total: 6 });
    assert!(report.task_known);
    assert_eq!(report.task(), "book a table");
    let notice = report.notice();
    assert!(
        notice.starts_with(
            "An interrupted task could not be fully restored: 1 of 6 journal entries was \
             unreadable, so it was not resumed"
        ),
        "{notice}"
    );
    assert!(
        notice.contains(
            "What was recovered: the task “book a table”, 2 actions (Click “Tables”; Click “Book”)"
        ),
        "{notice}"
    );
    let outcome = report.outcome(1_000.0);
    assert_eq!(outcome.ending, Ending::Failed);
    assert_eq!(outcome.answer, notice);
    assert_eq!(outcome.steps.len(), 2, "the finished action and the interrupted one");
    assert_eq!(outcome.steps[1].outcome.error.as_deref(), Some(crate::agent::INTERRUPTED));
    // Once recorded, the damaged journal goes: the next start does not report it again.
    block_on(journal.expect("journal").clear()).expect("cleared");
    assert!(store.map.borrow().is_empty());
}

#[test]
fn without_its_first_entry_the_task_is_unnamed_but_its_actions_are_listed() {
    let store = MemStore::default();
    write_task(&store);
    corrupt(&store, 1);
    store.map.borrow_mut().remove(&entry_key("t1", 5));
    let (_, report) = damaged(block_on(load_active(&store)));
    assert_eq!(report.damage, Damage::Entries { unreadable: 2, total: 6 });
    assert!(!report.task_known);
    assert!(report.task().contains("could not be read"));
    let notice = report.notice();
    assert!(notice.contains("2 of 6 journal entries were unreadable"), "{notice}");
    assert!(
        notice.contains(
            "What was recovered: 3 actions (Click “Tables”; Click “Friday”; Click “Book”)"
        ),
        "{notice}"
    );
}

#[test]
fn an_unreadable_header_is_reported_and_only_the_header_is_cleared() {
    let store = MemStore::default();
    write_task(&store);
    store.map.borrow_mut().insert(ACTIVE_KEY.into(), serde_json::json!("garbage"));
    let (journal, report) = damaged(block_on(load_active(&store)));
    assert_eq!(report.damage, Damage::Header);
    assert!(report.notice().contains("its journal's header was unreadable"), "{}", report.notice());
    assert!(report.notice().contains("What was recovered: nothing."), "{}", report.notice());
    block_on(journal.expect("journal").clear()).expect("cleared");
    assert!(!store.map.borrow().contains_key(ACTIVE_KEY));
    assert_eq!(store.map.borrow().len(), 6, "entry keys are unknown without the header");
}

#[test]
fn storage_that_cannot_be_read_is_reported_and_the_journal_kept_for_the_next_start() {
    let store = MemStore::default();
    write_task(&store);
    store.refuse_reads.set(true);
    let (journal, report) = damaged(block_on(load_active(&store)));
    assert!(journal.is_none());
    assert!(matches!(report.damage, Damage::Store(_)));
    assert!(
        report.notice().contains("could not be read from storage (IO error"),
        "{}",
        report.notice()
    );
    store.refuse_reads.set(false);
    assert!(matches!(block_on(load_active(&store)), Recovery::Resume { .. }));
}

#[test]
fn a_task_whose_end_was_read_is_recorded_as_it_ended_despite_a_lost_entry() {
    let store = MemStore::default();
    write_task(&store);
    let journal = StoredJournal { store: &store, id: "t1".into(), tab_id: 7, count: Cell::new(6) };
    let outcome = TaskOutcome {
        answer: "Booked".into(),
        success: true,
        error: None,
        steps: vec![record(1, "a"), record(2, "b"), record(3, "c")],
        step_count: 3,
        elapsed_ms: 5.0,
        ending: Ending::Finished,
    };
    block_on(journal.write(&JournalEntry::Finished { outcome: outcome.clone() })).expect("written");
    corrupt(&store, 3);
    let Recovery::Resume { ctx, .. } = block_on(load_active(&store)) else { panic!("not resumed") };
    assert_eq!(ctx.finished, Some(outcome));
}

#[test]
fn a_refused_write_keeps_its_kind() {
    let store = MemStore::default();
    let journal = StoredJournal::new(&store, "t2".into(), 1);
    store.refuse_writes.set(true);
    let e = block_on(journal.write(&JournalEntry::StepBegun { step: 1 })).expect_err("refused");
    assert!(matches!(e, JournalError::Storage(_)));
    assert_eq!(e.to_string(), "storage: Resource::kQuotaBytes quota exceeded");
    store.refuse_writes.set(false);
    block_on(journal.write(&JournalEntry::StepBegun { step: 1 })).expect("written");
    assert!(store.map.borrow().contains_key(&entry_key("t2", 1)), "the failed write took no seq");
}

#[test]
fn a_crashed_task_is_interrupted_with_its_action_in_flight_and_never_resumed_after() {
    let store = MemStore::default();
    write_task(&store);
    let Recovery::Resume { journal, ctx } = block_on(load_active(&store)) else {
        panic!("not read")
    };
    let outcome = interrupted_outcome(&ctx, 1_000.0);
    assert_eq!(outcome.ending, Ending::Interrupted);
    assert!(!outcome.success);
    assert_eq!(
        outcome.answer,
        "Interrupted — may or may not have been done: Waymark crashed while running this task \
         and restarted without running it again. It had done 2 actions; “Click “Book”” was \
         under way and may or may not have been done. Check the page, then start the task \
         again if it is not done."
    );
    assert_eq!(outcome.error.as_deref(), Some(outcome.answer.as_str()));
    assert_eq!(outcome.steps.len(), 3, "both actions and the one under way");
    assert!(outcome.steps[2].outcome.interrupted);
    assert_eq!(Ending::Interrupted.heading(outcome.step_count), "Interrupted after 3 steps");
    // Written through the journal before the turn is stored: a worker that dies in between
    // finds the task ended and records it, and runs nothing of it again.
    block_on(journal.write(&JournalEntry::Finished { outcome: outcome.clone() })).expect("written");
    let Recovery::Resume { ctx, .. } = block_on(load_active(&store)) else { panic!("not read") };
    assert_eq!(ctx.finished, Some(outcome));
}

#[test]
fn a_task_that_crashed_before_acting_had_done_nothing() {
    let ctx = TaskContext::new(TaskSpec::new("read the news"));
    let outcome = interrupted_outcome(&ctx, 0.0);
    assert!(outcome.answer.contains("It had done 0 actions. Check the page"), "{}", outcome.answer);
    assert!(outcome.steps.is_empty());
}
