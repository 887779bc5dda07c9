//! Usage metering: every model call of the app goes through a [`Meter`], which adds its tokens
//! and cost to the task and the session, shows the calling role's LLM state (ready, rate
//! limited, key invalid) from the reply and the call's retry events, and streams the running
//! task's words to the panel at a bounded pace. The session's usage is stored with it.

use super::App;
use crate::panel::live::{Push, shows_live_text};
use crate::panel::{LlmState, Usage};
use crate::platform::{Llm, Redraw, Store, load_value};
use std::rc::Rc;
use waymark_protocol::{ErrorBody, HostEvent, LlmCompletion, LlmRequest, LlmRole};

/// Where the usage of session `session_id` is kept.
pub fn usage_key(session_id: &str) -> String {
    format!("usage:{session_id}")
}

/// A model whose calls report their events (streamed words, retries) as they happen.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait StreamingLlm {
    /// One completion; each of its events goes to `on_event` as it arrives.
    async fn complete_streaming(
        &self,
        request: LlmRequest,
        on_event: Rc<dyn Fn(HostEvent)>,
    ) -> Result<LlmCompletion, ErrorBody>;
}

/// What a [`Meter`] reaches while a call runs (its events come at any time): the app, the
/// clock, the panels and a timer.
pub trait MeterLink: Clone + 'static {
    /// The app's store.
    type Store: Store + Clone;
    /// The app whose state shows the usage.
    fn app(&self) -> &App<Self::Store>;
    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// Sends the panels the state.
    fn show(&self);
    /// Runs `then` in `ms` milliseconds.
    fn after(&self, ms: u32, then: Box<dyn FnOnce()>);
}

/// A model, metered for the panel.
pub struct Meter<L, M> {
    llm: L,
    link: M,
    for_task: bool,
}

impl<L, M> Meter<L, M> {
    /// `llm` metered through `link`; `for_task`: its calls belong to the running task (else
    /// they are background calls, such as summaries, which count for the session only).
    pub fn new(llm: L, link: M, for_task: bool) -> Self {
        Self { llm, link, for_task }
    }
}

impl<L: StreamingLlm, M: MeterLink> Llm for Meter<L, M> {
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        let role = request.role;
        let live = self.for_task && shows_live_text(role);
        let link = self.link.clone();
        let on_event: Rc<dyn Fn(HostEvent)> =
            Rc::new(move |event| on_event(&link, role, live, event));
        let result = self.llm.complete_streaming(request, on_event).await;
        if self.link.app().call_ended(role, &result, self.for_task) {
            self.link.show();
        }
        result
    }
}

/// One event of a running call: streamed text goes to the live view; a retry starts the
/// call's words over and, when it is about a rate limit, shows the role as rate limited with
/// the countdown.
fn on_event<M: MeterLink>(link: &M, role: LlmRole, live: bool, event: HostEvent) {
    let app = link.app();
    match event {
        HostEvent::LlmDelta { text } if live => {
            if !app.live_text(&text) {
                return;
            }
            match app.live.borrow_mut().on_delta(link.now_ms()) {
                Push::Now => link.show(),
                Push::After(ms) => {
                    let later = link.clone();
                    link.after(
                        ms,
                        Box::new(move || {
                            later.app().live.borrow_mut().fired(later.now_ms());
                            later.show();
                        }),
                    );
                }
                Push::Scheduled => {}
            }
        }
        HostEvent::LlmRetry { delay_ms, code, reason, .. } => {
            let mut state = app.state.borrow_mut();
            if live && let Some(task) = state.task.as_mut() {
                task.live_text.clear();
            }
            if let Some(llm) = LlmState::after_retry(code, &reason, delay_ms, link.now_ms()) {
                state.llm.set(role, llm);
            }
            drop(state);
            link.show();
        }
        _ => {}
    }
}

impl<S: Store + Clone> App<S> {
    /// A piece of the running task's model text arrived; whether a task shows it.
    fn live_text(&self, text: &str) -> bool {
        let mut state = self.state.borrow_mut();
        let Some(task) = state.task.as_mut() else { return false };
        task.stream_text(text);
        true
    }

    /// A call of `role` ended with `result`: its usage counts (for the task too when
    /// `for_task`), the role's state follows. Whether the panel needs redrawing.
    pub fn call_ended(
        &self,
        role: LlmRole,
        result: &Result<LlmCompletion, ErrorBody>,
        for_task: bool,
    ) -> bool {
        let mut state = self.state.borrow_mut();
        if for_task && let Some(task) = state.task.as_mut() {
            // The call ended: its words were streamed; the step's actions come next.
            task.live_text.clear();
        }
        match result {
            Ok(completion) => {
                state.llm.set(role, LlmState::after_success(completion));
                state.session_usage.add(completion);
                if for_task && let Some(task) = state.task.as_mut() {
                    task.usage.add(completion);
                }
                true
            }
            Err(error) => match LlmState::after_error(error) {
                Some(llm) => {
                    state.llm.set(role, llm);
                    true
                }
                None => false,
            },
        }
    }

    /// Keeps the session's usage with the current session: when that changed, the usage
    /// starts over and the id whose stored usage to load ([`App::load_usage`]) is returned.
    pub fn follow_usage(&self) -> Option<String> {
        let id = self.sessions.current().id.clone();
        let mut state = self.state.borrow_mut();
        if state.usage_session_id == id {
            return None;
        }
        state.usage_session_id = id.clone();
        state.session_usage = Usage::default();
        Some(id)
    }

    /// Loads session `id`'s stored usage, if it is still the current one; calls made while
    /// loading are added on top. Whether the panel needs redrawing.
    pub async fn load_usage(&self, id: &str) -> bool {
        let Some(stored) = load_value::<Usage>(&self.store, &usage_key(id)).await else {
            return false;
        };
        let mut state = self.state.borrow_mut();
        if state.usage_session_id != id {
            return false;
        }
        let live = state.session_usage;
        state.session_usage = stored;
        state.session_usage += live;
        true
    }

    /// Stores the session's usage (after each task); a failure is told in the panel. Whether
    /// the panel needs redrawing (it failed).
    pub async fn save_session_usage(&self) -> Redraw {
        let (id, usage) = {
            let state = self.state.borrow();
            (state.usage_session_id.clone(), state.session_usage)
        };
        if id.is_empty() {
            return Redraw::Nothing;
        }
        match self.store_json(&usage_key(&id), &usage).await {
            Ok(()) => Redraw::Nothing,
            Err(e) => {
                tracing::warn!(error = %e, "could not save the session's usage");
                self.state.borrow_mut().storage_error =
                    Some(format!("Could not save the session's usage to browser storage ({e})."));
                Redraw::View
            }
        }
    }
}

#[cfg(test)]
mod tests;
