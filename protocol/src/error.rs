//! Stable error codes. Append-only: never rename or reuse a code.

use serde::{Deserialize, Serialize};

/// An error carried in a reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// Machine-readable and stable; the side panel explains each one.
    pub code: ErrorCode,
    /// Human-readable detail, safe to show (never contains secrets).
    pub message: String,
    /// What the user can do about it on the host's side (a setting, a command), kept apart
    /// from the message so each view can give its own advice instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl ErrorBody {
    /// An error without a hint.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), hint: None }
    }

    /// This error with the host's advice.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The message followed by the hint, for views that show the host's advice as is.
    pub fn with_advice(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}; {hint}", self.message),
            None => self.message.clone(),
        }
    }
}

/// Every failure the host can report. Unknown codes from a newer host decode as `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame was not valid UTF-8 JSON.
    BadJson,
    /// The JSON was valid but not a request we understand (missing fields, unknown type).
    BadRequest,
    /// The frame exceeded the size cap and was skipped.
    FrameTooLarge,
    /// The sender speaks a protocol version the host does not.
    VersionMismatch,
    /// The host is not configured for this request (e.g. no LLM endpoint).
    NotConfigured,
    /// The LLM endpoint could not be reached (connection refused, DNS, timeout).
    LlmUnreachable,
    /// The endpoint rejected the API key (401/403).
    LlmAuth,
    /// The endpoint does not know the model (404).
    LlmModelNotFound,
    /// Still rate limited after all retries (429).
    LlmRateLimited,
    /// The endpoint answered with an HTTP error not covered above.
    LlmHttp,
    /// The endpoint answered 200 but the body was not a completion.
    LlmBadResponse,
    /// The request was cancelled by the extension.
    Cancelled,
    /// Writing an export failed (permissions, disk full).
    ExportFailed,
    /// The reply would exceed the 1 MiB browser cap.
    ReplyTooLarge,
    /// A bug in the host; the message says where.
    Internal,
    /// The extension could not reach the host (not installed, crashed, port closed).
    HostUnavailable,
    /// `file.read` named a path outside the directories allowed in the host config.
    FileRefused,
    /// `file.read` named a file above the configured size cap.
    FileTooLarge,
    /// `file.read` could not read the file (missing, not a regular file, permissions).
    FileFailed,
    /// `config.set` named an unknown setting or a value the host cannot use, or saving failed.
    ConfigInvalid,
    /// Writing a transcript failed (permissions, disk full, bad session id).
    TranscriptFailed,
    /// A reply arrived but its data is not what the request's reply type says (a host and an
    /// extension of different releases, or a bug).
    BadReply,
    /// The bridge for external agents could not start (its socket directory, its secret).
    BridgeFailed,
    /// A bridge request named a call or client that is gone (answered already, disconnected).
    BridgeGone,
    /// A code this build does not know (sent by a newer peer).
    #[serde(other)]
    Other,
}

impl ErrorCode {
    /// The wire string of this code.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::BadJson => "bad_json",
            Self::BadRequest => "bad_request",
            Self::FrameTooLarge => "frame_too_large",
            Self::VersionMismatch => "version_mismatch",
            Self::NotConfigured => "not_configured",
            Self::LlmUnreachable => "llm_unreachable",
            Self::LlmAuth => "llm_auth",
            Self::LlmModelNotFound => "llm_model_not_found",
            Self::LlmRateLimited => "llm_rate_limited",
            Self::LlmHttp => "llm_http",
            Self::LlmBadResponse => "llm_bad_response",
            Self::Cancelled => "cancelled",
            Self::ExportFailed => "export_failed",
            Self::ReplyTooLarge => "reply_too_large",
            Self::Internal => "internal",
            Self::HostUnavailable => "host_unavailable",
            Self::Other => "other",
            Self::FileRefused => "file_refused",
            Self::FileTooLarge => "file_too_large",
            Self::FileFailed => "file_failed",
            Self::ConfigInvalid => "config_invalid",
            Self::TranscriptFailed => "transcript_failed",
            Self::BadReply => "bad_reply",
            Self::BridgeFailed => "bridge_failed",
            Self::BridgeGone => "bridge_gone",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorBody {}
