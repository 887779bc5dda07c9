//! The task desk: a task's lifecycle as the app decides it — where it runs, what it is told of
//! the session, what happens when it cannot start, and what its end records (turn, summary,
//! workflow notes, usage, journal). Resuming after a worker restart and recording after a
//! crash are in [`recover`]; the running task's controls and attention signals in
//! [`controls`].
//!
//! Why in the core: each of these is a decision with failure paths (no tab, storage refusing
//! the journal, a damaged journal), tested natively against fakes of [`TaskPlatform`].

mod controls;
#[cfg(test)]
pub(super) mod fakes;
mod recover;
#[cfg(test)]
mod tests;

pub use controls::{Signals, play_sound, signal, user_holds_page};

use super::{App, StoredTurn, TaskStart};
use crate::agent::{
    self, Agent, Controls, OutputMode, Page, Reply, StoredJournal, TaskContext, TaskEvent,
    TaskEvents, TaskSpec,
};
use crate::panel::{HostStatus, TaskView};
use crate::platform::{Env, Host, Llm, Panels, Platform, Redraw, Store};
use crate::record::{Ending, TaskOutcome};
use crate::safety::TaintLedger;
use crate::session::{RanWorkflow, TaskRecord};
use crate::workflow::WorkflowRun;
use std::collections::BTreeMap;
use std::rc::Rc;

/// What the user sees when no tab shows a web page.
pub const NO_TAB_ANSWER: &str = "Open a web page (http or https) in a tab first: Waymark works \
                                 on the tab you are looking at.";

/// What a task needs of the platform beyond what a panel request does: the tab, its page,
/// the metered model, the view of its progress and the attention signals.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait TaskPlatform: Platform {
    /// A tab's page, as the agent drives it.
    type Page: Page;
    /// The model, metered for the panel.
    type Llm: Llm;
    /// Where the running task's progress goes (the panel's timeline).
    type Events: TaskEvents;
    /// Badge, notification and sound.
    type Signals: Signals;
    /// The tab the user looks at when it shows a web page.
    async fn user_tab(&self) -> Option<i32>;
    /// The page of `tab` for the task of `spec` (it may upload the spec's resources, and only
    /// those; a workflow's run replays).
    fn task_page(&self, tab: i32, spec: &TaskSpec) -> Self::Page;
    /// The task on `page` ended: the page's network guard lets go once its last action
    /// settled.
    fn release_page(&self, page: &Self::Page);
    /// The model: for the running task (`for_task`, its usage counts for the task too), or
    /// for a background call (a summary).
    fn llm(&self, for_task: bool) -> Self::Llm;
    /// The running task's timeline.
    fn events(&self) -> &Self::Events;
    /// Badge, notification and sound.
    fn signals(&self) -> &Self::Signals;
    /// Calls [`App::controls_changed`] whenever `controls` change, and lets the user hold the
    /// page (`page`'s network guard, or a guard of its own when `None`) as it says.
    fn watch_controls(&self, controls: &Rc<Controls>, page: Option<&Self::Page>);
    /// The address `tab` shows, if it is still open.
    async fn tab_url(&self, tab: i32) -> Option<String>;
    /// This extension's version (crash reports).
    fn version(&self) -> String;
    /// Runs a stored turn's summary call ([`App::summarise`]) in the background.
    fn summarise_later(&self, turn: StoredTurn);
}

/// A task to run: what the panel (or a routine, or an external agent's workflow run) asked.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRun {
    /// The task as the app decided it.
    pub task: TaskStart,
    /// The saved workflow the task runs, with its values.
    pub workflow: Option<WorkflowRun>,
    /// The tab it runs in (a routine's background tab); the one the user looks at when absent.
    pub tab: Option<i32>,
    /// The answer every card of the task gets at once (a routine that stops at cards); the
    /// user answers them when absent.
    pub on_card: Option<Reply>,
}

impl TaskRun {
    /// A task started from the panel, on the tab the user looks at.
    pub fn of(task: TaskStart) -> Self {
        Self { task, workflow: None, tab: None, on_card: None }
    }
}

/// How a task ended, and the summary call its turn still needs (the caller runs it in the
/// background with [`App::summarise`]).
#[derive(Debug, Clone)]
pub struct TaskEnd {
    /// How it ended.
    pub outcome: TaskOutcome,
    /// Its stored turn, waiting for its summary.
    pub summary: Option<StoredTurn>,
}

/// The outcome of a task that found no web page to work on.
pub fn no_tab_outcome() -> TaskOutcome {
    TaskOutcome {
        answer: NO_TAB_ANSWER.into(),
        success: false,
        error: Some("no web page tab".into()),
        steps: vec![],
        step_count: 0,
        elapsed_ms: 0.0,
        ending: Ending::Failed,
    }
}

/// The user-facing sentence when a task's journal refused its first entry.
pub fn not_started_message(error: &impl std::fmt::Display) -> String {
    format!("Could not save the task before starting it ({error}); nothing was done.")
}

impl<S: Store + Clone> App<S> {
    /// Shows `view` as the task that starts now and makes its run: `prompt` done by the model,
    /// or a workflow's run (`workflow`), under the sites allowed in Settings, default
    /// controls. The caller redraws.
    pub fn show_task(
        &self,
        view: TaskView,
        prompt: String,
        mode: OutputMode,
        workflow: Option<WorkflowRun>,
    ) -> TaskRun {
        let allowed_sites = {
            let mut state = self.state.borrow_mut();
            state.task = Some(view);
            state.task_turn = None;
            state.settings.agent.allowed_sites.clone()
        };
        let task = TaskStart {
            prompt,
            mode,
            max_steps: None,
            step_mode: false,
            resources: BTreeMap::new(),
            allowed_sites,
        };
        TaskRun { task, workflow, tab: None, on_card: None }
    }

    /// Shows a saved workflow's run (`mode`: how its answer is shown) as the task that starts
    /// now, and makes its run. The caller redraws.
    pub fn workflow_run(&self, run: WorkflowRun, mode: OutputMode) -> TaskRun {
        let prompt = run.task_text();
        let mut view = TaskView::started(&prompt);
        view.mode = mode;
        view.workflow = Some(run.workflow.name.clone());
        self.show_task(view, prompt, mode, Some(run))
    }

    /// The agent's spec for `run`: a workflow run asks no model while its steps resolve (no
    /// session notes, no validation, one agent step per workflow step); a model task knows
    /// what earlier turns of the session found.
    pub fn task_spec(&self, run: TaskRun) -> TaskSpec {
        let task = run.task;
        match run.workflow {
            Some(workflow) => TaskSpec {
                max_steps: workflow.max_steps(),
                validate: false,
                output: task.mode,
                allowed_sites: task.allowed_sites,
                workflow: Some(workflow),
                ..TaskSpec::new(task.prompt)
            },
            None => TaskSpec {
                resources: task.resources,
                max_steps: task.max_steps.unwrap_or(agent::DEFAULT_MAX_STEPS),
                output: task.mode,
                allowed_sites: task.allowed_sites,
                ..self.with_session_notes(TaskSpec::new(task.prompt))
            },
        }
    }

    /// `spec` with what the current session's earlier turns found (an external agent's task
    /// too).
    pub fn with_session_notes(&self, spec: TaskSpec) -> TaskSpec {
        TaskSpec {
            session_context: self.sessions.context_for_next_task(),
            session_provenance: self.sessions.provenance_for_next_task(),
            recallable: self.sessions.recallable_for_next_task(),
            ..spec
        }
    }

    /// Runs a task to its end on its tab (the user's when the run names none) and records it;
    /// how it ended.
    pub async fn run_task(&self, p: &impl TaskPlatform, run: TaskRun) -> TaskEnd {
        let tab = match run.tab {
            Some(tab) => Some(tab),
            None => p.user_tab().await,
        };
        let Some(tab) = tab else {
            let outcome = no_tab_outcome();
            p.events().emit(TaskEvent::Finished(outcome.clone()));
            return TaskEnd { outcome, summary: None };
        };
        if !matches!(self.state.borrow().host, HostStatus::Connected { .. }) {
            // Not connected: the task's first model call reports the host's error to the user.
            p.host().refresh().await;
        }
        let step_mode = run.task.step_mode;
        let on_card = run.on_card.clone();
        let spec = self.task_spec(run);
        let journal = StoredJournal::new(self.store.clone(), super::new_id(p.env()), tab);
        let page = p.task_page(tab, &spec);
        let controls = self.attach_controls(p, step_mode, Some(&page));
        if let Some(reply) = on_card {
            controls.answer_cards_with(reply);
        }
        let llm = p.llm(true);
        let agent = Agent {
            llm: &llm,
            page: &page,
            env: p.env(),
            events: p.events(),
            operator: &controls,
            journal: &journal,
        };
        let mut ctx = match agent.start(spec.clone()).await {
            Ok(ctx) => ctx,
            Err(e) => {
                let outcome = TaskOutcome::failed_at_start(not_started_message(&e));
                p.events().emit(TaskEvent::Finished(outcome.clone()));
                // The attempt is still a turn of the session (kept in memory, stored when
                // storage accepts writes again), so the user sees what happened.
                *self.controls.borrow_mut() = None;
                let taint = TaskContext::new(spec.clone()).taint;
                let summary = self.record_turn(p, &spec.task, &outcome, &taint, None, None).await;
                return TaskEnd { outcome, summary };
            }
        };
        let outcome = agent.run(&mut ctx).await;
        p.release_page(&page);
        let summary = self.finish_task(p, &ctx, outcome.clone(), &journal).await;
        TaskEnd { outcome, summary }
    }

    /// Ends a task: the panel shows its outcome, its turn is stored (the summary call is the
    /// caller's), the session's usage saved, its journal goes.
    pub async fn finish_task(
        &self,
        p: &impl TaskPlatform,
        ctx: &TaskContext,
        outcome: TaskOutcome,
        journal: &StoredJournal<S>,
    ) -> Option<StoredTurn> {
        *self.controls.borrow_mut() = None;
        let settings = self.state.borrow().interventions;
        signal(p.signals(), &settings, None);
        self.workflows.note_reviewed(ctx).await;
        let shown = ctx.spec.shown_task();
        if let Some(task) = self.state.borrow_mut().task.as_mut() {
            task.mode = ctx.spec.output;
            task.apply(&TaskEvent::Finished(outcome.clone()));
            let now = p.env().now_ms();
            task.output = Some(agent::render_output(ctx.spec.output, &shown, &outcome, now));
            task.show_parts();
        }
        // The answer may name secrets by their handles: the user may ask to see them.
        *self.secrets.borrow_mut() = Some(ctx.taint.clone());
        p.panels().show(Redraw::View);
        let asked_by = ctx.spec.asked_by.clone();
        let ran = self.workflows.after_run(&self.state, ctx).await;
        p.panels().show(Redraw::View);
        let turn = self.record_turn(p, &shown, &outcome, &ctx.taint, asked_by, ran).await;
        p.panels().show(self.save_session_usage().await);
        clear_journal(journal).await;
        turn
    }

    /// Records a finished task as the next turn of the session and redraws it; the turn
    /// waiting for its summary call (`None` for a workflow run, `ran`).
    pub async fn record_turn(
        &self,
        p: &impl TaskPlatform,
        prompt: &str,
        outcome: &TaskOutcome,
        taint: &TaintLedger,
        asked_by: Option<String>,
        ran: Option<RanWorkflow>,
    ) -> Option<StoredTurn> {
        let turn = self
            .sessions
            .record(&self.state, p.host(), p.env(), prompt, outcome, taint, asked_by, ran)
            .await;
        p.panels().show(Redraw::Session);
        turn
    }

    /// Runs a stored turn's summary call (a background call, metered for the session) and
    /// stores it; the turn as summarised.
    pub async fn summarise(&self, p: &impl TaskPlatform, turn: StoredTurn) -> TaskRecord {
        let llm = p.llm(false);
        let record = self.sessions.summarise(&self.state, &llm, p.host(), turn).await;
        p.panels().show(Redraw::Session);
        record
    }
}

/// Removes an ended task's journal; a failure leaves it for the next worker, which finds the
/// task ended and records it again (its turn is stored by then).
async fn clear_journal<S: Store>(journal: &StoredJournal<S>) {
    if let Err(e) = journal.clear().await {
        tracing::warn!(error = %e, "the ended task's journal could not be removed");
    }
}

impl<S: Store + Clone> App<S> {
    /// Progress of the running task: its view follows (the caller redraws).
    pub fn task_event(&self, event: &TaskEvent) {
        if let Some(task) = self.state.borrow_mut().task.as_mut() {
            task.apply(event);
        }
    }
}
