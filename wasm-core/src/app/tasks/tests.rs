//! The task desk against fakes: a task's start (no tab, a journal that refuses, a host not
//! connected), its end (turn, summary, journal, usage), a resume after a worker restart, a
//! crash, a damaged journal, and the controls' attention signals.

use super::fakes::{QuietPage, World, app};
use super::*;
use crate::agent::{ControlState, Intervention, InterventionKind, InterventionSettings};
use crate::crash::Crash;
use crate::platform::memory::MemStore;
use futures::executor::block_on;

fn start(prompt: &str) -> TaskStart {
    TaskStart {
        prompt: prompt.into(),
        mode: OutputMode::default(),
        max_steps: None,
        step_mode: false,
        resources: BTreeMap::new(),
        allowed_sites: vec![],
    }
}

fn journal_keys(mem: &MemStore) -> Vec<String> {
    mem.map.borrow().keys().filter(|k| k.starts_with("task:")).cloned().collect()
}

#[test]
fn a_task_without_a_web_page_tab_ends_at_once_and_records_nothing() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    let end = block_on(app.run_task(&world, TaskRun::of(start("find the price"))));
    assert_eq!(end.outcome.answer, NO_TAB_ANSWER);
    assert!(end.summary.is_none());
    assert!(matches!(world.timeline.0.borrow().last(), Some(TaskEvent::Finished(o)) if !o.success));
    assert_eq!(app.sessions.current().records.len(), 0);
    assert_eq!(world.model.0.navigator_calls.get(), 0);
}

#[test]
fn a_task_runs_on_the_users_tab_and_its_end_is_recorded() {
    let (mem, world) = (MemStore::default(), World { user_tab: Some(7), ..World::default() });
    let app = app(&mem, &world);
    app.state.borrow_mut().task = Some(TaskView::started("find the price"));
    let end = block_on(app.run_task(&world, TaskRun::of(start("find the price"))));
    assert!(end.outcome.success, "{:?}", end.outcome);
    assert_eq!(end.outcome.answer, "Found it.");
    assert_eq!(*world.pages.borrow(), vec![7]);
    assert_eq!(world.released.get(), 1);
    assert_eq!(world.watched.get(), 1);
    // Recorded as a turn, its summary call handed back, its journal gone, controls dropped.
    assert_eq!(app.sessions.current().records.len(), 1);
    let turn = end.summary.expect("a model task's turn waits for its summary");
    assert!(journal_keys(&mem).is_empty(), "{:?}", journal_keys(&mem));
    assert!(app.controls.borrow().is_none());
    assert!(app.secrets.borrow().is_some());
    let shown = app.state.borrow().task.clone().expect("the task is shown");
    assert!(!shown.running);
    assert!(shown.output.is_some());
    // Connected already: the host was not asked again.
    assert_eq!(*world.host.refreshed.borrow(), 0);
    // The summary (the model fails here) keeps the extractive one.
    let record = block_on(app.summarise(&world, turn));
    assert_eq!(record.answer, "Found it.");
}

#[test]
fn a_task_asks_the_host_first_when_it_is_not_connected() {
    let (mem, world) = (MemStore::default(), World { user_tab: Some(3), ..World::default() });
    let app = app(&mem, &world);
    app.state.borrow_mut().host = HostStatus::Unknown;
    let _done = block_on(app.run_task(&world, TaskRun::of(start("read it"))));
    assert_eq!(*world.host.refreshed.borrow(), 1);
}

#[test]
fn a_task_whose_journal_is_refused_does_nothing_and_is_still_a_turn() {
    let (mem, world) = (MemStore::default(), World { user_tab: Some(7), ..World::default() });
    let app = app(&mem, &world);
    app.state.borrow_mut().task = Some(TaskView::started("buy it"));
    mem.refuse_writes.set(true);
    let end = block_on(app.run_task(&world, TaskRun::of(start("buy it"))));
    assert!(
        end.outcome.answer.starts_with("Could not save the task before starting it (storage: "),
        "{}",
        end.outcome.answer
    );
    assert!(end.outcome.answer.ends_with("; nothing was done."));
    assert_eq!(world.model.0.navigator_calls.get(), 0);
    assert!(app.controls.borrow().is_none());
    // Kept in memory as a turn; the panel says the write failed.
    assert_eq!(app.sessions.current().records.len(), 1);
    let error = app.state.borrow().storage_error.clone().expect("the failed write is told");
    assert!(error.starts_with("Could not save turn 1 to browser storage"), "{error}");
}

#[test]
fn a_routines_run_uses_its_own_tab_not_the_users() {
    let (mem, world) = (MemStore::default(), World { user_tab: Some(1), ..World::default() });
    let app = app(&mem, &world);
    let run = TaskRun { tab: Some(42), on_card: Some(Reply::stop()), ..TaskRun::of(start("x")) };
    let end = block_on(app.run_task(&world, run));
    assert!(end.outcome.success);
    assert_eq!(*world.pages.borrow(), vec![42]);
}

#[test]
fn a_workflow_run_asks_no_model_for_notes_or_validation() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    let workflow = crate::workflow::tests::recorded();
    let run = crate::workflow::WorkflowRun::bind(workflow, BTreeMap::new()).expect("it binds");
    let spec = app.task_spec(TaskRun { workflow: Some(run), ..TaskRun::of(start("run it")) });
    assert!(!spec.validate);
    assert!(spec.workflow.is_some());
    assert!(spec.session_context.is_none());
    let spec = app.task_spec(TaskRun::of(TaskStart { max_steps: Some(4), ..start("do it") }));
    assert_eq!(spec.max_steps, 4);
    assert!(spec.workflow.is_none());
}

/// A task a killed worker left after its start (its journal holds the start only).
fn left_behind(mem: &MemStore, world: &World, finished: bool) {
    let journal = StoredJournal::new(mem, "t1".into(), 9);
    let page = QuietPage;
    let controls = Controls::new(InterventionSettings::default(), false);
    let model = world.model.clone();
    let agent = Agent {
        llm: &model,
        page: &page,
        env: &world.clock,
        events: &world.timeline,
        operator: &controls,
        journal: &journal,
    };
    let mut ctx = block_on(agent.start(TaskSpec::new("check the order"))).expect("journaled");
    if finished {
        let outcome = block_on(agent.run(&mut ctx));
        assert!(outcome.success);
    }
    world.model.0.navigator_calls.set(0);
}

#[test]
fn nothing_left_behind_resumes_nothing() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    let redraws = world.panels.0.get();
    assert!(block_on(app.resume_task(&world)).is_none());
    assert_eq!(world.panels.0.get(), redraws);
    assert!(app.state.borrow().task.is_none());
}

#[test]
fn a_task_left_unfinished_goes_on_where_it_stopped_and_is_recorded() {
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, false);
    let app = app(&mem, &world);
    let turn = block_on(app.resume_task(&world));
    assert!(turn.is_some());
    assert_eq!(world.model.0.navigator_calls.get(), 1, "it ran on");
    assert_eq!(*world.pages.borrow(), vec![9], "on the tab it ran on");
    assert_eq!(app.sessions.current().records.len(), 1);
    assert!(journal_keys(&mem).is_empty());
}

#[test]
fn a_task_that_had_ended_is_only_recorded() {
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, true);
    let app = app(&mem, &world);
    let _done = block_on(app.resume_task(&world));
    assert_eq!(world.model.0.navigator_calls.get(), 0, "nothing runs again");
    assert!(world.pages.borrow().is_empty());
    assert_eq!(app.sessions.current().records.len(), 1);
    assert!(journal_keys(&mem).is_empty());
}

#[test]
fn a_damaged_journal_is_reported_recorded_and_cleared_not_resumed() {
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, false);
    mem.map.borrow_mut().insert("task:t1:000001".into(), serde_json::json!("garbage"));
    let app = app(&mem, &world);
    let _done = block_on(app.resume_task(&world));
    assert_eq!(world.model.0.navigator_calls.get(), 0);
    let shown = app.state.borrow().task.clone().expect("shown as failed");
    assert!(!shown.running);
    assert_eq!(app.sessions.current().records.len(), 1);
    assert!(journal_keys(&mem).is_empty());
}

#[test]
fn a_journal_that_cannot_be_read_is_reported_and_kept_for_the_next_start() {
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, false);
    let app = app(&mem, &world);
    mem.refuse_reads.set(true);
    assert!(block_on(app.resume_task(&world)).is_none());
    mem.refuse_reads.set(false);
    assert!(app.state.borrow().task.is_some());
    assert_eq!(app.sessions.current().records.len(), 0);
    assert!(!journal_keys(&mem).is_empty(), "tried again at the next start");
}

#[test]
fn after_a_crash_the_running_task_is_recorded_as_interrupted_and_never_run_again() {
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, false);
    let app = app(&mem, &world);
    let crash = Crash { message: "unreachable executed".into(), location: None };
    let _done = block_on(app.after_crash(&world, crash));
    assert_eq!(world.model.0.navigator_calls.get(), 0);
    let records = app.sessions.current().records.clone();
    assert_eq!(records.len(), 1);
    assert!(!records[0].success);
    assert!(journal_keys(&mem).is_empty());
    let notice = app.state.borrow().crash.clone().expect("the crash is told");
    assert!(notice.text.contains("“check the order”"), "{}", notice.text);
    assert!(notice.report.contains("9.9.9"), "{}", notice.report);
    assert!(!notice.report.contains("secret=1"), "only the origin: {}", notice.report);
}

#[test]
fn after_a_crash_with_no_task_the_notice_names_none() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    let crash = Crash { message: "boom".into(), location: None };
    assert!(block_on(app.after_crash(&world, crash)).is_none());
    let notice = app.state.borrow().crash.clone().expect("the crash is told");
    assert!(!notice.text.contains('“'), "{}", notice.text);
    assert_eq!(app.sessions.current().records.len(), 0);
}

#[test]
fn an_ended_tasks_journal_that_cannot_be_removed_is_left_for_the_next_worker() {
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, true);
    let app = app(&mem, &world);
    mem.refuse_writes.set(true);
    let _done = block_on(app.resume_task(&world));
    assert!(!journal_keys(&mem).is_empty());
    let error = app.state.borrow().storage_error.clone().expect("the failed write is told");
    assert!(error.contains("browser storage"), "{error}");
    // The next worker finds the task ended and records it (now that writes work).
    mem.refuse_writes.set(false);
    let next = App::new(&mem);
    let _done = block_on(next.start(&world.clock));
    let _done = block_on(next.resume_task(&world));
    assert!(journal_keys(&mem).is_empty());
}

fn card() -> Intervention {
    Intervention {
        kind: InterventionKind::Confirm,
        title: "Confirm payment".into(),
        message: "Pay 10 €?".into(),
        questions: vec![],
        allow_similar: None,
    }
}

fn controls(set: impl FnOnce(&mut ControlState)) -> ControlState {
    let mut state = ControlState::default();
    set(&mut state);
    state
}

fn with_card(card: Option<Intervention>) -> ControlState {
    controls(|s| s.card = card)
}

#[test]
fn a_card_that_opens_signals_the_user_and_the_open_panel_chimes() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    app.state.borrow_mut().interventions =
        InterventionSettings { badge: true, notification: true, sound: true, ..Default::default() };
    app.state.borrow_mut().task = Some(TaskView::started("pay"));
    assert!(app.controls_changed(&world.signals, with_card(Some(card())), true));
    assert_eq!(app.state.borrow().task.as_ref().map(|t| t.chime), Some(1));
    assert_eq!(*world.signals.0.borrow(), ["badge \"!\"", "notify Waymark: Confirm payment"]);
    // The same card again: no second signal.
    assert!(app.controls_changed(&world.signals, with_card(Some(card())), true));
    assert_eq!(app.state.borrow().task.as_ref().map(|t| t.chime), Some(1));
    // It closes: badge cleared, notification and sound gone.
    world.signals.0.borrow_mut().clear();
    assert!(app.controls_changed(&world.signals, with_card(None), true));
    assert_eq!(*world.signals.0.borrow(), ["badge \"\"", "clear", "stop sound"]);
}

#[test]
fn with_no_panel_open_the_sound_plays_offscreen_and_nothing_chimes() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    app.state.borrow_mut().interventions = InterventionSettings {
        badge: false,
        notification: false,
        sound: true,
        ..Default::default()
    };
    app.state.borrow_mut().task = Some(TaskView::started("pay"));
    assert!(app.controls_changed(&world.signals, with_card(Some(card())), false));
    assert_eq!(app.state.borrow().task.as_ref().map(|t| t.chime), Some(0));
    assert_eq!(*world.signals.0.borrow(), ["offscreen sound"]);
}

#[test]
fn controls_without_a_task_shown_change_nothing() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    assert!(!app.controls_changed(&world.signals, with_card(Some(card())), true));
    assert!(world.signals.0.borrow().is_empty());
}

#[test]
fn the_user_holds_the_page_while_paused_taking_over_waiting_or_at_a_card() {
    assert!(!user_holds_page(&ControlState::default()));
    assert!(user_holds_page(&controls(|s| s.paused = true)));
    assert!(user_holds_page(&controls(|s| s.taken_over = true)));
    assert!(user_holds_page(&controls(|s| s.waiting = true)));
    assert!(user_holds_page(&with_card(Some(card()))));
    assert!(!user_holds_page(&controls(|s| s.stopping = true)));
}

#[test]
fn a_tasks_events_update_its_view() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    app.task_event(&TaskEvent::Noted { text: "nothing shown".into() });
    app.state.borrow_mut().task = Some(TaskView::started("x"));
    app.task_event(&TaskEvent::Finished(no_tab_outcome()));
    assert!(!app.state.borrow().task.as_ref().is_some_and(|t| t.running));
}

#[test]
fn after_a_crash_a_store_refusing_writes_still_records_the_task_in_memory() {
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, false);
    let app = app(&mem, &world);
    mem.refuse_writes.set(true);
    let crash = Crash { message: "boom".into(), location: None };
    let _done = block_on(app.after_crash(&world, crash));
    assert_eq!(app.sessions.current().records.len(), 1, "kept in memory");
    assert!(app.state.borrow().crash.is_some());
    // The journal stays for the next start (which records it, never runs it).
    assert!(!journal_keys(&mem).is_empty());
}

#[test]
fn after_a_restart_the_task_resumes_unless_the_worker_crashed() {
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, false);
    let resumed = app(&mem, &world);
    let _summary = block_on(resumed.recover_task(&world, None));
    assert_eq!(world.model.0.navigator_calls.get(), 1, "resumed");
    assert!(resumed.state.borrow().crash.is_none());
    let (mem, world) = (MemStore::default(), World::default());
    left_behind(&mem, &world, false);
    let crashed = app(&mem, &world);
    let crash = Some(Crash { message: "boom".into(), location: None });
    let _summary = block_on(crashed.recover_task(&world, crash));
    assert_eq!(world.model.0.navigator_calls.get(), 0, "recorded, not run");
    assert!(crashed.state.borrow().crash.is_some());
}
