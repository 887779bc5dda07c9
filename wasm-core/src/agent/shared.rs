//! The shared context every role sees: where the task stands, in a few lines.

use super::StepRecord;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt::Write;

/// Actions kept in the shared context: enough to see a loop or a pattern of failures, small
/// enough to keep every call's prompt short.
pub const SHARED_RECENT_ACTIONS: usize = 20;

/// What a role is doing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleState {
    /// Not called yet, or waiting for its turn.
    #[default]
    Idle,
    /// Its call is in flight.
    Working,
    /// Its last call succeeded.
    Completed,
    /// Its last call failed.
    Failed,
}

/// The roles of the loop are the protocol's, so the host sees the same names (and may map
/// each to its own model); the loop calls the planner, navigator and validator.
pub use waymark_protocol::LlmRole as Role;

/// One line of the recent-actions list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecentAction {
    /// The action in words.
    pub description: String,
    /// Whether it worked.
    pub ok: bool,
    /// Why not.
    pub error: Option<String>,
}

/// State visible to planner, navigator and validator alike.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SharedContext {
    /// The user's goal.
    pub goal: String,
    /// Current page URL.
    pub url: String,
    /// The last [`SHARED_RECENT_ACTIONS`] actions, oldest first.
    pub recent: VecDeque<RecentAction>,
    /// Planner state.
    pub planner: RoleState,
    /// Navigator state.
    pub navigator: RoleState,
    /// Validator state.
    pub validator: RoleState,
    /// The latest error of any kind.
    pub last_error: Option<String>,
    /// When the last action finished (ms since the epoch).
    pub last_action_ms: Option<f64>,
    /// When the page last loaded or navigated (ms since the epoch).
    pub last_load_ms: Option<f64>,
}

impl SharedContext {
    /// A fresh context for `goal`.
    pub fn new(goal: &str) -> Self {
        Self { goal: goal.to_owned(), ..Self::default() }
    }

    /// Sets a role's state.
    pub fn set_role(&mut self, role: Role, state: RoleState) {
        match role {
            Role::Planner => self.planner = state,
            Role::Navigator => self.navigator = state,
            Role::Validator => self.validator = state,
            // The summariser runs after the task, outside the shared context.
            Role::Summariser => {}
        }
    }

    /// Records a page read at `now`: a new URL counts as a page load.
    pub fn observed(&mut self, url: &str, now: f64) {
        if self.url != url {
            self.url = url.to_owned();
            self.last_load_ms = Some(now);
        }
    }

    /// Records one action's outcome.
    pub fn acted(&mut self, record: &StepRecord, now: f64) {
        if self.recent.len() == SHARED_RECENT_ACTIONS {
            self.recent.pop_front();
        }
        self.recent.push_back(RecentAction {
            description: record.description.clone(),
            ok: record.outcome.ok,
            error: record.outcome.error.clone(),
        });
        if let Some(e) = &record.outcome.error {
            self.last_error = Some(e.clone());
        }
        if record.outcome.navigated {
            self.last_load_ms = Some(now);
        }
        self.last_action_ms = Some(now);
    }

    /// Writes the context for a prompt, with ages relative to `now`.
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    pub fn write(&self, out: &mut String, now: f64) {
        let _ = writeln!(out, "Shared context:");
        let _ = writeln!(out, "- goal: {}", self.goal);
        if !self.url.is_empty() {
            let _ = writeln!(out, "- url: {}", self.url);
        }
        let _ = writeln!(
            out,
            "- roles: planner {}, navigator {}, validator {}",
            state_word(self.planner),
            state_word(self.navigator),
            state_word(self.validator)
        );
        if let Some(e) = &self.last_error {
            let _ = writeln!(out, "- last error: {e}");
        }
        let age = |t: Option<f64>| t.map(|t| format!("{:.1} s ago", (now - t).max(0.0) / 1000.0));
        if let Some(a) = age(self.last_action_ms) {
            let _ = writeln!(out, "- last action: {a}");
        }
        if let Some(a) = age(self.last_load_ms) {
            let _ = writeln!(out, "- last page load: {a}");
        }
        if !self.recent.is_empty() {
            let _ = writeln!(out, "- recent actions (oldest first):");
            for a in &self.recent {
                match &a.error {
                    None => {
                        let _ = writeln!(out, "  - {} → ok", a.description);
                    }
                    Some(e) => {
                        let _ = writeln!(out, "  - {} → failed: {e}", a.description);
                    }
                }
            }
        }
    }
}

fn state_word(state: RoleState) -> &'static str {
    match state {
        RoleState::Idle => "idle",
        RoleState::Working => "working",
        RoleState::Completed => "completed",
        RoleState::Failed => "failed",
    }
}
