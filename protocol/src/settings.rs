//! `config.get` / `config.set`: the side panel's view of the host settings. Secrets are
//! write-only: the host reports whether a key is set, never its value.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{LlmRole, LlmStatus};

mod key;
mod value;
mod wire;

pub use key::{EndpointField, PriceSide, Provider, SettingKey};
pub use value::{EndpointValue, Setting, SettingError};

/// Payload of `config.set`: settings to change, typed, applied all or nothing.
///
/// On the wire it is `{"values": {"<dotted name>": "<text>" | null, …}}`: the names and text
/// values of `waymark-host config set` (see [`SettingKey::help`]), `null` clearing a setting.
/// Both ends read and write it through [`Setting::parse`] and [`Setting::text`]; a name or
/// value that does not parse fails the whole request (nothing is dropped), as does a name
/// given twice. Being a JSON object, it may arrive in another order: no setting of one
/// request may depend on another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigSet {
    /// The changes, each setting at most once.
    #[serde(rename = "values", with = "wire")]
    pub settings: Vec<Setting>,
}

/// Data of `config.get` and `config.set` replies: everything except secrets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HostSettings {
    /// The default LLM endpoint.
    pub llm: LlmStatus,
    /// The endpoint each role uses (every role, resolved with fallbacks).
    pub roles: BTreeMap<LlmRole, LlmStatus>,
    /// Where exports go.
    pub export_dir: String,
    /// Transcript capture.
    pub transcripts: TranscriptSettings,
    /// Directories `file.read` may read from.
    pub allowed_read_dirs: Vec<String>,
    /// Largest file `file.read` returns, in bytes.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub max_read_bytes: u64,
    /// The config file the settings live in.
    pub config_path: String,
    /// Settings overridden by environment variables (changing them in the file has no effect).
    #[serde(default)]
    pub env_overrides: Vec<String>,
    /// Configuration problems to show to the user.
    #[serde(default)]
    pub problems: Vec<String>,
    /// The price the host charges each configured model at (every distinct model across the
    /// roles), so the panel can show and correct it; absent from older hosts.
    #[serde(default)]
    pub prices: BTreeMap<String, ModelPrice>,
}

/// Transcript capture settings (the exact secrets to redact are never reported).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TranscriptSettings {
    /// Whether `transcript.record` writes anything.
    pub enabled: bool,
    /// Where the `<session_id>.jsonl` files go.
    pub dir: String,
    /// Files untouched for longer are pruned; 0 keeps them forever.
    pub retention_days: u32,
    /// Buffered events are written at least every this many events.
    pub flush_every: u32,
    /// How many exact secrets are configured for redaction.
    pub redact_count: u32,
}

/// What one model costs, as the host prices its calls (US dollars per million tokens).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelPrice {
    /// Prompt tokens; `None` when no price is known (the cost then shows tokens only).
    pub input: Option<f64>,
    /// Completion tokens; `None` when no price is known.
    pub output: Option<f64>,
    /// Where the price comes from, so the user knows whether it is theirs to correct.
    pub source: PriceSource,
}

/// Where a [`ModelPrice`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PriceSource {
    /// The user's `prices.<model>` setting.
    User,
    /// The host's built-in list price.
    BuiltIn,
    /// No known price, but the model runs on this machine: calls cost nothing.
    Local,
    /// No known price: the cost of its calls is unknown.
    Unknown,
}

#[cfg(test)]
mod tests;
