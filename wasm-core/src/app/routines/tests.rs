//! The routines against an in-memory store and recorded alarms: every routine request of the
//! panel, a run's start (one at a time, the user's task first) and its record.

use super::*;
use crate::panel::routines::{Every, NotifyChoice, RoutineForm};
use crate::platform::memory::MemStore;
use crate::platform::scripted::Clock;
use crate::routine::{CardInRun, MissedRuns};
use crate::workflow::WorkflowStore;
use crate::workflow::tests::recorded;
use futures::executor::block_on;
use std::collections::BTreeMap;

/// Chrome's alarms as the test sees them: name → when.
#[derive(Default)]
struct Recorded(RefCell<BTreeMap<String, f64>>);
impl Alarms for Recorded {
    fn at(&self, name: &str, when_ms: f64) {
        self.0.borrow_mut().insert(name.to_owned(), when_ms);
    }
    fn clear(&self, name: &str) {
        self.0.borrow_mut().remove(name);
    }
    fn utc_offset_minutes(&self) -> i32 {
        60
    }
}

struct Fixture {
    mem: MemStore,
    state: RefCell<PanelState>,
    clock: Clock,
    alarms: Recorded,
}

impl Fixture {
    fn new() -> Self {
        let fx = Self {
            mem: MemStore::default(),
            state: RefCell::default(),
            clock: Clock::default(),
            alarms: Recorded::default(),
        };
        block_on(WorkflowStore::new(&fx.mem).save(&recorded())).expect("saved");
        fx
    }
    fn desks(&self) -> (RoutineDesk<&MemStore>, WorkflowDesk<&MemStore>) {
        let workflows = WorkflowDesk::new(&self.mem);
        block_on(workflows.load(&self.state));
        let routines = RoutineDesk::new(&self.mem);
        let due = block_on(routines.load(&self.state, &self.clock, &self.alarms));
        assert!(due.is_empty());
        (routines, workflows)
    }
    fn ask(
        &self,
        desks: &(RoutineDesk<&MemStore>, WorkflowDesk<&MemStore>),
        request: PanelRequest,
    ) {
        block_on(desks.0.handle(&self.state, &self.clock, &self.alarms, &desks.1, request));
    }
    fn notice(&self) -> Option<String> {
        self.state.borrow().routines.notice.clone()
    }
    fn error(&self) -> Option<String> {
        self.state.borrow().routines.error.clone()
    }
}

fn daily(job: RoutineJob) -> RoutineForm {
    RoutineForm {
        job,
        start_url: "https://shop.example/".into(),
        every: Every::Day,
        at: "08:30".into(),
        day: None,
        notify: NotifyChoice::EveryRun,
        key: String::new(),
        limit: String::new(),
        missed: MissedRuns::RunOnce,
        on_card: CardInRun::Wait,
    }
}

fn of_workflow() -> RoutineJob {
    RoutineJob::Workflow { id: recorded().id, values: BTreeMap::new() }
}

#[test]
fn a_saved_routine_is_listed_armed_paused_resumed_and_deleted() {
    let fx = Fixture::new();
    let desks = fx.desks();
    fx.ask(&desks, PanelRequest::SaveRoutine { form: daily(of_workflow()) });
    assert!(fx.notice().is_some_and(|n| n.contains(" runs ")), "{:?}", fx.notice());
    let id = fx.state.borrow().routines.list[0].id.clone();
    assert!(fx.alarms.0.borrow().contains_key(&alarm_name(&id)), "armed");
    fx.ask(&desks, PanelRequest::PauseRoutine { id: id.clone(), paused: true });
    assert!(fx.notice().is_some_and(|n| n.ends_with("is paused")));
    assert!(fx.alarms.0.borrow().is_empty(), "a paused routine has no alarm");
    fx.ask(&desks, PanelRequest::PauseRoutine { id: id.clone(), paused: false });
    assert!(fx.notice().is_some_and(|n| n.ends_with("runs again")));
    assert!(fx.alarms.0.borrow().contains_key(&alarm_name(&id)));
    // A restart finds it, armed again.
    let again = Fixture { mem: MemStore::default(), ..Fixture::new() };
    *again.mem.map.borrow_mut() = fx.mem.map.borrow().clone();
    let _desks_again = again.desks();
    assert_eq!(again.state.borrow().routines.list.len(), 1);
    assert!(again.alarms.0.borrow().contains_key(&alarm_name(&id)));
    fx.ask(&desks, PanelRequest::DeleteRoutine { id: id.clone() });
    assert!(fx.notice().is_some_and(|n| n.starts_with("Deleted the routine")));
    assert!(fx.state.borrow().routines.list.is_empty());
    assert!(fx.alarms.0.borrow().is_empty());
    fx.ask(&desks, PanelRequest::DeleteRoutine { id });
    assert_eq!(fx.error().as_deref(), Some("That routine is gone."));
}

#[test]
fn a_bad_form_or_a_full_storage_saves_nothing_and_says_why() {
    let fx = Fixture::new();
    let desks = fx.desks();
    let gone = RoutineJob::Workflow { id: "gone".into(), values: BTreeMap::new() };
    fx.ask(&desks, PanelRequest::SaveRoutine { form: daily(gone) });
    assert_eq!(
        fx.error().as_deref(),
        Some("The routine was not saved: that workflow is no longer saved.")
    );
    fx.mem.refuse_writes.set(true);
    fx.ask(&desks, PanelRequest::SaveRoutine { form: daily(of_workflow()) });
    assert!(fx.error().is_some_and(|e| e.contains("refused the routines")), "{:?}", fx.error());
    assert!(fx.state.borrow().routines.list.is_empty(), "undone");
    assert!(fx.alarms.0.borrow().is_empty());
}

#[test]
fn a_run_waits_for_the_users_task_runs_one_at_a_time_and_is_recorded() {
    let fx = Fixture::new();
    let desks = fx.desks();
    fx.ask(&desks, PanelRequest::SaveRoutine { form: daily(of_workflow()) });
    let id = fx.state.borrow().routines.list[0].id.clone();
    let begin =
        |busy| block_on(desks.0.begin(&fx.state, &fx.clock, &fx.alarms, &desks.1, &id, busy));
    assert_eq!(begin(true), Begin::Postponed, "the user's task goes first");
    let Begin::Go(start) = begin(false) else { panic!("not started") };
    assert!(start.run.is_some() && start.url.starts_with("https://"), "{start:?}");
    assert_eq!(begin(false), Begin::Postponed, "one routine at a time");
    let run = RoutineRun::failed(fx.clock.now_ms(), 5.0, "the page did not load".into());
    let notice = block_on(desks.0.finished(&fx.state, &fx.clock, &fx.alarms, &id, run));
    assert!(notice.is_some(), "a failing routine says so");
    let item = fx.state.borrow().routines.list[0].clone();
    assert_eq!(item.runs.len(), 1, "{:?}", item.runs);
    assert!(matches!(begin(false), Begin::Go(_)), "free again");
    assert_eq!(
        block_on(desks.0.begin(&fx.state, &fx.clock, &fx.alarms, &desks.1, "nope", false)),
        Begin::Gone
    );
}

#[test]
fn a_routine_whose_workflow_is_gone_is_recorded_as_a_failed_run() {
    let fx = Fixture::new();
    let desks = fx.desks();
    fx.ask(&desks, PanelRequest::SaveRoutine { form: daily(of_workflow()) });
    let id = fx.state.borrow().routines.list[0].id.clone();
    block_on(WorkflowStore::new(&fx.mem).delete(&recorded().id)).expect("deleted");
    let workflows = WorkflowDesk::new(&fx.mem);
    block_on(workflows.load(&fx.state));
    let Begin::Unrunnable(run) =
        block_on(desks.0.begin(&fx.state, &fx.clock, &fx.alarms, &workflows, &id, false))
    else {
        panic!("it ran")
    };
    assert!(run.answer.contains("no longer saved"), "{}", run.answer);
}
