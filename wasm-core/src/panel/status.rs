//! What the LLM costs and whether it answers: token and dollar totals of the current task and
//! session, and the LLM's state (ready, rate limited with a countdown, key invalid, …) derived
//! from the host's replies, retry events and errors.

use crate::protocol::{ErrorBody, ErrorCode, LlmCompletion};
use serde::{Deserialize, Serialize};

/// Tokens and dollars spent, summed over LLM calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Completed calls.
    pub calls: u32,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Dollars, over the calls whose model has a price.
    pub usd: f64,
    /// Calls whose cost is unknown (the model has no price in the host config).
    pub unpriced_calls: u32,
}

impl Usage {
    /// Adds one completed call.
    pub fn add(&mut self, completion: &LlmCompletion) {
        self.calls += 1;
        if let Some(u) = completion.usage {
            self.input_tokens += u.input_tokens;
            self.output_tokens += u.output_tokens;
        }
        // No cost: the host has no price for a remote model (local models cost 0).
        match completion.cost {
            Some(c) => self.usd += c.usd,
            None => self.unpriced_calls += 1,
        }
    }

    /// The line the panel shows, e.g. `1,234 tokens (1,000 in, 234 out) · $0.0123`.
    pub fn describe(&self) -> String {
        if self.calls == 0 {
            return "no model calls yet".to_owned();
        }
        let cost = if self.unpriced_calls == self.calls {
            "no price set for the model".to_owned()
        } else if self.unpriced_calls > 0 {
            format!("≥ {}", dollars(self.usd))
        } else {
            dollars(self.usd)
        };
        format!(
            "{} tokens ({} in, {} out) · {} call(s) · {cost}",
            thousands(self.input_tokens + self.output_tokens),
            thousands(self.input_tokens),
            thousands(self.output_tokens),
            self.calls
        )
    }
}

/// `$0` for free calls, cents for larger sums, four decimals for small ones.
fn dollars(usd: f64) -> String {
    if usd == 0.0 {
        "$0".to_owned()
    } else if usd >= 1.0 {
        format!("${usd:.2}")
    } else {
        format!("${usd:.4}")
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The LLM as the panel explains it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// limits (the state then stays as it was).
    pub fn after_retry(reason: &str, delay_ms: u64, now_ms: f64) -> Option<Self> {
        let lower = reason.to_ascii_lowercase();
        (lower.contains("429") || lower.contains("rate limit")).then(|| Self::RateLimited {
            retry_at_ms: Some(now_ms + delay_ms as f64),
            message: reason.to_owned(),
        })
    }

    /// The state after a failed call; `None` for failures that say nothing about the LLM
    /// (cancelled calls, a missing host, which the host status line explains).
    pub fn after_error(error: &ErrorBody) -> Option<Self> {
        // The host appends its own command-line advice after "; "; the panel gives its own fix.
        let message = error.message.split("; ").next().unwrap_or_default().to_owned();
        let fix = |s: &str| s.to_owned();
        Some(match error.code {
            ErrorCode::LlmRateLimited => Self::RateLimited { retry_at_ms: None, message },
            ErrorCode::LlmAuth => Self::KeyInvalid {
                message,
                fix: fix(
                    "Set a valid API key in Settings (or `waymark-host config set llm.api_key -`).",
                ),
            },
            ErrorCode::LlmModelNotFound => Self::Failing {
                message,
                fix: fix("Choose a model the endpoint serves in Settings."),
            },
            ErrorCode::LlmUnreachable => Self::Failing {
                message,
                fix: fix(
                    "Check the base URL in Settings and that the endpoint is running; then Check setup.",
                ),
            },
            ErrorCode::NotConfigured => Self::Failing {
                message,
                fix: fix("Set a provider, base URL and model in Settings; then Check setup."),
            },
            ErrorCode::LlmHttp | ErrorCode::LlmBadResponse => Self::Failing {
                message,
                fix: fix("Run Check setup in Settings to test the endpoint."),
            },
            _ => return None,
        })
    }

    /// The state after a call that worked.
    pub fn after_success(completion: &LlmCompletion) -> Self {
        Self::Ready { model: completion.model.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CallCost, TokenUsage};

    fn call(input: u64, output: u64, usd: Option<f64>) -> LlmCompletion {
        LlmCompletion {
            model: "m".into(),
            usage: Some(TokenUsage { input_tokens: input, output_tokens: output }),
            cost: usd.map(|usd| CallCost {
                usd,
                input_usd_per_mtok: 1.0,
                output_usd_per_mtok: 2.0,
            }),
            ..LlmCompletion::default()
        }
    }

    #[test]
    fn usage_sums_tokens_and_dollars_and_says_when_cost_is_unknown() {
        let mut u = Usage::default();
        assert_eq!(u.describe(), "no model calls yet");
        u.add(&call(1000, 234, Some(0.01)));
        u.add(&call(500, 0, Some(0.0023)));
        assert_eq!((u.calls, u.input_tokens, u.output_tokens), (2, 1500, 234));
        assert_eq!(u.describe(), "1,734 tokens (1,500 in, 234 out) · 2 call(s) · $0.0123");
        u.add(&call(1, 1, None));
        assert!(u.describe().ends_with("≥ $0.0123"), "{}", u.describe());
        let mut unpriced = Usage::default();
        unpriced.add(&call(1, 1, None));
        assert!(unpriced.describe().ends_with("no price set for the model"));
        let mut local = Usage::default();
        local.add(&call(1, 1, Some(0.0)));
        assert!(local.describe().ends_with("· $0"), "{}", local.describe());
    }

    #[test]
    fn llm_state_follows_retries_errors_and_successes() {
        let limited = LlmState::after_retry("rate limited (HTTP 429)", 2000, 1000.0);
        assert_eq!(
            limited,
            Some(LlmState::RateLimited {
                retry_at_ms: Some(3000.0),
                message: "rate limited (HTTP 429)".into()
            })
        );
        assert_eq!(LlmState::after_retry("HTTP 500", 100, 0.0), None);
        let auth = ErrorBody {
            code: ErrorCode::LlmAuth,
            message: "the endpoint rejected the API key (HTTP 401); set WAYMARK_LLM_API_KEY".into(),
        };
        let Some(LlmState::KeyInvalid { message, fix }) = LlmState::after_error(&auth) else {
            panic!("not key invalid")
        };
        assert_eq!(message, "the endpoint rejected the API key (HTTP 401)");
        assert!(fix.contains("Settings"));
        let gone = ErrorBody { code: ErrorCode::HostUnavailable, message: "x".into() };
        assert_eq!(LlmState::after_error(&gone), None);
        let cancelled = ErrorBody { code: ErrorCode::Cancelled, message: "x".into() };
        assert_eq!(LlmState::after_error(&cancelled), None);
        assert_eq!(
            LlmState::after_success(&call(1, 1, None)),
            LlmState::Ready { model: "m".into() }
        );
    }
}
