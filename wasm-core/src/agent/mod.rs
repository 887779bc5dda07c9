//! The agent loop: observe, ask the model, check, act, record; until done or out of steps.
//!
//! Target-independent: it only sees the platform through the traits below, so native tests
//! drive it with fakes and the service worker drives it with Chrome.

mod parse;
mod prompt;
mod tools;

pub use parse::{ParseError, extract_json, parse_actions};
pub use prompt::{PromptParts, SYSTEM_RULES};
pub use tools::navigator_tools;

use crate::action::{Action, ActionOutcome};
use crate::observation::Observation;
use crate::protocol::{ErrorBody, LlmCompletion, LlmRequest};
use serde::{Deserialize, Serialize};

/// Steps before a task stops on its own; enough for a form or a search, small enough to cap
/// cost when the model wanders.
pub const DEFAULT_MAX_STEPS: u32 = 25;

/// At most this many actions of one answer run before the page is observed again.
pub const MAX_ACTIONS_PER_STEP: usize = 5;

/// The model, through the native host.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Llm {
    /// One completion; `on_delta` sees streamed text as it arrives.
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody>;
}

/// The tab the agent works on.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Page {
    /// A fresh observation (which also renews the refs).
    async fn observe(&self) -> Result<Observation, String>;
    /// Performs one action on the latest observation's refs.
    async fn act(&self, action: &Action) -> Result<ActionOutcome, String>;
}

/// Time and randomness.
pub trait Env {
    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// A random number, for delimiters the page cannot guess.
    fn random_u64(&self) -> u64;
}

/// Receives progress as it happens (the side panel renders it).
pub trait TaskEvents {
    /// Something happened.
    fn emit(&self, event: TaskEvent);
}

/// Progress of a running task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TaskEvent {
    /// A step began (1-based).
    StepStarted {
        /// Step number.
        step: u32,
    },
    /// The page was read.
    Observed {
        /// Page URL.
        url: String,
        /// Page title.
        title: String,
        /// Which build read it (`wasm` or `wasm2js`).
        engine: String,
    },
    /// An action finished.
    Acted(StepRecord),
    /// The task ended.
    Finished(TaskOutcome),
}

/// One performed action and its outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step it belonged to.
    pub step: u32,
    /// The action.
    pub action: Action,
    /// In plain words, with its target.
    pub description: String,
    /// What happened.
    pub outcome: ActionOutcome,
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskOutcome {
    /// The answer for the user (or why it stopped).
    pub answer: String,
    /// Whether the task succeeded.
    pub success: bool,
    /// Set when the task stopped on an error rather than by the model's choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every action performed.
    pub steps: Vec<StepRecord>,
    /// Number of model steps used.
    pub step_count: u32,
    /// Wall time from start to end.
    pub elapsed_ms: f64,
}

/// Runs one task to its end.
pub async fn run_task(
    task: &str,
    max_steps: u32,
    llm: &impl Llm,
    page: &impl Page,
    env: &impl Env,
    events: &impl TaskEvents,
) -> TaskOutcome {
    let started = env.now_ms();
    let mut history: Vec<StepRecord> = Vec::new();
    let finish = |history: Vec<StepRecord>, step, answer: String, success, error| {
        let outcome = TaskOutcome {
            answer,
            success,
            error,
            steps: history,
            step_count: step,
            elapsed_ms: env.now_ms() - started,
        };
        events.emit(TaskEvent::Finished(outcome.clone()));
        outcome
    };
    let mut correction: Option<String> = None;
    let mut step = 0;
    while step < max_steps {
        step += 1;
        events.emit(TaskEvent::StepStarted { step });
        let observation = match page.observe().await {
            Ok(obs) => obs,
            Err(e) => {
                let msg = format!("Could not read the page: {e}");
                return finish(history, step, msg.clone(), false, Some(msg));
            }
        };
        events.emit(TaskEvent::Observed {
            url: observation.url.clone(),
            title: observation.title.clone(),
            engine: observation.engine.clone(),
        });
        let nonce = format!("{:016x}", env.random_u64());
        let parts = PromptParts {
            task,
            history: &history,
            observation: &observation,
            nonce: &nonce,
            correction: correction.as_deref(),
        };
        let request = LlmRequest {
            role: "navigator".into(),
            messages: parts.messages(),
            tools: navigator_tools(),
            stream: true,
            max_tokens: Some(1024),
        };
        let completion = match llm.complete(request).await {
            Ok(c) => c,
            Err(e) => {
                let msg = explain_llm_error(&e);
                return finish(history, step, msg.clone(), false, Some(msg));
            }
        };
        let actions = match parse_actions(&completion) {
            Ok(actions) => actions,
            Err(e) if correction.is_none() => {
                correction = Some(e.to_string());
                continue;
            }
            Err(e) => {
                let msg = format!(
                    "Stopped: the model's answer could not be understood twice in a row ({e}). \
                     Nothing was done on the page for that answer."
                );
                return finish(history, step, msg.clone(), false, Some(msg));
            }
        };
        correction = None;
        for action in actions.into_iter().take(MAX_ACTIONS_PER_STEP) {
            if let Action::Done { answer, success } = action {
                let last_failed = history.last().is_some_and(|s| s.step == step && !s.outcome.ok);
                if !last_failed {
                    return finish(history, step, answer, success, None);
                }
                break;
            }
            let target = action.target_ref().and_then(|r| observation.element(r));
            let description = action.describe(target.map(|el| el.name.as_str()));
            let outcome = match action.target_ref() {
                Some(r) if target.is_none() => ActionOutcome::failed(format!(
                    "there is no element [{r}] on the current page; use a ref from it"
                )),
                _ => page.act(&action).await.unwrap_or_else(ActionOutcome::failed),
            };
            let record = StepRecord { step, action, description, outcome };
            events.emit(TaskEvent::Acted(record.clone()));
            let stop_batch = !record.outcome.ok || record.outcome.navigated;
            history.push(record);
            if stop_batch {
                break;
            }
        }
    }
    let msg = format!("Stopped after {max_steps} steps without finishing the task.");
    finish(history, step, msg.clone(), false, Some(msg))
}

/// Words for the side panel for each host error.
pub fn explain_llm_error(error: &ErrorBody) -> String {
    use crate::protocol::ErrorCode as C;
    let what = match error.code {
        C::LlmUnreachable => "The model endpoint could not be reached",
        C::LlmAuth => "The model endpoint rejected the API key",
        C::LlmModelNotFound => "The model endpoint does not know the configured model",
        C::LlmRateLimited => "The model endpoint is rate limiting requests",
        C::LlmBadResponse => "The model endpoint returned something that is not a chat completion",
        C::LlmHttp => "The model endpoint returned an error",
        C::NotConfigured => "No model is configured in the Waymark host",
        C::Cancelled => "The model call was cancelled",
        _ => "The model call failed",
    };
    format!("{what} ({}): {}", error.code, error.message)
}

#[cfg(test)]
mod tests;
