//! `config.get` / `config.set`: the side panel's settings, through the host.
//!
//! Keys are write-only: the view reports `has_key` flags, never a key; `config.set` writes the
//! file (0600) and the running host reloads it, so the next LLM call uses the new settings.

use std::collections::BTreeMap;

use waymark_protocol::{HostSettings, LlmStatus, ModelPrice, TranscriptSettings};

use crate::config::{self, Config, ConfigError, Env, ROLES, load_file, save_file, set_key};
use crate::llm::{is_loopback, price::model_price};

/// Problems worth showing in the side panel (empty when all is well).
pub fn problems(cfg: &Result<Config, String>) -> Vec<String> {
    let cfg = match cfg {
        Ok(c) => c,
        Err(e) => return vec![e.clone()],
    };
    let mut out = Vec::new();
    for dir in &cfg.files.allowed_dirs {
        if !dir.is_dir() {
            out.push(format!("files.allowed_dirs: {} is not a directory", dir.display()));
        }
    }
    out
}

/// Everything but secrets.
pub fn view(cfg: &Result<Config, String>) -> HostSettings {
    let problems = problems(cfg);
    let Ok(c) = cfg else {
        let none = LlmStatus {
            provider: "unconfigured".into(),
            base_url: String::new(),
            model: String::new(),
            has_key: false,
        };
        return HostSettings {
            llm: none,
            roles: BTreeMap::new(),
            export_dir: String::new(),
            transcripts: TranscriptSettings {
                enabled: false,
                dir: String::new(),
                retention_days: 0,
                flush_every: 0,
                redact_count: 0,
            },
            allowed_read_dirs: Vec::new(),
            max_read_bytes: 0,
            config_path: String::new(),
            env_overrides: Vec::new(),
            problems,
            prices: BTreeMap::new(),
        };
    };
    let path = |p: &std::path::Path| p.to_string_lossy().into_owned();
    HostSettings {
        llm: c.llm.status(),
        roles: ROLES.iter().map(|r| ((*r).to_owned(), c.for_role(r).status())).collect(),
        export_dir: path(&c.export_dir),
        transcripts: TranscriptSettings {
            enabled: c.transcripts.enabled,
            dir: path(&c.transcripts.dir),
            retention_days: c.transcripts.retention_days,
            flush_every: c.transcripts.flush_every,
            redact_count: u32::try_from(c.transcripts.redact.len()).unwrap_or(u32::MAX),
        },
        allowed_read_dirs: c.files.allowed_dirs.iter().map(|d| path(d)).collect(),
        max_read_bytes: c.files.max_bytes,
        config_path: path(&c.config_path),
        env_overrides: c.env_overrides.clone(),
        problems,
        prices: prices(c),
    }
}

/// The effective price of every distinct model the roles use (each role falls back to the
/// default endpoint, so an unused default is not listed). A model counts as local (free
/// without a price) only when every endpoint serving it is on this machine.
fn prices(c: &Config) -> BTreeMap<String, ModelPrice> {
    let mut local: BTreeMap<&str, bool> = BTreeMap::new();
    for ep in ROLES.iter().map(|r| c.for_role(r)) {
        let here = is_loopback(&ep.base_url);
        local.entry(ep.model.as_str()).and_modify(|l| *l &= here).or_insert(here);
    }
    local
        .into_iter()
        .filter(|(model, _)| !model.is_empty())
        .map(|(model, local)| (model.to_owned(), model_price(model, &c.prices, local)))
        .collect()
}

/// Applies `values` to the config file, all or nothing: the result must load (with `env`)
/// before anything is saved. Returns the new effective config.
pub fn apply(
    values: &BTreeMap<String, Option<String>>,
    env: &dyn Env,
) -> Result<Config, ConfigError> {
    let path = config::config_dir(env)?.join(config::CONFIG_FILE_NAME);
    let mut file = load_file(&path)?.unwrap_or_default();
    for (key, value) in values {
        set_key(&mut file, key, value.clone())
            .map_err(|e| ConfigError::Invalid { name: key.clone(), reason: e.to_string() })?;
    }
    // The file must be valid on its own (an environment variable may hide a bad value today
    // and be gone tomorrow), and together with the environment.
    config::resolve(file.clone(), &FileOnly(env), path.clone())?;
    config::resolve(file.clone(), env, path.clone())?;
    save_file(&path, &file)?;
    Config::load_with(env)
}

/// The environment reduced to the directory variables, to validate the file alone.
struct FileOnly<'a>(&'a dyn Env);

impl Env for FileOnly<'_> {
    fn var(&self, name: &str) -> Option<String> {
        [config::ENV_CONFIG_DIR, config::ENV_EXPORT_DIR, config::ENV_DATA_DIR]
            .contains(&name)
            .then(|| self.0.var(name))
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn set_then_view_never_shows_keys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path().to_string_lossy().into_owned();
        let env: HashMap<&str, &str> = [
            (config::ENV_CONFIG_DIR, d.as_str()),
            (config::ENV_EXPORT_DIR, d.as_str()),
            (config::ENV_DATA_DIR, d.as_str()),
        ]
        .into();
        let mut values = BTreeMap::new();
        values.insert("llm.api_key".to_owned(), Some("sk-very-secret-value".to_owned()));
        values.insert("roles.planner.model".to_owned(), Some("big-model".to_owned()));
        values.insert("transcripts.enabled".to_owned(), Some("true".to_owned()));
        let cfg = apply(&values, &env).expect("apply");
        let v = view(&Ok(cfg));
        let text = serde_json::to_string(&v).expect("ser");
        assert!(!text.contains("sk-very-secret-value"), "{text}");
        assert!(v.llm.has_key);
        assert_eq!(v.roles["planner"].model, "big-model");
        assert_eq!(v.roles["navigator"].model, v.llm.model);
        assert!(v.transcripts.enabled);
        assert_eq!(v.transcripts.redact_count, 1, "the key itself is a redacted secret");

        let mut bad = BTreeMap::new();
        bad.insert("llm.model".to_owned(), Some("fine".to_owned()));
        bad.insert("llm.base_url".to_owned(), Some("ftp://nope".to_owned()));
        assert!(apply(&bad, &env).is_err());
        let again = Config::load_with(&env).expect("load");
        assert_ne!(again.llm.model, "fine", "all or nothing");
    }
}
