//! LLM failures, each mapped to a stable [`ErrorCode`] and a message that says what to do.

use std::time::Duration;

use waymark_protocol::{ErrorBody, ErrorCode};

/// Why an `llm.complete` failed. Messages never contain the API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// Connection refused, DNS failure, TLS failure: nothing answered.
    #[error("cannot reach the LLM endpoint {base_url} ({detail})")]
    Unreachable {
        /// The configured base URL.
        base_url: String,
        /// The transport error.
        detail: String,
        /// What the user can do.
        hint: String,
    },
    /// The endpoint accepted the connection but went silent.
    #[error("the LLM endpoint {base_url} sent nothing for {secs} s ({stage})")]
    Timeout {
        /// The configured base URL.
        base_url: String,
        /// How long we waited.
        secs: u64,
        /// Waiting for what (`response headers`, `stream data`).
        stage: &'static str,
    },
    /// 401 or 403.
    #[error("the LLM endpoint {base_url} rejected the API key (HTTP {status}: {detail})")]
    Auth {
        /// The configured base URL.
        base_url: String,
        /// 401 or 403.
        status: u16,
        /// The endpoint's own message.
        detail: String,
    },
    /// 404: unknown model (or a base URL without the right path).
    #[error("model {model:?} was not found at {base_url} (HTTP 404: {detail})")]
    ModelNotFound {
        /// The configured model.
        model: String,
        /// The configured base URL.
        base_url: String,
        /// The endpoint's own message.
        detail: String,
    },
    /// 429, possibly with a `Retry-After`.
    #[error("rate limited by the LLM endpoint (HTTP 429: {detail})")]
    RateLimited {
        /// The server's requested wait.
        retry_after: Option<Duration>,
        /// The endpoint's own message.
        detail: String,
    },
    /// 5xx: the server failed; worth retrying.
    #[error("the LLM endpoint failed (HTTP {status}: {detail})")]
    Server {
        /// The status code.
        status: u16,
        /// The endpoint's own message.
        detail: String,
    },
    /// Any other HTTP error (400, 413, 422…): our request was refused; retrying will not help.
    #[error("the LLM endpoint refused the request (HTTP {status}: {detail})")]
    Http {
        /// The status code.
        status: u16,
        /// The endpoint's own message.
        detail: String,
    },
    /// 200 but not a completion we can read.
    #[error("the LLM endpoint sent an answer that is not a chat completion: {detail}")]
    BadResponse {
        /// What was wrong.
        detail: String,
    },
    /// The stream broke off before the answer was complete.
    #[error("the LLM stream broke off before the answer was complete: {detail}")]
    StreamCut {
        /// What happened.
        detail: String,
    },
    /// The host could not even build the HTTP client or request.
    #[error("internal error preparing the LLM call: {0}")]
    Internal(String),
}

impl LlmError {
    /// What the user can do about it on the host's side, kept out of the message (which says
    /// what happened) so the side panel can give its own advice instead.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Unreachable { hint, .. } => Some(hint.clone()),
            Self::Timeout { .. } => {
                Some("check that it is not overloaded, or raise llm.idle_timeout_secs".to_owned())
            }
            Self::Auth { .. } => Some(
                "set WAYMARK_LLM_API_KEY (or OPENAI_API_KEY / ANTHROPIC_API_KEY), or llm.api_key \
                 in the host's config.toml"
                    .to_owned(),
            ),
            Self::ModelNotFound { model, .. } => Some(format!(
                "set WAYMARK_LLM_MODEL to a model the endpoint serves (for Ollama: `ollama pull \
                 {model}`), and check that the base URL ends in /v1"
            )),
            Self::RateLimited { retry_after: Some(d), .. } => {
                Some(format!("the endpoint asks to wait {} s", d.as_secs()))
            }
            Self::RateLimited { retry_after: None, .. } => {
                Some("wait a moment and try again".to_owned())
            }
            _ => None,
        }
    }

    /// The error reply's body: code, what happened, and the hint apart.
    pub fn body(&self) -> ErrorBody {
        ErrorBody { code: self.code(), message: self.to_string(), hint: self.hint() }
    }

    /// The wire code the side panel explains.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Unreachable { .. } | Self::Timeout { .. } => ErrorCode::LlmUnreachable,
            Self::Auth { .. } => ErrorCode::LlmAuth,
            Self::ModelNotFound { .. } => ErrorCode::LlmModelNotFound,
            Self::RateLimited { .. } => ErrorCode::LlmRateLimited,
            Self::Server { .. } | Self::Http { .. } => ErrorCode::LlmHttp,
            Self::BadResponse { .. } | Self::StreamCut { .. } => ErrorCode::LlmBadResponse,
            Self::Internal(_) => ErrorCode::Internal,
        }
    }

    /// Transient failures worth another attempt (never 400/401/403/404 or a garbage body).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Unreachable { .. }
                | Self::Timeout { .. }
                | Self::RateLimited { .. }
                | Self::Server { .. }
                | Self::StreamCut { .. }
        )
    }

    /// The wait the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// A short reason for `llm.retry` events ("HTTP 503", "connection refused"…).
    pub fn reason(&self) -> String {
        match self {
            Self::Unreachable { detail, .. } => format!("endpoint unreachable: {detail}"),
            Self::Timeout { secs, stage, .. } => format!("no {stage} for {secs} s"),
            Self::RateLimited { .. } => "rate limited (HTTP 429)".into(),
            Self::Server { status, .. } => format!("server error (HTTP {status})"),
            Self::StreamCut { .. } => "stream broke off".into(),
            other => other.to_string(),
        }
    }

    /// Maps an HTTP error status and body to the matching error.
    pub fn from_status(
        status: u16,
        retry_after: Option<Duration>,
        body: &str,
        base_url: &str,
        model: &str,
        api_key: Option<&str>,
    ) -> Self {
        let detail = error_detail(body, api_key);
        match status {
            401 | 403 => Self::Auth { base_url: base_url.into(), status, detail },
            404 => Self::ModelNotFound { model: model.into(), base_url: base_url.into(), detail },
            429 => Self::RateLimited { retry_after, detail },
            500..=599 => Self::Server { status, detail },
            _ => Self::Http { status, detail },
        }
    }

    /// Maps a transport error from reqwest.
    pub fn from_transport(err: &reqwest::Error, base_url: &str, timeout: Duration) -> Self {
        if err.is_timeout() {
            return Self::Timeout {
                base_url: base_url.into(),
                secs: timeout.as_secs(),
                stage: "response",
            };
        }
        if err.is_builder() {
            return Self::Internal(without_url(err));
        }
        if err.is_body() || err.is_decode() {
            return Self::StreamCut { detail: without_url(err) };
        }
        Self::Unreachable {
            base_url: base_url.into(),
            detail: transport_detail(err),
            hint: hint(base_url),
        }
    }
}

/// What to do when nothing answers, tuned for the default local endpoint.
pub fn hint(base_url: &str) -> String {
    if base_url == crate::config::DEFAULT_BASE_URL {
        "start Ollama (`ollama serve`, then `ollama pull llama3.1`) or set WAYMARK_LLM_BASE_URL, OPENAI_API_KEY or ANTHROPIC_API_KEY".into()
    } else {
        "check that the server is running and the URL is right, or set WAYMARK_LLM_BASE_URL".into()
    }
}

fn without_url(err: &reqwest::Error) -> String {
    let mut s = err.to_string();
    if let Some(url) = err.url() {
        s = s.replace(url.as_str(), "<endpoint>");
    }
    s
}

/// The innermost cause ("Connection refused (os error 111)") is the useful part.
pub fn transport_detail(err: &reqwest::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = Some(err);
    let mut last = without_url(err);
    while let Some(e) = source {
        last = e.to_string();
        source = e.source();
    }
    last
}

/// Longest endpoint message quoted back to the user.
const MAX_DETAIL_CHARS: usize = 300;

/// Pulls the human message out of an error body (`{"error":{"message":…}}` for OpenAI and
/// Anthropic, `{"error":"…"}` for Ollama), shortens it and removes the key if echoed.
pub fn error_detail(body: &str, api_key: Option<&str>) -> String {
    let parsed = serde_json::from_str::<serde_json::Value>(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        let e = v.get("error")?;
        e.get("message").and_then(|m| m.as_str()).or_else(|| e.as_str()).map(str::to_owned)
    });
    let mut text = message.unwrap_or_else(|| body.trim().to_owned());
    if text.is_empty() {
        text = "no details".into();
    }
    if let Some(key) = api_key.filter(|k| k.len() >= 4) {
        text = text.replace(key, "<api key>");
    }
    if text.chars().count() > MAX_DETAIL_CHARS {
        text = text.chars().take(MAX_DETAIL_CHARS).collect::<String>() + "…";
    }
    text
}

/// Parses `Retry-After` as delta-seconds (the form LLM APIs send).
pub fn parse_retry_after(value: Option<&str>) -> Option<Duration> {
    let v = value?.trim();
    let secs: f64 = v.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(24.0 * 3600.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(status: u16) -> LlmError {
        LlmError::from_status(status, None, "{}", "http://x/v1", "m", None)
    }

    #[test]
    fn statuses_map_to_codes_and_retry_policy() {
        let cases = [
            (400, ErrorCode::LlmHttp, false),
            (401, ErrorCode::LlmAuth, false),
            (403, ErrorCode::LlmAuth, false),
            (404, ErrorCode::LlmModelNotFound, false),
            (422, ErrorCode::LlmHttp, false),
            (429, ErrorCode::LlmRateLimited, true),
            (500, ErrorCode::LlmHttp, true),
            (503, ErrorCode::LlmHttp, true),
        ];
        for (status, code, retry) in cases {
            let e = map(status);
            assert_eq!(e.code(), code, "{status}");
            assert_eq!(e.is_retryable(), retry, "{status}");
        }
        assert!(!LlmError::BadResponse { detail: "x".into() }.is_retryable());
        assert_eq!(LlmError::StreamCut { detail: "x".into() }.code(), ErrorCode::LlmBadResponse);
    }

    #[test]
    fn error_bodies_are_quoted_short_and_without_the_key() {
        let body =
            r#"{"error":{"message":"Incorrect API key provided: sk-secret-123","type":"x"}}"#;
        let e = LlmError::from_status(401, None, body, "http://x/v1", "m", Some("sk-secret-123"));
        let text = e.to_string();
        assert!(text.contains("Incorrect API key provided: <api key>"), "{text}");
        assert!(!text.contains("sk-secret-123"));
        assert_eq!(error_detail(r#"{"error":"model 'x' not found"}"#, None), "model 'x' not found");
        assert_eq!(error_detail(&"z".repeat(1000), None).chars().count(), MAX_DETAIL_CHARS + 1);
        assert_eq!(error_detail("", None), "no details");
    }

    #[test]
    fn replies_say_what_happened_and_apart_what_to_do() {
        let e = LlmError::Unreachable {
            base_url: crate::config::DEFAULT_BASE_URL.into(),
            detail: "Connection refused".into(),
            hint: hint(crate::config::DEFAULT_BASE_URL),
        };
        let body = e.body();
        assert_eq!(body.code, ErrorCode::LlmUnreachable);
        assert!(body.message.contains("127.0.0.1:11434") && !body.message.contains("; "));
        let advice = body.hint.unwrap_or_default();
        assert!(advice.contains("ollama serve") && advice.contains("WAYMARK_LLM_BASE_URL"));
        assert!(map(404).body().hint.unwrap_or_default().contains("WAYMARK_LLM_MODEL"));
        assert!(map(401).body().hint.unwrap_or_default().contains("WAYMARK_LLM_API_KEY"));
        let limited = LlmError::RateLimited { retry_after: None, detail: "slow down".into() };
        assert_eq!(limited.body().code, ErrorCode::LlmRateLimited);
        assert_eq!(
            limited.body().message,
            "rate limited by the LLM endpoint (HTTP 429: slow down)"
        );
        assert!(map(400).body().hint.is_none(), "nothing the user can set fixes a refused request");
    }

    #[test]
    fn retry_after_parses_seconds() {
        assert_eq!(parse_retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(Some(" 0.5 ")), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(parse_retry_after(Some("-1")), None);
        assert_eq!(parse_retry_after(None), None);
    }
}
