//! The user, as an external agent's actions meet them: the panel's controls, with every card
//! saying who asks, and a Stop at a card ending that agent's turn instead of a task.

use std::cell::{Cell, RefCell};

use crate::agent::{Gate, Intervention, InterventionKind, InterventionSettings, Operator, Reply};
use crate::safety::TaintLedger;
use waymark_protocol::BridgeProgress;

/// The progress that tells the agent of call `call` that it waits for the user at `card`.
pub fn awaiting_user(call: u64, card: &Intervention) -> BridgeProgress {
    let first = card.message.lines().next().unwrap_or_default();
    BridgeProgress {
        call,
        step: 0,
        message: format!("waiting for your approval in the Waymark panel: {first}"),
        awaiting_user: true,
    }
}

/// Told of each card as it goes up, before the user answers it (the worker tells the waiting
/// agent, whose call would otherwise look hung).
pub type OnCard = Box<dyn Fn(&Intervention)>;

/// The user's controls for one external agent's calls.
pub struct ExternalOperator<O> {
    inner: O,
    client: String,
    asked: Cell<Option<InterventionKind>>,
    stopped: Cell<bool>,
    on_card: Option<OnCard>,
    /// The agent's secrets: a card is told to it (as progress) with them as handles.
    secrets: RefCell<TaintLedger>,
}

impl<O: Operator> ExternalOperator<O> {
    /// Cards go to `inner` (the side panel), naming `client`.
    pub fn new(inner: O, client: &str) -> Self {
        Self {
            inner,
            client: client.to_owned(),
            asked: Cell::new(None),
            stopped: Cell::new(false),
            on_card: None,
            secrets: RefCell::new(TaintLedger::default()),
        }
    }

    /// Calls `on_card` with each card (as the user sees it) before waiting for its answer.
    pub fn with_on_card(mut self, on_card: OnCard) -> Self {
        self.on_card = Some(on_card);
        self
    }

    /// The secrets the agent knows by handle now: what it is told of a card shows their
    /// handles (the panel's card shows the real values, to the user).
    pub fn conceal_with(&self, secrets: TaintLedger) {
        *self.secrets.borrow_mut() = secrets;
    }

    /// Forgets what the previous call asked (called before each call).
    pub fn reset(&self) {
        self.asked.set(None);
        self.stopped.set(false);
    }

    /// The kind of card the current call showed, if any.
    pub fn asked(&self) -> Option<InterventionKind> {
        self.asked.get()
    }

    /// Whether the user pressed Stop at the current call's card.
    pub fn stopped(&self) -> bool {
        self.stopped.get()
    }
}

/// The card as the user sees it for an external agent's action: the heading and the first
/// line say who asks ("Claude Code wants to submit the form (“Save”) to …").
pub fn who_asks(client: &str, mut card: Intervention) -> Intervention {
    card.title = format!("{client}: {}", card.title);
    if card.kind == InterventionKind::TakeOver {
        card.message = format!("{client} asked for this.\n{}", card.message);
        return card;
    }
    let (first, rest) = card.message.split_once('\n').unwrap_or((&card.message, ""));
    let mut chars = first.chars();
    let first = match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect::<String>(),
        None => String::new(),
    };
    let asks = format!("{client} wants to {first}");
    card.message = if rest.is_empty() { asks } else { format!("{asks}\n{rest}") };
    card
}

impl<O: Operator> Operator for ExternalOperator<O> {
    async fn gate(&self) -> Gate {
        self.inner.gate().await
    }

    fn step_done(&self) {}

    async fn ask(&self, card: Intervention) -> Reply {
        self.asked.set(Some(card.kind));
        let card = who_asks(&self.client, card);
        if let Some(on_card) = &self.on_card {
            let secrets = self.secrets.borrow();
            let told = Intervention {
                title: secrets.conceal(&card.title),
                message: secrets.conceal(&card.message),
                ..card.clone()
            };
            on_card(&told);
        }
        let reply = self.inner.ask(card).await;
        if reply.stop {
            // Stop ends this agent's turn: the action is not done, and the worker
            // disconnects it.
            self.stopped.set(true);
            return Reply::default();
        }
        reply
    }

    fn settings(&self) -> InterventionSettings {
        self.inner.settings()
    }

    async fn stop_requested(&self) {
        self.inner.stop_requested().await
    }
}
