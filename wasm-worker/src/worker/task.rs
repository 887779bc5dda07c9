//! Running one task: picks the tab, drives the agent loop with the user's controls and the
//! write-ahead journal, records the turn; resumes a task a killed worker left behind.

use super::env::BrowserEnv;
use super::journal::{self, StorageJournal};
use super::status::MeteredLlm;
use super::storage::ChromeStore;
use super::{Worker, interventions, sessions};
use crate::tab::TabPage;
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};
use wasm_bindgen_futures::JsFuture;
use waymark_core::agent::{
    self, Agent, Controls, OutputMode, TaskContext, TaskEvent, TaskEvents, TaskSpec,
};
use waymark_core::app::TaskStart;
use waymark_core::panel::TaskView;
use waymark_core::platform::Env;
use waymark_core::record::{Ending, TaskOutcome};

thread_local! {
    static BROADCAST_PENDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The worker as the agent's progress view: events update the task's panel state.
pub(super) struct TaskEventSink(pub Rc<Worker>);

impl TaskEvents for TaskEventSink {
    fn emit(&self, event: TaskEvent) {
        if let Some(task) = self.0.app.state.borrow_mut().task.as_mut() {
            task.apply(&event);
        }
        // Several events of one step make one panel update, sent while the agent waits for
        // the page: serialising the whole panel state stays off the step's critical path.
        if BROADCAST_PENDING.with(|p| p.replace(true)) {
            return;
        }
        let w = self.0.clone();
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = JsFuture::from(super::env::next_tick()).await {
                // The update goes out now instead of after the step's other events.
                tracing::warn!(error = %crate::js_message(&e), "next_tick failed");
            }
            BROADCAST_PENDING.with(|p| p.set(false));
            w.broadcast();
        });
    }
}

/// What the side panel asked to start, and where it runs.
pub(super) struct StartOptions {
    /// The task as the core's app decided it.
    pub task: TaskStart,
    /// The saved workflow the task runs, with its values.
    pub workflow: Option<waymark_core::workflow::WorkflowRun>,
    /// The tab it runs in (a routine's background tab); the one the user looks at when absent.
    pub tab: Option<i32>,
    /// The answer every card of the task gets at once (a routine that stops at cards); the
    /// user answers them when absent.
    pub on_card: Option<waymark_core::agent::Reply>,
}

impl StartOptions {
    /// A task with default controls, shown in the panel as the one that starts now (`view`),
    /// under the sites allowed in Settings: a workflow's run (`workflow`), or `prompt` done by
    /// the model.
    pub(super) fn shown(
        w: &Rc<Worker>,
        view: TaskView,
        prompt: String,
        mode: OutputMode,
        workflow: Option<waymark_core::workflow::WorkflowRun>,
    ) -> Self {
        let allowed_sites = {
            let mut state = w.app.state.borrow_mut();
            state.task = Some(view);
            state.task_turn = None;
            state.settings.agent.allowed_sites.clone()
        };
        w.broadcast();
        let task = TaskStart {
            prompt,
            mode,
            max_steps: None,
            step_mode: false,
            resources: BTreeMap::new(),
            allowed_sites,
        };
        Self { task, workflow, tab: None, on_card: None }
    }
}

/// Runs a new task on the tab the user looked at last.
pub(super) async fn run(w: Rc<Worker>, opts: StartOptions) {
    run_to_end(w, opts).await;
}

/// [`run`], returning how the task ended (once it is recorded).
pub(super) async fn run_to_end(w: Rc<Worker>, opts: StartOptions) -> TaskOutcome {
    let tab = match opts.tab {
        Some(tab) => Some(tab),
        None => crate::tab::target_tab().await,
    };
    let Some(tab_id) = tab else {
        let outcome = TaskOutcome {
            answer: "Open a web page (http or https) in a tab first: Waymark works on the tab \
                     you are looking at."
                .into(),
            success: false,
            error: Some("no web page tab".into()),
            steps: vec![],
            step_count: 0,
            elapsed_ms: 0.0,
            ending: Ending::Failed,
        };
        TaskEventSink(w.clone()).emit(TaskEvent::Finished(outcome.clone()));
        return outcome;
    };
    if !matches!(w.host.status(), waymark_core::panel::HostStatus::Connected { .. }) {
        // Not connected: the task's first model call reports the host's error to the user.
        w.host.refresh().await;
    }
    let spec = match opts.workflow {
        // A workflow run asks no model while its steps resolve: no session notes, no
        // validation, one agent step per workflow step.
        Some(run) => TaskSpec {
            max_steps: run.max_steps(),
            validate: false,
            output: opts.task.mode,
            allowed_sites: opts.task.allowed_sites,
            workflow: Some(run),
            ..TaskSpec::new(opts.task.prompt)
        },
        None => TaskSpec {
            resources: opts.task.resources,
            max_steps: opts.task.max_steps.unwrap_or(agent::DEFAULT_MAX_STEPS),
            session_context: session_context(&w),
            session_provenance: w.app.sessions.provenance_for_next_task(),
            recallable: w.app.sessions.recallable_for_next_task(),
            output: opts.task.mode,
            allowed_sites: opts.task.allowed_sites,
            ..TaskSpec::new(opts.task.prompt)
        },
    };
    let id = waymark_core::app::new_id(&BrowserEnv);
    let journal = StorageJournal::new(ChromeStore, id, tab_id);
    let page = page_for(&w, tab_id, &spec);
    let controls = attach_controls(&w, opts.task.step_mode, page.guard());
    if let Some(reply) = opts.on_card {
        controls.answer_cards_with(reply);
    }
    let llm = metered(&w);
    let view = TaskEventSink(w.clone());
    let agent = agent_for(&view, &llm, &page, &controls, &journal);
    let mut ctx = match agent.start(spec.clone()).await {
        Ok(ctx) => ctx,
        Err(e) => {
            let msg =
                format!("Could not save the task before starting it ({e}); nothing was done.");
            let outcome = TaskOutcome::failed_at_start(msg);
            TaskEventSink(w.clone()).emit(TaskEvent::Finished(outcome.clone()));
            // The attempt is still a turn of the session (kept in memory, stored when storage
            // accepts writes again), so the user sees what happened and loses nothing.
            *w.app.controls.borrow_mut() = None;
            let taint = TaskContext::new(spec.clone()).taint;
            sessions::record_task(&w, &spec.task, &outcome, &taint, None, None).await;
            return outcome;
        }
    };
    let outcome = agent.run(&mut ctx).await;
    page.guard().end_after_settle();
    finish_and_summarise(&w, &ctx, outcome.clone(), &journal).await;
    outcome
}

/// Ends a task and runs its summary call in the background.
async fn finish_and_summarise(
    w: &Rc<Worker>,
    ctx: &TaskContext,
    outcome: TaskOutcome,
    journal: &StorageJournal,
) {
    if let Some(turn) = finish(w, ctx, outcome, journal).await {
        let w = w.clone();
        wasm_bindgen_futures::spawn_local(async move {
            sessions::summarise(&w, turn).await;
        });
    }
}

/// The agent of this worker, on `page`, with the task's controls and journal.
type WorkerAgent<'a> =
    Agent<'a, MeteredLlm, TabPage, BrowserEnv, TaskEventSink, Rc<Controls>, StorageJournal>;

fn agent_for<'a>(
    events: &'a TaskEventSink,
    llm: &'a MeteredLlm,
    page: &'a TabPage,
    controls: &'a Rc<Controls>,
    journal: &'a StorageJournal,
) -> WorkerAgent<'a> {
    Agent { llm, page, env: &BrowserEnv, events, operator: controls, journal }
}

/// The task's LLM: the host, metered for the panel's usage line and LLM state.
pub(super) fn metered(w: &Rc<Worker>) -> MeteredLlm {
    MeteredLlm { host: w.host.clone(), worker: Rc::downgrade(w), for_task: true }
}

/// The task's tab, able to upload the resources attached to the task (and only those).
pub(super) fn page_for(w: &Rc<Worker>, tab_id: i32, spec: &TaskSpec) -> TabPage {
    let uploads =
        crate::upload::Uploads { resources: spec.resources.clone(), host: w.host.clone() };
    let page = TabPage::for_task(tab_id).with_uploads(uploads);
    if spec.workflow.is_some() { page.replaying() } else { page }
}

/// Resumes the task a previous worker left unfinished, if any; reports one whose journal
/// could not be fully read.
pub(super) async fn resume(w: Rc<Worker>) {
    let (journal, mut ctx) = match journal::load_active().await {
        agent::Recovery::Nothing => return,
        agent::Recovery::Resume { journal, ctx } => (journal, ctx),
        agent::Recovery::Damaged { journal, report } => {
            return report_damaged(&w, journal, report).await;
        }
    };
    if let Some(outcome) = ctx.finished.clone() {
        // It ended but its turn may not be stored yet.
        finish_and_summarise(&w, &ctx, outcome, &journal).await;
        return;
    }
    if let Some(outcome) = waymark_core::bridge::not_resumed(&ctx, BrowserEnv.now_ms()) {
        // An external agent's task: no one waits for its answer any more (that agent was told
        // it may or may not have run), so it goes no further.
        w.app.state.borrow_mut().task = Some(TaskView::not_resumed(&ctx));
        finish_and_summarise(&w, &ctx, outcome, &journal).await;
        return;
    }
    w.app.state.borrow_mut().task = Some(TaskView::resumed(&ctx));
    w.broadcast();
    let page = page_for(&w, journal.tab_id(), &ctx.spec);
    let controls = attach_controls(&w, false, page.guard());
    let llm = metered(&w);
    let view = TaskEventSink(w.clone());
    let agent = agent_for(&view, &llm, &page, &controls, &journal);
    let outcome = agent.run(&mut ctx).await;
    page.guard().end_after_settle();
    finish_and_summarise(&w, &ctx, outcome, &journal).await;
}

/// After a crash of the previous instance: the task it ran (if any) is recorded as
/// interrupted — its end written through the journal first, so a worker that dies now records
/// it too and never runs it again — and the panel shows what happened with a report.
pub(super) async fn after_crash(w: Rc<Worker>, crash: waymark_core::crash::Crash) {
    let (task, tab) = match journal::load_active().await {
        agent::Recovery::Nothing => (None, None),
        agent::Recovery::Damaged { journal, report } => {
            let tab = journal.as_ref().map(StorageJournal::tab_id);
            let task = report.task().to_owned();
            report_damaged(&w, journal, report).await;
            (Some(task), tab)
        }
        agent::Recovery::Resume { journal, ctx } => {
            let outcome = match ctx.finished.clone() {
                // It had ended; only its turn may be missing.
                Some(outcome) => outcome,
                None => {
                    let outcome = agent::interrupted_outcome(&ctx, BrowserEnv.now_ms());
                    let end = agent::JournalEntry::Finished { outcome: outcome.clone() };
                    if let Err(e) = agent::Journal::write(&journal, &end).await {
                        tracing::warn!(error = %e, "the interrupted task's end was not journaled");
                    }
                    w.app.state.borrow_mut().task = Some(TaskView::not_resumed(&ctx));
                    outcome
                }
            };
            finish_and_summarise(&w, &ctx, outcome, &journal).await;
            (Some(ctx.spec.shown_task()), Some(journal.tab_id()))
        }
    };
    let page = match tab {
        Some(tab) => crate::tab::tab_url(tab).await,
        None => None,
    };
    let version = crate::chrome::extension_version();
    let notice = crash.notice(task.as_deref(), page.as_deref(), &version);
    w.app.state.borrow_mut().crash = Some(notice);
    w.broadcast();
}

/// A task whose journal could not be fully read is not resumed: the panel shows it as failed
/// with what was recovered, and it is recorded as a turn of the session; its journal then
/// goes (unless storage could not be read at all: the next start tries again).
async fn report_damaged(
    w: &Rc<Worker>,
    journal: Option<StorageJournal>,
    report: agent::DamageReport,
) {
    let notice = report.notice();
    tracing::warn!(%notice, "an interrupted task was not resumed");
    let now = BrowserEnv.now_ms();
    let outcome = report.outcome(now);
    w.app.state.borrow_mut().task = Some(TaskView::unrestored(&report, now));
    w.broadcast();
    let Some(journal) = journal else { return };
    sessions::record_task(w, report.task(), &outcome, &report.recovered.taint, None, None).await;
    clear_journal(&journal).await;
}

async fn clear_journal(journal: &StorageJournal) {
    if let Err(e) = journal.clear().await {
        // The next worker finds the ended task and records it again (the turn is stored).
        tracing::warn!(error = %e, "the ended task's journal could not be removed");
    }
}

/// Earlier tasks' findings for the prompt, from the session module.
fn session_context(w: &Rc<Worker>) -> Option<String> {
    w.app.sessions.context_for_next_task()
}

/// Fresh controls for a task, wired to the panel view, the attention signals and the network
/// guard (which lets the page go while the user has it).
pub(super) fn attach_controls(
    w: &Rc<Worker>,
    step_mode: bool,
    guard: crate::netguard::NetGuard,
) -> Rc<Controls> {
    let settings = w.app.state.borrow().interventions;
    let controls = Controls::new(settings, step_mode);
    let weak_w: Weak<Worker> = Rc::downgrade(w);
    let weak_c = Rc::downgrade(&controls);
    controls.set_on_change(move || {
        let (Some(w), Some(c)) = (weak_w.upgrade(), weak_c.upgrade()) else { return };
        let snapshot = c.snapshot();
        guard.set_user_control(
            snapshot.paused || snapshot.taken_over || snapshot.waiting || snapshot.card.is_some(),
        );
        let settings = w.app.state.borrow().interventions;
        {
            let mut state = w.app.state.borrow_mut();
            let Some(task) = state.task.as_mut() else { return };
            let was_open = task.controls.card.is_some();
            match (&snapshot.card, was_open) {
                // The sound plays only when the settings ask for it, from the panel if open.
                (Some(card), false)
                    if interventions::signal(&settings, Some(card))
                        && interventions::play_sound(!w.panels.borrow().is_empty()) =>
                {
                    task.chime += 1;
                }
                (None, true) => {
                    interventions::signal(&settings, None);
                }
                _ => {}
            }
            task.controls = snapshot;
        }
        w.broadcast();
    });
    *w.app.controls.borrow_mut() = Some(controls.clone());
    if let Some(task) = w.app.state.borrow_mut().task.as_mut() {
        task.controls = controls.snapshot();
    }
    controls
}

/// Ends a task: the panel shows its outcome, its turn is stored (the summary call is the
/// caller's), its journal goes.
pub(super) async fn finish(
    w: &Rc<Worker>,
    ctx: &TaskContext,
    outcome: TaskOutcome,
    journal: &StorageJournal,
) -> Option<waymark_core::app::StoredTurn> {
    *w.app.controls.borrow_mut() = None;
    interventions::signal(&w.app.state.borrow().interventions, None);
    super::workflows::note_reviewed(w, ctx).await;
    let shown = ctx.spec.shown_task();
    if let Some(task) = w.app.state.borrow_mut().task.as_mut() {
        task.mode = ctx.spec.output;
        task.apply(&TaskEvent::Finished(outcome.clone()));
        task.output =
            Some(agent::render_output(ctx.spec.output, &shown, &outcome, BrowserEnv.now_ms()));
        task.show_parts();
    }
    // The answer may name secrets by their handles: the user may ask to see them.
    *w.app.secrets.borrow_mut() = Some(ctx.taint.clone());
    w.broadcast();
    let asked_by = ctx.spec.asked_by.clone();
    let ran = super::workflows::after_run(w, ctx).await;
    let turn = sessions::store_turn(w, &shown, &outcome, &ctx.taint, asked_by, ran).await;
    super::status::save_session_usage(w).await;
    clear_journal(journal).await;
    turn
}
