//! The agent loop: observe, ask the model, check, act, record; until done or out of steps.
//!
//! Target-independent: it only sees the platform through the traits below, so native tests
//! drive it with fakes and the service worker drives it with Chrome.

mod closed_tab;
mod collect;
mod context;
mod control;
mod external;
mod gate;
mod handles;
mod interventions;
mod journal;
mod output;
mod parse;
mod police;
mod policy;
mod prompt;
mod replay;
mod role_tools;
mod roles;
mod runner;
mod script_send;
mod shared;
mod stuck;
mod tools;

pub use collect::{Collector, Next as CollectNext};
pub use context::{INTERRUPTED, JournalEntry, ReplayState, TaskContext, TaskSpec, ToolMode};
pub use control::{ControlState, Controls, Gate, Operator};
pub use external::{Policed, police_external};
pub use gate::{Cleared, GateVerdict, Held, Pinned, SafetyGate};
pub use handles::{misplaced_handle, reveal_handles};
pub use interventions::{
    Attention, Intervention, InterventionKind, InterventionSettings, LOW_CONFIDENCE,
    MAX_UPFRONT_QUESTIONS, ProgressReport, Reply, attention, hedges,
};
pub use journal::{
    DamageReport, JournalError, Recovery, StoredJournal, interrupted_outcome, load_active,
};
pub use output::{OutputMode, render_output};
pub use parse::{Call, NavigatorAnswer, ParseError, parse_actions, parse_answer};
pub use policy::{Decision, decide, needs_facts, record_observation, record_output};
pub use prompt::{PromptPart, PromptParts, SYSTEM_RULES};
pub use role_tools::{
    PLAN_TOOL, PROGRESS_TOOL, VERDICT_TOOL, plan_tool, progress_tool, verdict_tool,
};
pub use roles::{PLANNER_RULES, Plan, PlanStep, VALIDATOR_RULES, Verdict};
pub use runner::{
    Agent, AutoOperator, MAX_REJECTED_CLAIMS, NoJournal, REPLAN_EVERY_STEPS, StepResult,
};
pub use script_send::MAX_HOLDS_PER_ACTION;
pub use shared::{Role, RoleState, SHARED_RECENT_ACTIONS, SharedContext};
pub use stuck::{ASK_AFTER, NUDGE_AFTER, REPLAN_AFTER, StuckDetector, StuckLevel, fingerprint};
pub use tools::{OFFERED_TOOLS, navigator_tools};

use crate::platform::{Env, Llm};
use crate::record::{Ending, Located, StepRecord, TaskOutcome};
use crate::safety::{ActionTarget, BlockedRequest, NetworkPermit};
use serde::{Deserialize, Serialize};
pub use waymark_page::PageError;
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::{Observation, Ref};
use waymark_protocol::ErrorBody;

/// Steps before a task stops on its own; enough for a form or a search, small enough to cap
/// cost when the model wanders.
pub const DEFAULT_MAX_STEPS: u32 = 25;

/// At most this many actions of one answer run before the page is observed again.
pub const MAX_ACTIONS_PER_STEP: usize = 5;

/// The tab the agent works on. Its errors keep their kind ([`PageError`]): the loop decides
/// on the kind (a closed tab asks the user for another), the words are for the model and user.
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Page {
    /// A fresh observation (which also renews the refs). A tab that is gone is
    /// [`PageError::TabClosed`].
    async fn observe(&self) -> Result<Observation, PageError>;
    /// Performs one action on the latest observation's refs; while it runs (and for a short
    /// settle window after) the tab may reach only what `permit` allows.
    async fn act(
        &self,
        action: &Action,
        permit: &NetworkPermit,
    ) -> Result<ActionOutcome, PageError>;
    /// The facts of the live element an action targets (`None`: the focused element of the
    /// top frame), for the safety policy: read from the page, never taken from the model.
    async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError>;
    /// Requests the network layer blocked since the last call (what a page tried to send
    /// where the task did not allow), for the timeline and the model.
    async fn blocked_requests(&self) -> Vec<BlockedRequest> {
        Vec::new()
    }
    /// State-changing requests that went out since the last call, with what they carried
    /// when the browser showed it: what an approved request really sent is checked against
    /// what its card showed.
    async fn sent_requests(&self) -> Vec<BlockedRequest> {
        Vec::new()
    }
    /// What each form of the page would submit now and what its fields hold, for the write
    /// budget's baseline ([`crate::safety::baseline`]); nothing where it cannot be read.
    async fn forms(&self) -> crate::safety::target::PageBaseline {
        crate::safety::target::PageBaseline::default()
    }
    /// Why the browser could not pin the body of the last action's approved request
    /// (`safety::network::pin`: the debugger could not attach, or Chrome ended it), once;
    /// `None` when it pinned or there was nothing to pin.
    async fn unpinned(&self) -> Option<String> {
        None
    }
    /// How the dialogs the next actions open are answered: by Waymark with `answer`, or by
    /// the user in the browser when `None` (the default: pages that never show one need
    /// nothing, so fakes keep it).
    fn answer_dialogs(&self, _answer: Option<waymark_page::dialog::DialogAnswer>) {}
    /// After the task's tab closed: go on with the tab the user is looking at now; its URL.
    async fn adopt_active_tab(&self) -> Result<String, PageError> {
        Err(PageError::Unsupported)
    }
}

/// Write-ahead persistence of a task: each entry is durable before the loop goes on, so a
/// restarted service worker resumes without repeating a side effect ([`StoredJournal`] keeps
/// it in a key-value store).
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Journal {
    /// Stores one entry durably.
    async fn write(&self, entry: &JournalEntry) -> Result<(), JournalError>;
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
    /// The planner wrote or revised the plan.
    Planned(Plan),
    /// The agent's own time for a step: from the navigator's reply received to the next
    /// observation ready, without the model, the user or waits at a pause.
    StepOverhead {
        /// The step whose reply started the measurement.
        step: u32,
        /// Milliseconds in all.
        ms: f64,
        /// Of which inside the page calls (content-script round trips, DOM walk, actions).
        page_ms: f64,
    },
    /// Something the user should see in the timeline (a refusal, a rejected claim, a nudge).
    Noted {
        /// The note.
        text: String,
    },
    /// The task ended.
    Finished(TaskOutcome),
}

/// Words for the side panel for each host error.
pub fn explain_llm_error(error: &ErrorBody) -> String {
    use waymark_protocol::ErrorCode as C;
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
    format!("{what} ({}): {}", error.code, error.with_advice())
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod tests;
