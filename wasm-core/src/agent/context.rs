//! The task context: everything task-scoped, fresh per task, rebuilt from the journal after the
//! service worker restarts.

use super::interventions::ProgressReport;
use super::roles::Plan;
use super::shared::SharedContext;
use super::stuck::StuckDetector;
use super::{DEFAULT_MAX_STEPS, StepRecord, TaskOutcome};
use crate::safety::{TaintLedger, UserText};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use waymark_page::action::{Action, ActionOutcome};

/// How the model returns actions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolMode {
    /// The provider's native tool calling.
    #[default]
    Native,
    /// Strict JSON in the text (local models without tool calling); the tool list goes into
    /// the prompt instead.
    JsonText,
}

/// How a task starts: what the user asked for and with what.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskSpec {
    /// The user's words.
    pub task: String,
    /// Files the task may use: name → path on the user's disk (the host reads the bytes, only
    /// from directories the user allowed).
    #[serde(default)]
    pub resources: BTreeMap<String, String>,
    /// Step budget.
    #[serde(default = "default_max_steps")]
    pub max_steps: u32,
    /// What earlier tasks of the session found (written by the session module).
    #[serde(default)]
    pub session_context: Option<String>,
    /// Where the values of `session_context` were read (normalised value → origins or hosts),
    /// so the task's ledger lets each go back only there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub session_provenance: crate::safety::outbound::Provenance,
    /// How the model returns actions.
    #[serde(default)]
    pub tool_mode: ToolMode,
    /// When it started (ms since the epoch).
    #[serde(default)]
    pub started_ms: f64,
    /// Check "done" claims against the page before showing the answer.
    #[serde(default = "yes")]
    pub validate: bool,
    /// How the result is shown.
    #[serde(default)]
    pub output: super::OutputMode,
    /// Origins the user allowed in Settings: the agent may act there besides the start tab's
    /// site (a sensitive one counts as explicitly granted).
    #[serde(default)]
    pub allowed_sites: Vec<String>,
    /// The external agent (an MCP client) that asked for this task, by the name the user
    /// knows it by; `None`: the user typed it. Its cards and its turn name it, and a restarted
    /// worker does not resume it (no one waits for its answer any more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<String>,
    /// Earlier tasks the session notes fold, for the `recall` tool (offered when there are
    /// any). Not journaled: it is the session's own data, and a resumed task goes without.
    #[serde(skip)]
    pub recallable: Vec<crate::session::TaskRecord>,
    /// Set when the task runs a saved workflow: its steps are replayed without the model
    /// (see `agent::replay`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<crate::workflow::WorkflowRun>,
}

fn yes() -> bool {
    true
}

fn default_max_steps() -> u32 {
    DEFAULT_MAX_STEPS
}

impl TaskSpec {
    /// A task with defaults for everything but its words.
    pub fn new(task: impl Into<String>) -> Self {
        Self { task: task.into(), max_steps: DEFAULT_MAX_STEPS, validate: true, ..Self::default() }
    }

    /// The task as the panel and the session show it: who asked, when an external agent did
    /// (`Claude Code asked: …`).
    pub fn shown_task(&self) -> String {
        match &self.asked_by {
            Some(client) => format!("{client} asked: {}", self.task),
            None => self.task.clone(),
        }
    }
}

/// One write-ahead journal entry: the loop writes each before it matters (an action's intent
/// before the side effect, its outcome after), and [`TaskContext::apply`] replays them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "entry", rename_all = "snake_case")]
pub enum JournalEntry {
    /// The task began.
    Started {
        /// What was asked.
        spec: TaskSpec,
    },
    /// The planner wrote or revised the plan.
    Planned {
        /// The plan.
        plan: Plan,
    },
    /// The user said something the agent must keep in mind (answers, adjustments).
    Guidance {
        /// Their words.
        text: String,
    },
    /// The model's answer for a step, before any of its actions ran.
    StepBegun {
        /// Step number.
        step: u32,
    },
    /// An action is about to run.
    Intent {
        /// Step number.
        step: u32,
        /// The action.
        action: Action,
        /// In words.
        description: String,
    },
    /// An action ran (or was refused).
    Outcome {
        /// The full record.
        record: StepRecord,
    },
    /// What the model chose to keep of a step's output (`progress.memory`): page text is shown
    /// in full once, and this is how its findings reach the later steps.
    Kept {
        /// The model's words.
        text: String,
    },
    /// What the `recall` tool found in the session's older tasks.
    Recalled {
        /// The step whose answer asked.
        step: u32,
        /// The model's query.
        query: String,
        /// The matching tasks, as the notes write them (empty: nothing matched).
        text: String,
        /// The same tasks one by one, each with where what it holds was read (journals of
        /// older versions have only `text`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        turns: Vec<crate::session::RecalledTurn>,
    },
    /// A note for the model's history (a rejected done claim, a take-over).
    Note {
        /// What to tell the model.
        text: String,
    },
    /// The task ended.
    Finished {
        /// How.
        outcome: TaskOutcome,
    },
    /// A workflow run is about to do step `index` (0-based) of its workflow, found by its
    /// locator or, with `heal`, by the model; or, with `opening`, it opens the workflow's
    /// start page first.
    WorkflowStep {
        /// The step.
        index: u32,
        /// The healed step, when the recorded one could not be found.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        heal: Option<Box<crate::workflow::Heal>>,
        /// Opening the start page before the first step.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        opening: bool,
    },
    /// The user did step `index` of the workflow themselves (a step recorded as theirs, such
    /// as typing a password) and pressed Continue.
    HandedOver {
        /// The step.
        index: u32,
    },
    /// A site the agent may act on for this task: the tab it started on, or one the user
    /// approved with a click in the side panel (never a model's request).
    SiteAllowed {
        /// Origin or URL.
        origin: String,
        /// An explicit grant for a sensitive site (banking, payments, …).
        #[serde(default)]
        sensitive: bool,
    },
    /// The user chose "allow this kind of action on this site for the rest of the task" on a
    /// card that offered it: later actions of `class` on `origin` go without a card.
    SimilarAllowed {
        /// The kind of action.
        class: crate::safety::ConfirmClass,
        /// The site (origin) it applies to.
        origin: String,
    },
    /// The user approved acting on a site the task's words do not name after the task had
    /// read another site's pages (the information-flow card): not asked again for that site.
    FlowAllowed {
        /// The site (origin).
        origin: String,
    },
    /// A write the network layer let go because it fit the write budget: what it spent
    /// (counts survive a restart).
    WriteSpent {
        /// The kind (or an order's endpoint) and how many more writes it counted.
        spend: crate::safety::Spend,
    },
}

/// How far a workflow run got.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayState {
    /// The next step to do (0-based).
    pub next: u32,
    /// The step begun and not yet ended.
    pub current: Option<u32>,
    /// The start page was opened (once per run).
    pub opened: bool,
    /// Steps healed by the model, in order, for the user to accept into the workflow.
    pub heals: Vec<crate::workflow::Heal>,
}

impl ReplayState {
    /// The healed steps that ran to completion (a healed step whose action then failed or was
    /// refused is not offered to the workflow).
    pub fn completed_heals(&self) -> Vec<crate::workflow::Heal> {
        self.heals.iter().filter(|h| h.index < self.next).cloned().collect()
    }
}

/// Where a workflow step sent data when it was recorded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExpectedDestination {
    /// The recorded destination (`None`: it sent nothing).
    pub recorded: Option<crate::locate::UrlPattern>,
    /// The workflow's name, for the card.
    pub workflow: String,
    /// The step (1-based), for the card.
    pub step: u32,
    /// The first run of an imported workflow, on a step that changes something: the user is
    /// asked whatever the policy says, with the step described from what it does (and the
    /// author's label beside it).
    pub review: Option<StepReview>,
}

/// What the user is shown of an imported workflow's step on its first run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StepReview {
    /// What the step does, from its action and locator.
    pub does: String,
    /// What its author called it.
    pub label: String,
}

/// A finding the model kept (`progress.memory`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// How many step records preceded it: it is shown after them.
    pub after: usize,
    /// The model's words.
    pub text: String,
}

/// What one `recall` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recalled {
    /// How many step records preceded it.
    pub after: usize,
    /// The step whose answer asked: the result is shown in full in the next call only.
    pub step: u32,
    /// The model's query.
    pub query: String,
    /// The matching tasks (empty: none).
    pub text: String,
    /// The same, one by one with their provenance (empty in older journals).
    pub turns: Vec<crate::session::RecalledTurn>,
}

/// Everything task-scoped. A new task gets a new one; nothing leaks into the next task.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskContext {
    /// What was asked.
    pub spec: TaskSpec,
    /// Steps started so far.
    pub step: u32,
    /// Every action performed or refused, oldest first.
    pub steps: Vec<StepRecord>,
    /// The current plan.
    pub plan: Option<Plan>,
    /// The user's answers and adjustments, oldest first.
    pub guidance: Vec<String>,
    /// Notes for the model (rejected claims, take-overs), oldest first.
    pub notes: Vec<String>,
    /// What the model kept of step outputs, each after the steps recorded before it.
    pub kept: Vec<Kept>,
    /// What `recall` found, each after the steps recorded before it.
    pub recalled: Vec<Recalled>,
    /// The fence nonce of this task's prompts: one per task, so consecutive prompts share
    /// their prefix (prompt caching); drawn on the first step (and again after a restart).
    pub fence: String,
    /// What every role sees.
    pub shared: SharedContext,
    /// Repetition counters.
    pub stuck: StuckDetector,
    /// The model's latest progress report.
    pub progress: Option<ProgressReport>,
    /// "done" claims the validator rejected.
    pub rejections: u32,
    /// Set once the task ended.
    pub finished: Option<TaskOutcome>,
    /// The parse error of the last answer, while re-asking.
    pub correction: Option<String>,
    /// The plan phase the navigator last reported.
    pub phase: Option<String>,
    /// When the navigator's latest reply arrived ([`super::Env::precise_ms`]), until the
    /// next observation is ready.
    pub(crate) overhead_from: Option<(u32, f64)>,
    /// Time spent inside page calls since `overhead_from`.
    pub(crate) overhead_page_ms: f64,
    /// An action whose intent was journaled but whose outcome was not (the worker stopped).
    pub(crate) pending: Option<(u32, Action, String)>,
    /// The sites the agent may act on during this task.
    pub scope: crate::safety::SiteScope,
    /// How far a workflow run got (rebuilt from the journal).
    pub replay: ReplayState,
    /// While a workflow step is policed: where it sent data when recorded (a different
    /// destination always asks the user).
    pub(crate) replay_expect: Option<ExpectedDestination>,
    /// Values seen during this task and where they came from: the user's task, answers and
    /// attached files and the session notes (rebuilt from the journal on replay), and the
    /// pages read (not journaled: a resumed task rebuilds those from the pages it reads next).
    pub taint: TaintLedger,
    /// The writes the user's own words grant ([`crate::safety::budget`]): from the task and
    /// the user's card answers, never from a page.
    pub budget: crate::safety::WriteBudget,
    /// What the task's writes spent of the budget so far.
    pub spent: crate::safety::Spent,
    /// Held requests (their URLs) the user denied during the action running now: not asked
    /// about again when the action is done again for the writes that fit the budget.
    pub(crate) denied_this_action: Vec<String>,
    /// Sites the user let the task act on after it read other sites' pages.
    pub flows: std::collections::BTreeSet<String>,
    /// The origin of the tab the task started on (the first site of its scope).
    pub start: Option<String>,
    /// What the page's forms would have sent before the task's first action (not journaled:
    /// a resumed task that already acted has none, and its writes are judged on every field).
    pub baseline: crate::safety::BaselineState,
}

impl TaskContext {
    /// A fresh context for `spec`.
    pub fn new(spec: TaskSpec) -> Self {
        let shared = SharedContext::new(&spec.task);
        let taint = ledger_for(&spec);
        let budget = budget_for(&spec, &[]);
        Self { spec, shared, taint, budget, ..Self::default() }
    }

    /// Folds one journal entry into the context (live and on replay alike).
    pub fn apply(&mut self, entry: &JournalEntry) {
        match entry {
            JournalEntry::Started { spec } => *self = Self::new(spec.clone()),
            JournalEntry::Planned { plan } => self.plan = Some(plan.clone()),
            JournalEntry::Guidance { text } => {
                self.taint.record_user_text(text, UserText::Answer);
                self.guidance.push(text.clone());
                self.budget = budget_for(&self.spec, &self.guidance);
            }
            JournalEntry::StepBegun { step } => self.step = self.step.max(*step),
            JournalEntry::Intent { step, action, description } => {
                self.step = self.step.max(*step);
                self.pending = Some((*step, action.clone(), description.clone()));
            }
            JournalEntry::Outcome { record } => {
                if let Some(current) = self.replay.current.take()
                    && record.outcome.ok
                {
                    self.replay.next = current + 1;
                }
                self.pending = None;
                self.step = self.step.max(record.step);
                self.steps.push(record.clone());
            }
            JournalEntry::Note { text } => self.notes.push(text.clone()),
            JournalEntry::Recalled { step, query, text, turns } => {
                // Older findings carry their provenance like page text: each value may go back
                // only to where its own task read it (nowhere when that is unknown), and the
                // sites they name are never the user's words.
                if turns.is_empty() {
                    self.taint.record_session_notes(text, &self.spec.session_provenance);
                }
                for turn in turns {
                    self.taint.record_session_notes(&turn.text, &turn.provenance);
                }
                self.recalled.push(Recalled {
                    after: self.steps.len(),
                    step: *step,
                    query: query.clone(),
                    text: text.clone(),
                    turns: turns.clone(),
                });
            }
            JournalEntry::Kept { text } => {
                self.kept.push(Kept { after: self.steps.len(), text: text.clone() })
            }
            JournalEntry::Finished { outcome } => self.finished = Some(outcome.clone()),
            JournalEntry::SiteAllowed { origin, sensitive } => {
                // The first site is the tab the task started on: the user's data may go
                // there. Sites approved later on a card do not widen where it may go.
                if self.scope.allowed().next().is_none() {
                    self.taint.allow_user_site(origin);
                    self.start = crate::safety::origin_of(origin);
                }
                if *sensitive {
                    self.scope.grant_sensitive(origin);
                } else {
                    self.scope.allow(origin);
                }
            }
            JournalEntry::SimilarAllowed { class, origin } => {
                self.scope.allow_similar(*class, origin)
            }
            JournalEntry::FlowAllowed { origin } => {
                self.flows.insert(origin.clone());
            }
            JournalEntry::WriteSpent { spend } => self.spent.record(spend),
            JournalEntry::HandedOver { index } => {
                self.replay.current = None;
                self.replay.next = index + 1;
            }
            JournalEntry::WorkflowStep { index, heal, opening } => {
                if *opening {
                    self.replay.opened = true;
                } else {
                    self.replay.current = Some(*index);
                    self.replay.heals.extend(heal.as_deref().cloned());
                }
            }
        }
    }

    /// Rebuilds a context from its journal. An action whose outcome was never written is not
    /// repeated: it is recorded as interrupted so the model (and the user) check the page.
    pub fn replay(entries: &[JournalEntry]) -> Option<Self> {
        match entries.first()? {
            JournalEntry::Started { .. } => Some(Self::replay_any(entries)),
            _ => None,
        }
    }

    /// [`Self::replay`] without requiring the task's own entry first: what a damaged
    /// journal still holds, for the user's report (never to resume from).
    pub(crate) fn replay_any(entries: &[JournalEntry]) -> Self {
        let mut ctx = Self::default();
        for entry in entries {
            ctx.apply(entry);
        }
        // The taint ledger is not journaled (it would put secrets into storage): what earlier
        // steps read into the history is treated as coming from an unknown site.
        for record in &ctx.steps {
            if let Some(text) = &record.outcome.text {
                ctx.taint.record_unattributed(text);
            }
        }
        if let Some((step, action, description)) = ctx.pending.take() {
            ctx.steps.push(StepRecord {
                step,
                action,
                description,
                outcome: ActionOutcome::interrupted(INTERRUPTED),
                located: None,
            });
        }
        ctx
    }

    /// The records needed to resume, as journal entries, for an interrupted action.
    pub fn interrupted_record(&self) -> Option<&StepRecord> {
        self.steps.last().filter(|s| s.outcome.interrupted)
    }
}

/// The ledger a task starts with: the user's task (its values, and the sites it names), the
/// sites allowed in Settings, the attached files, and the session notes with their provenance.
fn ledger_for(spec: &TaskSpec) -> TaintLedger {
    let mut taint = TaintLedger::default();
    // A workflow run's words hold its inputs' defaults, which are the workflow author's: only
    // the values the user gave count as the user's (below).
    if spec.workflow.is_none() {
        taint.record_user_text(&spec.task, UserText::Task);
    }
    for site in &spec.allowed_sites {
        taint.allow_user_site(site);
    }
    for (name, path) in &spec.resources {
        taint.record_file(name, path);
    }
    if let Some(notes) = &spec.session_context {
        taint.record_session_notes(notes, &spec.session_provenance);
    }
    if let Some(run) = &spec.workflow {
        // The values the user gave are their words, like a task's; a secret among them may go
        // only to the origins the workflow's own steps name; a default is the author's words
        // (no authority: the hosts it names are not the user's sites).
        for (name, value) in &run.values {
            let secret = run.workflow.param(name).is_some_and(|p| p.secret);
            if secret {
                taint.record_workflow_secret(name, value, run.workflow.origins());
            } else if run.given.contains(name) {
                taint.record_user_value(value);
            }
        }
    }
    taint
}

/// The write budget of a task: the user's task text, the task their saved workflow was
/// recorded with, and their answers on cards. An external agent's words are not the user's:
/// its tasks and calls get none, so each of their writes is put to the user.
fn budget_for(spec: &TaskSpec, answers: &[String]) -> crate::safety::WriteBudget {
    if spec.asked_by.is_some() {
        return crate::safety::WriteBudget::read_only();
    }
    // A workflow run's task text carries the workflow's name (an imported file's words):
    // the words it was recorded from count instead.
    let task = match &spec.workflow {
        Some(run) => run.workflow.task.0.as_str(),
        None => spec.task.as_str(),
    };
    let texts = std::iter::once(task).chain(answers.iter().map(String::as_str));
    let mut budget = crate::safety::WriteBudget::from_words(texts);
    if let Some(run) = &spec.workflow {
        crate::workflow::grant_shown(&mut budget, &run.workflow.shown_writes);
    }
    budget
}

/// What an action whose outcome was lost is reported as.
pub const INTERRUPTED: &str = "interrupted: Waymark restarted while this action ran; it was not \
repeated, so check the page to see whether it took effect";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_rebuilds_steps_and_never_repeats_an_unfinished_action() {
        let click = Action::Click { ref_id: waymark_page::observation::Ref::top(2) };
        let entries = vec![
            JournalEntry::Started { spec: TaskSpec::new("save") },
            JournalEntry::Guidance { text: "use Ada".into() },
            JournalEntry::Intent {
                step: 1,
                action: click.clone(),
                description: "Click [2]".into(),
            },
            JournalEntry::Outcome {
                record: StepRecord {
                    step: 1,
                    action: click.clone(),
                    description: "Click [2]".into(),
                    outcome: ActionOutcome::done(),
                    located: None,
                },
            },
            JournalEntry::Intent { step: 2, action: click, description: "Click [2]".into() },
        ];
        let ctx = TaskContext::replay(&entries).expect("context");
        assert_eq!(ctx.step, 2);
        assert_eq!(ctx.steps.len(), 2);
        assert_eq!(ctx.guidance, vec!["use Ada".to_owned()]);
        assert!(ctx.interrupted_record().is_some());
        assert!(!ctx.steps[1].outcome.ok);
    }

    #[test]
    fn after_a_restart_what_earlier_steps_read_cannot_leave() {
        let extract = Action::Extract { ref_id: None };
        let entries = vec![
            JournalEntry::Started { spec: TaskSpec::new("read") },
            JournalEntry::Outcome {
                record: StepRecord {
                    step: 1,
                    action: extract,
                    description: "Extract".into(),
                    outcome: ActionOutcome::with_text("Your code is 493817"),
                    located: None,
                },
            },
        ];
        let ctx = TaskContext::replay(&entries).expect("context");
        assert!(ctx.taint.check("https://forum.example/", "code 493817").is_err());
    }

    #[test]
    fn a_new_task_starts_from_nothing() {
        let mut ctx = TaskContext::new(TaskSpec::new("first"));
        ctx.apply(&JournalEntry::Guidance { text: "x".into() });
        ctx.apply(&JournalEntry::Started { spec: TaskSpec::new("second") });
        assert_eq!(ctx, TaskContext::new(TaskSpec::new("second")));
        assert_eq!(ctx.spec.max_steps, DEFAULT_MAX_STEPS);
    }
}
