//! Merges defaults, the file and the environment into one [`Config`].

use std::path::PathBuf;
use std::time::Duration;

use super::*;

/// Source of environment variables; a trait so precedence is tested without touching the
/// process environment (which is shared by all tests in a process).
pub trait Env {
    /// The variable's value; empty values count as unset.
    fn var(&self, name: &str) -> Option<String>;
}

/// The real process environment (empty values count as unset).
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.trim().is_empty())
    }
}

impl Env for std::collections::HashMap<&str, &str> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).map(|v| (*v).to_owned()).filter(|v| !v.trim().is_empty())
    }
}

const DEFAULT_RETRY_BASE_MS: u64 = 500;
const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 60;
const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 300;
const DEFAULT_MAX_CONCURRENT: usize = 5;
const DEFAULT_MAX_RETRIES: usize = 3;

/// Applies `env` over `file` over the defaults. `config_path` is only recorded.
pub fn resolve(
    file: ConfigFile,
    env: &dyn Env,
    config_path: PathBuf,
) -> Result<Config, ConfigError> {
    let llm = resolve_llm(&file.llm, env)?;
    let export_dir = match env.var(ENV_EXPORT_DIR).map(PathBuf::from).or(file.export_dir) {
        Some(dir) => dir,
        None => default_export_dir()?,
    };
    Ok(Config { llm, export_dir, config_path })
}

fn resolve_llm(file: &LlmSection, env: &dyn Env) -> Result<LlmConfig, ConfigError> {
    let provider_name = env.var(ENV_PROVIDER).or_else(|| file.provider.clone());
    let explicit_base = env.var(ENV_BASE_URL).or_else(|| file.base_url.clone());
    let openai_key = env.var(ENV_OPENAI_KEY);
    let anthropic_key = env.var(ENV_ANTHROPIC_KEY);

    let provider = match &provider_name {
        Some(name) => ProviderKind::parse(name).ok_or_else(|| ConfigError::Invalid {
            name: "llm.provider".into(),
            reason: format!("unknown provider {name:?}; use \"openai\" or \"anthropic\""),
        })?,
        None => match &explicit_base {
            Some(base) if base.contains("anthropic.com") => ProviderKind::Anthropic,
            Some(_) => ProviderKind::Openai,
            None if openai_key.is_some() => ProviderKind::Openai,
            None if anthropic_key.is_some() => ProviderKind::Anthropic,
            None => ProviderKind::Openai,
        },
    };

    let base_url = match explicit_base {
        Some(base) => base,
        None => match provider {
            ProviderKind::Anthropic => ANTHROPIC_BASE_URL.to_owned(),
            ProviderKind::Openai if openai_key.is_some() => OPENAI_BASE_URL.to_owned(),
            ProviderKind::Openai => DEFAULT_BASE_URL.to_owned(),
        },
    };
    let base_url = base_url.trim().trim_end_matches('/').to_owned();
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(ConfigError::Invalid {
            name: ENV_BASE_URL.into(),
            reason: format!("{base_url:?} is not an http(s) URL"),
        });
    }

    let model = env.var(ENV_MODEL).or_else(|| file.model.clone()).unwrap_or_else(|| {
        if base_url.starts_with(OPENAI_BASE_URL) {
            OPENAI_DEFAULT_MODEL.to_owned()
        } else if provider == ProviderKind::Anthropic {
            ANTHROPIC_DEFAULT_MODEL.to_owned()
        } else {
            DEFAULT_MODEL.to_owned()
        }
    });

    // A vendor's conventional key goes only to that vendor's own endpoint, never to a local
    // or third-party server the user pointed us at.
    let vendor_key = if base_url.starts_with("https://api.openai.com") {
        openai_key
    } else if base_url.starts_with("https://api.anthropic.com") {
        anthropic_key
    } else {
        None
    };
    let api_key = env.var(ENV_API_KEY).or_else(|| file.api_key.clone()).or(vendor_key);

    let retry_base_ms = match env.var(ENV_RETRY_BASE_MS) {
        Some(v) => parse_num(ENV_RETRY_BASE_MS, &v)?,
        None => file.retry_base_ms.unwrap_or(DEFAULT_RETRY_BASE_MS),
    };
    let idle_secs = match env.var(ENV_IDLE_TIMEOUT_SECS) {
        Some(v) => parse_num(ENV_IDLE_TIMEOUT_SECS, &v)?,
        None => file.idle_timeout_secs.unwrap_or(DEFAULT_IDLE_TIMEOUT_SECS),
    };

    Ok(LlmConfig {
        provider,
        base_url,
        model,
        api_key,
        retry_base: Duration::from_millis(retry_base_ms),
        max_retries: DEFAULT_MAX_RETRIES,
        idle_timeout: Duration::from_secs(idle_secs.max(1)),
        request_timeout: Duration::from_secs(
            file.request_timeout_secs.unwrap_or(DEFAULT_REQUEST_TIMEOUT_SECS).max(1),
        ),
        max_concurrent: file.max_concurrent.unwrap_or(DEFAULT_MAX_CONCURRENT).max(1),
    })
}

fn parse_num(name: &str, value: &str) -> Result<u64, ConfigError> {
    value.trim().parse().map_err(|_| ConfigError::Invalid {
        name: name.into(),
        reason: format!("{value:?} is not a whole number"),
    })
}
