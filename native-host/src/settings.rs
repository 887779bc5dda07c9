//! `config.get` / `config.set`: the side panel's settings, through the host.
//!
//! Keys are write-only: the view reports `has_key` flags, never a key; `config.set` writes the
//! file (0600) and the running host reloads it, so the next LLM call uses the new settings.

use std::collections::BTreeMap;

use waymark_protocol::{HostSettings, LlmRole, LlmStatus, ModelPrice, Setting, TranscriptSettings};

use crate::config::{self, Config, ConfigError, Env, apply_setting, load_file, save_file};
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
            max_tokens: None,
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
        roles: LlmRole::ALL.into_iter().map(|r| (r, c.for_role(r).status())).collect(),
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
    for ep in LlmRole::ALL.map(|r| c.for_role(r)) {
        let here = is_loopback(&ep.base_url);
        local.entry(ep.model.as_str()).and_modify(|l| *l &= here).or_insert(here);
    }
    local
        .into_iter()
        .filter(|(model, _)| !model.is_empty())
        .map(|(model, local)| (model.to_owned(), model_price(model, &c.prices, local)))
        .collect()
}

/// Applies `settings` to the config file, all or nothing: the result must load (with `env`)
/// before anything is saved. Returns the new effective config.
pub fn apply(settings: &[Setting], env: &dyn Env) -> Result<Config, ConfigError> {
    let path = config::config_dir(env)?.join(config::CONFIG_FILE_NAME);
    let mut file = load_file(&path)?.unwrap_or_default();
    for setting in settings {
        apply_setting(&mut file, setting);
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
        let settings = [
            ("llm.api_key", "sk-very-secret-value"),
            ("roles.planner.model", "big-model"),
            ("transcripts.enabled", "true"),
        ]
        .map(|(name, text)| Setting::parse(name, Some(text)).expect("valid"));
        let cfg = apply(&settings, &env).expect("apply");
        let v = view(&Ok(cfg));
        let text = serde_json::to_string(&v).expect("ser");
        assert!(!text.contains("sk-very-secret-value"), "{text}");
        assert!(v.llm.has_key);
        assert_eq!(v.roles[&LlmRole::Planner].model, "big-model");
        assert_eq!(v.roles[&LlmRole::Navigator].model, v.llm.model);
        assert!(v.transcripts.enabled);
        assert_eq!(v.transcripts.redact_count, 1, "the key itself is a redacted secret");

        // Valid settings that make an invalid config on this system (a Windows directory on
        // Unix) save nothing.
        let bad = [("llm.model", "fine"), ("files.allowed_dirs", "C:\\docs")]
            .map(|(name, text)| Setting::parse(name, Some(text)).expect("valid"));
        if cfg!(windows) {
            return;
        }
        assert!(apply(&bad, &env).is_err());
        let again = Config::load_with(&env).expect("load");
        assert_ne!(again.llm.model, "fine", "all or nothing");
    }
}
