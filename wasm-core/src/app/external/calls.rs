//! One external agent's call: who may call now (the switch, a running task of theirs or of
//! Waymark's, a client that went away), one call at a time, and the answer the host relays.

use super::{App, BridgePlatform};
use crate::agent::OutputMode;
use crate::app::bridge_result;
use crate::bridge::{ExternalOperator, OnCard, awaiting_user};
use crate::platform::{Host, Panels, Redraw, Store};
use std::collections::BTreeMap;
use std::rc::Rc;
use waymark_protocol::{
    BridgeAnswer, BridgeCall, BridgeFailure, BridgeFailureKind, BridgeOutput, HostEvent,
};

/// A call an agent made, to answer (the caller runs [`App::answer_call`] in the background).
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingCall {
    /// The call's id (the answer names it).
    pub call: u64,
    /// The client that made it.
    pub client: u64,
    /// What it asks.
    pub request: BridgeCall,
}

fn busy_own_task() -> BridgeFailure {
    BridgeFailure::new(
        BridgeFailureKind::Busy,
        "Waymark's own agent is running a task in this browser; try again when it is done",
    )
}

fn disconnected() -> BridgeFailure {
    BridgeFailure::new(BridgeFailureKind::Stopped, "this agent was disconnected")
}

impl<S: Store + Clone> App<S> {
    /// An event of the open bridge: a client came or went (the panel follows), or a call
    /// arrived (returned, to answer).
    pub fn bridge_event(&self, p: &impl BridgePlatform, event: HostEvent) -> Option<IncomingCall> {
        match event {
            HostEvent::BridgeClient { client, name, connected: true } => {
                self.client_connected(p, client, &name);
                None
            }
            HostEvent::BridgeClient { client, connected: false, .. } => {
                self.client_gone(p, client, "");
                None
            }
            HostEvent::BridgeCall { call, client, request } => {
                Some(IncomingCall { call, client, request })
            }
            other => {
                tracing::debug!(?other, "an event the bridge does not use");
                None
            }
        }
    }

    /// Answers one call (the host waits for it); a call that ended at a Stop disconnects its
    /// agent afterwards.
    pub async fn answer_call(&self, p: &impl BridgePlatform, incoming: IncomingCall) {
        let IncomingCall { call, client, request } = incoming;
        let (result, stopped) = self.bridge_call(p, call, client, request).await;
        if let Err(e) = p.host().request(BridgeAnswer { call, result: result.into() }).await {
            tracing::warn!(code = %e.code, "a bridge answer was not delivered: {}", e.message);
        }
        if stopped {
            self.disconnect_external(p, client).await;
        }
    }

    /// The answer to one call, and whether the user stopped the agent at a card.
    pub(super) async fn bridge_call(
        &self,
        p: &impl BridgePlatform,
        call: u64,
        client: u64,
        request: BridgeCall,
    ) -> (Result<BridgeOutput, BridgeFailure>, bool) {
        if request == BridgeCall::Ping {
            return (Ok(BridgeOutput { text: "pong".into(), ..BridgeOutput::default() }), false);
        }
        if !self.state.borrow().external.enabled {
            let off = BridgeFailure::new(
                BridgeFailureKind::Off,
                "the user switched external agents off in Waymark's settings",
            );
            return (Err(off), false);
        }
        if let Some(task) = self.external.task.borrow().as_ref() {
            // A task runs for hours at worst: the other calls are told at once instead of
            // waiting.
            let busy = BridgeFailure::new(
                BridgeFailureKind::Busy,
                format!(
                    "Waymark's agent is running a task for {} in this browser; try again when \
                     it is done",
                    task.name
                ),
            );
            return (Err(busy), false);
        }
        if let BridgeCall::RunWorkflow { name, values } = request {
            return (self.run_workflow_for(p, &name, values).await, false);
        }
        let _turn = self.external.turn.acquire().await;
        self.call_in_turn(p, call, client, request).await
    }

    /// A saved workflow run for an external agent: Waymark's own task, which the panel shows
    /// and whose cards only the panel answers; the external agents' controls take the panel
    /// again after it. Busy while Waymark's own task runs.
    async fn run_workflow_for(
        &self,
        p: &impl BridgePlatform,
        name: &str,
        values: BTreeMap<String, String>,
    ) -> Result<BridgeOutput, BridgeFailure> {
        let ours = self.external.controls.borrow().clone();
        let current = self.controls.borrow().clone();
        let own_task = match (&ours, &current) {
            (Some(ours), Some(current)) => !Rc::ptr_eq(ours, current),
            (None, current) => current.is_some(),
            (Some(_), None) => false,
        };
        if own_task {
            return Err(busy_own_task());
        }
        let result = self.run_saved_workflow(p, name, values).await;
        if let Some(ours) = ours
            && self.controls.borrow().is_none()
            && !self.state.borrow().external.clients.is_empty()
        {
            *self.controls.borrow_mut() = Some(ours);
        }
        result
    }

    /// Runs the saved workflow `name` with `values` as a task of the user's session on the
    /// tab the user is looking at; the answer once it ended.
    async fn run_saved_workflow(
        &self,
        p: &impl BridgePlatform,
        name: &str,
        values: BTreeMap<String, String>,
    ) -> Result<BridgeOutput, BridgeFailure> {
        let run = self.workflows.for_bridge(name, values)?;
        let run = self.workflow_run(run, OutputMode::default());
        p.panels().show(Redraw::View);
        let end = self.run_task(p, run).await;
        if let Some(turn) = end.summary {
            p.summarise_later(turn);
        }
        bridge_result(end.outcome)
    }

    /// A call holding the turn: through the external agents' controls (made again after a
    /// task of theirs ended), unless Waymark's own task holds the panel.
    async fn call_in_turn(
        &self,
        p: &impl BridgePlatform,
        call: u64,
        client: u64,
        request: BridgeCall,
    ) -> (Result<BridgeOutput, BridgeFailure>, bool) {
        let Some(name) = self.state.borrow().external.name_of(client).map(str::to_owned) else {
            return (Err(disconnected()), false);
        };
        let Some(controls) = self.external_controls(p, &name) else {
            return (Err(busy_own_task()), false);
        };
        let Some(mut session) = self.external.sessions.borrow_mut().remove(&client) else {
            return (Err(disconnected()), false);
        };
        self.external.in_turn.set(Some(client));
        let (result, stopped) = match request {
            BridgeCall::RunTask { prompt, session: id } => {
                (self.client_task(p, call, client, &mut session, prompt, id).await, false)
            }
            request => {
                let sender = p.progress();
                let on_card: OnCard = Box::new(move |card| sender(awaiting_user(call, card)));
                let operator =
                    ExternalOperator::new(controls, session.client()).with_on_card(on_card);
                let result =
                    session.handle(request, p.browser(), p.env(), p.events(), &operator).await;
                (result, operator.stopped())
            }
        };
        self.external.in_turn.set(None);
        if self.state.borrow().external.name_of(client).is_some() {
            self.external.sessions.borrow_mut().insert(client, session);
        }
        (result, stopped)
    }
}
