//! The on-disk `config.toml`: every field optional, written with mode 0600 (it may hold a key).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use waymark_protocol::{LlmRole, MaxTokens, Provider};

/// The `[llm]` table.
#[derive(Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSection {
    /// `openai` (any OpenAI-compatible endpoint) or `anthropic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// Endpoint base URL, e.g. `http://127.0.0.1:11434/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// API key (the reason the file is 0600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Most tokens one reply may take, for every role without its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<MaxTokens>,
    /// First retry delay in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_base_ms: Option<u64>,
    /// Idle-stream timeout in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout_secs: Option<u64>,
    /// Non-streamed request timeout in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_secs: Option<u64>,
    /// Most LLM calls in flight at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrent: Option<usize>,
}

impl std::fmt::Debug for LlmSection {
    // Hand-written so the key never reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmSection")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .finish_non_exhaustive()
    }
}

/// A `[roles.<role>]` table: overrides the default `[llm]` endpoint for one role.
#[derive(Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleSection {
    /// Wire format; setting it (or `base_url`) makes the role a separate endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// Endpoint base URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// API key for this role's endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Most tokens one reply of this role may take (replaces the role's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<MaxTokens>,
}

impl RoleSection {
    /// Whether nothing is set (then the table is dropped when saving).
    pub fn is_empty(&self) -> bool {
        self.provider.is_none()
            && self.base_url.is_none()
            && self.model.is_none()
            && self.api_key.is_none()
            && self.max_tokens.is_none()
    }
}

impl std::fmt::Debug for RoleSection {
    // Hand-written so the key never reaches a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoleSection")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

/// The `[transcripts]` table.
#[derive(Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptSection {
    /// Capture on or off (off by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Days a session file is kept after its last write; 0 keeps forever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days: Option<u32>,
    /// Write buffered events at least every this many events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_every: Option<u32>,
    /// Exact strings (passwords, account numbers) replaced before anything is written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redact: Vec<String>,
}

impl std::fmt::Debug for TranscriptSection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptSection")
            .field("enabled", &self.enabled)
            .field("retention_days", &self.retention_days)
            .field("redact", &self.redact.len())
            .finish_non_exhaustive()
    }
}

/// The `[files]` table: what `file.read` may read.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesSection {
    /// Directories (and everything below them) the extension may read from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_dirs: Vec<PathBuf>,
    /// Largest file returned, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}

/// A `[prices."<model>"]` table: dollars per million tokens, overriding the built-in table.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceSection {
    /// Prompt tokens.
    #[serde(default)]
    pub input: f64,
    /// Completion tokens.
    #[serde(default)]
    pub output: f64,
}

/// The whole file.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Export directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export_dir: Option<PathBuf>,
    /// Data directory (transcripts live in its `sessions/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<PathBuf>,
    /// Default LLM endpoint.
    #[serde(default)]
    pub llm: LlmSection,
    /// Per-role endpoint overrides (`[roles.planner]`, …; an unknown role fails the load).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub roles: BTreeMap<LlmRole, RoleSection>,
    /// Transcript capture.
    #[serde(default)]
    pub transcripts: TranscriptSection,
    /// Upload resources.
    #[serde(default)]
    pub files: FilesSection,
    /// Price overrides by model name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, PriceSection>,
    /// External agents (`waymark-host mcp`).
    #[serde(default, skip_serializing_if = "AgentsSection::is_empty")]
    pub agents: AgentsSection,
}

/// The `[agents]` table: external agents through `waymark-host mcp`.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentsSection {
    /// How long a call waits at a card for the user's answer, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_timeout_secs: Option<u64>,
}

impl AgentsSection {
    /// Whether nothing is set (then the table is left out when saving).
    pub fn is_empty(&self) -> bool {
        self.approval_timeout_secs.is_none()
    }
}

/// Why the config file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// I/O failure reading or writing.
    #[error("cannot access config file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid TOML for this schema.
    #[error("config file {path} is invalid: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Parser message with line and column.
        message: String,
    },
    /// Serialising the config failed (should not happen).
    #[error("cannot serialise config: {0}")]
    Serialise(String),
}

/// Reads `path`; `Ok(None)` when it does not exist (defaults apply).
pub fn load_file(path: &Path) -> Result<Option<ConfigFile>, FileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(FileError::Io { path: path.to_path_buf(), source }),
    };
    toml::from_str(&text)
        .map(Some)
        .map_err(|e| FileError::Parse { path: path.to_path_buf(), message: e.to_string() })
}

/// Writes `cfg` to `path` atomically with mode 0600, creating the directory.
pub fn save_file(path: &Path, cfg: &ConfigFile) -> Result<(), FileError> {
    let io = |source| FileError::Io { path: path.to_path_buf(), source };
    let text = toml::to_string_pretty(cfg).map_err(|e| FileError::Serialise(e.to_string()))?;
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    // tempfile creates the file 0600 on Unix, so the key is never readable by others,
    // not even between create and rename.
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    tmp.write_all(text.as_bytes()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    set_private(path).map_err(io)?;
    Ok(())
}

/// Makes `path` readable by its owner only.
#[cfg(unix)]
pub(crate) fn set_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// Windows files inherit the user profile's ACL, which is already private.
#[cfg(not(unix))]
pub(crate) fn set_private(_path: &Path) -> std::io::Result<()> {
    Ok(())
}
