//! A routine's run: a saved workflow replayed (or a task done) in a background tab through
//! the same agent, policy and cards as the user's own runs, then recorded, the next one
//! scheduled, and the user notified as the routine says.

use super::{App, Begin, RunStart, alarm_name};
use crate::agent::{OutputMode, PageError, Reply};
use crate::app::{TaskPlatform, TaskRun};
use crate::panel::TaskView;
use crate::platform::{Env, Panels, Redraw, Store};
use crate::routine::{CardInRun, RoutineRun};

/// What a routine's run needs of the platform beyond a task's.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait RoutinePlatform: TaskPlatform {
    /// Opens `url` in a new background tab and waits for it to load; the tab.
    async fn open_background(&self, url: &str) -> Result<i32, PageError>;
    /// Closes a routine's tab once its run ended, unless the user is looking at it now.
    async fn close_background(&self, tab: i32);
    /// Shows the notification `id` (replacing an earlier one of that id).
    fn notify(&self, id: &str, title: &str, message: &str);
}

impl<S: Store + Clone> App<S> {
    /// Runs routine `id` now (its alarm fired, or the user asked) if the desk allows it: in a
    /// new background tab; then records the run, schedules the next one and notifies.
    pub async fn run_routine(&self, p: &impl RoutinePlatform, id: &str) {
        let busy = self.controls.borrow().is_some();
        let desk = &self.routines;
        let begun = desk.begin(&self.state, p.env(), p.alarms(), &self.workflows, id, busy);
        let run = match begun.await {
            Begin::Gone | Begin::Postponed => {
                p.panels().show(Redraw::View);
                return;
            }
            Begin::Unrunnable(run) => run,
            Begin::Go(start) => self.run_in_background(p, *start).await,
        };
        let notice = desk.finished(&self.state, p.env(), p.alarms(), id, run).await;
        // Told once stored: whoever sees the run recorded finds its notification shown.
        if let Some(n) = notice {
            p.notify(&alarm_name(&n.routine), &n.title, &n.message);
        }
        p.panels().show(Redraw::View);
    }

    async fn run_in_background(&self, p: &impl RoutinePlatform, start: RunStart) -> RoutineRun {
        let started = p.env().now_ms();
        let tab = match p.open_background(&start.url).await {
            Ok(tab) => tab,
            Err(e) => {
                let why = format!("its page could not be opened ({e})");
                return RoutineRun::failed(started, p.env().now_ms() - started, why);
            }
        };
        let mut view = TaskView::started(&start.prompt);
        view.workflow = Some(format!("{} (routine)", start.routine.name));
        let run = start.run.map(|r| *r);
        let shown = self.show_task(view, start.prompt, OutputMode::default(), run);
        p.panels().show(Redraw::View);
        let run = TaskRun {
            tab: Some(tab),
            on_card: match start.routine.on_card {
                CardInRun::Wait => None,
                CardInRun::Stop => Some(Reply::stop()),
            },
            ..shown
        };
        let end = self.run_task(p, run).await;
        if let Some(turn) = end.summary {
            p.summarise_later(turn);
        }
        p.close_background(tab).await;
        // The task's own model calls (a workflow that needed no healing made none).
        let tokens = self
            .state
            .borrow()
            .task
            .as_ref()
            .map_or(0, |t| t.usage.input_tokens.saturating_add(t.usage.output_tokens));
        RoutineRun::of(&end.outcome, started, tokens)
    }
}

#[cfg(test)]
mod tests;
