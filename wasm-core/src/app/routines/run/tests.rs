//! A routine's run against fakes: in a background tab that closes after, recorded and
//! notified; a page that does not open; a run that waits for the user's task.

use super::*;
use crate::agent::Controls;
use crate::app::tasks::fakes::{World, app};
use crate::panel::PanelRequest;
use crate::panel::routines::{Every, NotifyChoice, RoutineForm};
use crate::platform::memory::MemStore;
use crate::routine::{MissedRuns, RoutineJob, RunEnding};
use futures::executor::block_on;

impl RoutinePlatform for World {
    async fn open_background(&self, url: &str) -> Result<i32, PageError> {
        self.opened.borrow_mut().push(url.to_owned());
        if self.refuse_open.get() {
            return Err(PageError::NoPage);
        }
        Ok(11)
    }
    async fn close_background(&self, tab: i32) {
        self.closed.borrow_mut().push(tab);
    }
    fn notify(&self, id: &str, title: &str, _message: &str) {
        self.notified.borrow_mut().push(format!("{id}: {title}"));
    }
}

/// A saved daily routine doing a task in words; its id.
fn saved(app: &App<&MemStore>, world: &World) -> String {
    let form = RoutineForm {
        job: RoutineJob::Task { prompt: "check the price".into() },
        start_url: "https://shop.example/".into(),
        every: Every::Day,
        at: "08:30".into(),
        day: None,
        notify: NotifyChoice::EveryRun,
        key: String::new(),
        limit: String::new(),
        missed: MissedRuns::RunOnce,
        on_card: CardInRun::Stop,
    };
    let alarms = crate::app::tasks::fakes::NoAlarms;
    let request = PanelRequest::SaveRoutine { form };
    block_on(app.routines.handle(&app.state, &world.clock, &alarms, &app.workflows, request));
    app.state.borrow().routines.list[0].id.clone()
}

fn last_run(app: &App<&MemStore>) -> Option<RoutineRun> {
    app.routines.list.borrow().first().and_then(|r| r.history.last().cloned())
}

#[test]
fn a_routine_runs_in_a_background_tab_that_closes_after_and_is_recorded_and_told() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    let id = saved(&app, &world);
    block_on(app.run_routine(&world, &id));
    assert_eq!(*world.opened.borrow(), ["https://shop.example/"]);
    assert_eq!(*world.pages.borrow(), [11], "the task ran in the routine's tab");
    assert_eq!(*world.closed.borrow(), [11]);
    let run = last_run(&app).expect("recorded");
    assert_eq!(run.ending, RunEnding::Done);
    assert_eq!(run.answer, "Found it.");
    assert_eq!(world.notified.borrow().len(), 1);
    assert!(world.notified.borrow()[0].starts_with(&alarm_name(&id)));
    assert_eq!(world.later.borrow().len(), 1, "its summary runs in the background");
    let view = app.state.borrow().task.clone().expect("shown");
    assert_eq!(view.workflow.as_deref(), Some("check the price (routine)"));
}

#[test]
fn a_page_that_does_not_open_is_recorded_as_the_runs_failure() {
    let (mem, world) = (MemStore::default(), World::default());
    world.refuse_open.set(true);
    let app = app(&mem, &world);
    let id = saved(&app, &world);
    block_on(app.run_routine(&world, &id));
    assert!(world.pages.borrow().is_empty(), "no task ran");
    let run = last_run(&app).expect("recorded");
    assert!(run.answer.starts_with("its page could not be opened ("), "{}", run.answer);
    assert!(world.closed.borrow().is_empty());
}

#[test]
fn a_routine_waits_for_the_users_task_and_a_deleted_one_does_nothing() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = app(&mem, &world);
    let id = saved(&app, &world);
    *app.controls.borrow_mut() = Some(Controls::new(Default::default(), false));
    block_on(app.run_routine(&world, &id));
    assert!(world.opened.borrow().is_empty(), "postponed");
    assert!(last_run(&app).is_none());
    *app.controls.borrow_mut() = None;
    block_on(app.run_routine(&world, "gone"));
    assert!(world.opened.borrow().is_empty());
}
