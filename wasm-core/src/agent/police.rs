//! The safety policy in the loop: before an action's intent is journaled, its live target is
//! described, [`decide`] rules, and a card asks the user when the decision says so.

use super::context::{ExpectedDestination, JournalEntry, TaskContext};
use super::control::Operator;
use super::interventions::{Intervention, InterventionKind};
use super::policy::{
    Decision, as_drop_target, canonical, decide, judged_ref, needs_facts, record_sends,
};
use super::runner::{Agent, Flow};
use super::{Env, Journal, Llm, Page, TaskEvents};
use crate::action::{Action, ActionOutcome, Refuser};
use crate::observation::Observation;
use crate::safety::{ActionTarget, NetworkPermit, WebUrl};

/// An action the policy lets go.
#[derive(Debug)]
pub(super) struct Cleared {
    /// What the browser lets the tab reach while it runs.
    pub permit: NetworkPermit,
    /// Where it sends data, as judged (canonical URL), if anywhere.
    pub destination: Option<String>,
    /// The live element's facts as judged (for actions on an element).
    pub facts: Option<ActionTarget>,
}

impl<L: Llm, P: Page, E: Env, V: TaskEvents, O: Operator, J: Journal> Agent<'_, L, P, E, V, O, J> {
    /// The safety policy for one action, before its intent is journaled: `Ok(Ok(cleared))` to
    /// go on (the browser enforces its permit while the action runs), `Ok(Err(outcome))` when
    /// it is refused (by the policy or the user), `Err` when the user stopped the task at a
    /// card. A navigation's URL is rewritten in `action` to the canonical form the policy
    /// judged, so the journal and the browser get exactly that string. A workflow step whose
    /// destination differs from the recorded one is always put to the user.
    pub(super) async fn police(
        &self,
        ctx: &mut TaskContext,
        observation: &Observation,
        action: &mut Action,
    ) -> Result<Result<Cleared, ActionOutcome>, Flow> {
        match canonical(action) {
            Ok(judged) => *action = judged,
            Err(refusal) => return Ok(Err(ActionOutcome::refused(Refuser::Policy, refusal))),
        }
        let action = &*action;
        let facts = if needs_facts(action) {
            let target = judged_ref(action);
            let started = self.env.precise_ms();
            let described = self.page.describe(target).await.map(|f| judged_facts(action, f));
            ctx.overhead_page_ms += self.env.precise_ms() - started;
            match described {
                Ok(facts) => Some(facts),
                Err(e) => {
                    return Ok(Err(ActionOutcome::failed(format!(
                        "the element could not be checked before acting ({e}); observe again"
                    ))));
                }
            }
        } else {
            None
        };
        let destination = approved_destination(action, facts.as_ref());
        let mut decision = decide(
            action,
            facts.as_ref(),
            observation,
            &ctx.spec.resources,
            &ctx.scope,
            &ctx.taint,
        );
        if let Some(expected) = ctx.replay_expect.take()
            && matches!(decision, Decision::Go | Decision::Remembered)
            && let Some(card) = new_destination(
                &expected,
                destination.as_deref(),
                &action.describe(
                    action
                        .target_ref()
                        .and_then(|r| observation.element(r))
                        .map(|e| e.name.as_str()),
                ),
            )
        {
            decision = Decision::Confirm { card, allow: None, similar: None };
        }
        let (card, allow, similar, refusal) = match decision {
            Decision::Go => {
                record_sends(&mut ctx.taint, action, facts.as_ref(), observation);
                let permit = match submitted_to(action, facts.as_ref()) {
                    Some(form_action) => NetworkPermit::submitting(&ctx.scope, &form_action),
                    None => NetworkPermit::within(&ctx.scope),
                };
                return Ok(Ok(Cleared { permit, destination, facts }));
            }
            Decision::Remembered => {
                record_sends(&mut ctx.taint, action, facts.as_ref(), observation);
                let permit = NetworkPermit::approved(&ctx.scope, destination.as_deref());
                return Ok(Ok(Cleared { permit, destination, facts }));
            }
            Decision::Refuse(reason) => {
                return Ok(Err(ActionOutcome::refused(Refuser::Policy, reason)));
            }
            Decision::Confirm { card, allow, similar } => {
                let what = card.message.lines().next().unwrap_or_default().to_owned();
                (
                    card,
                    allow,
                    similar,
                    format!("refused by the user: they did not approve “{what}”"),
                )
            }
            Decision::TakeOver { card, reason } => (
                card,
                None,
                None,
                format!("{reason}; the user was asked to do it and may have changed the page"),
            ),
        };
        let confirm = card.kind == super::InterventionKind::Confirm;
        let reply = self.ask_user(ctx, card).await?;
        if !(confirm && reply.approve) {
            // A take-over is the user doing it by hand, not a refusal.
            return Ok(Err(if confirm {
                ActionOutcome::refused(Refuser::User, refusal)
            } else {
                ActionOutcome::failed(refusal)
            }));
        }
        // The user approved what the card showed: the element must still be exactly that (a
        // page could rewrite a form's action while the card was open).
        if let Some(approved) = &facts {
            let now = self.page.describe(judged_ref(action)).await.map(|f| judged_facts(action, f));
            if now.as_ref() != Ok(approved) {
                return Ok(Err(ActionOutcome::failed(
                    "not done: the element changed while the user was deciding (what they \
                     approved is no longer what it would do); observe again",
                )));
            }
        }
        let site = allow.map(|(origin, sensitive)| JournalEntry::SiteAllowed { origin, sensitive });
        // "Allow this kind of action on this site" counts only where the card offered it.
        let kind = similar
            .filter(|_| reply.allow_similar)
            .map(|(class, origin)| JournalEntry::SimilarAllowed { class, origin });
        for entry in site.into_iter().chain(kind) {
            if let Err(e) = self.journal.write(&entry).await {
                return Err(self.journal_failed(ctx, e).await);
            }
            ctx.apply(&entry);
        }
        record_sends(&mut ctx.taint, action, facts.as_ref(), observation);
        let permit = NetworkPermit::approved(&ctx.scope, destination.as_deref());
        Ok(Ok(Cleared { permit, destination, facts }))
    }
}

/// The facts the policy judges for `action`: a drop's target without its link and form (a
/// drop follows and submits neither), everything else as described.
fn judged_facts(action: &Action, facts: ActionTarget) -> ActionTarget {
    match action {
        Action::Drag { .. } => as_drop_target(&facts),
        _ => facts,
    }
}

/// The card for a workflow step that would send somewhere other than when it was recorded
/// (`None` when it sends where it did, or nowhere).
fn new_destination(
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
fn submitted_to(action: &Action, facts: Option<&ActionTarget>) -> Option<String> {
    let t = facts?;
    let submits = t.submits_form || matches!(action, Action::PressKeys { .. });
    let form_action = t.form_action.as_deref().filter(|_| submits)?;
    WebUrl::parse(form_action).ok().map(|u| u.as_str().to_owned())
}

/// Where an approved action sends, in the canonical form the policy judged: a submission's
/// final action URL, a link's target, a navigation's URL; `None` for actions that send nowhere
/// themselves.
fn approved_destination(action: &Action, facts: Option<&ActionTarget>) -> Option<String> {
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
