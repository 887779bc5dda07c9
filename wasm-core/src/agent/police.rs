//! The safety policy in the loop: before an action's intent is journaled, the loop asks the
//! one safety gate ([`SafetyGate`]) and journals what the user decided at its cards; the
//! helpers here say what the gate judges (the live element's facts, where an action sends).

use super::context::{ExpectedDestination, JournalEntry, TaskContext};
use super::control::Operator;
use super::gate::{Cleared, GateVerdict, SafetyGate};
use super::interventions::{Intervention, InterventionKind};
use super::policy::as_drop_target;
use super::runner::{Agent, Flow};
use super::{Env, Journal, Llm, Page, TaskEvents};
use crate::safety::{ActionTarget, WebUrl};
use crate::text::counted;
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::Observation;

impl<L: Llm, P: Page, E: Env, V: TaskEvents, O: Operator, J: Journal> Agent<'_, L, P, E, V, O, J> {
    /// The loop's safety gate: this agent's page, clock, timeline and user.
    pub(super) fn safety_gate(&self) -> SafetyGate<'_, P, E, V, O> {
        SafetyGate { page: self.page, env: self.env, events: self.events, operator: self.operator }
    }

    /// Journals what the user decided at the gate's cards (before the action it allows).
    pub(super) async fn journal_decisions(
        &self,
        ctx: &mut TaskContext,
        entries: &[JournalEntry],
    ) -> Result<(), Flow> {
        for entry in entries {
            if let Err(e) = self.journal.write(entry).await {
                return Err(self.journal_failed(ctx, e).await);
            }
        }
        Ok(())
    }

    /// What the task ends with when the user stops it at one of the gate's cards.
    pub(super) async fn stopped_at_a_card(&self, ctx: &mut TaskContext) -> Flow {
        let msg = format!(
            "Stopped by you after {}; nothing of the last answer was done.",
            counted(ctx.step, "step")
        );
        self.finish_stopped(ctx, msg).await
    }

    /// The safety gate for one action, before its intent is journaled: `Ok(Ok(cleared))` to
    /// go on (the browser enforces its permit while the action runs), `Ok(Err(outcome))` when
    /// it is refused (by the policy or the user), `Err` when the user stopped the task at a
    /// card (or a decision could not be journaled).
    pub(super) async fn police(
        &self,
        ctx: &mut TaskContext,
        observation: &Observation,
        action: &mut Action,
    ) -> Result<Result<Cleared, ActionOutcome>, Flow> {
        let mut entries = Vec::new();
        let verdict = self.safety_gate().judge(ctx, observation, action, &mut entries).await;
        self.journal_decisions(ctx, &entries).await?;
        match verdict {
            GateVerdict::Go(cleared) => Ok(Ok(*cleared)),
            GateVerdict::NotDone(outcome) => Ok(Err(outcome)),
            GateVerdict::Stopped => Err(self.stopped_at_a_card(ctx).await),
        }
    }
}

/// Whether the task's write budget covers state-changing requests to `origin`: the user's
/// words asked for a write, and the origin is the tab the task started on or a site the
/// words name.
pub(crate) fn writes_granted(ctx: &TaskContext, origin: &str) -> bool {
    ctx.budget.grants_writes() && (ctx.start.as_deref() == Some(origin) || ctx.budget.names(origin))
}

/// The facts the policy judges for `action`: a drop's target without its link and form (a
/// drop follows and submits neither), everything else as described.
pub(super) fn judged_facts(action: &Action, facts: ActionTarget) -> ActionTarget {
    match action {
        Action::Drag { .. } => as_drop_target(&facts),
        _ => facts,
    }
}

/// The card for a workflow step that would send somewhere other than when it was recorded
/// (`None` when it sends where it did, or nowhere).
pub(super) fn new_destination(
    expected: &ExpectedDestination,
    live: Option<&str>,
    what: &str,
) -> Option<Intervention> {
    if let Some(review) = &expected.review {
        // An imported workflow's first run: every step that changes something is shown as
        // what it does (its author's label is only quoted) and asked about.
        return Some(Intervention {
            kind: InterventionKind::Confirm,
            title: "Confirm: a step of an imported workflow".into(),
            message: format!(
                "{what}{}\nStep {} of the imported workflow “{}”, first run: {}. Its author \
                 called it “{}”. Approve only if this is what you want done.",
                live.map(|l| format!(" (sends to {l})")).unwrap_or_default(),
                expected.step,
                expected.workflow,
                review.does,
                review.label
            ),
            questions: vec![],
            allow_similar: None,
        });
    }
    let live = live?;
    let was = match &expected.recorded {
        Some(recorded) if recorded.matches(live) => return None,
        Some(recorded) => format!("it sent to {recorded}"),
        None => "it sent nothing".to_owned(),
    };
    Some(Intervention {
        kind: InterventionKind::Confirm,
        title: "Confirm: this step now sends somewhere new".into(),
        message: format!(
            "{what} (sends to {live})\nStep {} of the workflow “{}”: when it was recorded {was}. \
             Approve only if you expect this.",
            expected.step, expected.workflow
        ),
        questions: vec![],
        allow_similar: None,
    })
}

/// Where a free action submits a form, as judged: the browser lets a document be POSTed only
/// there while the action runs.
pub(super) fn submitted_to(action: &Action, facts: Option<&ActionTarget>) -> Option<String> {
    let t = facts?;
    let submits = t.submits_form || matches!(action, Action::PressKeys { .. });
    let form_action = t.form_action.as_deref().filter(|_| submits)?;
    WebUrl::parse(form_action).ok().map(|u| u.as_str().to_owned())
}

/// Where an approved action sends, in the canonical form the policy judged: a submission's
/// final action URL, a link's target, a navigation's URL; `None` for actions that send nowhere
/// themselves.
pub(super) fn approved_destination(
    action: &Action,
    facts: Option<&ActionTarget>,
) -> Option<String> {
    let raw = match (action, facts) {
        (Action::Navigate { url } | Action::OpenTab { url }, _) => Some(url.as_str()),
        (_, Some(t)) if t.submits_form || matches!(action, Action::PressKeys { .. }) => {
            t.form_action.as_deref().or(t.href.as_deref())
        }
        (_, Some(t)) => t.href.as_deref(),
        _ => None,
    }?;
    WebUrl::parse(raw).ok().map(|u| u.as_str().to_owned())
}
