//! The routines side of the worker: keeps the routines and their alarms, answers the panel's
//! routine requests, and runs a routine when its alarm fires — a saved workflow replayed in a
//! background tab through the same agent, policy and cards as the user's own runs — then shows
//! the notification the core decided on. What a routine is, when it runs and what a run is
//! worth telling are decided in `waymark_core::routine`.

use super::env::BrowserEnv;
use super::{Worker, storage, task, workflows};
use crate::alarms;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use waymark_core::agent::{Env, OutputMode, Reply};
use waymark_core::panel::routines as view;
use waymark_core::panel::{PanelRequest, TaskView};
use waymark_core::routine::{CardInRun, Routine, RoutineJob, RoutineRun};
use waymark_core::workflow::WorkflowRun;

/// Where the routines are stored (one list: they are few and small).
const KEY: &str = "routines";
/// How long a run waits when a task of the user's is running.
const BUSY_DELAY_MS: f64 = 5.0 * 60_000.0;

/// The worker's routines.
#[derive(Default)]
pub(super) struct RoutinesState {
    list: RefCell<Vec<Routine>>,
    /// A routine is running now (one at a time).
    running: Cell<bool>,
}

fn now() -> f64 {
    BrowserEnv.now_ms()
}

/// Loads the routines at worker start, sets their alarms, and runs those whose time passed
/// while the browser was closed (once each, as each one says).
pub(super) async fn load(w: &Rc<Worker>) {
    let mut list: Vec<Routine> = storage::load_json(KEY).await.unwrap_or_default();
    let offset = alarms::utc_offset_minutes();
    let mut due = Vec::new();
    for routine in &mut list {
        if routine.on_start(now(), offset) {
            due.push(routine.id.clone());
        }
    }
    for routine in &list {
        arm(routine);
    }
    *w.routines.list.borrow_mut() = list;
    refresh(w);
    for id in due {
        wasm_bindgen_futures::spawn_local(run(w.clone(), id));
    }
}

fn arm(routine: &Routine) {
    let name = alarms::name_of(&routine.id);
    if routine.paused {
        alarms::alarm_clear(&name);
    } else {
        alarms::alarm_at(&name, routine.next_ms);
    }
}

fn refresh(w: &Rc<Worker>) {
    let items = view::list(&w.routines.list.borrow());
    w.app.state.borrow_mut().routines.list = items;
    w.broadcast();
}

fn say(w: &Rc<Worker>, result: Result<String, String>) {
    {
        let mut state = w.app.state.borrow_mut();
        let (notice, error) = match result {
            Ok(notice) => (Some(notice), None),
            Err(error) => (None, Some(error)),
        };
        state.routines.notice = notice;
        state.routines.error = error;
    }
    refresh(w);
}

async fn persist(w: &Rc<Worker>) -> Result<(), String> {
    let list = w.routines.list.borrow().clone();
    storage::save_json(KEY, &list)
        .await
        .map_err(|e| format!("browser storage refused the routines ({e}); nothing was changed"))
}

/// One routine request of the panel.
pub(super) async fn handle(w: Rc<Worker>, request: PanelRequest) {
    let before = w.routines.list.borrow().clone();
    let result = match request {
        PanelRequest::SaveRoutine { form } => {
            let name = match &form.job {
                RoutineJob::Workflow { id, .. } => workflows::find(&w, id).map(|f| f.name),
                RoutineJob::Task { .. } => Some(String::new()),
            };
            let id = format!("{:x}{:08x}", now() as u64, BrowserEnv.random_u64() as u32);
            match name
                .ok_or_else(|| "that workflow is no longer saved".to_owned())
                .and_then(|name| form.routine(id, &name, now(), alarms::utc_offset_minutes()))
            {
                Ok(routine) => {
                    let said = format!("“{}” runs {}", routine.name, routine.schedule.describe());
                    w.routines.list.borrow_mut().push(routine);
                    Ok(said)
                }
                Err(e) => Err(format!("The routine was not saved: {e}.")),
            }
        }
        PanelRequest::PauseRoutine { id, paused } => {
            let offset = alarms::utc_offset_minutes();
            let mut list = w.routines.list.borrow_mut();
            match list.iter_mut().find(|r| r.id == id) {
                Some(r) => {
                    r.paused = paused;
                    if !paused {
                        r.next_ms = r.schedule.next_after(now(), offset);
                    }
                    Ok(format!("“{}” {}", r.name, if paused { "is paused" } else { "runs again" }))
                }
                None => Err("That routine is gone.".into()),
            }
        }
        PanelRequest::DeleteRoutine { id } => {
            let mut list = w.routines.list.borrow_mut();
            let name = list.iter().find(|r| r.id == id).map(|r| r.name.clone());
            list.retain(|r| r.id != id);
            alarms::alarm_clear(&alarms::name_of(&id));
            name.map(|n| format!("Deleted the routine “{n}”")).ok_or("That routine is gone.".into())
        }
        PanelRequest::RunRoutine { id } => {
            run(w.clone(), id).await;
            return;
        }
        _ => return,
    };
    let result = match result {
        Ok(said) => match persist(&w).await {
            Ok(()) => Ok(said),
            Err(e) => {
                *w.routines.list.borrow_mut() = before;
                Err(e)
            }
        },
        Err(e) => Err(e),
    };
    for routine in w.routines.list.borrow().iter() {
        arm(routine);
    }
    say(&w, result);
}

/// Runs routine `id` now (its alarm fired, or the user asked): in a new background tab, then
/// records the run, schedules the next one and notifies as the core decides.
pub(super) async fn run(w: Rc<Worker>, id: String) {
    let Some(routine) = w.routines.list.borrow().iter().find(|r| r.id == id).cloned() else {
        alarms::alarm_clear(&alarms::name_of(&id));
        return;
    };
    if w.routines.running.get() || w.app.controls.borrow().is_some() {
        // One thing at a time: the user's task (or another routine) goes first.
        update(&w, &id, |r| r.postpone(now(), BUSY_DELAY_MS)).await;
        return;
    }
    w.routines.running.set(true);
    let started = now();
    let run = match prepare(&w, &routine) {
        Ok((url, workflow_run)) => run_in_background(&w, &routine, url, workflow_run).await,
        Err(e) => RoutineRun::failed(started, 0.0, e),
    };
    w.routines.running.set(false);
    let offset = alarms::utc_offset_minutes();
    let mut notice = None;
    // Told before it is stored: whoever sees the run recorded finds its notification shown.
    update(&w, &id, |r| {
        notice = r.record(run, now(), offset);
        if let Some(n) = &notice {
            crate::chrome::notify(&alarms::name_of(&n.routine), &n.title, &n.message);
        }
    })
    .await;
}

/// The start page and the bound workflow (none for a task) of a routine's run, or why it
/// cannot run.
fn prepare(w: &Rc<Worker>, routine: &Routine) -> Result<(String, Option<WorkflowRun>), String> {
    let (id, values) = match &routine.job {
        RoutineJob::Task { .. } => {
            let url = routine.start_url.clone().ok_or("it has no start page")?;
            return Ok((url, None));
        }
        RoutineJob::Workflow { id, values } => (id, values),
    };
    let workflow =
        workflows::find(w, id).ok_or_else(|| "its workflow is no longer saved".to_owned())?;
    let url = routine.start_page(&workflow)?;
    let run = WorkflowRun::bind(workflow, values.clone()).map_err(|e| e.to_string())?;
    Ok((url, Some(run)))
}

async fn run_in_background(
    w: &Rc<Worker>,
    routine: &Routine,
    url: String,
    run: Option<WorkflowRun>,
) -> RoutineRun {
    let started = now();
    let tab = match crate::tab::open_background(&url).await {
        Ok(tab) => tab,
        Err(e) => {
            let why = format!("its page could not be opened ({e})");
            return RoutineRun::failed(started, now() - started, why);
        }
    };
    let prompt = match (&run, &routine.job) {
        (Some(run), _) => run.task_text(),
        (None, RoutineJob::Task { prompt }) => prompt.clone(),
        (None, RoutineJob::Workflow { .. }) => routine.name.clone(),
    };
    let mut task_view = TaskView::started(&prompt);
    task_view.workflow = Some(format!("{} (routine)", routine.name));
    let opts = task::StartOptions {
        tab: Some(tab),
        on_card: match routine.on_card {
            CardInRun::Wait => None,
            CardInRun::Stop => Some(Reply::stop()),
        },
        ..task::StartOptions::shown(w, task_view, prompt, OutputMode::default(), run)
    };
    let outcome = task::run_to_end(w.clone(), opts).await;
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

async fn update(w: &Rc<Worker>, id: &str, change: impl FnOnce(&mut Routine)) {
    {
        let mut list = w.routines.list.borrow_mut();
        if let Some(r) = list.iter_mut().find(|r| r.id == id) {
            change(r);
            arm(r);
        }
    }
    if let Err(e) = persist(w).await {
        tracing::warn!(error = %e, "a routine's run was not stored");
    }
    refresh(w);
}
