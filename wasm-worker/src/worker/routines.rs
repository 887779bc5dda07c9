//! The routines side of the worker: Chrome's alarms for the core's [`RoutineDesk`], and a
//! routine's run — a saved workflow replayed (or a task done) in a background tab through the
//! same agent, policy and cards as the user's own runs — then the notification the core
//! decided on. When a routine may run, what it records and what it tells are decided in
//! `waymark_core::app` and `waymark_core::routine`.

use super::env::BrowserEnv;
use super::{Worker, task};
use crate::chrome;
use std::rc::Rc;
use waymark_core::agent::{OutputMode, Reply};
use waymark_core::app::{Begin, TaskRun, alarm_name};
use waymark_core::panel::TaskView;
use waymark_core::platform::Alarms;
use waymark_core::platform::Env;
use waymark_core::routine::{CardInRun, RoutineRun};

/// `chrome.alarms` and the browser's clock.
pub(super) struct ChromeAlarms;

impl Alarms for ChromeAlarms {
    fn at(&self, name: &str, when_ms: f64) {
        chrome::alarm_at(name, when_ms);
    }
    fn clear(&self, name: &str) {
        chrome::alarm_clear(name);
    }
    fn utc_offset_minutes(&self) -> i32 {
        chrome::utc_offset_minutes()
    }
}

/// Loads the routines at worker start, sets their alarms, and runs those whose time passed
/// while the browser was closed (once each, as each one says).
pub(super) async fn load(w: &Rc<Worker>) {
    let due = w.app.load_routines(&BrowserEnv, &ChromeAlarms).await;
    w.broadcast();
    for id in due {
        wasm_bindgen_futures::spawn_local(run(w.clone(), id));
    }
}

/// Runs routine `id` now (its alarm fired, or the user asked) if the core allows it: in a new
/// background tab, then records the run, schedules the next one and notifies.
pub(super) async fn run(w: Rc<Worker>, id: String) {
    let busy = w.app.controls.borrow().is_some();
    let desk = &w.app.routines;
    let begun = desk.begin(&w.app.state, &BrowserEnv, &ChromeAlarms, &w.app.workflows, &id, busy);
    let run = match begun.await {
        Begin::Gone | Begin::Postponed => {
            w.broadcast();
            return;
        }
        Begin::Unrunnable(run) => run,
        Begin::Go(start) => run_in_background(&w, *start).await,
    };
    let notice = desk.finished(&w.app.state, &BrowserEnv, &ChromeAlarms, &id, run).await;
    // Told once stored: whoever sees the run recorded finds its notification shown.
    if let Some(n) = notice {
        chrome::notify(&alarm_name(&n.routine), &n.title, &n.message);
    }
    w.broadcast();
}

async fn run_in_background(w: &Rc<Worker>, start: waymark_core::app::RunStart) -> RoutineRun {
    let started = BrowserEnv.now_ms();
    let tab = match crate::tab::open_background(&start.url).await {
        Ok(tab) => tab,
        Err(e) => {
            let why = format!("its page could not be opened ({e})");
            return RoutineRun::failed(started, BrowserEnv.now_ms() - started, why);
        }
    };
    let mut task_view = TaskView::started(&start.prompt);
    task_view.workflow = Some(format!("{} (routine)", start.routine.name));
    let run = start.run.map(|r| *r);
    let shown = w.app.show_task(task_view, start.prompt, OutputMode::default(), run);
    w.broadcast();
    let run = TaskRun {
        tab: Some(tab),
        on_card: match start.routine.on_card {
            CardInRun::Wait => None,
            CardInRun::Stop => Some(Reply::stop()),
        },
        ..shown
    };
    let outcome = task::run_to_end(w.clone(), run).await;
    crate::tab::close_background(tab).await;
    // The task's own model calls (a workflow that needed no healing made none).
    let tokens = w
        .app
        .state
        .borrow()
        .task
        .as_ref()
        .map_or(0, |t| t.usage.input_tokens.saturating_add(t.usage.output_tokens));
    RoutineRun::of(&outcome, started, tokens)
}
