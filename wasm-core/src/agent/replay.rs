//! A workflow run in the loop: each step finds its page and element by the recorded locator
//! and goes through exactly what a live action goes through ([`Agent::execute`]: the policy and
//! its cards, the write-ahead journal, the network permit). No model is called while every
//! locator finds exactly one element; a step that does not resolve is healed with one
//! navigator call for that step alone, and a step that cannot be done ends the run there,
//! saying what was done and why.

use super::context::{ExpectedDestination, JournalEntry, StepReview, TaskContext};
use super::control::Operator;
use super::interventions::{Intervention, InterventionKind};
use super::parse::{Call, parse_answer};
use super::runner::{Agent, CallFailed, Flow};
use super::shared::Role;
use super::{Env, Journal, Llm, Page, TaskEvents, explain_llm_error, navigator_tools};
use crate::locate::{Locator, Resolution, UrlPattern};
use crate::safety::NetworkPermit;
use crate::text::counted;
use crate::workflow::{Heal, StepAction, TargetNeed, WorkflowRun, WorkflowStep};
use waymark_page::action::{Action, Refuser};
use waymark_page::observation::{Observation, Ref, clean};
use waymark_protocol::ToolSpec;

/// How many times a step waits for its page to settle before it is healed or ends the run: a
/// page still loading after the previous step gets this many chances.
pub const SETTLE_TRIES: u32 = 2;

/// The longest each of those waits lasts, in seconds.
const SETTLE_SECONDS: f64 = 3.0;

/// Longest extracted text an answer quotes per step.
const MAX_QUOTED_CHARS: usize = 4000;

/// Where a step's element (or tab) is, or why it cannot be found.
enum Found {
    /// Ready to act (with its element or tab, when it has one).
    Ready { target: Option<Ref>, tab: Option<i32> },
    /// Its element is not there as recorded: healing may find it.
    Healable(String),
    /// The page is not the step's page (and the step has no element to look for).
    WrongPage(String),
}

impl<L: Llm, P: Page, E: Env, V: TaskEvents, O: Operator, J: Journal> Agent<'_, L, P, E, V, O, J> {
    /// One step of a workflow run on `observation`.
    pub(super) async fn replay(
        &self,
        ctx: &mut TaskContext,
        run: &WorkflowRun,
        observation: Observation,
    ) -> Flow {
        let total = run.workflow.steps.len();
        let index = ctx.replay.next as usize;
        if let Some(lost) = ctx.interrupted_record() {
            let msg = format!(
                "Stopped at step {} of {total}: Waymark restarted while “{}” ran; it was not done \
                 again, so check the page.{}",
                index + 1,
                lost.description,
                done_so_far(ctx)
            );
            return self.finish(ctx, msg.clone(), false, Some(msg)).await;
        }
        let Some(step) = run.workflow.steps.get(index) else {
            return self.replay_done(ctx, run).await;
        };
        if index == 0 && !ctx.replay.opened && needs_start_page(step, &observation) {
            return self.open_start_page(ctx, run, step, &observation).await;
        }
        if matches!(step.action, StepAction::YouType) {
            return self.hand_over(ctx, run, index, step).await;
        }
        let (observation, found) = match self.find_step(ctx, run, step, observation).await {
            Ok(found) => found,
            Err(flow) => return flow,
        };
        let (action, heal) = match found {
            Found::Ready { target, tab } => {
                match step.action.to_action(target, tab, &run_values(ctx, run)) {
                    Some(action) => (action, None),
                    None => {
                        let why = "its element or tab was not found".to_owned();
                        return self.stop_at(ctx, run, index, &why).await;
                    }
                }
            }
            Found::WrongPage(why) => return self.stop_at(ctx, run, index, &why).await,
            Found::Healable(why) => match self.heal(ctx, run, index, &observation, &why).await {
                Ok((action, heal)) => (action, Some(heal)),
                Err(flow) => return flow,
            },
        };
        let entry = JournalEntry::WorkflowStep {
            index: index as u32,
            heal: heal.clone().map(Box::new),
            opening: false,
        };
        if let Err(e) = self.journal.write(&entry).await {
            return self.journal_failed(ctx, e).await;
        }
        ctx.apply(&entry);
        if let Some(heal) = &heal {
            let text = format!(
                "Step {} of {total} healed: {} — the model found {} instead. It is saved into the \
                 workflow only if you accept it.",
                index + 1,
                heal.why,
                heal.now.target.as_ref().map_or_else(String::new, Locator::describe)
            );
            self.note(ctx, text).await;
        }
        let review = (run.workflow.needs_review() && step.action.changes_state())
            .then(|| StepReview { does: step.described(), label: step.intent.clone() });
        ctx.replay_expect = Some(ExpectedDestination {
            recorded: step.destination.clone(),
            workflow: run.workflow.name.clone(),
            step: index as u32 + 1,
            review,
        });
        let before = ctx.steps.len();
        let flow = self.execute(ctx, &observation, vec![Call::Act(action)]).await;
        ctx.replay_expect = None;
        if let Flow::End(outcome) = flow {
            return Flow::End(outcome);
        }
        match ctx.steps.get(before).map(|r| r.outcome.clone()) {
            Some(outcome) if outcome.ok => {}
            Some(outcome) => {
                let why = match (outcome.refused_by, outcome.error) {
                    (Some(Refuser::User), _) => "you did not approve it".to_owned(),
                    (Some(Refuser::Policy), Some(e)) => {
                        format!("Waymark's safety policy refused it: {e}")
                    }
                    (_, Some(e)) => format!("it failed: {e}"),
                    (_, None) => "it did not run".to_owned(),
                };
                return self.stop_at(ctx, run, index, &why).await;
            }
            None => return self.stop_at(ctx, run, index, "it did not run").await,
        }
        if index + 1 == total {
            return self.replay_done(ctx, run).await;
        }
        Flow::Go
    }

    /// Finds the step's element on the page, giving a page that is still loading
    /// [`SETTLE_TRIES`] chances to settle (each a bounded wait) before giving up.
    async fn find_step(
        &self,
        ctx: &mut TaskContext,
        run: &WorkflowRun,
        step: &WorkflowStep,
        mut observation: Observation,
    ) -> Result<(Observation, Found), Flow> {
        let mut tries = 0;
        loop {
            let found = locate(step, &observation, run);
            if matches!(found, Found::Ready { .. }) || tries == SETTLE_TRIES {
                return Ok((observation, found));
            }
            tries += 1;
            let wait = Action::Wait { text: None, seconds: Some(SETTLE_SECONDS), gone: false };
            if let Err(e) = self.page.act(&wait, &NetworkPermit::reading(&ctx.scope)).await {
                tracing::debug!(error = %e, "waiting for a workflow step's page failed");
            }
            observation = self.observe(ctx).await?;
        }
    }

    /// The run starts elsewhere than the first step's page: it opens that page first, as a
    /// navigation the policy judges like any other (another site asks the user).
    async fn open_start_page(
        &self,
        ctx: &mut TaskContext,
        run: &WorkflowRun,
        step: &WorkflowStep,
        observation: &Observation,
    ) -> Flow {
        let Some(url) = step.page.concrete() else {
            let why = format!(
                "it runs on a page like {}; open one, then run the workflow again",
                step.page
            );
            return self.stop_at(ctx, run, 0, &why).await;
        };
        let entry = JournalEntry::WorkflowStep { index: 0, heal: None, opening: true };
        if let Err(e) = self.journal.write(&entry).await {
            return self.journal_failed(ctx, e).await;
        }
        ctx.apply(&entry);
        let before = ctx.steps.len();
        if let Flow::End(o) =
            self.execute(ctx, observation, vec![Call::Act(Action::Navigate { url })]).await
        {
            return Flow::End(o);
        }
        match ctx.steps.get(before) {
            Some(r) if r.outcome.ok => Flow::Go,
            Some(r) => {
                let why = format!(
                    "its start page could not be opened ({})",
                    r.outcome.error.clone().unwrap_or_default()
                );
                self.stop_at(ctx, run, 0, &why).await
            }
            None => self.stop_at(ctx, run, 0, "its start page could not be opened").await,
        }
    }

    /// One navigator call for step `index` alone: the recorded intent and the current page;
    /// the answer must be the same kind of action on an element of this page. The step's own
    /// values (what is typed or chosen) are kept: the model only picks the element.
    async fn heal(
        &self,
        ctx: &mut TaskContext,
        run: &WorkflowRun,
        index: usize,
        observation: &Observation,
        why: &str,
    ) -> Result<(Action, Heal), Flow> {
        let step = &run.workflow.steps[index];
        let task = heal_task(run, index, why);
        let tools = navigator_tools();
        let text_tools: &[ToolSpec] =
            if ctx.spec.tool_mode == super::ToolMode::JsonText { &tools } else { &[] };
        let nonce = ctx.fence.clone();
        let mut parts = self.parts(ctx, observation, &nonce, text_tools);
        parts.task = &task;
        parts.history = &[];
        parts.kept = &[];
        parts.recalled = &[];
        parts.notes = &[];
        parts.plan = None;
        parts.session_context = None;
        let messages = parts.messages();
        let reply = match self.call(ctx, Role::Navigator, messages, tools.clone()).await {
            Ok(reply) => reply,
            Err(CallFailed::Stopped) => {
                return Err(self.stopped_in_call(ctx, Role::Navigator).await);
            }
            Err(CallFailed::Llm(e)) => {
                let why = format!("{why}, and healing failed: {}", explain_llm_error(&e));
                return Err(self.stop_at(ctx, run, index, &why).await);
            }
        };
        let picked = match parse_answer(&reply) {
            Err(e) => Err(NotPicked::Unreadable(e.to_string())),
            Ok(answer) => pick(&answer.calls, step, observation),
        };
        let target = match picked {
            Ok(target) => target,
            Err(reason) => {
                let why = format!("{why}; the model did not find it either: {reason}");
                return Err(self.stop_at(ctx, run, index, &why).await);
            }
        };
        let locator = Locator::capture(observation, target);
        let (Some(action), Some(locator)) =
            (step.action.to_action(Some(target), None, &run_values(ctx, run)), locator)
        else {
            let why = format!("{why}; the model's choice could not be used");
            return Err(self.stop_at(ctx, run, index, &why).await);
        };
        let mut now = step.clone();
        now.target = Some(locator);
        now.page = UrlPattern::of_page(&observation.url).unwrap_or_else(|| step.page.clone());
        now.intent = WorkflowStep::describe_default(&now.action, now.target.as_ref());
        let heal = Heal {
            index: index as u32,
            why: why.to_owned(),
            was: step.clone(),
            now,
            revision: run.workflow.revision,
        };
        Ok((action, heal))
    }

    /// Ends the run at step `index`: what was done, and why it stopped.
    async fn stop_at(
        &self,
        ctx: &mut TaskContext,
        run: &WorkflowRun,
        index: usize,
        why: &str,
    ) -> Flow {
        let total = run.workflow.steps.len();
        let intent = run.workflow.steps.get(index).map(WorkflowStep::described).unwrap_or_default();
        let msg = format!(
            "Stopped at step {} of {total} of the workflow “{}” (“{}”): {why}.{}",
            index + 1,
            run.workflow.name,
            clean(&intent),
            done_so_far(ctx)
        );
        let refused = ctx.steps.last().is_some_and(|s| s.outcome.refused_by.is_some());
        // A refusal ends it as refused (the user or the policy said no); anything else failed.
        let error = (!refused).then(|| msg.clone());
        self.finish(ctx, msg, false, error).await
    }

    /// A step the user does themselves (a password shown while recording; Waymark never types
    /// one): the page is theirs until they press Continue, and Stop ends the run there.
    async fn hand_over(
        &self,
        ctx: &mut TaskContext,
        run: &WorkflowRun,
        index: usize,
        step: &WorkflowStep,
    ) -> Flow {
        let total = run.workflow.steps.len();
        let on = step.target.as_ref().map_or_else(|| "the field".to_owned(), Locator::describe);
        let card = Intervention {
            kind: InterventionKind::TakeOver,
            title: "Please do this yourself".into(),
            message: format!(
                "Step {} of {total} of the workflow “{}”: type your password into {on} in the \
                 tab yourself (Waymark never types passwords), then press Continue (or Stop).",
                index + 1,
                run.workflow.name
            ),
            questions: vec![],
            allow_similar: None,
        };
        if self.operator.ask(card).await.stop {
            return self.stopped_at_a_card(ctx).await;
        }
        let entry = JournalEntry::HandedOver { index: index as u32 };
        if let Err(e) = self.journal.write(&entry).await {
            return self.journal_failed(ctx, e).await;
        }
        ctx.apply(&entry);
        let text = format!("Step {} of {total}: you typed your password into {on}.", index + 1);
        self.note(ctx, text).await;
        if index + 1 == total {
            return self.replay_done(ctx, run).await;
        }
        Flow::Go
    }

    /// Every step done: the answer says so and quotes what the run read.
    async fn replay_done(&self, ctx: &mut TaskContext, run: &WorkflowRun) -> Flow {
        let mut answer = run.done_line(ctx.replay.heals.len());
        for record in &ctx.steps {
            if let (Action::Extract { .. }, Some(text)) = (&record.action, &record.outcome.text) {
                answer.push_str("\n\n");
                answer.push_str(&waymark_page::observation::shorten(text.trim(), MAX_QUOTED_CHARS));
            }
        }
        self.finish(ctx, answer, true, None).await
    }
}

/// Whether the run must open the first step's page before it (the tab is elsewhere and the
/// step does not go somewhere by itself).
fn needs_start_page(step: &WorkflowStep, observation: &Observation) -> bool {
    !matches!(step.action, StepAction::Navigate { .. } | StepAction::OpenTab { .. })
        && !step.page.matches(&observation.url)
}

/// Where the step's element (or tab) is on `observation`.
fn locate(step: &WorkflowStep, observation: &Observation, run: &WorkflowRun) -> Found {
    let on_page = step.page.matches(&observation.url);
    match &step.action {
        StepAction::Navigate { .. } | StepAction::OpenTab { .. } => {
            return Found::Ready { target: None, tab: None };
        }
        StepAction::SwitchTab { tab } => {
            let tabs: Vec<i32> =
                observation.tabs.iter().filter(|t| tab.matches(&t.url)).map(|t| t.id).collect();
            return match tabs.as_slice() {
                [one] => Found::Ready { target: None, tab: Some(*one) },
                [] => Found::WrongPage(format!("no open tab shows a page like {tab}")),
                _ => Found::WrongPage(format!("several open tabs show a page like {tab}")),
            };
        }
        _ => {}
    }
    let locator = match (step.action.target_need(), &step.target) {
        (TargetNeed::None, _) | (TargetNeed::Optional, None) => {
            return if on_page {
                Found::Ready { target: None, tab: None }
            } else {
                Found::WrongPage(wrong_page(step, observation))
            };
        }
        (_, Some(locator)) => locator,
        (TargetNeed::Required, None) => {
            return Found::WrongPage("the step names no element".into());
        }
    };
    if !on_page {
        return Found::Healable(wrong_page(step, observation));
    }
    match locator.resolve(observation, &run.values) {
        Resolution::Found(target) => Found::Ready { target: Some(target), tab: None },
        Resolution::Missing(why) | Resolution::Ambiguous(why) => Found::Healable(why),
    }
}

fn wrong_page(step: &WorkflowStep, observation: &Observation) -> String {
    format!("the tab shows {} instead of a page like {}", observation.url, step.page)
}

/// The element the healing answer chose: the first action of the step's kind on an element
/// of this page; why not, otherwise.
fn pick(calls: &[Call], step: &WorkflowStep, observation: &Observation) -> Result<Ref, NotPicked> {
    for call in calls {
        match call {
            Call::Act(Action::Done { answer, .. }) => {
                return Err(NotPicked::GaveUp(clean(answer).chars().take(300).collect()));
            }
            Call::Act(action) if action.kind() == step.action.kind() => {
                let Some(target) = action.target_ref() else { continue };
                if observation.element(target).is_none() {
                    return Err(NotPicked::NotOnPage(target));
                }
                return Ok(target);
            }
            _ => {}
        }
    }
    Err(NotPicked::NoAction(step.action.kind().name()))
}

/// Why the healing answer chose no element of the page.
#[derive(Debug, thiserror::Error)]
enum NotPicked {
    /// The model ended instead, saying why.
    #[error("{0}")]
    GaveUp(String),
    /// It named a ref the page does not have.
    #[error("it named [{0}], which is not on the page")]
    NotOnPage(Ref),
    /// It called no action of the step's kind on an element.
    #[error("it answered without a {0} on an element")]
    NoAction(&'static str),
    /// Its answer was not a tool call.
    #[error("the model's answer could not be understood ({0})")]
    Unreadable(String),
}

/// The healing call's task: the one step, what it acted on, and why it is not found.
fn heal_task(run: &WorkflowRun, index: usize, why: &str) -> String {
    let step = &run.workflow.steps[index];
    let element = step.target.as_ref().map_or_else(
        || "the page".to_owned(),
        |t| {
            // What the element was called in this run (its parameters filled in).
            let mut t = t.clone();
            for template in t.templates_mut() {
                *template = crate::locate::Template::literal(template.fill(&run.values));
            }
            t.describe()
        },
    );
    format!(
        "Repair one step of the saved workflow “{}” (step {} of {}); the other steps run \
         without you.\nThe step: {}\nIt acted on: {}\nOn the current page that element cannot be \
         used as recorded: {}.\nCall exactly one `{}` tool on the element of the current page \
         that does what the recorded one did (it may have a new name or place). If the page has \
         no such element, call done with success=false and say why. Do nothing else.",
        clean(&run.workflow.name),
        index + 1,
        run.workflow.steps.len(),
        clean(&step.described()),
        clean(&element),
        clean(why),
        step.action.kind().name()
    )
}

/// The values a step is filled with: each secret input as its handle, so the run types it
/// only where the loop reveals it (a field of the workflow's own sites that others cannot
/// read), exactly like a live task's secret.
fn run_values(ctx: &TaskContext, run: &WorkflowRun) -> std::collections::BTreeMap<String, String> {
    let mut values = run.values.clone();
    for param in run.workflow.params.iter().filter(|p| p.secret) {
        if let Some(value) = values.get_mut(&param.name)
            && let Some(handle) = ctx.taint.handle_of(value)
        {
            *value = handle.to_string();
        }
    }
    values
}

/// "Done before it: 1. …; 2. …" from the actions the run performed, or nothing.
fn done_so_far(ctx: &TaskContext) -> String {
    let done: Vec<String> = ctx
        .steps
        .iter()
        .filter(|s| s.outcome.ok)
        .enumerate()
        .map(|(i, s)| format!("{}. {}", i + 1, s.description))
        .collect();
    if done.is_empty() {
        " Nothing was done before it.".to_owned()
    } else {
        format!(" Done before it ({}): {}.", counted(done.len(), "action"), done.join("; "))
    }
}
