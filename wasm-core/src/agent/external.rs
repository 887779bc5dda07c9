//! The safety policy for an action an external agent (an MCP client such as Claude Code) asks
//! for: exactly the code the agent's own loop runs before each of its actions ([`police`]):
//! canonical URLs, the live element's facts, [`super::decide`] (scope, risk classes, outbound
//! data, take-over classes), the card and the re-check after an approval. No model is asked
//! and nothing is journaled: the external agent's calls are not a resumable task.
//!
//! [`police`]: Agent::police

use super::context::TaskContext;
use super::control::Operator;
use super::runner::{Agent, NoJournal};
use super::{Env, Llm, Page, TaskEvents};
use crate::action::{Action, ActionOutcome};
use crate::observation::Observation;
use crate::protocol::{ErrorBody, ErrorCode, LlmCompletion, LlmRequest};
use crate::safety::NetworkPermit;

/// The policy's ruling on one external action.
#[derive(Debug)]
pub enum Policed {
    /// Go on: the browser holds the tab to this permit while the action runs.
    Permit(NetworkPermit),
    /// Not done (refused by the policy or the user, or the element could not be checked).
    NotDone(ActionOutcome),
    /// The user stopped at a card.
    Stopped,
}

/// No model: the policy never calls one (the type only completes the agent's parts).
struct NoModel;

impl Llm for NoModel {
    async fn complete(&self, _request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        Err(ErrorBody::new(ErrorCode::NotConfigured, "external agents bring their own model"))
    }
}

/// Runs the agent's own safety policy on `action` (rewritten to the canonical form it judged),
/// asking the user through `operator` when it says so.
pub async fn police_external<P: Page, E: Env, V: TaskEvents, O: Operator>(
    page: &P,
    env: &E,
    events: &V,
    operator: &O,
    ctx: &mut TaskContext,
    observation: &Observation,
    action: &mut Action,
) -> Policed {
    let agent = Agent { llm: &NoModel, page, env, events, operator, journal: &NoJournal };
    match agent.police(ctx, observation, action).await {
        Ok(Ok((permit, _))) => Policed::Permit(permit),
        Ok(Err(outcome)) => Policed::NotDone(outcome),
        Err(_) => Policed::Stopped,
    }
}
