//! The LLM as the panel sees it: every model call of the worker goes through [`MeteredLlm`],
//! which adds its tokens and cost to the task and the session and derives the LLM's state
//! of the calling role (ready, rate limited, key invalid) from the reply and the call's own
//! retry events.

use super::env::BrowserEnv;
use super::{Worker, chrome, storage};
use crate::host_port::HostClient;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen_futures::spawn_local;
use waymark_core::panel::live::{Push, PushThrottle, shows_live_text};
use waymark_core::panel::{LlmState, Usage};
use waymark_core::platform::{Env, Llm};
use waymark_protocol::{ErrorBody, HostEvent, LlmCompletion, LlmRequest, LlmRole};

/// The host's LLM, metered for the panel.
pub(super) struct MeteredLlm {
    /// Where the calls go.
    pub host: Rc<HostClient>,
    /// Where the usage is shown.
    pub worker: Weak<Worker>,
    /// Whether the calls belong to the running task (false: background summaries, which count
    /// for the session only).
    pub for_task: bool,
}

impl Llm for MeteredLlm {
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        let role = request.role;
        let call = CallContext {
            worker: self.worker.clone(),
            role,
            live: self.for_task && shows_live_text(role),
        };
        let on_event: Rc<dyn Fn(HostEvent)> = Rc::new(move |event| call.on_event(event));
        let result = self.host.complete_with_events(request, on_event).await;
        if let Some(w) = self.worker.upgrade() {
            record(&w, role, &result, self.for_task);
        }
        result
    }
}

/// What one call's events update.
struct CallContext {
    worker: Weak<Worker>,
    /// The role that called: its LLM state changes.
    role: LlmRole,
    /// Whether its streamed words go to the task's live view.
    live: bool,
}

impl CallContext {
    /// Streamed text goes to the live view; a retry starts the call's words over and, when it
    /// is about a rate limit, shows the role as rate limited with the countdown.
    fn on_event(&self, event: HostEvent) {
        let Some(w) = self.worker.upgrade() else { return };
        match event {
            HostEvent::LlmDelta { text } if self.live => on_delta(&w, &text),
            HostEvent::LlmRetry { delay_ms, code, reason, .. } => {
                {
                    let mut state = w.app.state.borrow_mut();
                    if self.live
                        && let Some(task) = state.task.as_mut()
                    {
                        task.live_text.clear();
                    }
                    let now = BrowserEnv.now_ms();
                    if let Some(llm) = LlmState::after_retry(code, &reason, delay_ms, now) {
                        state.llm.set(self.role, llm);
                    }
                }
                w.broadcast();
            }
            _ => {}
        }
    }
}

thread_local! {
    /// Paces the panel updates that streamed text causes.
    static LIVE_THROTTLE: RefCell<PushThrottle> = RefCell::new(PushThrottle::default());
}

/// A piece of the running task's model text arrived: into the panel's live view, and the
/// panel updated at most once per [`waymark_core::panel::live::LIVE_PUSH_INTERVAL_MS`].
fn on_delta(w: &Rc<Worker>, text: &str) {
    {
        let mut state = w.app.state.borrow_mut();
        let Some(task) = state.task.as_mut() else { return };
        task.stream_text(text);
    }
    match LIVE_THROTTLE.with(|t| t.borrow_mut().on_delta(BrowserEnv.now_ms())) {
        Push::Now => w.broadcast(),
        Push::After(ms) => {
            let w = w.clone();
            spawn_local(async move {
                chrome::sleep(ms).await;
                LIVE_THROTTLE.with(|t| t.borrow_mut().fired(BrowserEnv.now_ms()));
                w.broadcast();
            });
        }
        Push::Scheduled => {}
    }
}

fn record(
    w: &Rc<Worker>,
    role: LlmRole,
    result: &Result<LlmCompletion, ErrorBody>,
    for_task: bool,
) {
    {
        let mut state = w.app.state.borrow_mut();
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
            }
            Err(error) => match LlmState::after_error(error) {
                Some(llm) => state.llm.set(role, llm),
                None => return,
            },
        }
    }
    w.broadcast();
}

fn usage_key(session_id: &str) -> String {
    format!("usage:{session_id}")
}

/// Keeps the session's usage with the current session: when it changed, loads the new one's.
pub(super) fn follow_session(w: &Rc<Worker>) {
    let id = w.app.sessions.current().id.clone();
    {
        let mut state = w.app.state.borrow_mut();
        if state.usage_session_id == id {
            return;
        }
        state.usage_session_id = id.clone();
        state.session_usage = Usage::default();
    }
    let w = w.clone();
    spawn_local(async move {
        let Some(stored) = storage::load_json::<Usage>(&usage_key(&id)).await else { return };
        let mut state = w.app.state.borrow_mut();
        if state.usage_session_id == id {
            // Calls made while loading are added on top of what was stored.
            let live = state.session_usage;
            state.session_usage = stored;
            state.session_usage += live;
            drop(state);
            w.broadcast();
        }
    });
}

/// Stores the session's usage (after each task).
pub(super) async fn save_session_usage(w: &Rc<Worker>) {
    let (id, usage) = {
        let state = w.app.state.borrow();
        (state.usage_session_id.clone(), state.session_usage)
    };
    if !id.is_empty() {
        let saved = storage::save_json(&usage_key(&id), &usage).await;
        super::storage_result(w, "the session's usage", saved);
    }
}
