//! The external agents' desk (MCP clients through the host's bridge): keeps `bridge.open` in
//! flight while the user allows external agents, retrying with a growing pause when the host
//! goes away; each client's session; the controls their cards go through; one call at a time
//! (the page is one); what the panel says when they come and go. The calls themselves are in
//! [`calls`], a whole task an agent asks for in [`task`].
//!
//! Why in the core: when to retry, what the user reads and who holds the panel are decisions,
//! tested natively against fakes of [`BridgePlatform`].

mod calls;

pub use calls::IncomingCall;
mod task;
#[cfg(test)]
mod tests;

use super::{App, TaskPlatform};
use crate::agent::{Controls, Reply};
use crate::bridge::{Browser, ExternalSession};
use crate::panel::TaskView;
use crate::platform::{Host, Panels, Redraw, Store};
use crate::session::Limiter;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use waymark_protocol::{
    BridgeClose, BridgeClosed, BridgeDisconnect, BridgeProgress, ErrorBody, ErrorCode,
};

/// The first pause before opening the bridge again after the host went away.
pub const FIRST_RETRY_MS: u32 = 250;

/// The longest pause before opening the bridge again.
pub const MAX_RETRY_MS: u32 = 5_000;

/// The pause after `delay`: doubled, at most [`MAX_RETRY_MS`].
pub fn next_retry(delay: u32) -> u32 {
    delay.saturating_mul(2).min(MAX_RETRY_MS)
}

/// What the external agents need of the platform beyond a task's.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait BridgePlatform: TaskPlatform {
    /// The browser's tabs, with pages of the task's kind.
    type Browser: Browser<Page = Self::Page>;
    /// The browser's tabs.
    fn browser(&self) -> &Self::Browser;
    /// Keeps `bridge.open` in flight until the host closes it (or goes away); its events
    /// (clients, calls) go to [`App::bridge_event`] meanwhile.
    async fn open_bridge(&self) -> Result<BridgeClosed, ErrorBody>;
    /// Waits `ms` milliseconds.
    async fn sleep(&self, ms: u32);
    /// What tells an agent waiting for a call how far it got (each sent in the background;
    /// cards open at any time, so it outlives the call that made it).
    fn progress(&self) -> Rc<dyn Fn(BridgeProgress)>;
}

/// A running task an external agent asked for.
struct ClientTask {
    /// The client that asked.
    client: u64,
    /// Its name.
    name: String,
    /// The task's controls (the client going away stops it).
    controls: Rc<Controls>,
}

/// The external agents' state.
pub struct ExternalDesk {
    /// Each connected agent's session, by client id.
    sessions: RefCell<BTreeMap<u64, ExternalSession>>,
    /// The controls cards go through while external agents are connected.
    controls: RefCell<Option<Rc<Controls>>>,
    /// A `bridge.open` is in flight (or being retried).
    opening: Cell<bool>,
    /// One call at a time: the page is one.
    turn: Limiter,
    /// The task an external agent asked for, while it runs.
    task: RefCell<Option<ClientTask>>,
    /// The client whose call holds the turn (its card is withdrawn when it goes away).
    in_turn: Cell<Option<u64>>,
}

impl Default for ExternalDesk {
    fn default() -> Self {
        Self {
            sessions: RefCell::default(),
            controls: RefCell::default(),
            opening: Cell::new(false),
            turn: Limiter::new(1),
            task: RefCell::default(),
            in_turn: Cell::new(None),
        }
    }
}

impl ExternalDesk {
    /// Stops the task client `client` asked for, if it runs (the client went away).
    fn stop_task_of(&self, client: u64) {
        if let Some(task) = self.task.borrow().as_ref().filter(|t| t.client == client) {
            task.controls.stop();
        }
    }

    /// A card open for an external agent is answered with Stop (it is then not done).
    fn stop_card(&self) {
        if let Some(c) = self.controls.borrow().as_ref()
            && c.snapshot().card.is_some()
        {
            c.answer(Reply::stop());
        }
    }
}

impl<S: Store + Clone> App<S> {
    /// Keeps `bridge.open` in flight while the switch is on: the host streams clients and
    /// calls on it; when the host goes away the bridge opens again on a new one, after a
    /// pause that grows while it fails. Returns at once when a loop already runs.
    pub async fn keep_bridge_open(&self, p: &impl BridgePlatform) {
        if self.external.opening.replace(true) {
            return;
        }
        let mut delay = FIRST_RETRY_MS;
        while self.state.borrow().external.enabled {
            self.all_gone(p, "");
            match p.open_bridge().await {
                Ok(closed) => {
                    tracing::info!(reason = %closed.reason, "the bridge closed");
                    delay = FIRST_RETRY_MS;
                }
                Err(e) if e.code == ErrorCode::HostUnavailable => {
                    self.state.borrow_mut().external.error = Some(format!(
                        "The Waymark host is not running ({}); Waymark tries again. If this \
                         stays, run `waymark-host doctor` in a terminal.",
                        e.message
                    ));
                    p.panels().show(Redraw::View);
                }
                Err(e) => {
                    self.state.borrow_mut().external.error = Some(format!(
                        "External agents cannot connect: {}. Switch external agents off and on \
                         again once fixed.",
                        e.with_advice()
                    ));
                    self.all_gone(p, "");
                    break;
                }
            }
            if !self.state.borrow().external.enabled {
                break;
            }
            p.sleep(delay).await;
            delay = next_retry(delay);
        }
        self.external.opening.set(false);
    }

    /// External agents were switched off: a card open for one is answered Stop, the bridge
    /// closes and its clients go.
    pub async fn close_bridge(&self, p: &impl BridgePlatform) {
        self.external.stop_card();
        if let Err(e) = p.host().request(BridgeClose {}).await {
            tracing::warn!(code = %e.code, "bridge.close failed: {}", e.message);
        }
        self.all_gone(p, "External agents were switched off.");
    }

    /// The panel's Disconnect: a card open for an external agent is answered Stop and the
    /// host drops the client.
    pub async fn disconnect_external(&self, p: &impl BridgePlatform, client: u64) {
        self.external.stop_card();
        if let Err(e) = p.host().request(BridgeDisconnect { client }).await {
            tracing::debug!(code = %e.code, "disconnect: {}", e.message);
        }
    }

    /// Every client is gone (the bridge closed): the panel says so (`note`, else who left).
    fn all_gone(&self, p: &impl BridgePlatform, note: &str) {
        let ids: Vec<u64> = self.state.borrow().external.clients.iter().map(|c| c.id).collect();
        for id in ids {
            self.client_gone(p, id, note);
        }
    }

    /// An agent connected: it gets a session (the sites allowed in Settings, the files
    /// attached in the panel) and the panel shows it.
    fn client_connected(&self, p: &impl BridgePlatform, client: u64, name: &str) {
        let (sites, files) = {
            let state = self.state.borrow();
            let files =
                state.attachments.iter().map(|a| (a.name.clone(), a.path.clone())).collect();
            (state.settings.agent.allowed_sites.clone(), files)
        };
        self.external
            .sessions
            .borrow_mut()
            .insert(client, ExternalSession::new(name, sites, files));
        self.state.borrow_mut().external.connected(client, name);
        // Busy (Waymark's own task holds the panel): its controls come with its first call.
        let _held = self.external_controls(p, name);
        p.panels().show(Redraw::View);
    }

    /// The controls the external agents' cards go through: made (with a timeline of their
    /// own) when none are, unless Waymark's own task holds the panel (`None`: busy).
    fn external_controls(&self, p: &impl BridgePlatform, name: &str) -> Option<Rc<Controls>> {
        let ours = self.external.controls.borrow().clone();
        let current = self.controls.borrow().clone();
        match (ours, current) {
            (Some(ours), Some(current)) if Rc::ptr_eq(&ours, &current) => Some(ours),
            (_, Some(_)) => None,
            (_, None) => {
                // The timeline shows the external agent's actions like a task's; cards go
                // through the same controls the panel answers.
                let heading = format!("{name} is using this browser through Waymark");
                self.state.borrow_mut().task = Some(TaskView::started(&heading));
                let controls = self.attach_controls(p, false, None);
                *self.external.controls.borrow_mut() = Some(controls.clone());
                Some(controls)
            }
        }
    }

    /// An agent went away: a task it asked for stops with it, and a card it waits at is
    /// withdrawn (answered with Stop: not done), since no one waits for its answer. The last
    /// one gone gives the panel back.
    fn client_gone(&self, p: &impl BridgePlatform, client: u64, note: &str) {
        self.external.stop_task_of(client);
        if self.external.in_turn.get() == Some(client) {
            self.external.stop_card();
        }
        let name = self.state.borrow().external.name_of(client).map(str::to_owned);
        self.external.sessions.borrow_mut().remove(&client);
        self.state.borrow_mut().external.gone(client);
        let last = self.state.borrow().external.clients.is_empty();
        if last && let Some(ours) = self.external.controls.borrow_mut().take() {
            let mine = self.controls.borrow().as_ref().is_some_and(|c| Rc::ptr_eq(c, &ours));
            if mine {
                *self.controls.borrow_mut() = None;
            }
            if let Some(task) = self.state.borrow_mut().task.as_mut().filter(|_| mine) {
                task.running = false;
                let who = name.unwrap_or_else(|| "The external agent".into());
                let words =
                    if note.is_empty() { format!("{who} disconnected.") } else { note.to_owned() };
                task.answer = Some(words.clone());
                task.heading = words;
                task.controls = Default::default();
            }
        }
        p.panels().show(Redraw::View);
    }
}
