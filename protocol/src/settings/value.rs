//! A setting with its typed value, and the one parser from text: every check a value must
//! pass (numbers, booleans, absolute paths, providers, URLs, prices, lists) is here, so the
//! host's command line, the host's `config.set` and the side panel's form agree.

use std::fmt;

use super::key::{EndpointField, PriceSide, Provider, SettingKey};
use crate::{LlmRole, MaxTokens};

/// A new value for one LLM endpoint setting; `None` clears it (the default applies again).
#[derive(Clone, PartialEq, Eq)]
pub enum EndpointValue {
    /// The wire format.
    Provider(Option<Provider>),
    /// The base URL, without a trailing `/`.
    BaseUrl(Option<String>),
    /// The model name.
    Model(Option<String>),
    /// The API key (secret).
    ApiKey(Option<String>),
    /// The most tokens one reply may take.
    MaxTokens(Option<MaxTokens>),
}

impl EndpointValue {
    /// Which field this sets.
    pub fn field(&self) -> EndpointField {
        match self {
            Self::Provider(_) => EndpointField::Provider,
            Self::BaseUrl(_) => EndpointField::BaseUrl,
            Self::Model(_) => EndpointField::Model,
            Self::ApiKey(_) => EndpointField::ApiKey,
            Self::MaxTokens(_) => EndpointField::MaxTokens,
        }
    }
}

/// One setting with its new value, typed. `None` clears a setting: the default or the
/// environment applies again. Build one from text with [`SettingKey::with_text`] (or
/// [`Setting::parse`]), which checks the value; [`Setting::text`] is the inverse.
#[derive(Clone, PartialEq)]
pub enum Setting {
    /// `llm.<field>` (role `None`) or `roles.<role>.<field>`.
    Endpoint(Option<LlmRole>, EndpointValue),
    /// `llm.retry_base_ms`: the first retry's delay.
    RetryBaseMs(Option<u64>),
    /// `llm.idle_timeout_secs`: how long a stream may stay silent.
    IdleTimeoutSecs(Option<u64>),
    /// `llm.request_timeout_secs`: how long a call may wait for its answer.
    RequestTimeoutSecs(Option<u64>),
    /// `llm.max_concurrent`: LLM calls in flight at once.
    MaxConcurrent(Option<u32>),
    /// `export_dir`: an absolute path.
    ExportDir(Option<String>),
    /// `data_dir`: an absolute path (transcripts go in its `sessions/`).
    DataDir(Option<String>),
    /// `transcripts.enabled`.
    TranscriptsEnabled(Option<bool>),
    /// `transcripts.retention_days`: 0 keeps transcripts forever.
    RetentionDays(Option<u32>),
    /// `transcripts.flush_every`: events buffered before a write.
    FlushEvery(Option<u32>),
    /// `transcripts.redact`: exact secrets replaced before anything is written (secret).
    Redact(Option<Vec<String>>),
    /// `files.allowed_dirs`: absolute paths `file.read` may read below.
    AllowedDirs(Option<Vec<String>>),
    /// `files.max_bytes`: the largest file `file.read` returns.
    MaxBytes(Option<u64>),
    /// `agents.approval_timeout_secs`: how long an external agent's call waits at a card for
    /// the user's answer before it fails (and the card is withdrawn).
    ApprovalTimeoutSecs(Option<u64>),
    /// `prices.<model>.<input|output>`: US dollars per million tokens. `None` removes the
    /// user's prices of that model (both sides).
    Price(String, PriceSide, Option<f64>),
}

/// Why a setting name or value was refused. Never holds a secret's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingError {
    /// The name is no setting (an unknown name, role or field).
    UnknownName {
        /// The name as given.
        name: String,
        /// What is wrong with it, with the names that exist.
        problem: String,
    },
    /// The value is not one the setting takes.
    Invalid {
        /// The setting.
        key: SettingKey,
        /// What is wrong, without the setting's name (e.g. "a whole number of days, 0 to keep
        /// transcripts forever, not \"soon\"").
        message: String,
    },
}

impl SettingError {
    /// The setting the error is about: its dotted name, as the panel names its inputs.
    pub fn field(&self) -> String {
        match self {
            Self::UnknownName { name, .. } => name.clone(),
            Self::Invalid { key, .. } => key.to_string(),
        }
    }

    /// What is wrong, without the field's name (shown beside the field).
    pub fn message(&self) -> &str {
        match self {
            Self::UnknownName { problem, .. } => problem,
            Self::Invalid { message, .. } => message,
        }
    }
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownName { name, problem } => write!(f, "unknown setting {name:?}: {problem}"),
            Self::Invalid { key, message } => write!(f, "{key}: {message}"),
        }
    }
}

impl std::error::Error for SettingError {}

impl SettingKey {
    /// This setting with a value read from `text`, checked: surrounding spaces are ignored,
    /// and `None` or blank text clears the setting. The error names the setting and says
    /// what it takes (quoting the bad value, unless it is a secret).
    pub fn with_text(&self, text: Option<&str>) -> Result<Setting, SettingError> {
        let text = text.map(str::trim).filter(|t| !t.is_empty());
        Ok(match self {
            Self::Endpoint(role, field) => Setting::Endpoint(
                *role,
                match field {
                    EndpointField::Provider => EndpointValue::Provider(
                        self.read(text, |t| Provider::parse(t).ok_or(None))?,
                    ),
                    EndpointField::BaseUrl => EndpointValue::BaseUrl(self.read(text, http_url)?),
                    EndpointField::Model => EndpointValue::Model(self.read(text, word)?),
                    EndpointField::ApiKey => EndpointValue::ApiKey(self.read(text, word)?),
                    EndpointField::MaxTokens => {
                        EndpointValue::MaxTokens(self.read(text, max_tokens)?)
                    }
                },
            ),
            Self::RetryBaseMs => Setting::RetryBaseMs(self.read(text, |t| number(t, 0))?),
            Self::IdleTimeoutSecs => Setting::IdleTimeoutSecs(self.read(text, |t| number(t, 1))?),
            Self::RequestTimeoutSecs => {
                Setting::RequestTimeoutSecs(self.read(text, |t| number(t, 1))?)
            }
            Self::MaxConcurrent => Setting::MaxConcurrent(self.read(text, |t| number(t, 1))?),
            Self::ExportDir => Setting::ExportDir(self.read(text, absolute)?),
            Self::DataDir => Setting::DataDir(self.read(text, absolute)?),
            Self::TranscriptsEnabled => Setting::TranscriptsEnabled(self.read(text, boolean)?),
            Self::RetentionDays => Setting::RetentionDays(self.read(text, |t| number(t, 0))?),
            Self::FlushEvery => Setting::FlushEvery(self.read(text, |t| number(t, 1))?),
            Self::Redact => Setting::Redact(self.read(text, |t| Ok(lines(t)))?),
            Self::AllowedDirs => Setting::AllowedDirs(self.read(text, |t| {
                let dirs = lines(t);
                match dirs.iter().find(|d| !is_absolute(d)) {
                    Some(rel) => Err(Some(format!("{rel:?} is not an absolute path"))),
                    None => Ok(dirs),
                }
            })?),
            Self::MaxBytes => Setting::MaxBytes(self.read(text, |t| number(t, 1))?),
            Self::ApprovalTimeoutSecs => {
                Setting::ApprovalTimeoutSecs(self.read(text, |t| number(t, 1))?)
            }
            Self::Price(model, side) => {
                Setting::Price(model.clone(), *side, self.read(text, price)?)
            }
        })
    }

    /// Runs `read` on `text` (when there is one). `read` fails with its own message, or with
    /// `None` for the usual "expects, not got".
    fn read<T>(
        &self,
        text: Option<&str>,
        read: impl Fn(&str) -> Result<T, Option<String>>,
    ) -> Result<Option<T>, SettingError> {
        let Some(text) = text else { return Ok(None) };
        read(text).map(Some).map_err(|own| {
            let message = match own {
                Some(own) => own,
                None if self.is_secret() => self.expects().to_owned(),
                None => format!("{}, not {text:?}", self.expects()),
            };
            SettingError::Invalid { key: self.clone(), message }
        })
    }
}

impl Setting {
    /// Reads a setting from its dotted name and text value, as `waymark-host config set` does.
    pub fn parse(name: &str, text: Option<&str>) -> Result<Self, SettingError> {
        name.parse::<SettingKey>()?.with_text(text)
    }

    /// Which setting this is.
    pub fn key(&self) -> SettingKey {
        match self {
            Self::Endpoint(role, value) => SettingKey::Endpoint(*role, value.field()),
            Self::RetryBaseMs(_) => SettingKey::RetryBaseMs,
            Self::IdleTimeoutSecs(_) => SettingKey::IdleTimeoutSecs,
            Self::RequestTimeoutSecs(_) => SettingKey::RequestTimeoutSecs,
            Self::MaxConcurrent(_) => SettingKey::MaxConcurrent,
            Self::ExportDir(_) => SettingKey::ExportDir,
            Self::DataDir(_) => SettingKey::DataDir,
            Self::TranscriptsEnabled(_) => SettingKey::TranscriptsEnabled,
            Self::RetentionDays(_) => SettingKey::RetentionDays,
            Self::FlushEvery(_) => SettingKey::FlushEvery,
            Self::Redact(_) => SettingKey::Redact,
            Self::AllowedDirs(_) => SettingKey::AllowedDirs,
            Self::MaxBytes(_) => SettingKey::MaxBytes,
            Self::ApprovalTimeoutSecs(_) => SettingKey::ApprovalTimeoutSecs,
            Self::Price(model, side, _) => SettingKey::Price(model.clone(), *side),
        }
    }

    /// Whether the value is a secret (see [`SettingKey::is_secret`]).
    pub fn is_secret(&self) -> bool {
        self.key().is_secret()
    }

    /// The value as text, as [`SettingKey::with_text`] reads it back (`None`: cleared). Lists
    /// are one item per line.
    pub fn text(&self) -> Option<String> {
        fn text<T: ToString>(value: &Option<T>) -> Option<String> {
            value.as_ref().map(ToString::to_string)
        }
        let lines = |list: &Option<Vec<String>>| list.as_ref().map(|l| l.join("\n"));
        match self {
            Self::Endpoint(_, EndpointValue::Provider(p)) => text(p),
            Self::Endpoint(_, EndpointValue::MaxTokens(n)) => text(n),
            Self::Endpoint(
                _,
                EndpointValue::BaseUrl(s) | EndpointValue::Model(s) | EndpointValue::ApiKey(s),
            )
            | Self::ExportDir(s)
            | Self::DataDir(s) => s.clone(),
            Self::RetryBaseMs(n)
            | Self::IdleTimeoutSecs(n)
            | Self::RequestTimeoutSecs(n)
            | Self::MaxBytes(n)
            | Self::ApprovalTimeoutSecs(n) => text(n),
            Self::MaxConcurrent(n) | Self::RetentionDays(n) | Self::FlushEvery(n) => text(n),
            Self::TranscriptsEnabled(b) => text(b),
            Self::Redact(list) | Self::AllowedDirs(list) => lines(list),
            Self::Price(_, _, p) => text(p),
        }
    }
}

impl fmt::Debug for Setting {
    // Hand-written so a key or a redacted secret never reaches a log line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = match self.text() {
            Some(_) if self.is_secret() => Some("<secret>".to_owned()),
            text => text,
        };
        f.debug_tuple("Setting").field(&self.key().to_string()).field(&value).finish()
    }
}

/// A whole number of at least `min`.
fn number<T: std::str::FromStr + PartialOrd + From<u8>>(
    text: &str,
    min: u8,
) -> Result<T, Option<String>> {
    text.parse::<T>().ok().filter(|n| *n >= T::from(min)).ok_or(None)
}

/// An output-token limit within [`MaxTokens`]' bounds.
fn max_tokens(text: &str) -> Result<MaxTokens, Option<String>> {
    text.parse::<u64>().ok().and_then(|n| MaxTokens::new(n).ok()).ok_or(None)
}

fn boolean(text: &str) -> Result<bool, Option<String>> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(None),
    }
}

/// One word: a model name or a key.
fn word(text: &str) -> Result<String, Option<String>> {
    if text.contains(char::is_whitespace) { Err(None) } else { Ok(text.to_owned()) }
}

/// An `http://` or `https://` URL with a host, without its trailing `/`.
fn http_url(text: &str) -> Result<String, Option<String>> {
    let url = text.trim_end_matches('/');
    let rest = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"));
    let host = rest.and_then(|r| r.split(['/', '?', '#']).next()).unwrap_or_default();
    if host.is_empty() || host.starts_with(':') || url.contains(char::is_whitespace) {
        return Err(None);
    }
    Ok(url.to_owned())
}

/// Absolute on Unix (`/…`) or Windows (`C:\…`, `\\server\…`): the panel does not know which
/// system the host runs on. The host also checks paths with its own system's rules.
fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || path.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'))
}

fn absolute(text: &str) -> Result<String, Option<String>> {
    if is_absolute(text) { Ok(text.to_owned()) } else { Err(None) }
}

/// The non-blank lines, trimmed, each once.
fn lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !out.iter().any(|o| o == line) {
            out.push(line.to_owned());
        }
    }
    out
}

fn price(text: &str) -> Result<f64, Option<String>> {
    text.parse::<f64>().ok().filter(|p| p.is_finite() && *p >= 0.0).ok_or(None)
}
