//! The routines behind the side panel: the list and its alarms, the panel's requests, and what
//! a run needs before it starts and records after it ended.
//!
//! Why in the core: when a routine may run (one thing at a time, the user's task first), what
//! a refused write undoes and what the user reads are decisions, tested natively against an
//! in-memory store and recorded alarms. The worker opens the background tab and runs the job.

mod run;

pub use run::RoutinePlatform;

use super::{App, WorkflowDesk};
use crate::panel::routines as view;
use crate::panel::{PanelRequest, PanelState};
use crate::platform::Env;
use crate::platform::{Alarms, Store, StoreError, save_value};
use crate::routine::{Routine, RoutineJob, RoutineNotice, RoutineRun};
use crate::workflow::WorkflowRun;
use std::cell::{Cell, RefCell};

/// Where the routines are stored (one list: they are few and small).
pub const ROUTINES_KEY: &str = "routines";

/// How long a run waits when a task of the user's (or another routine) is running.
pub const BUSY_DELAY_MS: f64 = 5.0 * 60_000.0;

/// The alarm's name of routine `id`.
pub fn alarm_name(id: &str) -> String {
    format!("routine:{id}")
}

/// The routine an alarm's name belongs to.
pub fn routine_of_alarm(name: &str) -> Option<&str> {
    name.strip_prefix("routine:")
}

/// What a run starts from.
#[derive(Debug, Clone, PartialEq)]
pub struct RunStart {
    /// The routine as it was when the run began.
    pub routine: Routine,
    /// The page the background tab opens.
    pub url: String,
    /// The bound workflow (none for a task in words).
    pub run: Option<Box<WorkflowRun>>,
    /// The task's words.
    pub prompt: String,
}

/// Whether a routine's run may begin now.
#[derive(Debug, Clone, PartialEq)]
pub enum Begin {
    /// No such routine (its alarm is cleared).
    Gone,
    /// Something else runs: it was put off by [`BUSY_DELAY_MS`].
    Postponed,
    /// It cannot run (the workflow is gone, no start page…): record this run as failed.
    Unrunnable(RoutineRun),
    /// Run it; then [`RoutineDesk::finished`].
    Go(Box<RunStart>),
}

/// The routines.
pub struct RoutineDesk<S> {
    store: S,
    list: RefCell<Vec<Routine>>,
    /// A routine is running now (one at a time).
    running: Cell<bool>,
}

impl<S: Store> RoutineDesk<S> {
    /// The routines in `store`; [`RoutineDesk::load`] reads them.
    pub fn new(store: S) -> Self {
        Self { store, list: RefCell::new(Vec::new()), running: Cell::new(false) }
    }

    /// Loads the routines at worker start and arms their alarms; the ids of those whose time
    /// passed while the browser was closed (to run once each, as each one says).
    pub async fn load(
        &self,
        state: &RefCell<PanelState>,
        env: &impl Env,
        alarms: &impl Alarms,
    ) -> Vec<String> {
        let mut list: Vec<Routine> = match self.store.get(&[ROUTINES_KEY.to_owned()]).await {
            Ok(got) => match got.get(ROUTINES_KEY).map(|v| serde_json::from_value(v.clone())) {
                None => Vec::new(),
                Some(Ok(list)) => list,
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "the stored routines could not be read");
                    state.borrow_mut().routines.error = Some(
                        "The saved routines could not be read (made by a newer Waymark?); they \
                         are kept in storage as they were."
                            .into(),
                    );
                    return Vec::new();
                }
            },
            Err(e) => {
                state.borrow_mut().routines.error =
                    Some(format!("The saved routines could not be read ({e})."));
                return Vec::new();
            }
        };
        let offset = alarms.utc_offset_minutes();
        let now = env.now_ms();
        let due: Vec<String> =
            list.iter_mut().filter_map(|r| r.on_start(now, offset).then(|| r.id.clone())).collect();
        list.iter().for_each(|r| arm(alarms, r));
        *self.list.borrow_mut() = list;
        self.refresh(state);
        due
    }

    /// Draws the routines part of the panel.
    pub fn refresh(&self, state: &RefCell<PanelState>) {
        state.borrow_mut().routines.list = view::list(&self.list.borrow());
    }

    fn say(&self, state: &RefCell<PanelState>, result: Result<String, RoutineEditError>) {
        let mut shown = state.borrow_mut();
        let (notice, error) = match result {
            Ok(notice) => (Some(notice), None),
            Err(error) => (None, Some(error.to_string())),
        };
        shown.routines.notice = notice;
        shown.routines.error = error;
        drop(shown);
        self.refresh(state);
    }

    async fn persist(&self) -> Result<(), StoreError> {
        let list = self.list.borrow().clone();
        save_value(&self.store, ROUTINES_KEY, &list).await
    }

    /// One routine request of the panel but "run now" (see [`RoutineDesk::begin`]); a
    /// change storage refuses is undone.
    pub async fn handle(
        &self,
        state: &RefCell<PanelState>,
        env: &impl Env,
        alarms: &impl Alarms,
        workflows: &WorkflowDesk<S>,
        request: PanelRequest,
    ) where
        S: Clone,
    {
        let before = self.list.borrow().clone();
        let now = env.now_ms();
        let offset = alarms.utc_offset_minutes();
        let result = match request {
            PanelRequest::SaveRoutine { form } => {
                let name = match &form.job {
                    RoutineJob::Workflow { id, .. } => workflows.find(id).map(|f| f.name),
                    RoutineJob::Task { .. } => Some(String::new()),
                };
                let id = super::new_id(env);
                match name.ok_or(RoutineEditError::WorkflowGone).and_then(|name| {
                    form.routine(id, &name, now, offset).map_err(RoutineEditError::Form)
                }) {
                    Ok(routine) => {
                        let said =
                            format!("“{}” runs {}", routine.name, routine.schedule.describe());
                        self.list.borrow_mut().push(routine);
                        Ok(said)
                    }
                    Err(e) => Err(e),
                }
            }
            PanelRequest::PauseRoutine { id, paused } => {
                let mut list = self.list.borrow_mut();
                match list.iter_mut().find(|r| r.id == id) {
                    Some(r) => {
                        r.paused = paused;
                        if !paused {
                            r.next_ms = r.schedule.next_after(now, offset);
                        }
                        let now_is = if paused { "is paused" } else { "runs again" };
                        Ok(format!("“{}” {now_is}", r.name))
                    }
                    None => Err(RoutineEditError::Gone),
                }
            }
            PanelRequest::DeleteRoutine { id } => {
                let mut list = self.list.borrow_mut();
                let name = list.iter().find(|r| r.id == id).map(|r| r.name.clone());
                list.retain(|r| r.id != id);
                alarms.clear(&alarm_name(&id));
                name.map(|n| format!("Deleted the routine “{n}”")).ok_or(RoutineEditError::Gone)
            }
            other => {
                tracing::debug!(?other, "not a routine request");
                return;
            }
        };
        let result = match result {
            Ok(said) => match self.persist().await {
                Ok(()) => Ok(said),
                Err(e) => {
                    *self.list.borrow_mut() = before;
                    Err(RoutineEditError::Store(e))
                }
            },
            Err(e) => Err(e),
        };
        self.list.borrow().iter().for_each(|r| arm(alarms, r));
        self.say(state, result);
    }

    /// Whether routine `id` may run now (its alarm fired, or the user asked); `busy`: a task
    /// of the user's runs. One run at a time: [`RoutineDesk::finished`] ends it.
    pub async fn begin(
        &self,
        state: &RefCell<PanelState>,
        env: &impl Env,
        alarms: &impl Alarms,
        workflows: &WorkflowDesk<S>,
        id: &str,
        busy: bool,
    ) -> Begin
    where
        S: Clone,
    {
        let Some(routine) = self.list.borrow().iter().find(|r| r.id == id).cloned() else {
            alarms.clear(&alarm_name(id));
            return Begin::Gone;
        };
        if self.running.get() || busy {
            let now = env.now_ms();
            self.update(state, alarms, id, |r| r.postpone(now, BUSY_DELAY_MS)).await;
            return Begin::Postponed;
        }
        match prepare(workflows, &routine) {
            Ok((url, run)) => {
                self.running.set(true);
                let prompt = match (&run, &routine.job) {
                    (Some(run), _) => run.task_text(),
                    (None, RoutineJob::Task { prompt }) => prompt.clone(),
                    (None, RoutineJob::Workflow { .. }) => routine.name.clone(),
                };
                Begin::Go(Box::new(RunStart { routine, url, run: run.map(Box::new), prompt }))
            }
            Err(why) => Begin::Unrunnable(RoutineRun::failed(env.now_ms(), 0.0, why.to_string())),
        }
    }

    /// Records a run (begun or unrunnable), schedules the next one; the notification the run
    /// is worth, if any (shown by the caller before anything else reads the record).
    pub async fn finished(
        &self,
        state: &RefCell<PanelState>,
        env: &impl Env,
        alarms: &impl Alarms,
        id: &str,
        run: RoutineRun,
    ) -> Option<RoutineNotice> {
        self.running.set(false);
        let now = env.now_ms();
        let offset = alarms.utc_offset_minutes();
        let mut notice = None;
        self.update(state, alarms, id, |r| notice = r.record(run, now, offset)).await;
        notice
    }

    async fn update(
        &self,
        state: &RefCell<PanelState>,
        alarms: &impl Alarms,
        id: &str,
        change: impl FnOnce(&mut Routine),
    ) {
        {
            let mut list = self.list.borrow_mut();
            if let Some(r) = list.iter_mut().find(|r| r.id == id) {
                change(r);
                arm(alarms, r);
            }
        }
        if let Err(e) = self.persist().await {
            tracing::warn!(error = %e, "a routine's run was not stored");
        }
        self.refresh(state);
    }
}

fn arm(alarms: &impl Alarms, routine: &Routine) {
    let name = alarm_name(&routine.id);
    if routine.paused {
        alarms.clear(&name);
    } else {
        alarms.at(&name, routine.next_ms);
    }
}

/// Why a change the user asked of the routines was not made (the panel shows it).
#[derive(Debug, thiserror::Error)]
enum RoutineEditError {
    /// The form names a workflow that was deleted meanwhile.
    #[error("The routine was not saved: that workflow is no longer saved.")]
    WorkflowGone,
    /// The form does not make a routine.
    #[error("The routine was not saved: {0}.")]
    Form(crate::panel::routines::RoutineFormError),
    /// The routine was deleted meanwhile.
    #[error("That routine is gone.")]
    Gone,
    /// Storage refused the new list (the old one is kept).
    #[error("browser storage refused the routines ({0}); nothing was changed")]
    Store(StoreError),
}

/// Why a routine cannot run now (its record says so).
#[derive(Debug, thiserror::Error)]
enum RunPrepError {
    /// A task routine saved without its page.
    #[error("it has no start page")]
    NoStartPage,
    /// Its workflow was deleted.
    #[error("its workflow is no longer saved")]
    WorkflowGone,
    /// No page to start the workflow on.
    #[error(transparent)]
    StartPage(#[from] crate::routine::StartPageError),
    /// The routine's values do not fit the workflow any more.
    #[error(transparent)]
    Bind(#[from] crate::workflow::BindError),
}

/// The start page and the bound workflow (none for a task) of a routine's run, or why it
/// cannot run.
fn prepare<S: Store + Clone>(
    workflows: &WorkflowDesk<S>,
    routine: &Routine,
) -> Result<(String, Option<WorkflowRun>), RunPrepError> {
    let (id, values) = match &routine.job {
        RoutineJob::Task { .. } => {
            let url = routine.start_url.clone().ok_or(RunPrepError::NoStartPage)?;
            return Ok((url, None));
        }
        RoutineJob::Workflow { id, values } => (id, values),
    };
    let workflow = workflows.find(id).ok_or(RunPrepError::WorkflowGone)?;
    let url = routine.start_page(&workflow)?;
    let run = WorkflowRun::bind(workflow, values.clone())?;
    Ok((url, Some(run)))
}

#[cfg(test)]
mod tests;
