//! Routines: a saved workflow or a task that runs on its own on a schedule, in a background tab
//! of the user's browser, and tells the user what changed. The decisions live here — when it
//! runs next, whether a missed run is made up, what a run's findings say against the previous
//! run's, and which notification (if any) a run is worth, a failing routine saying so once
//! rather than every hour. The worker only keeps the alarm, opens the tab, runs the job through
//! the same agent, policy and cards as any task, and shows the notifications.
//!
//! A routine never approves a card: a card raised in a run waits for the user (with a
//! notification) or stops the run, as the routine says.

mod schedule;
#[cfg(test)]
mod tests;
mod watch;

pub use schedule::{Schedule, TimeOfDay, Weekday};
pub use watch::{FindingChange, NotifyWhen, changes, number_in};

use crate::record::{Ending, TaskOutcome};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use waymark_page::action::Action;

/// How many runs a routine's history keeps (the oldest go first).
pub const KEPT_RUNS: usize = 30;

/// What a routine runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RoutineJob {
    /// A saved workflow (replayed without the model) with these input values.
    Workflow {
        /// The workflow's id.
        id: String,
        /// Values of its inputs by name.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
        values: BTreeMap<String, String>,
    },
    /// A task in words, done by the agent.
    Task {
        /// The task.
        prompt: String,
    },
}

/// What a run does with a card (a step the policy puts to the user).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CardInRun {
    /// The card waits in the panel and a notification says so.
    #[default]
    Wait,
    /// The run stops there (nothing of that step is done).
    Stop,
}

/// Runs missed while the browser was closed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MissedRuns {
    /// One run as soon as the browser starts again.
    #[default]
    RunOnce,
    /// Wait for the next scheduled time.
    Skip,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunEnding {
    /// Done, with findings.
    Done,
    /// It failed (the page, a step that could not be healed, the host, the model).
    Failed,
    /// A card stopped it (the routine stops at cards, or the user said no).
    Stopped,
}

/// One run of a routine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutineRun {
    /// When it started (ms since the epoch).
    pub started_ms: f64,
    /// How long it took.
    pub duration_ms: f64,
    /// How it ended.
    pub ending: RunEnding,
    /// Its answer, or why it failed.
    pub answer: String,
    /// Key → value findings.
    #[serde(default)]
    pub findings: BTreeMap<String, String>,
    /// What differs from the previous successful run (empty on the first).
    #[serde(default)]
    pub changes: Vec<FindingChange>,
    /// Model tokens it used (0 for a workflow replay).
    #[serde(default)]
    pub tokens: u64,
}

/// A routine the user saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Routine {
    /// Stable id (also the alarm's name).
    pub id: String,
    /// The name the user gave it.
    pub name: String,
    /// What it runs.
    pub job: RoutineJob,
    /// The page its background tab opens (the workflow's own start page when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_url: Option<String>,
    /// When it runs.
    pub schedule: Schedule,
    /// When a run is worth a notification.
    pub notify: NotifyWhen,
    /// What a card does to a run.
    #[serde(default)]
    pub on_card: CardInRun,
    /// Runs missed while the browser was closed.
    #[serde(default)]
    pub missed: MissedRuns,
    /// Paused routines keep their history and never run.
    #[serde(default)]
    pub paused: bool,
    /// The next run (ms since the epoch).
    pub next_ms: f64,
    /// Its runs, oldest first (at most [`KEPT_RUNS`]).
    #[serde(default)]
    pub history: Vec<RoutineRun>,
}

/// Why a routine's run has no page to start on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartPageError {
    /// Its workflow has no steps.
    #[error("the workflow has no steps")]
    NoSteps,
    /// The workflow's first page is a URL pattern.
    #[error(
        "the workflow's first page is a pattern, not one address: give the routine a start page"
    )]
    Pattern,
}

/// A notification a run is worth.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutineNotice {
    /// The routine's id (clicking the notification opens it in the panel).
    pub routine: String,
    /// Title: the routine's name and what happened.
    pub title: String,
    /// Body: the changes, or why it fails.
    pub message: String,
}

impl RoutineRun {
    /// A run that could not do its job (`answer` says why).
    pub fn failed(started_ms: f64, duration_ms: f64, answer: String) -> Self {
        Self {
            started_ms,
            duration_ms,
            ending: RunEnding::Failed,
            answer,
            findings: BTreeMap::new(),
            changes: Vec::new(),
            tokens: 0,
        }
    }

    /// The run a finished task makes: its ending, its answer, and as findings what its steps
    /// read (each `extract` by the name of the element it read, `page` for a whole page),
    /// without a model: the same run reads the same keys, so runs compare.
    pub fn of(outcome: &TaskOutcome, started_ms: f64, tokens: u64) -> Self {
        let ending = match outcome.ending {
            Ending::Finished if outcome.success => RunEnding::Done,
            Ending::Stopped | Ending::Refused => RunEnding::Stopped,
            _ => RunEnding::Failed,
        };
        let mut findings = BTreeMap::new();
        for step in &outcome.steps {
            let (Action::Extract { .. }, Some(text)) = (&step.action, &step.outcome.text) else {
                continue;
            };
            let name = step
                .located
                .as_ref()
                .and_then(|l| l.target.as_ref())
                .map(|t| t.name.as_str().trim().to_owned())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "page".to_owned());
            let key = match findings.contains_key(&name) {
                false => name,
                true => format!("{name} ({})", step.step),
            };
            findings.insert(key, waymark_page::observation::shorten(text.trim(), 500));
        }
        Self {
            started_ms,
            duration_ms: outcome.elapsed_ms,
            ending,
            answer: waymark_page::observation::shorten(&outcome.answer, 400),
            findings,
            changes: Vec::new(),
            tokens,
        }
    }
}

impl Routine {
    /// The findings of the latest run that ended done.
    fn last_findings(&self) -> Option<&BTreeMap<String, String>> {
        self.history.iter().rev().find(|r| r.ending == RunEnding::Done).map(|r| &r.findings)
    }

    /// Whether the run before the one being recorded failed or stopped.
    fn was_failing(&self) -> bool {
        self.history.last().is_some_and(|r| r.ending != RunEnding::Done)
    }

    /// Records a finished run (its `changes` computed here), schedules the next one after
    /// `now_ms` and says what the user should be told, if anything: a change that meets
    /// the routine's condition, the first failure of a series (not every later one), and
    /// the first success after failures.
    pub fn record(
        &mut self,
        mut run: RoutineRun,
        now_ms: f64,
        offset_minutes: i32,
    ) -> Option<RoutineNotice> {
        let notice = match run.ending {
            RunEnding::Done => {
                let before = self.last_findings().cloned();
                run.changes =
                    before.as_ref().map(|b| changes(b, &run.findings)).unwrap_or_default();
                if self.notify.fires(before.as_ref(), &run.findings) {
                    let listed: Vec<String> = if run.changes.is_empty() {
                        run.findings.iter().map(|(k, v)| format!("{k}: {v}")).collect()
                    } else {
                        run.changes.iter().map(FindingChange::describe).collect()
                    };
                    let body =
                        if listed.is_empty() { run.answer.clone() } else { listed.join("\n") };
                    Some(self.notice(self.notify.describe(), body))
                } else if self.was_failing() {
                    Some(self.notice("works again".into(), run.answer.clone()))
                } else {
                    None
                }
            }
            RunEnding::Failed | RunEnding::Stopped if self.was_failing() => None,
            RunEnding::Failed => Some(self.notice("failed".into(), run.answer.clone())),
            RunEnding::Stopped => Some(self.notice("stopped".into(), run.answer.clone())),
        };
        if self.history.len() >= KEPT_RUNS {
            self.history.remove(0);
        }
        self.history.push(run);
        self.next_ms = self.schedule.next_after(now_ms, offset_minutes);
        notice
    }

    fn notice(&self, what: String, message: String) -> RoutineNotice {
        RoutineNotice {
            routine: self.id.clone(),
            title: format!("{}: {what}", self.name),
            message: waymark_page::observation::shorten(&message, 400),
        }
    }

    /// The page its background tab opens: the routine's own, else the page the workflow's
    /// first step ran on (when that is one address, not a pattern).
    pub fn start_page(
        &self,
        workflow: &crate::workflow::Workflow,
    ) -> Result<String, StartPageError> {
        if let Some(url) = &self.start_url {
            return Ok(url.clone());
        }
        let first = workflow.steps.first().ok_or(StartPageError::NoSteps)?;
        first.page.concrete().ok_or(StartPageError::Pattern)
    }

    /// The run is put off by `delay_ms` (a task of the user's was running).
    pub fn postpone(&mut self, now_ms: f64, delay_ms: f64) {
        self.next_ms = now_ms + delay_ms;
    }

    /// When the browser starts at `now_ms`: whether a run was missed and is made up now (at
    /// most one, whatever number were missed); otherwise the next run is moved past `now_ms`.
    pub fn on_start(&mut self, now_ms: f64, offset_minutes: i32) -> bool {
        if self.paused || self.next_ms > now_ms {
            return false;
        }
        match self.missed {
            MissedRuns::RunOnce => true,
            MissedRuns::Skip => {
                self.next_ms = self.schedule.next_after(now_ms, offset_minutes);
                false
            }
        }
    }
}
