//! The propose–execute–verify loop, one step at a time.

use super::closed_tab::MAX_TAB_REPLACEMENTS;
use super::context::{JournalEntry, TaskContext, TaskSpec, ToolMode};
use super::control::{Gate, Operator};
use super::gate::Held;
use super::interventions::{Intervention, InterventionKind, InterventionSettings, Reply};
use super::parse::{Call, parse_answer};
use super::policy::{record_observation, record_output};
use super::prompt::{PromptParts, RoleView};
use super::role_tools::{plan_tool, progress_tool, recall_tool, verdict_tool};
use super::roles::{Plan, parse_plan, parse_verdict, planner_messages, validator_messages};
use super::script_send::MAX_HOLDS_PER_ACTION;
use super::shared::{Role, RoleState};
use super::stuck::{StuckLevel, fingerprint};
use super::{
    Ending, Env, Journal, JournalError, Llm, Located, MAX_ACTIONS_PER_STEP, Page, PageError,
    StepRecord, TaskEvent, TaskEvents, TaskOutcome, explain_llm_error, navigator_tools,
};
use crate::safety::BlockedRequest;
use crate::text::counted;
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::Observation;
use waymark_protocol::{ErrorBody, LlmCompletion, LlmRequest, ToolSpec};

/// The planner revises the plan this often even when all goes well: long enough that the plan
/// guides several steps, short enough to notice a plan that stopped fitting the pages.
pub const REPLAN_EVERY_STEPS: u32 = 8;

/// "done" claims the validator may reject before the task ends unconfirmed: the second
/// rejection means the model and the page disagree for good, and looping costs money.
pub const MAX_REJECTED_CLAIMS: u32 = 2;

/// What one step led to.
#[derive(Debug, Clone, PartialEq)]
pub enum StepResult {
    /// More steps to go.
    Continue,
    /// The task ended.
    Finished(TaskOutcome),
}

/// The loop's view of the platform: model, page, clock, view, user and journal.
pub struct Agent<'a, L, P, E, V, O, J> {
    /// The model.
    pub llm: &'a L,
    /// The page.
    pub page: &'a P,
    /// Clock and randomness.
    pub env: &'a E,
    /// Progress for the view.
    pub events: &'a V,
    /// The user's controls and answers.
    pub operator: &'a O,
    /// Write-ahead persistence.
    pub journal: &'a J,
}

/// A journal that keeps nothing (tests, benchmarks).
pub struct NoJournal;

impl Journal for NoJournal {
    async fn write(&self, _entry: &JournalEntry) -> Result<(), JournalError> {
        Ok(())
    }
}

/// An operator that never pauses and lets the agent carry on at every card (tests, benchmarks).
pub struct AutoOperator(pub InterventionSettings);

impl Operator for AutoOperator {
    async fn gate(&self) -> Gate {
        Gate::Go { after_takeover: false }
    }
    fn step_done(&self) {}
    async fn ask(&self, _card: Intervention) -> Reply {
        Reply::proceed()
    }
    fn settings(&self) -> InterventionSettings {
        self.0
    }
    async fn stop_requested(&self) {
        std::future::pending::<()>().await;
    }
}

/// Why a model call gave no completion.
pub(super) enum CallFailed {
    /// The model (or the host) answered with an error.
    Llm(ErrorBody),
    /// The user stopped the task while the call was in flight; the call was dropped (which
    /// cancels it at the host) and nothing of it reached the page.
    Stopped,
}

/// Runs `call` until it ends or `stop` resolves first; `None` when stopped (`call` is then
/// dropped unfinished). Stop is polled first, so a call never starts after a stop.
async fn unless_stopped<T>(
    call: impl std::future::Future<Output = T>,
    stop: impl std::future::Future<Output = ()>,
) -> Option<T> {
    use std::task::Poll;
    let mut call = std::pin::pin!(call);
    let mut stop = std::pin::pin!(stop);
    std::future::poll_fn(|cx| {
        if stop.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        call.as_mut().poll(cx).map(Some)
    })
    .await
}

/// Where an action runs and on what, in stable terms (what a workflow is recorded from):
/// the page's pattern, the element's locator, and where it sends (for a tab switch: the
/// tab's page). `None` off the web.
fn locate(
    observation: &Observation,
    action: &Action,
    destination: Option<&str>,
) -> Option<Box<Located>> {
    use crate::locate::{Locator, UrlPattern};
    let page = UrlPattern::of_page(&observation.url)?;
    let target = action.target_ref().and_then(|r| Locator::capture(observation, r));
    let destination = match action {
        Action::SwitchTab { tab } => {
            observation.tabs.iter().find(|t| t.id == *tab).map(|t| t.url.as_str())
        }
        _ => destination,
    };
    Some(Box::new(Located { page, target, destination: destination.and_then(UrlPattern::of_page) }))
}

/// Whether the loop goes on after a part of a step.
pub(super) enum Flow {
    /// Carry on.
    Go,
    /// The task ended.
    End(TaskOutcome),
}

impl<L: Llm, P: Page, E: Env, V: TaskEvents, O: Operator, J: Journal> Agent<'_, L, P, E, V, O, J> {
    /// Starts a task: a fresh context, journaled before anything happens.
    pub async fn start(&self, mut spec: TaskSpec) -> Result<TaskContext, JournalError> {
        if spec.started_ms == 0.0 {
            spec.started_ms = self.env.now_ms();
        }
        let entry = JournalEntry::Started { spec };
        self.journal.write(&entry).await?;
        let mut ctx = TaskContext::default();
        ctx.apply(&entry);
        Ok(ctx)
    }

    /// Runs until the task ends (pausing whenever the operator says so).
    pub async fn run(&self, ctx: &mut TaskContext) -> TaskOutcome {
        loop {
            if let StepResult::Finished(outcome) = self.step(ctx).await {
                return outcome;
            }
            self.operator.step_done();
        }
    }

    /// Runs exactly one step (planning first, on the first step).
    pub async fn step(&self, ctx: &mut TaskContext) -> StepResult {
        match self.step_flow(ctx).await {
            Flow::Go => StepResult::Continue,
            Flow::End(outcome) => StepResult::Finished(outcome),
        }
    }

    async fn step_flow(&self, ctx: &mut TaskContext) -> Flow {
        if let Some(done) = &ctx.finished {
            return Flow::End(done.clone());
        }
        if ctx.step >= ctx.spec.max_steps {
            let msg = format!(
                "Stopped after {} without finishing the task.",
                counted(ctx.spec.max_steps, "step")
            );
            return self.end(ctx, msg.clone(), Ending::NotFinished, Some(msg)).await;
        }
        if let Flow::End(o) = self.gate(ctx).await {
            return Flow::End(o);
        }
        ctx.step += 1;
        let step = ctx.step;
        if let Err(e) = self.journal.write(&JournalEntry::StepBegun { step }).await {
            return self.journal_failed(ctx, e).await;
        }
        self.events.emit(TaskEvent::StepStarted { step });
        let observation = match self.observe(ctx).await {
            Ok(o) => o,
            Err(flow) => return flow,
        };
        if ctx.fence.is_empty() {
            // 48 bits: the page never sees the prompt, and page text is scrubbed of it anyway.
            ctx.fence = format!("{:012x}", self.env.random_u64() & 0xffff_ffff_ffff);
        }
        let nonce = ctx.fence.clone();
        if let Some(run) = ctx.spec.workflow.clone() {
            // A workflow run: no plan, no navigator while its steps find their elements.
            return self.replay(ctx, &run, observation).await;
        }
        if ctx.plan.is_none() {
            if let Flow::End(o) = self.plan(ctx, &observation, &nonce, None).await {
                return Flow::End(o);
            }
        } else if step > 1 && (step - 1).is_multiple_of(REPLAN_EVERY_STEPS) {
            let why = "regular revision: check the plan against where things stand";
            if let Flow::End(o) = self.plan(ctx, &observation, &nonce, Some(why)).await {
                return Flow::End(o);
            }
        }
        let mut nudge = None;
        match ctx.stuck.level() {
            StuckLevel::Fine => {}
            StuckLevel::Nudge => nudge = ctx.stuck.reason.clone(),
            StuckLevel::Replan => {
                let why = ctx.stuck.reason.clone().unwrap_or_default();
                self.note(ctx, format!("Stuck ({why}): asking the planner for a new plan.")).await;
                if let Flow::End(o) = self.plan(ctx, &observation, &nonce, Some(&why)).await {
                    return Flow::End(o);
                }
                nudge = Some(why);
            }
            StuckLevel::Ask => {
                let why = ctx.stuck.reason.clone().unwrap_or_default();
                let card = Intervention {
                    kind: InterventionKind::Stuck,
                    title: "Waymark is stuck".into(),
                    message: format!(
                        "I keep going round in circles: {why}. Tell me how to go on, or stop."
                    ),
                    questions: vec![],
                    allow_similar: None,
                };
                if let Flow::End(o) = self.intervene(ctx, card).await {
                    return Flow::End(o);
                }
                ctx.stuck.reset();
            }
        }
        self.navigate(ctx, &observation, &nonce, nudge.as_deref()).await
    }

    async fn gate(&self, ctx: &mut TaskContext) -> Flow {
        match self.gate_took_over(ctx).await {
            Ok(_) => Flow::Go,
            Err(outcome) => Flow::End(outcome),
        }
    }

    /// A safe point: `Ok(true)` when the user had control since the last one.
    async fn gate_took_over(&self, ctx: &mut TaskContext) -> Result<bool, TaskOutcome> {
        let held_from = self.env.precise_ms();
        let gate = self.operator.gate().await;
        // Time held at a pause is the user's, not the agent's.
        if let Some((_, from)) = &mut ctx.overhead_from {
            *from += self.env.precise_ms() - held_from;
        }
        match gate {
            Gate::Stop => {
                let msg = format!(
                    "Stopped by you after {}. Every action that started was finished and is \
                     listed.",
                    counted(ctx.step, "step")
                );
                match self.finish_stopped(ctx, msg).await {
                    Flow::End(o) => Err(o),
                    Flow::Go => Ok(false),
                }
            }
            Gate::Go { after_takeover: true } => {
                ctx.stuck.reset();
                self.note(
                    ctx,
                    "The user took over and may have changed the page; read it afresh.".into(),
                )
                .await;
                Ok(true)
            }
            Gate::Go { after_takeover: false } => Ok(false),
        }
    }

    pub(super) async fn observe(&self, ctx: &mut TaskContext) -> Result<Observation, Flow> {
        let mut replaced = 0;
        loop {
            let started = self.env.precise_ms();
            let observed = self.page.observe().await;
            ctx.overhead_page_ms += self.env.precise_ms() - started;
            match observed {
                Err(closed @ PageError::TabClosed { .. }) if replaced < MAX_TAB_REPLACEMENTS => {
                    replaced += 1;
                    self.replace_closed_tab(ctx, &closed).await?;
                }
                observed => return self.observed(ctx, observed).await,
            }
        }
    }

    /// Takes in one observation (or ends the task when the page could not be read).
    async fn observed(
        &self,
        ctx: &mut TaskContext,
        observed: Result<Observation, PageError>,
    ) -> Result<Observation, Flow> {
        match observed {
            Ok(obs) => {
                if let Some((step, from)) = ctx.overhead_from.take() {
                    let ms = self.env.precise_ms() - from;
                    let page_ms = std::mem::take(&mut ctx.overhead_page_ms);
                    self.events.emit(TaskEvent::StepOverhead { step, ms, page_ms });
                }
                ctx.shared.observed(&obs.url, self.env.now_ms());
                // What the page tried after the last action's report (a late submission in the
                // settle window) is told before the model reads the page again.
                for blocked in self.page.blocked_requests().await {
                    self.note(ctx, blocked.describe()).await;
                }
                record_observation(&mut ctx.taint, &obs);
                if ctx.scope.allowed().next().is_none()
                    && crate::safety::origin_of(&obs.url).is_some()
                {
                    // The tab the task started on is in scope; the user adds any other site.
                    let entry =
                        JournalEntry::SiteAllowed { origin: obs.url.clone(), sensitive: false };
                    self.write_or_warn(&entry).await;
                    ctx.apply(&entry);
                    // Sites the user allowed in Settings join it, as explicit grants.
                    for origin in ctx.spec.allowed_sites.clone() {
                        let entry = JournalEntry::SiteAllowed { origin, sensitive: true };
                        self.write_or_warn(&entry).await;
                        ctx.apply(&entry);
                    }
                }
                ctx.stuck.page(fingerprint(&obs.to_prompt("")));
                self.events.emit(TaskEvent::Observed {
                    url: obs.url.clone(),
                    title: obs.title.clone(),
                    engine: obs.engine.clone(),
                });
                Ok(obs)
            }
            Err(e) => {
                let msg = format!("Could not read the page: {e}");
                Err(self.finish(ctx, msg.clone(), false, Some(msg)).await)
            }
        }
    }

    pub(super) fn parts<'c>(
        &self,
        ctx: &'c TaskContext,
        observation: &'c Observation,
        nonce: &'c str,
        text_tools: &'c [ToolSpec],
    ) -> PromptParts<'c> {
        PromptParts {
            session_context: ctx.spec.session_context.as_deref(),
            task: &ctx.spec.task,
            guidance: &ctx.guidance,
            resources: &ctx.spec.resources,
            plan: ctx.plan.as_ref(),
            history: &ctx.steps,
            kept: &ctx.kept,
            recalled: &ctx.recalled,
            step: ctx.step,
            notes: &ctx.notes,
            observation,
            nonce,
            text_tools,
            nudge: None,
            correction: ctx.correction.as_deref(),
        }
    }

    /// One model call for `role`, raced against the user's Stop: a stopped call is dropped at
    /// once (the host cancels the upstream request) instead of running out its timeout.
    pub(super) async fn call(
        &self,
        ctx: &mut TaskContext,
        role: Role,
        messages: Vec<waymark_protocol::ChatMessage>,
        tools: Vec<ToolSpec>,
    ) -> Result<LlmCompletion, CallFailed> {
        ctx.shared.set_role(role, RoleState::Working);
        ctx.overhead_from = None;
        let tools = if ctx.spec.tool_mode == ToolMode::Native { tools } else { Vec::new() };
        // The model reads secrets only as handles, whatever part of the prompt holds them.
        let messages = super::handles::conceal_messages(&ctx.taint, messages);
        let max_tokens = Some(role.max_output_tokens());
        let request = LlmRequest { role, messages, tools, stream: true, max_tokens };
        let Some(reply) =
            unless_stopped(self.llm.complete(request), self.operator.stop_requested()).await
        else {
            ctx.shared.set_role(role, RoleState::Idle);
            return Err(CallFailed::Stopped);
        };
        if role == Role::Navigator {
            ctx.overhead_from = Some((ctx.step, self.env.precise_ms()));
            ctx.overhead_page_ms = 0.0;
        }
        let state = if reply.is_ok() { RoleState::Completed } else { RoleState::Failed };
        ctx.shared.set_role(role, state);
        if let Err(e) = &reply {
            ctx.shared.last_error = Some(e.message.clone());
        }
        reply.map_err(CallFailed::Llm)
    }

    /// Ends the task after the user stopped it during a model call of `role`.
    pub(super) async fn stopped_in_call(&self, ctx: &mut TaskContext, role: Role) -> Flow {
        let msg = format!(
            "Stopped by you after {} while the model was answering (as {}); that call was \
             cancelled and nothing of it was done. Every action that started was finished and \
             is listed.",
            counted(ctx.step, "step"),
            role.as_str()
        );
        self.finish_stopped(ctx, msg).await
    }

    async fn plan(
        &self,
        ctx: &mut TaskContext,
        observation: &Observation,
        nonce: &str,
        revise_because: Option<&str>,
    ) -> Flow {
        let first = ctx.plan.is_none();
        let context = self.parts(ctx, observation, nonce, &[]).role_context(RoleView::Planner);
        let messages = planner_messages(&context, revise_because);
        let reply = match self.call(ctx, Role::Planner, messages, vec![plan_tool()]).await {
            Ok(c) => c,
            Err(CallFailed::Stopped) => return self.stopped_in_call(ctx, Role::Planner).await,
            Err(CallFailed::Llm(e)) => {
                let msg = explain_llm_error(&e);
                return self.finish(ctx, msg.clone(), false, Some(msg)).await;
            }
        };
        let mut plan = match parse_plan(&reply) {
            Ok(plan) => plan,
            // The plan only advises: without one the navigator still works.
            Err(_) if first => Plan::default(),
            Err(_) => return Flow::Go,
        };
        let questions = std::mem::take(&mut plan.questions);
        if let Err(e) = self.journal.write(&JournalEntry::Planned { plan: plan.clone() }).await {
            return self.journal_failed(ctx, e).await;
        }
        ctx.plan = Some(plan.clone());
        self.events.emit(TaskEvent::Planned(plan));
        if first && !questions.is_empty() {
            let card = Intervention {
                kind: InterventionKind::Questions,
                title: "Before I start".into(),
                message: "A few things in the task are ambiguous:".into(),
                questions,
                allow_similar: None,
            };
            return self.intervene(ctx, card).await;
        }
        Flow::Go
    }

    /// Shows a card if its kind is on; stops on "stop", keeps any words as guidance.
    async fn intervene(&self, ctx: &mut TaskContext, card: Intervention) -> Flow {
        if !self.operator.settings().allows(card.kind) {
            return Flow::Go;
        }
        match self.ask_user(ctx, card).await {
            Ok(_) => Flow::Go,
            Err(flow) => flow,
        }
    }

    /// Puts a card to the user and waits: "stop" ends the task (`Err` with its end), any words
    /// become journaled guidance for the next calls; the reply is returned for the caller's own
    /// decision (an approval, for instance).
    pub(super) async fn ask_user(
        &self,
        ctx: &mut TaskContext,
        card: Intervention,
    ) -> Result<Reply, Flow> {
        let stopped = format!(
            "Stopped by you after {}; nothing of the last answer was done.",
            counted(ctx.step, "step")
        );
        self.ask_user_or_stop(ctx, card, stopped).await
    }

    /// [`Self::ask_user`] with the answer the task ends with when the user stops it.
    pub(super) async fn ask_user_or_stop(
        &self,
        ctx: &mut TaskContext,
        card: Intervention,
        stopped: String,
    ) -> Result<Reply, Flow> {
        ctx.overhead_from = None;
        let reply = self.operator.ask(card).await;
        if reply.stop {
            return Err(self.finish_stopped(ctx, stopped).await);
        }
        let text = reply.text.trim();
        if !text.is_empty() {
            let entry = JournalEntry::Guidance { text: text.to_owned() };
            if let Err(e) = self.journal.write(&entry).await {
                return Err(self.journal_failed(ctx, e).await);
            }
            ctx.apply(&entry);
        }
        Ok(reply)
    }

    async fn navigate(
        &self,
        ctx: &mut TaskContext,
        observation: &Observation,
        nonce: &str,
        nudge: Option<&str>,
    ) -> Flow {
        let page_tools = navigator_tools();
        let mut tools = page_tools.clone();
        tools.push(progress_tool());
        if !ctx.spec.recallable.is_empty() {
            tools.push(recall_tool());
        }
        let text_tools: &[ToolSpec] =
            if ctx.spec.tool_mode == ToolMode::JsonText { &tools } else { &[] };
        let mut parts = self.parts(ctx, observation, nonce, text_tools);
        parts.nudge = nudge;
        let messages = parts.messages();
        let reply = match self.call(ctx, Role::Navigator, messages, tools.clone()).await {
            Ok(c) => c,
            Err(CallFailed::Stopped) => return self.stopped_in_call(ctx, Role::Navigator).await,
            Err(CallFailed::Llm(e)) => {
                let msg = explain_llm_error(&e);
                return self.finish(ctx, msg.clone(), false, Some(msg)).await;
            }
        };
        let answer = match parse_answer(&reply) {
            Ok(a) => a,
            Err(e) if ctx.correction.is_none() => {
                ctx.correction = Some(e.to_string());
                ctx.shared.last_error = Some(e.to_string());
                return Flow::Go;
            }
            Err(e) => {
                let msg = format!(
                    "Stopped: the model's answer could not be understood twice in a row ({e}). \
                     Nothing was done on the page for that answer."
                );
                return self.finish(ctx, msg.clone(), false, Some(msg)).await;
            }
        };
        ctx.correction = None;
        if let Some(memory) = answer.progress.as_ref().and_then(|p| p.memory.as_deref()) {
            let memory = memory.trim();
            if !memory.is_empty() {
                let entry = JournalEntry::Kept { text: memory.to_owned() };
                self.write_or_warn(&entry).await;
                ctx.apply(&entry);
            }
        }
        for query in &answer.recalls {
            self.recall(ctx, query).await;
        }
        if let Some(report) = &answer.progress {
            let before = ctx.guidance.len();
            if let Flow::End(o) = self.review_progress(ctx, report).await {
                return Flow::End(o);
            }
            if ctx.guidance.len() > before {
                // The user adjusted course: their words go to the model before anything runs.
                return Flow::Go;
            }
        }
        self.execute(ctx, observation, answer.calls).await
    }

    /// Searches the session's older tasks for the model; the result is shown once, next call.
    async fn recall(&self, ctx: &mut TaskContext, query: &str) {
        const RECALL_LIMIT: usize = 3;
        let turns = crate::session::recall_turns(&ctx.spec.recallable, query, RECALL_LIMIT);
        let found = turns.len();
        let text: String = turns.iter().map(|t| t.text.as_str()).collect();
        let entry = JournalEntry::Recalled { step: ctx.step, query: query.to_owned(), text, turns };
        self.write_or_warn(&entry).await;
        ctx.apply(&entry);
        let text = format!("Searched earlier tasks for “{query}”: {}", counted(found, "match"));
        self.events.emit(TaskEvent::Noted { text });
    }

    /// CONFIDENCE, CHECKPOINT and SUB_GOAL_COMPLETE from the model's own report.
    async fn review_progress(
        &self,
        ctx: &mut TaskContext,
        report: &super::interventions::ProgressReport,
    ) -> Flow {
        ctx.progress = Some(report.clone());
        if let Some(doubt) = report.doubt() {
            let card = Intervention {
                kind: InterventionKind::Confidence,
                title: "Waymark is unsure".into(),
                message: format!("{doubt}\nContinue, tell me what to do instead, or stop."),
                questions: vec![],
                allow_similar: None,
            };
            if let Flow::End(o) = self.intervene(ctx, card).await {
                return Flow::End(o);
            }
        }
        if let Some(done) = report.sub_goal_done.as_deref().filter(|d| !d.trim().is_empty()) {
            let card = Intervention {
                kind: InterventionKind::SubGoalComplete,
                title: "Sub-goal done".into(),
                message: format!("{done}\nWhat next? Leave empty to continue with the plan."),
                questions: vec![],
                allow_similar: None,
            };
            if let Flow::End(o) = self.intervene(ctx, card).await {
                return Flow::End(o);
            }
        }
        if let Some(phase) = report.phase.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            let previous = ctx.phase.replace(phase.to_owned());
            if let Some(prev) = previous.filter(|p| !p.eq_ignore_ascii_case(phase)) {
                let done = ctx.steps.iter().filter(|s| s.outcome.ok).count();
                let card = Intervention {
                    kind: InterventionKind::Checkpoint,
                    title: format!("Checkpoint: {prev} → {phase}"),
                    message: format!(
                        "{} done so far on {}. {}\nContinue, or adjust?",
                        counted(done, "action"),
                        ctx.shared.url,
                        report.evaluation
                    ),
                    questions: vec![],
                    allow_similar: None,
                };
                return self.intervene(ctx, card).await;
            }
        }
        Flow::Go
    }

    pub(super) async fn execute(
        &self,
        ctx: &mut TaskContext,
        observation: &Observation,
        calls: Vec<Call>,
    ) -> Flow {
        let step = ctx.step;
        let mut acted = false;
        for (i, call) in calls.into_iter().take(MAX_ACTIONS_PER_STEP).enumerate() {
            if i > 0 {
                match self.gate_took_over(ctx).await {
                    Err(o) => return Flow::End(o),
                    // The refs of this answer may be stale now: ask the model afresh.
                    Ok(true) => break,
                    Ok(false) => {}
                }
            }
            let action = match call {
                Call::Refused { tool, reason } => {
                    ctx.stuck.action(&format!("call {tool}"), Some(&reason));
                    ctx.shared.last_error = Some(reason.clone());
                    self.note(ctx, reason).await;
                    continue;
                }
                Call::Act(action) => action,
            };
            let mut action = action;
            if let Action::Done { answer, success } = action {
                let failed_now = ctx.steps.last().is_some_and(|s| s.step == step && !s.outcome.ok);
                if failed_now {
                    break;
                }
                if !success || !ctx.spec.validate {
                    return self.finish(ctx, answer, success, None).await;
                }
                return self.validate(ctx, observation, answer, acted).await;
            }
            let target = action.target_ref().and_then(|r| observation.element(r));
            let mut description = action.describe(target.map(|el| el.name.as_str()));
            let mut located = None;
            // As the model wrote it (secrets as handles): what is journaled, shown and kept.
            let mut written: Option<Action> = None;
            let outcome = match action.target_ref() {
                Some(r) if target.is_none() => ActionOutcome::failed(format!(
                    "there is no element [{r}] on the current page; use a ref from it"
                )),
                _ => match self.reveal_handles(ctx, &action).await {
                    Err(refused) => *refused,
                    Ok(real) => {
                        if let Some(real) = real {
                            written = Some(std::mem::replace(&mut action, real));
                        }
                        match self.police(ctx, observation, &mut action).await {
                            Err(flow) => return flow,
                            Ok(Err(refused)) => refused,
                            Ok(Ok(cleared)) => {
                                located =
                                    locate(observation, &action, cleared.destination.as_deref());
                                // The policy may have rewritten a URL to the canonical form it
                                // judged; what is shown and journaled keeps the handles.
                                let shown = written.as_ref().unwrap_or(&action);
                                description = shown.describe(target.map(|el| el.name.as_str()));
                                let journaled = shown.clone();
                                let done = match &action {
                                    // Reads every page without the model; its page turns
                                    // pass the gate on their own.
                                    Action::Collect(spec) => {
                                        self.collect(ctx, step, observation, spec, &cleared.permit)
                                            .await
                                    }
                                    _ => {
                                        self.act_held(
                                            ctx,
                                            step,
                                            (&journaled, &action),
                                            &description,
                                            cleared.permit,
                                        )
                                        .await
                                    }
                                };
                                let outcome = match done {
                                    Ok(outcome) => outcome,
                                    Err(flow) => return flow,
                                };
                                acted = true;
                                // Extract and find output is page text the model reads: tracked
                                // with the origin of the document it was read in.
                                record_output(&mut ctx.taint, observation, &action, &outcome);
                                outcome
                            }
                        }
                    }
                },
            };
            let action = written.unwrap_or(action);
            let record = StepRecord { step, action, description, outcome, located };
            let stop_batch = !record.outcome.ok || record.outcome.navigated;
            if let Err(e) =
                self.journal.write(&JournalEntry::Outcome { record: record.clone() }).await
            {
                ctx.apply(&JournalEntry::Outcome { record: record.clone() });
                self.events.emit(TaskEvent::Acted(record));
                return self.journal_failed(ctx, e).await;
            }
            let now = self.env.now_ms();
            ctx.shared.acted(&record, now);
            ctx.stuck.action(&record.description, record.outcome.error.as_deref());
            ctx.apply(&JournalEntry::Outcome { record: record.clone() });
            self.events.emit(TaskEvent::Acted(record));
            if stop_batch {
                break;
            }
        }
        Flow::Go
    }

    /// The validator checks a success claim against the page before the answer is shown.
    async fn validate(
        &self,
        ctx: &mut TaskContext,
        observation: &Observation,
        answer: String,
        acted: bool,
    ) -> Flow {
        let fresh;
        let page = if acted {
            fresh = match self.observe(ctx).await {
                Ok(o) => o,
                Err(flow) => return flow,
            };
            &fresh
        } else {
            observation
        };
        let nonce = ctx.fence.clone();
        let context = self.parts(ctx, page, &nonce, &[]).role_context(RoleView::Validator);
        let messages = validator_messages(&context, &answer);
        let verdict = match self.call(ctx, Role::Validator, messages, vec![verdict_tool()]).await {
            Ok(reply) => parse_verdict(&reply).ok(),
            Err(CallFailed::Stopped) => {
                let msg = format!(
                    "Stopped by you after {} while the answer was being checked against the \
                     page; it is not confirmed: {answer}",
                    counted(ctx.step, "step")
                );
                return self.finish_stopped(ctx, msg).await;
            }
            Err(CallFailed::Llm(_)) => None,
        };
        // A validator that cannot answer does not block the answer: it only advises.
        let Some(verdict) = verdict.filter(|v| !v.confirmed) else {
            return self.finish(ctx, answer, true, None).await;
        };
        ctx.rejections += 1;
        let reason = if verdict.reason.is_empty() {
            "the page does not show it".into()
        } else {
            verdict.reason
        };
        if ctx.rejections >= MAX_REJECTED_CLAIMS {
            let msg = format!("{answer}\n(Not confirmed by the page: {reason})");
            let why = Some("the page does not confirm the answer".into());
            return self.end(ctx, msg, Ending::NotFinished, why).await;
        }
        self.note(ctx, format!("Your claim that the task is done was checked against the page and rejected: {reason}. Keep working."))
            .await;
        Flow::Go
    }

    /// Does a cleared action. A state-changing request its permit held is put to the user with
    /// what it carries; on approval exactly that request is released and the action done again
    /// (anything else the page then sends is held again, up to [`MAX_HOLDS_PER_ACTION`] cards).
    pub(super) async fn act_held(
        &self,
        ctx: &mut TaskContext,
        step: u32,
        (written, action): (&Action, &Action),
        description: &str,
        permit: crate::safety::NetworkPermit,
    ) -> Result<ActionOutcome, Flow> {
        let mut outcome = self.act_once(ctx, step, (written, action), description, &permit).await?;
        let mut permit = permit;
        // The request released in the last round, checked once its redo's blocks are known.
        // (and whether the write budget released it, rather than the user on a card).
        let mut redone: Option<(BlockedRequest, bool)> = None;
        for round in 0..=MAX_HOLDS_PER_ACTION {
            let blocked = self.report_blocked(&mut outcome).await;
            if let Some((pinned, by_budget)) = redone.take() {
                let site =
                    crate::safety::WebUrl::parse(&pinned.url).map(|u| u.site()).unwrap_or_default();
                let mut note = if by_budget {
                    format!(
                        "done again with what the page sends released: it fit the writes your \
                         task asks for ({} {site})",
                        pinned.method
                    )
                } else {
                    format!(
                        "done again after the user approved exactly what the page sends ({} \
                         {site})",
                        pinned.method
                    )
                };
                if let Some(said) = self.safety_gate().check_pinned(&pinned, &blocked).await.note()
                {
                    note = format!("{note}\n{said}");
                }
                outcome.text = Some(match outcome.text.take() {
                    Some(text) => format!("{note}\n{text}"),
                    None => note,
                });
            }
            if round == MAX_HOLDS_PER_ACTION {
                break;
            }
            let mut entries = Vec::new();
            let held = self
                .safety_gate()
                .held(ctx, action, description, &permit, &blocked, &mut entries)
                .await;
            self.journal_decisions(ctx, &entries).await?;
            let (released, pinned, by_budget) = match held {
                Held::Stopped => return Err(self.stopped_at_a_card(ctx).await),
                Held::Stands => break,
                Held::Release { permit, pinned, by_budget } => (*permit, *pinned, by_budget),
            };
            // A box ticked (or unticked) the first time sends nothing when ticked again: it
            // is put back first, with every write still held (what that sends is dropped).
            if let Some(back) = undo_of(action) {
                if let Err(e) = self.page.act(&back, &permit).await {
                    tracing::debug!("putting the box back before the redo failed: {e}");
                }
                self.page.blocked_requests().await;
            }
            permit = released;
            // Whatever went out before the redo is none of the card's business.
            self.page.sent_requests().await;
            outcome = self.act_once(ctx, step, (written, action), description, &permit).await?;
            redone = Some((pinned, by_budget));
        }
        Ok(outcome)
    }

    /// Journals the intent of an action as the model wrote it (secrets as handles), then
    /// performs it (with their values) under `permit`.
    async fn act_once(
        &self,
        ctx: &mut TaskContext,
        step: u32,
        (written, action): (&Action, &Action),
        description: &str,
        permit: &crate::safety::NetworkPermit,
    ) -> Result<ActionOutcome, Flow> {
        let intent = JournalEntry::Intent {
            step,
            action: written.clone(),
            description: description.to_owned(),
        };
        if let Err(e) = self.journal.write(&intent).await {
            return Err(self.journal_failed(ctx, e).await);
        }
        let started = self.env.precise_ms();
        let outcome = self.page.act(action, permit).await;
        ctx.overhead_page_ms += self.env.precise_ms() - started;
        Ok(outcome.unwrap_or_else(|e| ActionOutcome::failed(e.to_string())))
    }

    /// What the network layer blocked while the action ran joins its outcome: the user sees it
    /// in the timeline and the model learns the page tried to send somewhere it may not.
    async fn report_blocked(&self, outcome: &mut ActionOutcome) -> Vec<BlockedRequest> {
        let blocked = self.page.blocked_requests().await;
        if blocked.is_empty() {
            return blocked;
        }
        let lines: Vec<String> = blocked.iter().map(BlockedRequest::describe).collect();
        // The user sees it in the timeline's notes; the model in the outcome.
        for line in &lines {
            self.events.emit(TaskEvent::Noted { text: line.clone() });
        }
        let text = lines.join("\n");
        outcome.text = Some(match outcome.text.take() {
            Some(before) => format!("{before}\n{text}"),
            None => text,
        });
        blocked
    }

    pub(super) async fn note(&self, ctx: &mut TaskContext, text: String) {
        let entry = JournalEntry::Note { text: text.clone() };
        self.write_or_warn(&entry).await;
        ctx.apply(&entry);
        self.events.emit(TaskEvent::Noted { text });
    }

    /// Journals an entry whose loss costs a resumed task only a little, so the loop goes on
    /// without it: a note (a hint for the model), the start tab's site (a resumed task
    /// without it takes the site it reads first, as a new task does), the task's end (the
    /// worker records the turn from memory and clears the journal). The loss is logged.
    pub(super) async fn write_or_warn(&self, entry: &JournalEntry) {
        if let Err(e) = self.journal.write(entry).await {
            tracing::warn!(error = %e, "a journal entry was not saved; going on without it");
        }
    }

    pub(super) async fn journal_failed(&self, ctx: &mut TaskContext, error: JournalError) -> Flow {
        let msg = format!(
            "Stopped: the step could not be saved before acting ({error}), so nothing more was \
             done."
        );
        self.finish(ctx, msg.clone(), false, Some(msg)).await
    }

    pub(super) async fn finish(
        &self,
        ctx: &mut TaskContext,
        answer: String,
        success: bool,
        error: Option<String>,
    ) -> Flow {
        let last_refused = ctx.steps.last().is_some_and(|s| s.outcome.refused_by.is_some());
        let ending = match (success, &error) {
            (true, _) => Ending::Finished,
            (false, None) if last_refused => Ending::Refused,
            (false, None) => Ending::NotFinished,
            (false, Some(_)) => Ending::Failed,
        };
        self.end(ctx, answer, ending, error).await
    }

    /// The user stopped the task.
    pub(super) async fn finish_stopped(&self, ctx: &mut TaskContext, answer: String) -> Flow {
        self.end(ctx, answer, Ending::Stopped, Some("stopped by the user".into())).await
    }

    pub(super) async fn end(
        &self,
        ctx: &mut TaskContext,
        answer: String,
        ending: Ending,
        error: Option<String>,
    ) -> Flow {
        let outcome = TaskOutcome {
            answer,
            success: ending == Ending::Finished,
            error,
            steps: ctx.steps.clone(),
            step_count: ctx.step,
            elapsed_ms: self.env.now_ms() - ctx.spec.started_ms,
            ending,
        };
        let entry = JournalEntry::Finished { outcome: outcome.clone() };
        self.write_or_warn(&entry).await;
        ctx.apply(&entry);
        self.events.emit(TaskEvent::Finished(outcome.clone()));
        Flow::End(outcome)
    }
}

/// The action that puts a ticked or unticked box back, so that doing the action again sends
/// what it sent the first time.
fn undo_of(action: &Action) -> Option<Action> {
    match action {
        Action::Check { ref_id } => Some(Action::Uncheck { ref_id: *ref_id }),
        Action::Uncheck { ref_id } => Some(Action::Check { ref_id: *ref_id }),
        _ => None,
    }
}
