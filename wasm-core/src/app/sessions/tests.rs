//! The session lifecycle against an in-memory store, a scripted summariser and a transcript
//! sink: every panel request about sessions, and every storage failure it can meet.

use super::*;
use crate::panel::TaskView;
use crate::platform::memory::MemStore;
use crate::platform::scripted::Clock;
use crate::platform::scripted::ScriptedHost;
use crate::session::tests::session_of;
use futures::executor::block_on;
use waymark_protocol::{ErrorBody, ErrorCode, LlmCompletion, RequestBody, TranscriptRecord};

/// The summariser: answers with `reply`, or fails when it is `None`.
struct Summariser(Option<&'static str>);
impl Llm for Summariser {
    async fn complete(&self, _request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        match self.0 {
            Some(text) => Ok(LlmCompletion { text: text.into(), ..LlmCompletion::default() }),
            None => Err(ErrorBody::new(ErrorCode::LlmUnreachable, "down")),
        }
    }
}

/// The transcripts the host was handed.
fn transcripts(host: &ScriptedHost) -> Vec<TranscriptRecord> {
    host.seen
        .borrow()
        .iter()
        .filter_map(|r| match r {
            RequestBody::TranscriptRecord(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

fn outcome(answer: &str) -> TaskOutcome {
    TaskOutcome {
        answer: answer.into(),
        success: true,
        error: None,
        steps: vec![],
        step_count: 1,
        elapsed_ms: 10.0,
        ending: Default::default(),
    }
}

struct Fixture {
    mem: MemStore,
    state: RefCell<PanelState>,
    clock: Clock,
    sink: ScriptedHost,
}

impl Fixture {
    fn new() -> Self {
        Self {
            mem: MemStore::default(),
            state: RefCell::default(),
            clock: Clock::default(),
            sink: ScriptedHost::default(),
        }
    }
    fn desk(&self) -> SessionDesk<&MemStore> {
        SessionDesk::new(&self.mem)
    }
    fn started(&self) -> SessionDesk<&MemStore> {
        let desk = self.desk();
        assert_eq!(block_on(desk.start(&self.state, &self.clock)), Redraw::Session);
        desk
    }
    /// Runs a task to its end as the worker does: shown, recorded, summarised.
    fn finish(
        &self,
        desk: &SessionDesk<&MemStore>,
        prompt: &str,
        answer: &str,
        model: &Summariser,
    ) {
        let mut view = TaskView::started(prompt);
        view.running = false;
        self.state.borrow_mut().task = Some(view);
        let taint = TaintLedger::default();
        let stored = block_on(desk.record(
            &self.state,
            &self.sink,
            &self.clock,
            prompt,
            &outcome(answer),
            &taint,
            None,
            None,
        ))
        .expect("a task's turn waits for its summary");
        block_on(desk.summarise(&self.state, model, &self.sink, stored));
    }
    fn error(&self) -> Option<String> {
        self.state.borrow().storage_error.clone()
    }
}

const TITLED: Summariser = Summariser(Some(
    r#"{"summary":"Found the cheapest flight.","title":"Flights to Lisbon","toc":"cheapest flight"}"#,
));

#[test]
fn the_first_start_makes_a_new_session_and_a_restart_finds_it_with_its_turns() {
    let fx = Fixture::new();
    let desk = fx.started();
    assert!(desk.current().records.is_empty());
    fx.finish(&desk, "find flights to Lisbon", "The cheapest is 89 EUR", &TITLED);
    let id = desk.current().id.clone();
    assert_eq!(fx.state.borrow().session.title, "Flights to Lisbon");
    assert_eq!(fx.state.borrow().task_turn, Some(1));
    assert!(fx.state.borrow().findings.is_some());
    assert_eq!(transcripts(&fx.sink).len(), 1, "the summarised turn's transcript went out");

    let restarted = Fixture { mem: MemStore::default(), ..Fixture::new() };
    *restarted.mem.map.borrow_mut() = fx.mem.map.borrow().clone();
    let again = restarted.started();
    assert_eq!(again.current().id, id);
    assert_eq!(again.current().records.len(), 1);
    assert_eq!(restarted.state.borrow().sessions.len(), 1);
    assert_eq!(restarted.error(), None);
}

#[test]
fn a_model_that_fails_leaves_the_extractive_summary_and_the_session_untitled_by_it() {
    let fx = Fixture::new();
    let desk = fx.started();
    fx.finish(
        &desk,
        "compare the two plans",
        "Plan B is cheaper. It has more seats.",
        &Summariser(None),
    );
    let session = desk.current();
    let turn = session.turn(1).expect("recorded");
    assert!(!turn.summarised_by_model);
    assert!(turn.summary.contains("Plan B is cheaper"), "{}", turn.summary);
}

#[test]
fn a_refused_write_is_told_kept_in_memory_and_retried_with_the_next_turn() {
    let fx = Fixture::new();
    let desk = fx.started();
    fx.mem.refuse_writes.set(true);
    fx.finish(&desk, "first task", "one", &Summariser(None));
    let told = fx.error().expect("the failed write is told");
    assert!(told.contains("Could not save turn 1") && told.contains("kQuotaBytes"), "{told}");
    assert_eq!(desk.current().records.len(), 1, "kept in memory");
    fx.mem.refuse_writes.set(false);
    fx.finish(&desk, "second task", "two", &Summariser(None));
    assert_eq!(fx.error(), None, "a write that succeeds clears the notice");
    let id = desk.current().id.clone();
    let stored = block_on(SessionStore::new(&fx.mem).load(&id)).expect("read").expect("stored");
    assert_eq!(stored.records.len(), 2, "turn 1 went with turn 2");
}

#[test]
fn a_read_that_fails_at_start_is_told_and_nothing_stored_is_overwritten() {
    let fx = Fixture::new();
    let old = session_of(2);
    block_on(SessionStore::new(&fx.mem).save_turns(&old, &[1, 2], true)).expect("saved");
    let before = fx.mem.map.borrow().clone();
    fx.mem.refuse_reads.set(true);
    let desk = fx.started();
    let told = fx.error().expect("the failed read is told");
    assert!(told.contains("Could not read the current session"), "{told}");
    assert!(told.contains("Could not read the list of sessions"), "{told}");
    assert_ne!(desk.current().id, old.id, "a fresh session, not an empty copy of the old one");
    let stored = fx.mem.map.borrow().clone();
    assert!(before.iter().all(|(k, v)| stored.get(k) == Some(v)), "nothing stored changed");
}

#[test]
fn unreadable_turns_and_headers_are_told_at_start() {
    let fx = Fixture::new();
    let old = session_of(3);
    block_on(SessionStore::new(&fx.mem).save_turns(&old, &[1, 2, 3], true)).expect("saved");
    fx.mem.map.borrow_mut().insert(Session::turn_key(&old.id, 2), serde_json::json!(7));
    fx.mem.map.borrow_mut().insert(Session::meta_key("other"), serde_json::json!("?"));
    let desk = fx.started();
    assert_eq!(desk.current().unreadable, vec![2]);
    let told = fx.error().expect("told");
    assert!(told.contains("Task 2 of this session could not be read"), "{told}");
    assert!(told.contains("1 stored session"), "{told}");
}

#[test]
fn a_new_session_waits_for_the_running_task_and_is_current_at_once() {
    let fx = Fixture::new();
    let desk = fx.started();
    let first = desk.current().id.clone();
    fx.state.borrow_mut().task = Some(TaskView::started("working"));
    assert_eq!(block_on(desk.new_session(&fx.state, &fx.clock)), Redraw::Nothing);
    assert_eq!(desk.current().id, first);
    fx.state.borrow_mut().task = None;
    assert_eq!(block_on(desk.new_session(&fx.state, &fx.clock)), Redraw::Session);
    let second = desk.current().id.clone();
    assert_ne!(second, first);
    assert_eq!(block_on(SessionStore::new(&fx.mem).current_id()).expect("read"), Some(second));
}

#[test]
fn continuing_and_jumping_switch_sessions_and_focus_the_turn() {
    let fx = Fixture::new();
    let mut old = session_of(3);
    old.id = "old".into();
    block_on(SessionStore::new(&fx.mem).save_turns(&old, &[1, 2, 3], false)).expect("saved");
    let desk = fx.started();
    assert!(block_on(desk.continue_session(&fx.state, "old")));
    assert_eq!(desk.current().id, "old");
    assert!(!block_on(desk.continue_session(&fx.state, "missing")));
    assert_eq!(desk.current().id, "old");
    assert_eq!(block_on(desk.start_new(&fx.state, &fx.clock)), Redraw::Session);
    assert_eq!(block_on(desk.jump(&fx.state, Some("old"), 2)), Redraw::Session);
    assert_eq!(desk.current().id, "old");
    let focus = fx.state.borrow().focus.clone().expect("focused");
    assert_eq!(focus.turn.turn, 2);
    fx.state.borrow_mut().task = Some(TaskView::started("busy"));
    assert_eq!(block_on(desk.jump(&fx.state, Some("other"), 1)), Redraw::View);
    assert_eq!(desk.current().id, "old", "never switched under a running task");
}

#[test]
fn a_rename_sticks_over_the_model_title_in_the_current_and_in_a_stored_session() {
    let fx = Fixture::new();
    let mut old = session_of(1);
    old.id = "old".into();
    block_on(SessionStore::new(&fx.mem).save_turns(&old, &[1], false)).expect("saved");
    let desk = fx.started();
    assert_eq!(block_on(desk.rename(&fx.state, "old", "My research")), Redraw::Session);
    let stored = block_on(SessionStore::new(&fx.mem).load("old")).expect("read").expect("there");
    assert_eq!(stored.title, "My research");
    assert!(fx.state.borrow().sessions.iter().any(|s| s.title == "My research"));
    let id = desk.current().id.clone();
    assert_eq!(block_on(desk.rename(&fx.state, &id, "Mine")), Redraw::Session);
    fx.finish(&desk, "find flights", "89 EUR", &TITLED);
    assert_eq!(desk.current().title, "Mine", "the user's title sticks");
    assert_eq!(block_on(desk.rename(&fx.state, &id, "Mine")), Redraw::Nothing);
}

#[test]
fn a_deletion_needs_its_confirmation_spares_the_running_task_and_replaces_the_current() {
    let fx = Fixture::new();
    let mut old = session_of(2);
    old.id = "old".into();
    block_on(SessionStore::new(&fx.mem).save_turns(&old, &[1, 2], false)).expect("saved");
    let desk = fx.started();
    // Unconfirmed: nothing happens.
    assert_eq!(block_on(desk.delete(&fx.state, &fx.clock, "old")), Redraw::View);
    assert!(fx.mem.map.borrow().contains_key(&Session::meta_key("old")));
    assert_eq!(desk.ask_delete(&fx.state, "old"), Redraw::View);
    assert_eq!(fx.state.borrow().confirm_delete.as_ref().map(|c| c.id.as_str()), Some("old"));
    assert_eq!(desk.cancel_delete(&fx.state), Redraw::View);
    assert_eq!(block_on(desk.delete(&fx.state, &fx.clock, "old")), Redraw::View);
    assert_eq!(desk.ask_delete(&fx.state, "old"), Redraw::View);
    assert_eq!(block_on(desk.delete(&fx.state, &fx.clock, "old")), Redraw::Session);
    assert!(fx.mem.map.borrow().keys().all(|k| !k.contains("old")));
    assert!(fx.state.borrow().sessions.iter().all(|s| s.id != "old"));
    // The current one, while a task runs: kept; after it: replaced by a fresh session.
    fx.finish(&desk, "a task", "done", &Summariser(None));
    let current = desk.current().id.clone();
    assert_eq!(desk.ask_delete(&fx.state, &current), Redraw::View);
    fx.state.borrow_mut().task = Some(TaskView::started("busy"));
    assert_eq!(block_on(desk.delete(&fx.state, &fx.clock, &current)), Redraw::View);
    assert_eq!(desk.current().id, current);
    fx.state.borrow_mut().task = None;
    assert_eq!(desk.ask_delete(&fx.state, &current), Redraw::View);
    assert_eq!(block_on(desk.delete(&fx.state, &fx.clock, &current)), Redraw::Session);
    assert_ne!(desk.current().id, current);
    assert!(fx.mem.map.borrow().keys().all(|k| !k.contains(&current)));
    // A refused removal is told and the session stays.
    assert_eq!(desk.ask_delete(&fx.state, "nothing-here"), Redraw::View);
    fx.mem.refuse_writes.set(true);
    let id = desk.current().id.clone();
    fx.state
        .borrow_mut()
        .sessions
        .push(crate::panel::SessionListItem { id: id.clone(), ..Default::default() });
    assert_eq!(desk.ask_delete(&fx.state, &id), Redraw::View);
    assert_eq!(block_on(desk.delete(&fx.state, &fx.clock, &id)), Redraw::View);
    assert!(fx.error().is_some_and(|e| e.contains("Could not delete the session")));
    assert_eq!(desk.current().id, id);
}

#[test]
fn search_finds_turns_of_every_session_and_tells_when_the_others_cannot_be_read() {
    let fx = Fixture::new();
    let mut old = session_of(2);
    old.id = "old".into();
    block_on(SessionStore::new(&fx.mem).save_turns(&old, &[1, 2], false)).expect("saved");
    let desk = fx.started();
    fx.finish(&desk, "find the Lisbon flights", "89 EUR", &Summariser(None));
    // The index is not built yet and storage cannot be read: the current session is searched.
    fx.mem.refuse_reads.set(true);
    assert_eq!(block_on(desk.search(&fx.state, "item".into(), false)), Redraw::View);
    assert!(fx.error().is_some_and(|e| e.contains("for the search")));
    assert!(fx.state.borrow().search.as_ref().is_some_and(|s| s.hits.is_empty()));
    fx.mem.refuse_reads.set(false);
    assert_eq!(block_on(desk.search(&fx.state, "item".into(), false)), Redraw::View);
    let hits = fx.state.borrow().search.clone().expect("searched").hits;
    assert!(!hits.is_empty() && hits.iter().all(|h| h.session_id == "old"), "{hits:?}");
    assert_eq!(block_on(desk.search(&fx.state, "Lisbon".into(), true)), Redraw::View);
    let hits = fx.state.borrow().search.clone().expect("searched").hits;
    assert!(!hits.is_empty() && hits.iter().all(|h| h.session_id != "old"), "{hits:?}");
    assert_eq!(block_on(desk.search(&fx.state, "  ".into(), false)), Redraw::View);
    assert!(fx.state.borrow().search.is_none());
}

#[test]
fn a_workflow_run_keeps_its_extractive_summary_and_sends_its_transcript_at_once() {
    let fx = Fixture::new();
    let desk = fx.started();
    let ran = crate::session::RanWorkflow { id: "w1".into(), name: "invoice".into(), healed: 0 };
    let stored = block_on(desk.record(
        &fx.state,
        &fx.sink,
        &fx.clock,
        "run invoice",
        &outcome("done"),
        &TaintLedger::default(),
        None,
        Some(ran),
    ));
    assert!(stored.is_none(), "no summary call");
    assert_eq!(transcripts(&fx.sink).len(), 1);
    assert!(desk.current().turn(1).is_some_and(|t| t.workflow.is_some()));
}

#[test]
fn a_summary_for_a_session_no_longer_current_lands_in_that_session() {
    let fx = Fixture::new();
    let desk = fx.started();
    let mut view = TaskView::started("find flights");
    view.running = false;
    fx.state.borrow_mut().task = Some(view);
    let stored = block_on(desk.record(
        &fx.state,
        &fx.sink,
        &fx.clock,
        "find flights",
        &outcome("89 EUR"),
        &TaintLedger::default(),
        None,
        None,
    ))
    .expect("waits for its summary");
    let first = stored.session_id.clone();
    assert_eq!(block_on(desk.start_new(&fx.state, &fx.clock)), Redraw::Session);
    block_on(desk.summarise(&fx.state, &TITLED, &fx.sink, stored));
    let back = block_on(SessionStore::new(&fx.mem).load(&first)).expect("read").expect("stored");
    assert_eq!(back.title, "Flights to Lisbon");
    assert!(desk.current().title.is_empty(), "the new session is untouched");
}
