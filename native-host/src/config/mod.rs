//! Host configuration: a TOML file in the config directory, overridden by environment variables.
//!
//! Precedence, lowest first: built-in defaults (a local Ollama), the file, the provider
//! shortcuts `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` (only when nothing else chose an endpoint),
//! then the explicit `WAYMARK_*` variables. The extension never supplies any of this.

mod file;
mod keys;
mod resolve;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

pub use file::{
    AgentsSection, ConfigFile, FileError, FilesSection, LlmSection, PriceSection, RoleSection,
    TranscriptSection, load_file, save_file,
};
pub use keys::apply_setting;
pub use resolve::{Env, ProcessEnv, resolve};

use waymark_protocol::{LlmRole, LlmStatus, MaxTokens, Provider};

/// Environment variable naming the config directory (tests and portable installs).
pub const ENV_CONFIG_DIR: &str = "WAYMARK_CONFIG_DIR";
/// Environment variable naming the export directory.
pub const ENV_EXPORT_DIR: &str = "WAYMARK_EXPORT_DIR";
/// Environment variable for the LLM base URL (e.g. `http://127.0.0.1:11434/v1`).
pub const ENV_BASE_URL: &str = "WAYMARK_LLM_BASE_URL";
/// Environment variable for the model name.
pub const ENV_MODEL: &str = "WAYMARK_LLM_MODEL";
/// Environment variable for the API key.
pub const ENV_API_KEY: &str = "WAYMARK_LLM_API_KEY";
/// Environment variable for the wire format (`openai` or `anthropic`).
pub const ENV_PROVIDER: &str = "WAYMARK_LLM_PROVIDER";
/// Environment variable for the retry base delay in milliseconds.
pub const ENV_RETRY_BASE_MS: &str = "WAYMARK_LLM_RETRY_BASE_MS";
/// Environment variable for the idle-stream timeout in seconds.
pub const ENV_IDLE_TIMEOUT_SECS: &str = "WAYMARK_LLM_IDLE_TIMEOUT_SECS";
/// OpenAI's conventional key variable: selects api.openai.com when nothing else is configured.
pub const ENV_OPENAI_KEY: &str = "OPENAI_API_KEY";
/// Anthropic's conventional key variable: selects api.anthropic.com when nothing else is.
pub const ENV_ANTHROPIC_KEY: &str = "ANTHROPIC_API_KEY";

/// Environment variable naming the data directory (transcripts under `sessions/`).
pub const ENV_DATA_DIR: &str = "WAYMARK_DATA_DIR";
/// Environment variable turning transcript capture on (`1`/`true`) or off (`0`/`false`).
pub const ENV_TRANSCRIPTS: &str = "WAYMARK_TRANSCRIPTS";

/// The per-role environment variable for `field` (`PROVIDER`, `BASE_URL`, `MODEL`, `API_KEY`),
/// e.g. `WAYMARK_LLM_PLANNER_MODEL`.
pub fn role_env(role: LlmRole, field: &str) -> String {
    format!("WAYMARK_LLM_{}_{field}", role.as_str().to_ascii_uppercase())
}

/// Default days a transcript is kept after its last write.
pub const DEFAULT_RETENTION_DAYS: u32 = 30;
/// Default number of events buffered before a transcript write.
pub const DEFAULT_FLUSH_EVERY: u32 = 16;
/// Default cap on a file returned by `file.read`: 25 MiB.
pub const DEFAULT_MAX_READ_BYTES: u64 = 25 * 1024 * 1024;

/// Name of the config file inside the config directory.
pub const CONFIG_FILE_NAME: &str = "config.toml";

/// Default endpoint: a local Ollama, so Waymark works without any account.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:11434/v1";
/// Default model for the local Ollama endpoint.
pub const DEFAULT_MODEL: &str = "llama3.1";
/// OpenAI's endpoint, chosen by `OPENAI_API_KEY`.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Model used with `OPENAI_API_KEY` unless one is set.
pub const OPENAI_DEFAULT_MODEL: &str = "gpt-4o-mini";
/// Anthropic's endpoint, chosen by `ANTHROPIC_API_KEY`.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com/v1";
/// Model used with `ANTHROPIC_API_KEY` unless one is set.
pub const ANTHROPIC_DEFAULT_MODEL: &str = "claude-haiku-4-5";

/// The effective LLM settings after all overrides.
#[derive(Clone, PartialEq)]
pub struct LlmConfig {
    /// Wire format.
    pub provider: Provider,
    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Model name sent with each request.
    pub model: String,
    /// API key; never logged, never sent to the extension.
    pub api_key: Option<String>,
    /// The user's limit on one reply, replacing the `max_tokens` a request carries.
    pub max_tokens: Option<MaxTokens>,
    /// First retry delay; later ones grow exponentially with jitter.
    pub retry_base: Duration,
    /// Maximum retries after the first attempt.
    pub max_retries: usize,
    /// Longest silence tolerated inside a streamed answer (and before the first byte).
    pub idle_timeout: Duration,
    /// Longest wait for a non-streamed answer.
    pub request_timeout: Duration,
    /// At most this many LLM calls run at once.
    pub max_concurrent: usize,
}

impl std::fmt::Debug for LlmConfig {
    // Hand-written so the key can never end up in a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("max_tokens", &self.max_tokens)
            .field("retry_base", &self.retry_base)
            .field("idle_timeout", &self.idle_timeout)
            .finish_non_exhaustive()
    }
}

impl LlmConfig {
    /// What `hello` may tell the extension: everything but the key.
    pub fn status(&self) -> LlmStatus {
        LlmStatus {
            provider: self.provider.as_str().to_owned(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            has_key: self.api_key.is_some(),
            max_tokens: self.max_tokens,
        }
    }

    /// The `max_tokens` to send for `requested` (what the core asked for): the user's limit
    /// when one is set, else the request's own.
    pub fn max_tokens_for(&self, requested: Option<u32>) -> Option<u32> {
        self.max_tokens.map(MaxTokens::get).or(requested)
    }
}

/// Transcript capture settings after overrides.
#[derive(Clone, PartialEq)]
pub struct TranscriptConfig {
    /// Whether `transcript.record` writes anything.
    pub enabled: bool,
    /// `<data dir>/sessions`.
    pub dir: PathBuf,
    /// Prune files untouched for longer; 0 keeps forever.
    pub retention_days: u32,
    /// Buffered events are written at least every this many.
    pub flush_every: u32,
    /// Exact secrets to redact first (configured ones plus every API key the host holds).
    pub redact: Vec<String>,
}

impl std::fmt::Debug for TranscriptConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptConfig")
            .field("enabled", &self.enabled)
            .field("dir", &self.dir)
            .field("retention_days", &self.retention_days)
            .field("flush_every", &self.flush_every)
            .field("redact", &self.redact.len())
            .finish()
    }
}

/// What `file.read` may read.
#[derive(Debug, Clone, PartialEq)]
pub struct FilesConfig {
    /// Allowed directories (as configured; canonicalised when checking).
    pub allowed_dirs: Vec<PathBuf>,
    /// Largest file returned.
    pub max_bytes: u64,
}

/// The effective host configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Default LLM endpoint settings.
    pub llm: LlmConfig,
    /// Effective endpoint of every role (the default where a role sets nothing).
    pub roles: BTreeMap<LlmRole, LlmConfig>,
    /// Where `export.write` puts files.
    pub export_dir: PathBuf,
    /// Where the config file lives (whether or not it exists).
    pub config_path: PathBuf,
    /// Data directory (transcripts in `sessions/`).
    pub data_dir: PathBuf,
    /// Transcript capture.
    pub transcripts: TranscriptConfig,
    /// Upload resources.
    pub files: FilesConfig,
    /// Price overrides by model (dollars per million tokens).
    pub prices: BTreeMap<String, PriceSection>,
    /// Environment variables that override file settings (names only).
    pub env_overrides: Vec<String>,
}

impl Config {
    /// The endpoint for `role`.
    pub fn for_role(&self, role: LlmRole) -> &LlmConfig {
        self.roles.get(&role).unwrap_or(&self.llm)
    }
}

/// The data directory: `$WAYMARK_DATA_DIR`, else the platform's (e.g. `~/.local/share/waymark`).
pub fn data_dir(env: &dyn Env) -> Result<PathBuf, ConfigError> {
    if let Some(dir) = env.var(ENV_DATA_DIR) {
        return Ok(PathBuf::from(dir));
    }
    project_dirs().map(|p| p.data_dir().to_path_buf()).ok_or(ConfigError::NoHome)
}

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file exists but cannot be read or parsed.
    #[error(transparent)]
    File(#[from] FileError),
    /// A setting has a value the host cannot use.
    #[error("invalid setting {name}: {reason}")]
    Invalid {
        /// Variable or key name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No home directory, so no default config or export location.
    #[error("cannot find the home directory; set {ENV_CONFIG_DIR} and {ENV_EXPORT_DIR}")]
    NoHome,
}

/// The config directory: `$WAYMARK_CONFIG_DIR`, else the platform's (e.g. `~/.config/waymark`).
pub fn config_dir(env: &dyn Env) -> Result<PathBuf, ConfigError> {
    if let Some(dir) = env.var(ENV_CONFIG_DIR) {
        return Ok(PathBuf::from(dir));
    }
    project_dirs().map(|p| p.config_dir().to_path_buf()).ok_or(ConfigError::NoHome)
}

/// The platform's per-user directories for "waymark".
pub fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "waymark")
}

/// Default export directory: `<Downloads>/waymark` (the XDG download dir, else an existing
/// `~/Downloads`), else `<data dir>/exports`.
pub fn default_export_dir() -> Result<PathBuf, ConfigError> {
    let user = directories::UserDirs::new();
    let downloads = user.as_ref().and_then(|u| {
        u.download_dir()
            .map(PathBuf::from)
            .or_else(|| Some(u.home_dir().join("Downloads")).filter(|d| d.is_dir()))
    });
    if let Some(dl) = downloads {
        return Ok(dl.join("waymark"));
    }
    project_dirs().map(|p| p.data_dir().join("exports")).ok_or(ConfigError::NoHome)
}

impl Config {
    /// Loads the file (if any) and applies the process environment.
    pub fn load() -> Result<Self, ConfigError> {
        Self::load_with(&ProcessEnv)
    }

    /// Loads the file (if any) and applies `env`; lets tests avoid the process environment.
    pub fn load_with(env: &dyn Env) -> Result<Self, ConfigError> {
        let path = config_dir(env)?.join(CONFIG_FILE_NAME);
        let file = load_file(&path)?.unwrap_or_default();
        resolve(file, env, path)
    }
}

#[cfg(test)]
mod tests;
