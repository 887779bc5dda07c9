//! The safety gate for an action an external agent (an MCP client such as Claude Code) asks
//! for: the same [`SafetyGate`] the agent's own loop goes through before each of its actions
//! (canonical URLs, the live element's facts, [`super::decide`]: scope, risk classes, the
//! write budget, information flow, outbound data, take-over classes; the card and the
//! re-check after approval); after it, the bridge's session asks the same gate about a
//! state-changing request the network layer held ([`SafetyGate::held`]).
//! No model is involved and nothing is journaled: the external agent's calls are not a
//! resumable task.

use super::context::TaskContext;
use super::control::Operator;
use super::gate::{GateVerdict, SafetyGate};
use super::{Env, Page, TaskEvents};
use crate::safety::NetworkPermit;
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::Observation;

/// The gate's ruling on one external action.
#[derive(Debug)]
pub enum Policed {
    /// Go on: the browser holds the tab to this permit while the action runs.
    Permit(NetworkPermit),
    /// Not done (refused by the policy or the user, or the element could not be checked).
    NotDone(ActionOutcome),
    /// The user stopped at a card.
    Stopped,
}

/// Runs the safety gate on `action` (rewritten to the canonical form it judged), asking the
/// user through `operator` when it says so.
pub async fn police_external<P: Page, E: Env, V: TaskEvents, O: Operator>(
    page: &P,
    env: &E,
    events: &V,
    operator: &O,
    ctx: &mut TaskContext,
    observation: &Observation,
    action: &mut Action,
) -> Policed {
    let gate = SafetyGate { page, env, events, operator };
    let mut entries = Vec::new();
    match gate.judge(ctx, observation, action, &mut entries).await {
        GateVerdict::Go(cleared) => Policed::Permit(cleared.permit),
        GateVerdict::NotDone(outcome) => Policed::NotDone(outcome),
        GateVerdict::Stopped => Policed::Stopped,
    }
}
