//! Whether the LLM answers, per role: ready, rate limited with a countdown, key invalid, …,
//! derived from the host's replies, retry events and errors. Roles can use different
//! endpoints, so one role's bad key must not hide behind another role's success.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use waymark_protocol::{ErrorBody, ErrorCode, LlmCompletion, LlmRole};

/// The LLM as the panel explains it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LlmState {
    /// No call made yet.
    #[default]
    Unknown,
    /// The last call worked.
    Ready {
        /// The model that answered.
        model: String,
    },
    /// The endpoint rate-limits us; the host waits and retries.
    RateLimited {
        /// When the host tries again (ms since the epoch), if it retries.
        retry_at_ms: Option<f64>,
        /// What the endpoint said.
        message: String,
    },
    /// The endpoint rejected the API key.
    KeyInvalid {
        /// What the endpoint said.
        message: String,
        /// What the user should do.
        fix: String,
    },
    /// Any other LLM failure the user can act on (unreachable, unknown model, not configured).
    Failing {
        /// What went wrong.
        message: String,
        /// What the user should do.
        fix: String,
    },
}

impl LlmState {
    /// The state after the host announced a retry; `None` when the retry is not about rate
    /// limits (the state then stays as it was). The failure's code says which it is.
    pub fn after_retry(code: ErrorCode, reason: &str, delay_ms: u64, now_ms: f64) -> Option<Self> {
        (code == ErrorCode::LlmRateLimited).then(|| Self::RateLimited {
            retry_at_ms: Some(now_ms + delay_ms as f64),
            message: reason.to_owned(),
        })
    }

    /// The state after a failed call; `None` for failures that say nothing about the LLM
    /// (cancelled calls, a missing host, which the host status line explains).
    pub fn after_error(error: &ErrorBody) -> Option<Self> {
        // The host's command-line advice travels apart (`hint`); the panel gives its own fix.
        let message = error.message.clone();
        Some(match error.code {
            ErrorCode::LlmRateLimited => Self::RateLimited { retry_at_ms: None, message },
            ErrorCode::LlmAuth => Self::KeyInvalid {
                message,
                fix:
                    "Set a valid API key in Settings (or `waymark-host config set llm.api_key -`)."
                        .to_owned(),
            },
            code => {
                let fix = match code {
                    ErrorCode::LlmModelNotFound => {
                        "Choose a model the endpoint serves in Settings."
                    }
                    ErrorCode::LlmUnreachable => {
                        "Check the base URL in Settings and that the endpoint is running; then Check setup."
                    }
                    ErrorCode::NotConfigured => {
                        "Set a provider, base URL and model in Settings; then Check setup."
                    }
                    ErrorCode::LlmHttp | ErrorCode::LlmBadResponse => {
                        "Run Check setup in Settings to test the endpoint."
                    }
                    _ => return None,
                };
                Self::Failing { message, fix: fix.to_owned() }
            }
        })
    }

    /// The state after a call that worked.
    pub fn after_success(completion: &LlmCompletion) -> Self {
        Self::Ready { model: completion.model.clone() }
    }
}

/// The last known state of each role that has called the LLM (navigator, planner, …). The
/// panel receives it as the lines to show ([`LlmLine`]), worked out here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "LlmStatesView", into = "LlmStatesView")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(as = "LlmStatesView"))]
pub struct LlmStates {
    roles: BTreeMap<LlmRole, LlmState>,
}

/// How [`LlmStates`] travels: the states by role, and the lines the panel draws.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LlmStates"))]
struct LlmStatesView {
    #[serde(default)]
    roles: BTreeMap<LlmRole, LlmState>,
    #[serde(default)]
    lines: Vec<LlmLine>,
}

impl From<LlmStatesView> for LlmStates {
    fn from(view: LlmStatesView) -> Self {
        Self { roles: view.roles }
    }
}

impl From<LlmStates> for LlmStatesView {
    fn from(states: LlmStates) -> Self {
        let lines = states.lines();
        Self { roles: states.roles, lines }
    }
}

/// One status line of the panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LlmLine {
    /// The state it reports (`ready`, `rate_limited`, `key_invalid`, `failing`): its style.
    pub kind: String,
    /// The words. For a rate limit with a known retry time they end with "retrying in", and
    /// the panel appends the seconds left, counting down.
    pub text: String,
    /// When the host retries (ms since the epoch), for the countdown.
    pub retry_at_ms: Option<f64>,
}

impl LlmStates {
    /// Records `role`'s new state. Lines list roles in the panel's order ([`LlmRole::ALL`]).
    pub fn set(&mut self, role: LlmRole, state: LlmState) {
        self.roles.insert(role, state);
    }

    /// The state of `role` (unknown before its first call).
    pub fn get(&self, role: LlmRole) -> &LlmState {
        self.roles.get(&role).unwrap_or(&LlmState::Unknown)
    }

    /// The panel's lines: one for the roles that answer (their models), then one per role with
    /// a problem, naming the role when more than one has called.
    pub fn lines(&self) -> Vec<LlmLine> {
        let known: Vec<(LlmRole, &LlmState)> = self
            .roles
            .iter()
            .filter(|(_, s)| **s != LlmState::Unknown)
            .map(|(r, s)| (*r, s))
            .collect();
        let named = known.len() > 1;
        let mut ready: Vec<(&str, Vec<&str>)> = Vec::new();
        // Roles with the same trouble (one endpoint, one bad key) share a line.
        let mut troubled: Vec<(&LlmState, Vec<&str>)> = Vec::new();
        for &(role, state) in &known {
            let role = role.as_str();
            if let LlmState::Ready { model } = state {
                match ready.iter_mut().find(|(m, _)| m == model) {
                    Some((_, roles)) => roles.push(role),
                    None => ready.push((model, vec![role])),
                }
            } else {
                match troubled.iter_mut().find(|(s, _)| *s == state) {
                    Some((_, roles)) => roles.push(role),
                    None => troubled.push((state, vec![role])),
                }
            }
        }
        let problems: Vec<LlmLine> = troubled
            .iter()
            .filter_map(|(state, roles)| problem_line(roles, state, named))
            .collect();
        let mut lines = Vec::new();
        if !ready.is_empty() {
            let models: Vec<String> = ready
                .iter()
                .map(|(model, roles)| {
                    if named && (ready.len() > 1 || !problems.is_empty()) {
                        format!("{model} ({})", roles.join(", "))
                    } else {
                        (*model).to_owned()
                    }
                })
                .collect();
            lines.push(LlmLine {
                kind: "ready".into(),
                text: format!("LLM ready · {}", models.join(" · ")),
                retry_at_ms: None,
            });
        }
        lines.extend(problems);
        lines
    }
}

/// The line of roles in the same trouble (`None` for ready and unknown).
fn problem_line(roles: &[&str], state: &LlmState, named: bool) -> Option<LlmLine> {
    let who = if named {
        let names: Vec<String> = roles.iter().map(|r| capitalised(r)).collect();
        format!("{}: ", names.join(", "))
    } else {
        String::new()
    };
    let (kind, text, retry_at_ms) = match state {
        LlmState::Unknown | LlmState::Ready { .. } => return None,
        LlmState::RateLimited { retry_at_ms: Some(at), .. } => {
            ("rate_limited", format!("{who}LLM rate limited · retrying in"), Some(*at))
        }
        LlmState::RateLimited { retry_at_ms: None, message } => {
            ("rate_limited", format!("{who}LLM rate limited: {message}"), None)
        }
        LlmState::KeyInvalid { message, fix } => {
            ("key_invalid", format!("{who}API key rejected: {message}. Fix: {fix}"), None)
        }
        LlmState::Failing { message, fix } => {
            ("failing", format!("{who}LLM problem: {message}. Fix: {fix}"), None)
        }
    };
    Some(LlmLine { kind: kind.into(), text, retry_at_ms })
}

fn capitalised(role: &str) -> String {
    let mut chars = role.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(model: &str) -> LlmCompletion {
        LlmCompletion { model: model.into(), ..LlmCompletion::default() }
    }

    fn texts(states: &LlmStates) -> Vec<String> {
        states.lines().into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn llm_state_follows_retries_errors_and_successes() {
        let rate_limited = ErrorCode::LlmRateLimited;
        let limited = LlmState::after_retry(rate_limited, "rate limited (HTTP 429)", 2000, 1000.0);
        assert_eq!(
            limited,
            Some(LlmState::RateLimited {
                retry_at_ms: Some(3000.0),
                message: "rate limited (HTTP 429)".into()
            })
        );
        assert_eq!(LlmState::after_retry(ErrorCode::LlmHttp, "HTTP 500", 100, 0.0), None);
        let no_words = LlmState::after_retry(rate_limited, "slow down", 100, 0.0);
        assert!(no_words.is_some(), "the code decides, not the wording");
        assert_eq!(LlmState::after_retry(ErrorCode::LlmUnreachable, "HTTP 429?", 100, 0.0), None);
        let auth =
            ErrorBody::new(ErrorCode::LlmAuth, "the endpoint rejected the API key (HTTP 401)")
                .with_hint("set WAYMARK_LLM_API_KEY");
        let Some(LlmState::KeyInvalid { message, fix }) = LlmState::after_error(&auth) else {
            panic!("not key invalid")
        };
        assert_eq!(message, "the endpoint rejected the API key (HTTP 401)");
        assert!(fix.contains("Settings"));
        let gone = ErrorBody::new(ErrorCode::HostUnavailable, "x");
        assert_eq!(LlmState::after_error(&gone), None);
        let cancelled = ErrorBody::new(ErrorCode::Cancelled, "x");
        assert_eq!(LlmState::after_error(&cancelled), None);
        assert_eq!(LlmState::after_success(&call("m")), LlmState::Ready { model: "m".into() });
    }

    #[test]
    fn one_role_bad_key_shows_beside_the_others_success() {
        let mut states = LlmStates::default();
        assert!(states.lines().is_empty(), "nothing before the first call");
        states.set(LlmRole::Navigator, LlmState::after_success(&call("gpt-nav")));
        assert_eq!(texts(&states), ["LLM ready · gpt-nav"]);
        states.set(LlmRole::Summariser, LlmState::after_success(&call("gpt-nav")));
        assert_eq!(texts(&states), ["LLM ready · gpt-nav"], "one model, one line");
        states.set(LlmRole::Planner, LlmState::after_success(&call("claude-plan")));
        assert_eq!(
            texts(&states),
            ["LLM ready · claude-plan (planner) · gpt-nav (navigator, summariser)"]
        );
        let auth = ErrorBody::new(ErrorCode::LlmAuth, "HTTP 401");
        states.set(LlmRole::Summariser, LlmState::after_error(&auth).expect("key invalid"));
        let lines = states.lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0].text, "LLM ready · claude-plan (planner) · gpt-nav (navigator)");
        assert_eq!(lines[1].kind, "key_invalid");
        assert!(lines[1].text.starts_with("Summariser: API key rejected: HTTP 401. Fix: "));
        assert_eq!(
            states.get(LlmRole::Summariser).clone(),
            LlmState::after_error(&auth).expect("again")
        );
        states.set(LlmRole::Navigator, LlmState::after_error(&auth).expect("key invalid"));
        let lines = texts(&states);
        assert_eq!(lines.len(), 2, "one line for the same bad key: {lines:?}");
        assert!(lines[1].starts_with("Navigator, Summariser: API key rejected: HTTP 401."));
        assert_eq!(*states.get(LlmRole::Validator), LlmState::Unknown);
    }

    #[test]
    fn a_rate_limit_counts_down_and_travels_with_its_lines() {
        let mut states = LlmStates::default();
        states.set(
            LlmRole::Navigator,
            LlmState::after_retry(ErrorCode::LlmRateLimited, "HTTP 429", 2000, 1000.0)
                .expect("limit"),
        );
        let lines = states.lines();
        assert_eq!(lines[0].text, "LLM rate limited · retrying in");
        assert_eq!(lines[0].retry_at_ms, Some(3000.0));
        let json = serde_json::to_value(&states).expect("json");
        assert_eq!(json["lines"][0]["kind"], "rate_limited");
        assert_eq!(json["roles"]["navigator"]["state"], "rate_limited");
        let back: LlmStates = serde_json::from_value(json).expect("back");
        assert_eq!(back, states);
    }
}
