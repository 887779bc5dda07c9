//! Which setting: the dotted names of `waymark-host config set` and `config.set`, in one list
//! that the parser, the messages and the help text all read.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::SettingError;
use crate::LlmRole;

/// Which wire format an LLM endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI-compatible `/chat/completions` (OpenAI, Ollama, vLLM, LM Studio, OpenRouter, …).
    Openai,
    /// Anthropic Messages API (`/messages`).
    Anthropic,
}

impl Provider {
    /// Every provider, in the order the side panel offers them.
    pub const ALL: [Self; 2] = [Self::Openai, Self::Anthropic];

    /// The config and wire spelling, also reported in `hello`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
        }
    }

    /// Reads a provider name in any case, with the aliases people write (`ollama`,
    /// `openai-compatible`, `claude`); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" | "ollama" => Some(Self::Openai),
            "anthropic" | "claude" => Some(Self::Anthropic),
            _ => None,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// By hand so that config files keep accepting the aliases [`Provider::parse`] knows.
impl Serialize for Provider {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Provider {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown provider {text:?}; use \"openai\" or \"anthropic\""
            ))
        })
    }
}

/// One setting of an LLM endpoint (the default `llm.*` one or a role's `roles.<role>.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndpointField {
    /// `provider`: the wire format.
    Provider,
    /// `base_url`: where the endpoint is.
    BaseUrl,
    /// `model`: the model name sent with each call.
    Model,
    /// `api_key`: the key (write-only).
    ApiKey,
    /// `max_tokens`: the most tokens one reply may take, replacing the role's default.
    MaxTokens,
}

impl EndpointField {
    /// Every field, in the order the help lists them.
    pub const ALL: [Self; 5] =
        [Self::Provider, Self::BaseUrl, Self::Model, Self::ApiKey, Self::MaxTokens];

    /// The last part of the dotted name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Provider => "provider",
            Self::BaseUrl => "base_url",
            Self::Model => "model",
            Self::ApiKey => "api_key",
            Self::MaxTokens => "max_tokens",
        }
    }

    fn expects(self) -> &'static str {
        match self {
            Self::Provider => "openai or anthropic",
            Self::BaseUrl => "an http:// or https:// URL",
            Self::Model => "a model name, without spaces",
            Self::ApiKey => "an API key, without spaces",
            Self::MaxTokens => MAX_TOKENS_EXPECTS,
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == text)
    }
}

impl fmt::Display for EndpointField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an output-token limit looks like (the bounds of [`crate::MaxTokens`]).
const MAX_TOKENS_EXPECTS: &str =
    "a whole number of tokens from 16 to 32768, or nothing for the role's default";

/// Which of a model's two prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PriceSide {
    /// Prompt tokens.
    Input,
    /// Completion tokens.
    Output,
}

impl PriceSide {
    /// Both sides.
    pub const ALL: [Self; 2] = [Self::Input, Self::Output];

    /// The last part of the dotted name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Input => "input",
            Self::Output => "output",
        }
    }
}

impl fmt::Display for PriceSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A setting's name, without a value: what `waymark-host config set NAME` and `config.set`
/// name, and what a field error points at. `Display` is the dotted name; `FromStr` reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SettingKey {
    /// `llm.<field>` for the default endpoint (`None`), `roles.<role>.<field>` for a role's.
    Endpoint(Option<LlmRole>, EndpointField),
    /// `llm.retry_base_ms`.
    RetryBaseMs,
    /// `llm.idle_timeout_secs`.
    IdleTimeoutSecs,
    /// `llm.request_timeout_secs`.
    RequestTimeoutSecs,
    /// `llm.max_concurrent`.
    MaxConcurrent,
    /// `export_dir`.
    ExportDir,
    /// `data_dir`.
    DataDir,
    /// `transcripts.enabled`.
    TranscriptsEnabled,
    /// `transcripts.retention_days`.
    RetentionDays,
    /// `transcripts.flush_every`.
    FlushEvery,
    /// `transcripts.redact` (write-only).
    Redact,
    /// `files.allowed_dirs`.
    AllowedDirs,
    /// `files.max_bytes`.
    MaxBytes,
    /// `agents.approval_timeout_secs`.
    ApprovalTimeoutSecs,
    /// `prices.<model>.<input|output>`.
    Price(String, PriceSide),
}

/// The settings whose name is fixed, in help order: name and what a valid value looks like.
/// The endpoint fields and prices, whose names carry a role or a model, are described by
/// [`EndpointField`] and [`PRICE_EXPECTS`].
static FIXED: [(SettingKey, &str, &str); 13] = [
    (SettingKey::RetryBaseMs, "llm.retry_base_ms", "a whole number of milliseconds"),
    (SettingKey::IdleTimeoutSecs, "llm.idle_timeout_secs", "a whole number of seconds, 1 or more"),
    (
        SettingKey::RequestTimeoutSecs,
        "llm.request_timeout_secs",
        "a whole number of seconds, 1 or more",
    ),
    (SettingKey::MaxConcurrent, "llm.max_concurrent", "a whole number of calls, 1 or more"),
    (SettingKey::ExportDir, "export_dir", "an absolute path, e.g. /home/me/waymark"),
    (SettingKey::DataDir, "data_dir", "an absolute path, e.g. /home/me/.local/share/waymark"),
    (SettingKey::TranscriptsEnabled, "transcripts.enabled", "true or false"),
    (
        SettingKey::RetentionDays,
        "transcripts.retention_days",
        "a whole number of days, 0 to keep transcripts forever",
    ),
    (SettingKey::FlushEvery, "transcripts.flush_every", "a whole number of events, 1 or more"),
    (SettingKey::Redact, "transcripts.redact", "exact secrets to hide, one per line"),
    (SettingKey::AllowedDirs, "files.allowed_dirs", "absolute paths, one per line"),
    (SettingKey::MaxBytes, "files.max_bytes", "a size in bytes, 1 or more"),
    (
        SettingKey::ApprovalTimeoutSecs,
        "agents.approval_timeout_secs",
        "a whole number of seconds, 1 or more",
    ),
];

/// What a price looks like.
pub(super) const PRICE_EXPECTS: &str =
    "US dollars per million tokens: a number, 0 or more (e.g. 2.5)";

impl SettingKey {
    /// `prices.<model>.<side>`, checking the model name (not blank, without spaces).
    pub fn price(model: &str, side: PriceSide) -> Result<Self, SettingError> {
        if model.is_empty() || model.contains(char::is_whitespace) {
            return Err(SettingError::UnknownName {
                name: format!("prices.{model}.{side}"),
                problem: "a price names a model, without spaces".to_owned(),
            });
        }
        Ok(Self::Price(model.to_owned(), side))
    }

    /// Whether the setting holds a secret: the extension may set it but never reads it back,
    /// and its value appears in no message or log.
    pub fn is_secret(&self) -> bool {
        matches!(self, Self::Endpoint(_, EndpointField::ApiKey) | Self::Redact)
    }

    /// What a valid value looks like, e.g. "a whole number of days, 0 to keep transcripts
    /// forever": the hint of every message about a bad value.
    pub fn expects(&self) -> &'static str {
        match self {
            Self::Endpoint(_, field) => field.expects(),
            Self::Price(..) => PRICE_EXPECTS,
            fixed => FIXED.iter().find(|(k, ..)| k == fixed).map_or("", |(_, _, e)| e),
        }
    }

    /// Every setting name, with placeholders for roles and models, what it takes and whether
    /// it is secret, in help order.
    fn patterns() -> Vec<(String, &'static str, bool)> {
        let endpoint = |role: Option<LlmRole>, name: String| {
            EndpointField::ALL.into_iter().map(move |field| {
                let key = Self::Endpoint(role, field);
                (name.replace("FIELD", field.as_str()), field.expects(), key.is_secret())
            })
        };
        let mut out: Vec<_> = endpoint(None, "llm.FIELD".to_owned()).collect();
        let (llm, rest) = FIXED.split_at(4);
        let fixed = |part: &[(Self, &str, &'static str)]| -> Vec<(String, &'static str, bool)> {
            part.iter().map(|(k, name, e)| ((*name).to_owned(), *e, k.is_secret())).collect()
        };
        out.extend(fixed(llm));
        let roles = LlmRole::ALL.map(LlmRole::as_str).join("|");
        out.extend(endpoint(Some(LlmRole::Planner), format!("roles.<{roles}>.FIELD")));
        out.extend(fixed(rest));
        let sides = PriceSide::ALL.map(PriceSide::as_str).join("|");
        out.push((format!("prices.<model>.<{sides}>"), PRICE_EXPECTS, false));
        out
    }

    /// The setting names, one line each with what it takes (the help of
    /// `waymark-host config set`, and of the README).
    pub fn help() -> String {
        let patterns = Self::patterns();
        let width = patterns.iter().map(|(n, ..)| n.len()).max().unwrap_or(0);
        patterns
            .iter()
            .map(|(name, expects, secret)| {
                let secret = if *secret { " (secret: write-only)" } else { "" };
                format!("{name:width$}  {expects}{secret}\n")
            })
            .collect()
    }

    /// The setting names on one line, for "unknown setting" messages.
    pub fn names() -> String {
        Self::patterns().into_iter().map(|(n, ..)| n).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for SettingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Endpoint(None, field) => write!(f, "llm.{field}"),
            Self::Endpoint(Some(role), field) => write!(f, "roles.{role}.{field}"),
            Self::Price(model, side) => write!(f, "prices.{model}.{side}"),
            fixed => f.write_str(FIXED.iter().find(|(k, ..)| k == fixed).map_or("", |(_, n, _)| n)),
        }
    }
}

impl FromStr for SettingKey {
    type Err = SettingError;

    /// Reads a dotted name; roles may be spelt as [`LlmRole::parse`] accepts.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        let unknown =
            |problem: String| SettingError::UnknownName { name: name.to_owned(), problem };
        let no_such = || unknown(format!("no such setting; known: {}", Self::names()));
        if let Some((key, ..)) = FIXED.iter().find(|(_, n, _)| *n == name) {
            return Ok(key.clone());
        }
        if let Some(field) = name.strip_prefix("llm.") {
            return EndpointField::parse(field)
                .map(|f| Self::Endpoint(None, f))
                .ok_or_else(no_such);
        }
        if let Some(rest) = name.strip_prefix("roles.") {
            let (role, field) = rest.split_once('.').ok_or_else(no_such)?;
            let role = role.parse::<LlmRole>().map_err(|e| unknown(e.to_string()))?;
            let field = EndpointField::parse(field).ok_or_else(no_such)?;
            return Ok(Self::Endpoint(Some(role), field));
        }
        if let Some(rest) = name.strip_prefix("prices.") {
            let (model, side) = rest.rsplit_once('.').ok_or_else(no_such)?;
            let side =
                PriceSide::ALL.into_iter().find(|s| s.as_str() == side).ok_or_else(no_such)?;
            return Self::price(model, side);
        }
        Err(no_such())
    }
}
