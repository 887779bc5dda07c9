//! A whole task an external agent asks Waymark's own agent to do (`run_task`): the same loop,
//! model, policy and cards as a task the user types, with three differences that keep a
//! hostile MCP client from getting more through a task than through single calls:
//!
//! * what the agent read through its earlier calls goes into the task's taint ledger with the
//!   sites it was read on, and overrides the "user's words" source of the task text: a value
//!   read on one site and written into the task cannot be typed into another;
//! * it may continue only a session whose every turn an external agent asked for
//!   ([`may_continue`]): the user's own sessions' notes never reach it;
//! * every card names it ([`ClientTaskOperator`]), and only the side panel answers cards.
//!
//! What the task read afterwards joins the agent's own ledger, so its later calls cannot move
//! it elsewhere either.

use super::{Browser, ExternalSession, fenced, who_asks};
use crate::agent::{
    Agent, Gate, Intervention, InterventionSettings, Journal, JournalError, Operator, Reply,
    TaskContext, TaskEvents, TaskSpec,
};
use crate::platform::{Env, Llm};
use crate::record::{Ending, TaskOutcome};
use crate::session::{Session, TaskRecord};
use waymark_page::action::Refuser;
use waymark_protocol::{
    BridgeFailure, BridgeFailureKind, BridgeOutput, BridgeTaskReport, BridgeTaskStatus,
};

/// The user's controls for a task an external agent asked for: the task's own controls (Stop
/// ends the task, as for the user's), with every card saying who asked.
pub struct ClientTaskOperator<O> {
    inner: O,
    client: String,
    on_card: Option<super::OnCard>,
}

impl<O: Operator> ClientTaskOperator<O> {
    /// Cards go to `inner` (the side panel), naming `client`.
    pub fn new(inner: O, client: &str) -> Self {
        Self { inner, client: client.to_owned(), on_card: None }
    }

    /// Calls `on_card` with each card (as the user sees it) before waiting for its answer.
    pub fn with_on_card(mut self, on_card: super::OnCard) -> Self {
        self.on_card = Some(on_card);
        self
    }
}

impl<O: Operator> Operator for ClientTaskOperator<O> {
    async fn gate(&self) -> Gate {
        self.inner.gate().await
    }

    fn step_done(&self) {
        self.inner.step_done()
    }

    async fn ask(&self, card: Intervention) -> Reply {
        let card = who_asks(&self.client, card);
        if let Some(on_card) = &self.on_card {
            on_card(&card);
        }
        self.inner.ask(card).await
    }

    fn settings(&self) -> InterventionSettings {
        self.inner.settings()
    }

    async fn stop_requested(&self) {
        self.inner.stop_requested().await
    }
}

/// Whether an external agent may continue `session`: only one whose every turn an external
/// agent asked for (the user's own sessions keep their notes to themselves).
pub fn may_continue(session: &Session) -> Result<(), BridgeFailure> {
    if !session.records.is_empty() && session.records.iter().all(|r| r.asked_by.is_some()) {
        return Ok(());
    }
    Err(BridgeFailure::new(
        BridgeFailureKind::Refused,
        format!(
            "session {} was not started by an external agent (or the user added tasks of their \
             own): only sessions that waymark_run_task started can be continued; leave \
             `session` out to start a new one",
            session.id
        ),
    ))
}

impl ExternalSession {
    /// The spec of a task this agent asks for: its words, the files attached in the panel and
    /// the sites allowed in Settings, like the user's task; the worker adds the session's
    /// notes.
    pub fn task_spec(&self, prompt: &str) -> Result<TaskSpec, BridgeFailure> {
        let prompt = prompt.trim();
        if prompt.is_empty() {
            return Err(BridgeFailure::new(BridgeFailureKind::BadArguments, "give the task"));
        }
        Ok(TaskSpec {
            asked_by: Some(self.client().to_owned()),
            resources: self.spec().resources.clone(),
            allowed_sites: self.spec().allowed_sites.clone(),
            ..TaskSpec::new(prompt)
        })
    }

    /// Runs the task of `spec` with `agent` (whose operator names this agent on every card):
    /// the task knows what this agent read, and this agent learns what the task read.
    /// Afterwards this agent works on the tab the task ended on.
    pub async fn run_task<B, L, E, V, O, J>(
        &mut self,
        browser: &B,
        agent: &Agent<'_, L, B::Page, E, V, ClientTaskOperator<O>, J>,
        spec: TaskSpec,
    ) -> Result<(TaskContext, TaskOutcome), JournalError>
    where
        B: Browser,
        L: Llm,
        E: Env,
        V: TaskEvents,
        O: Operator,
        J: Journal,
    {
        let mut ctx = agent.start(spec).await?;
        ctx.taint.adopt_read(self.taint());
        let outcome = agent.run(&mut ctx).await;
        self.learn(&ctx, browser.tab_of(agent.page));
        Ok((ctx, outcome))
    }
}

/// How a task ended, as the external agent is told: a denial at a card is `denied`, a
/// refusal of the policy `refused`.
pub fn task_status(outcome: &TaskOutcome) -> BridgeTaskStatus {
    match outcome.ending {
        Ending::Finished => BridgeTaskStatus::Done,
        Ending::Stopped => BridgeTaskStatus::Stopped,
        Ending::Refused => {
            let by = outcome.steps.iter().rev().find_map(|s| s.outcome.refused_by);
            match by {
                Some(Refuser::User) => BridgeTaskStatus::Denied,
                _ => BridgeTaskStatus::Refused,
            }
        }
        Ending::NotFinished | Ending::Failed | Ending::Interrupted => BridgeTaskStatus::Failed,
    }
}

/// The tool's answer for a finished task: its status, the answer and findings of its
/// recorded turn (secrets the task knew are cut from them, as from the stored turn) fenced by
/// `nonce` as untrusted (they come from web pages), and the session to continue it in.
pub fn task_report(
    outcome: &TaskOutcome,
    record: &TaskRecord,
    session_id: &str,
    nonce: &str,
) -> BridgeOutput {
    let status = task_status(outcome);
    let report = BridgeTaskReport {
        status,
        answer: record.answer.clone(),
        summary: record.summary.clone(),
        findings: record.structured_data.clone(),
        session: session_id.to_owned(),
        turn: record.turn,
        steps: outcome.step_count,
    };
    let mut text = match status {
        BridgeTaskStatus::Done => {
            format!("Task done in {}.", crate::text::counted(outcome.step_count, "step"))
        }
        // Why is in the answer, inside the fence (it may quote the page).
        BridgeTaskStatus::Failed => "The task was not finished.".to_owned(),
        BridgeTaskStatus::Stopped => {
            "The user stopped the task in Waymark's side panel; do not run it again without \
             asking them."
                .to_owned()
        }
        BridgeTaskStatus::Denied => {
            "The user denied what the task needed in Waymark's side panel, so that was not \
             done; do not retry it."
                .to_owned()
        }
        BridgeTaskStatus::Refused => {
            "Waymark's safety policy refused what the task needed, so that was not done.".to_owned()
        }
    };
    let mut found = format!("Answer: {}", report.answer);
    if !report.summary.is_empty() && report.summary != report.answer {
        found.push_str(&format!("\nSummary: {}", report.summary));
    }
    for (key, value) in &report.findings {
        found.push_str(&format!("\n- {key}: {value}"));
    }
    text.push('\n');
    text.push_str(&fenced(nonce, &found));
    text.push_str(&format!(
        "\nSession: {session_id} (turn {}): pass it as `session` to waymark_run_task to \
         continue; session_toc and get_turn read it when Waymark's transcript capture is on.",
        report.turn
    ));
    BridgeOutput { text, task: Some(report), ..BridgeOutput::default() }
}

/// What a restarted worker does with an unfinished task an external agent asked for: it does
/// not resume it (the agent's call ended with the old worker, and the agent was told the task
/// may or may not have run, so no one waits for the answer and no one asked to go on); it
/// ends as failed with what was done. `None` for the user's own tasks, which resume.
pub fn not_resumed(ctx: &TaskContext, now_ms: f64) -> Option<TaskOutcome> {
    let client = ctx.spec.asked_by.as_deref()?;
    let answer = format!(
        "Waymark restarted while running this task for {client}, and did not resume it: \
         {client}'s call ended then. It had done {} by then; check the page to see how far it \
         got.",
        crate::text::counted(ctx.steps.len(), "action")
    );
    Some(TaskOutcome {
        answer: answer.clone(),
        success: false,
        error: Some(answer),
        steps: ctx.steps.clone(),
        step_count: ctx.step,
        elapsed_ms: now_ms - ctx.spec.started_ms,
        ending: Ending::Failed,
    })
}

/// Longest progress message sent to the external agent, in characters.
const MAX_PROGRESS_CHARS: usize = 200;

/// The progress an external agent is shown for one event of the task it asked for: each
/// action as the timeline words it (`(step, message)`); `None` for the rest.
pub fn progress_of(event: &crate::agent::TaskEvent) -> Option<(u32, String)> {
    match event {
        crate::agent::TaskEvent::Acted(record) => {
            let verdict = if record.outcome.ok { "done" } else { "not done" };
            let text = format!("Step {}: {} ({verdict})", record.step, record.description);
            Some((record.step, text.chars().take(MAX_PROGRESS_CHARS).collect()))
        }
        _ => None,
    }
}
