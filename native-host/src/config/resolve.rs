//! Merges defaults, the file and the environment into one [`Config`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use waymark_protocol::{LlmRole, Provider};

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
    let mut roles = BTreeMap::new();
    for role in LlmRole::ALL {
        let section = file.roles.get(&role).cloned().unwrap_or_default();
        roles.insert(role, resolve_role(role, &section, &llm, env)?);
    }
    let export_dir = match env.var(ENV_EXPORT_DIR).map(PathBuf::from).or(file.export_dir) {
        Some(dir) => dir,
        None => default_export_dir()?,
    };
    let data_dir = match file.data_dir.filter(|_| env.var(ENV_DATA_DIR).is_none()) {
        Some(dir) => dir,
        None => data_dir(env)?,
    };
    let enabled = match env.var(ENV_TRANSCRIPTS) {
        Some(v) => parse_bool(ENV_TRANSCRIPTS, &v)?,
        None => file.transcripts.enabled.unwrap_or(false),
    };
    // Every key the host holds is a secret a page might echo back; redact those too.
    let mut redact: Vec<String> =
        file.transcripts.redact.iter().filter(|s| !s.trim().is_empty()).cloned().collect();
    for key in std::iter::once(&llm).chain(roles.values()).filter_map(|l| l.api_key.clone()) {
        if !redact.contains(&key) {
            redact.push(key);
        }
    }
    let transcripts = TranscriptConfig {
        enabled,
        dir: data_dir.join("sessions"),
        retention_days: file.transcripts.retention_days.unwrap_or(DEFAULT_RETENTION_DAYS),
        flush_every: file.transcripts.flush_every.unwrap_or(DEFAULT_FLUSH_EVERY).max(1),
        redact,
    };
    // The panel cannot know the host's system, so its check accepts Unix and Windows paths;
    // a directory `file.read` may read below must be absolute here.
    if let Some(dir) = file.files.allowed_dirs.iter().find(|d| !d.is_absolute()) {
        return Err(ConfigError::Invalid {
            name: "files.allowed_dirs".into(),
            reason: format!("{} is not an absolute path on this system", dir.display()),
        });
    }
    let files = FilesConfig {
        allowed_dirs: file.files.allowed_dirs,
        max_bytes: file.files.max_bytes.unwrap_or(DEFAULT_MAX_READ_BYTES),
    };
    let env_overrides = overridden(env);
    Ok(Config {
        llm,
        roles,
        export_dir,
        config_path,
        data_dir,
        transcripts,
        files,
        prices: file.prices,
        env_overrides,
    })
}

/// Names of the `WAYMARK_*` variables that are set and so beat the file.
fn overridden(env: &dyn Env) -> Vec<String> {
    let mut names: Vec<String> = [
        ENV_PROVIDER,
        ENV_BASE_URL,
        ENV_MODEL,
        ENV_API_KEY,
        ENV_RETRY_BASE_MS,
        ENV_IDLE_TIMEOUT_SECS,
        ENV_EXPORT_DIR,
        ENV_DATA_DIR,
        ENV_TRANSCRIPTS,
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for role in LlmRole::ALL {
        for field in ["PROVIDER", "BASE_URL", "MODEL", "API_KEY"] {
            names.push(role_env(role, field));
        }
    }
    names.retain(|n| env.var(n).is_some());
    names
}

/// What one endpoint was given, before defaults.
struct EndpointInput {
    provider: Option<Provider>,
    base_url: Option<String>,
    model: Option<String>,
    api_key: Option<String>,
    /// Setting name used in error messages.
    label: String,
}

fn resolve_llm(file: &LlmSection, env: &dyn Env) -> Result<LlmConfig, ConfigError> {
    let input = EndpointInput {
        provider: env_provider(env, ENV_PROVIDER)?.or(file.provider),
        base_url: env.var(ENV_BASE_URL).or_else(|| file.base_url.clone()),
        model: env.var(ENV_MODEL).or_else(|| file.model.clone()),
        api_key: env.var(ENV_API_KEY).or_else(|| file.api_key.clone()),
        label: "llm".into(),
    };
    let (provider, base_url, model, api_key) = resolve_endpoint(input, env)?;

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
        max_tokens: file.max_tokens,
        retry_base: Duration::from_millis(retry_base_ms),
        max_retries: DEFAULT_MAX_RETRIES,
        idle_timeout: Duration::from_secs(idle_secs.max(1)),
        request_timeout: Duration::from_secs(
            file.request_timeout_secs.unwrap_or(DEFAULT_REQUEST_TIMEOUT_SECS).max(1),
        ),
        max_concurrent: file.max_concurrent.unwrap_or(DEFAULT_MAX_CONCURRENT).max(1),
    })
}

/// A role's endpoint. Naming a provider or base URL makes it a separate endpoint (resolved
/// with the same vendor defaults as `[llm]`; the default key is kept only for the same URL);
/// otherwise it is the default endpoint with the role's model and key, if any.
fn resolve_role(
    role: LlmRole,
    file: &RoleSection,
    default: &LlmConfig,
    env: &dyn Env,
) -> Result<LlmConfig, ConfigError> {
    let input = EndpointInput {
        provider: env_provider(env, &role_env(role, "PROVIDER"))?.or(file.provider),
        base_url: env.var(&role_env(role, "BASE_URL")).or_else(|| file.base_url.clone()),
        model: env.var(&role_env(role, "MODEL")).or_else(|| file.model.clone()),
        api_key: env.var(&role_env(role, "API_KEY")).or_else(|| file.api_key.clone()),
        label: format!("roles.{role}"),
    };
    let mut cfg = default.clone();
    cfg.max_tokens = file.max_tokens.or(default.max_tokens);
    if input.provider.is_none() && input.base_url.is_none() {
        if let Some(model) = input.model {
            cfg.model = model;
        }
        if let Some(key) = input.api_key {
            cfg.api_key = Some(key);
        }
        return Ok(cfg);
    }
    let own_key = input.api_key.is_some();
    let (provider, base_url, model, api_key) = resolve_endpoint(input, env)?;
    let same_endpoint = base_url == default.base_url && provider == default.provider;
    cfg.api_key = if own_key || !same_endpoint { api_key } else { default.api_key.clone() };
    cfg.provider = provider;
    cfg.base_url = base_url;
    cfg.model = model;
    Ok(cfg)
}

type Endpoint = (Provider, String, String, Option<String>);

/// The provider an environment variable names, if it is set.
fn env_provider(env: &dyn Env, name: &str) -> Result<Option<Provider>, ConfigError> {
    env.var(name)
        .map(|v| {
            Provider::parse(&v).ok_or_else(|| ConfigError::Invalid {
                name: name.to_owned(),
                reason: format!("unknown provider {v:?}; use \"openai\" or \"anthropic\""),
            })
        })
        .transpose()
}

fn resolve_endpoint(input: EndpointInput, env: &dyn Env) -> Result<Endpoint, ConfigError> {
    let openai_key = env.var(ENV_OPENAI_KEY);
    let anthropic_key = env.var(ENV_ANTHROPIC_KEY);
    let label = &input.label;

    let provider = match input.provider {
        Some(provider) => provider,
        None => match &input.base_url {
            Some(base) if base.contains("anthropic.com") => Provider::Anthropic,
            Some(_) => Provider::Openai,
            None if openai_key.is_some() => Provider::Openai,
            None if anthropic_key.is_some() => Provider::Anthropic,
            None => Provider::Openai,
        },
    };

    let base_url = match input.base_url {
        Some(base) => base,
        None => match provider {
            Provider::Anthropic => ANTHROPIC_BASE_URL.to_owned(),
            Provider::Openai if openai_key.is_some() => OPENAI_BASE_URL.to_owned(),
            Provider::Openai => DEFAULT_BASE_URL.to_owned(),
        },
    };
    let base_url = base_url.trim().trim_end_matches('/').to_owned();
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(ConfigError::Invalid {
            name: format!("{label}.base_url"),
            reason: format!("{base_url:?} is not an http(s) URL"),
        });
    }

    let model = input.model.unwrap_or_else(|| {
        if base_url.starts_with(OPENAI_BASE_URL) {
            OPENAI_DEFAULT_MODEL.to_owned()
        } else if provider == Provider::Anthropic {
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
    let api_key = input.api_key.or(vendor_key);
    Ok((provider, base_url, model, api_key))
}

fn parse_bool(name: &str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ConfigError::Invalid {
            name: name.into(),
            reason: format!("{value:?} is not true or false"),
        }),
    }
}

fn parse_num(name: &str, value: &str) -> Result<u64, ConfigError> {
    value.trim().parse().map_err(|_| ConfigError::Invalid {
        name: name.into(),
        reason: format!("{value:?} is not a whole number"),
    })
}
