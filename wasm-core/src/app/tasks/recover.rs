//! After the worker started again: a task the previous worker left unfinished goes on from its
//! last completed step (or is recorded, when it had ended or an external agent asked for it);
//! after a crash it is recorded as interrupted and never run again; a journal that could not
//! be fully read is reported, not resumed.

use super::{App, TaskPlatform, clear_journal};
use crate::agent::{self, Agent, DamageReport, Journal, JournalEntry, Recovery, StoredJournal};
use crate::app::StoredTurn;
use crate::crash::Crash;
use crate::panel::TaskView;
use crate::platform::{Env, Panels, Redraw, Store};

impl<S: Store + Clone> App<S> {
    /// After the worker started: a task the previous instance left unfinished goes on from
    /// its last completed step, unless that instance crashed (`crash`): what crashed it could
    /// again, and its last action may have been done, so the task is recorded as interrupted.
    /// The summary call a recorded turn still needs.
    pub async fn recover_task(
        &self,
        p: &impl TaskPlatform,
        crash: Option<Crash>,
    ) -> Option<StoredTurn> {
        match crash {
            None => self.resume_task(p).await,
            Some(crash) => self.after_crash(p, crash).await,
        }
    }

    /// Resumes the task a previous worker left unfinished, if any; reports one whose journal
    /// could not be fully read. The summary call its turn still needs.
    pub async fn resume_task(&self, p: &impl TaskPlatform) -> Option<StoredTurn> {
        let (journal, mut ctx) = match agent::load_active(self.store.clone()).await {
            Recovery::Nothing => return None,
            Recovery::Resume { journal, ctx } => (journal, ctx),
            Recovery::Damaged { journal, report } => {
                return self.report_damaged(p, journal, report).await;
            }
        };
        if let Some(outcome) = ctx.finished.clone() {
            // It ended but its turn may not be stored yet.
            return self.finish_task(p, &ctx, outcome, &journal).await;
        }
        if let Some(outcome) = crate::bridge::not_resumed(&ctx, p.env().now_ms()) {
            // An external agent's task: no one waits for its answer any more (that agent was
            // told it may or may not have run), so it goes no further.
            self.state.borrow_mut().task = Some(TaskView::not_resumed(&ctx));
            return self.finish_task(p, &ctx, outcome, &journal).await;
        }
        self.state.borrow_mut().task = Some(TaskView::resumed(&ctx));
        p.panels().show(Redraw::View);
        let page = p.task_page(journal.tab_id(), &ctx.spec);
        let controls = self.attach_controls(p, false, Some(&page));
        let llm = p.llm(true);
        let agent = Agent {
            llm: &llm,
            page: &page,
            env: p.env(),
            events: p.events(),
            operator: &controls,
            journal: &journal,
        };
        let outcome = agent.run(&mut ctx).await;
        p.release_page(&page);
        self.finish_task(p, &ctx, outcome, &journal).await
    }

    /// After a crash of the previous instance: the task it ran (if any) is recorded as
    /// interrupted — its end written through the journal first, so a worker that dies now
    /// records it too and never runs it again — and the panel shows what happened with a
    /// report. The summary call its turn still needs.
    pub async fn after_crash(&self, p: &impl TaskPlatform, crash: Crash) -> Option<StoredTurn> {
        let (task, tab, summary) = match agent::load_active(self.store.clone()).await {
            Recovery::Nothing => (None, None, None),
            Recovery::Damaged { journal, report } => {
                let tab = journal.as_ref().map(StoredJournal::tab_id);
                let task = report.task().to_owned();
                let summary = self.report_damaged(p, journal, report).await;
                (Some(task), tab, summary)
            }
            Recovery::Resume { journal, ctx } => {
                let outcome = match ctx.finished.clone() {
                    // It had ended; only its turn may be missing.
                    Some(outcome) => outcome,
                    None => {
                        let outcome = agent::interrupted_outcome(&ctx, p.env().now_ms());
                        let end = JournalEntry::Finished { outcome: outcome.clone() };
                        if let Err(e) = journal.write(&end).await {
                            tracing::warn!(error = %e, "the interrupted task's end was not journaled");
                        }
                        self.state.borrow_mut().task = Some(TaskView::not_resumed(&ctx));
                        outcome
                    }
                };
                let summary = self.finish_task(p, &ctx, outcome, &journal).await;
                (Some(ctx.spec.shown_task()), Some(journal.tab_id()), summary)
            }
        };
        let page = match tab {
            Some(tab) => p.tab_url(tab).await,
            None => None,
        };
        let notice = crash.notice(task.as_deref(), page.as_deref(), &p.version());
        self.state.borrow_mut().crash = Some(notice);
        p.panels().show(Redraw::View);
        summary
    }

    /// A task whose journal could not be fully read is not resumed: the panel shows it as
    /// failed with what was recovered, and it is recorded as a turn of the session; its
    /// journal then goes (unless storage could not be read at all: the next start tries
    /// again).
    async fn report_damaged(
        &self,
        p: &impl TaskPlatform,
        journal: Option<StoredJournal<S>>,
        report: DamageReport,
    ) -> Option<StoredTurn> {
        let notice = report.notice();
        tracing::warn!(%notice, "an interrupted task was not resumed");
        let now = p.env().now_ms();
        let outcome = report.outcome(now);
        self.state.borrow_mut().task = Some(TaskView::unrestored(&report, now));
        p.panels().show(Redraw::View);
        let journal = journal?;
        let taint = &report.recovered.taint;
        let summary = self.record_turn(p, report.task(), &outcome, taint, None, None).await;
        clear_journal(&journal).await;
        summary
    }
}
