//! Settings by dotted name, shared by `waymark-host config set` and the `config.set` request.

use std::path::PathBuf;

use super::{ConfigFile, PriceSection, ProviderKind, ROLES, canonical_role};

/// Why a setting could not be changed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct KeyError(String);

/// Every setting name that holds a secret (write-only from the extension).
pub fn is_secret(key: &str) -> bool {
    key.ends_with(".api_key") || key == "transcripts.redact"
}

/// Help text listing the setting names.
pub const KEYS_HELP: &str = "llm.provider, llm.base_url, llm.model, llm.api_key, \
llm.retry_base_ms, llm.idle_timeout_secs, llm.request_timeout_secs, llm.max_concurrent, \
roles.<planner|navigator|summariser|validator>.<provider|base_url|model|api_key>, export_dir, \
data_dir, transcripts.enabled, transcripts.retention_days, transcripts.flush_every, \
transcripts.redact (one secret per line), files.allowed_dirs (one per line, or separated like PATH), \
files.max_bytes, prices.<model>.<input|output> (dollars per million tokens)";

/// Sets (or with `None` removes) one setting by its dotted name.
pub fn set_key(file: &mut ConfigFile, key: &str, value: Option<String>) -> Result<(), KeyError> {
    fn num<T: std::str::FromStr>(key: &str, v: Option<String>) -> Result<Option<T>, KeyError> {
        v.map(|s| {
            s.trim().parse::<T>().map_err(|_| KeyError(format!("{key} needs a number, got {s:?}")))
        })
        .transpose()
    }
    fn provider(key: &str, v: &Option<String>) -> Result<(), KeyError> {
        match v {
            Some(p) if ProviderKind::parse(p).is_none() => {
                Err(KeyError(format!("{key} must be openai or anthropic")))
            }
            _ => Ok(()),
        }
    }
    let value = value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let llm = &mut file.llm;
    match key {
        "llm.provider" => {
            provider(key, &value)?;
            llm.provider = value;
        }
        "llm.base_url" => llm.base_url = value,
        "llm.model" => llm.model = value,
        "llm.api_key" => llm.api_key = value,
        "llm.retry_base_ms" => llm.retry_base_ms = num(key, value)?,
        "llm.idle_timeout_secs" => llm.idle_timeout_secs = num(key, value)?,
        "llm.request_timeout_secs" => llm.request_timeout_secs = num(key, value)?,
        "llm.max_concurrent" => llm.max_concurrent = num(key, value)?,
        "export_dir" => file.export_dir = value.map(PathBuf::from),
        "data_dir" => file.data_dir = value.map(PathBuf::from),
        "transcripts.enabled" => {
            file.transcripts.enabled = value
                .map(|v| match v.to_ascii_lowercase().as_str() {
                    "1" | "true" | "yes" | "on" => Ok(true),
                    "0" | "false" | "no" | "off" => Ok(false),
                    _ => Err(KeyError(format!("{key} must be true or false, got {v:?}"))),
                })
                .transpose()?;
        }
        "transcripts.retention_days" => file.transcripts.retention_days = num(key, value)?,
        "transcripts.flush_every" => file.transcripts.flush_every = num(key, value)?,
        "transcripts.redact" => {
            file.transcripts.redact = value
                .map(|v| {
                    v.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect()
                })
                .unwrap_or_default();
        }
        "files.allowed_dirs" => {
            file.files.allowed_dirs = match value {
                Some(v) => {
                    // The panel sends one directory per line (a path may hold the PATH
                    // separator, e.g. `C:\\` on Windows); the command line, a PATH-like list.
                    let dirs: Vec<PathBuf> = if v.contains('\n') {
                        v.lines().map(str::trim).map(PathBuf::from).collect()
                    } else {
                        std::env::split_paths(&v).collect()
                    };
                    let dirs: Vec<PathBuf> =
                        dirs.into_iter().filter(|p| !p.as_os_str().is_empty()).collect();
                    if let Some(rel) = dirs.iter().find(|d| !d.is_absolute()) {
                        return Err(KeyError(format!(
                            "{key}: {} is not an absolute path",
                            rel.display()
                        )));
                    }
                    dirs
                }
                None => Vec::new(),
            };
        }
        "files.max_bytes" => file.files.max_bytes = num(key, value)?,
        other => return set_nested(file, other, value),
    }
    Ok(())
}

/// `roles.<role>.<field>` and `prices.<model>.<input|output>`.
fn set_nested(file: &mut ConfigFile, key: &str, value: Option<String>) -> Result<(), KeyError> {
    let unknown = || KeyError(format!("unknown setting {key:?}; known: {KEYS_HELP}"));
    if let Some(rest) = key.strip_prefix("roles.") {
        let (role, field) = rest.split_once('.').ok_or_else(unknown)?;
        let role = canonical_role(role)
            .ok_or_else(|| KeyError(format!("unknown role {role:?}; use one of {ROLES:?}")))?;
        let section = file.roles.entry(role.to_owned()).or_default();
        match field {
            "provider" => {
                if let Some(p) = &value
                    && ProviderKind::parse(p).is_none()
                {
                    return Err(KeyError(format!("{key} must be openai or anthropic")));
                }
                section.provider = value;
            }
            "base_url" => section.base_url = value,
            "model" => section.model = value,
            "api_key" => section.api_key = value,
            _ => return Err(unknown()),
        }
        if section.is_empty() {
            file.roles.remove(role);
        }
        return Ok(());
    }
    if let Some(rest) = key.strip_prefix("prices.") {
        let (model, field) = rest.rsplit_once('.').ok_or_else(unknown)?;
        if model.is_empty() {
            return Err(unknown());
        }
        let Some(v) = value else {
            file.prices.remove(model);
            return Ok(());
        };
        let price: f64 =
            v.parse().ok().filter(|p: &f64| p.is_finite() && *p >= 0.0).ok_or_else(|| {
                KeyError(format!("{key} needs dollars per million tokens, got {v:?}"))
            })?;
        // A model priced for the first time keeps its other price (built-in, or 0 when none
        // is known), so setting only `input` does not make its output free.
        let seed = crate::llm::price::price_of(model, &file.prices)
            .map(|(input, output)| PriceSection { input, output })
            .unwrap_or_default();
        let entry = file.prices.entry(model.to_owned()).or_insert(seed);
        match field {
            "input" => entry.input = price,
            "output" => entry.output = price,
            _ => return Err(unknown()),
        }
        return Ok(());
    }
    Err(unknown())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_key_validates() {
        let mut f = ConfigFile::default();
        set_key(&mut f, "llm.model", Some("x".into())).expect("model");
        set_key(&mut f, "llm.retry_base_ms", Some("20".into())).expect("num");
        assert_eq!(f.llm.retry_base_ms, Some(20));
        assert!(set_key(&mut f, "llm.retry_base_ms", Some("soon".into())).is_err());
        assert!(set_key(&mut f, "llm.provider", Some("gopher".into())).is_err());
        assert!(set_key(&mut f, "nope", None).is_err());
        set_key(&mut f, "llm.model", None).expect("unset");
        assert_eq!(f.llm.model, None);
    }

    #[test]
    fn nested_keys() {
        let mut f = ConfigFile::default();
        set_key(&mut f, "roles.summarizer.model", Some("mini".into())).expect("role");
        assert_eq!(f.roles["summariser"].model.as_deref(), Some("mini"));
        set_key(&mut f, "roles.summariser.model", None).expect("unset");
        assert!(f.roles.is_empty(), "empty role tables are dropped");
        assert!(set_key(&mut f, "roles.chef.model", Some("m".into())).is_err());
        assert!(set_key(&mut f, "roles.planner.colour", Some("m".into())).is_err());
        set_key(&mut f, "prices.gpt-4.1.input", Some("2.5".into())).expect("price");
        assert_eq!(f.prices["gpt-4.1"].input, 2.5);
        assert_eq!(f.prices["gpt-4.1"].output, 8.0, "the built-in output price is kept");
        set_key(&mut f, "prices.mystery.output", Some("3".into())).expect("price");
        assert_eq!((f.prices["mystery"].input, f.prices["mystery"].output), (0.0, 3.0));
        assert!(set_key(&mut f, "prices.x.input", Some("-1".into())).is_err());
        set_key(&mut f, "transcripts.enabled", Some("on".into())).expect("bool");
        assert_eq!(f.transcripts.enabled, Some(true));
        set_key(&mut f, "transcripts.redact", Some("a1234\n\n b5678 ".into())).expect("list");
        assert_eq!(f.transcripts.redact, vec!["a1234", "b5678"]);
        assert!(set_key(&mut f, "files.allowed_dirs", Some("relative/dir".into())).is_err());
        set_key(&mut f, "files.allowed_dirs", Some("/a:b\n\n /c \n".into())).expect("lines");
        assert_eq!(f.files.allowed_dirs, [PathBuf::from("/a:b"), PathBuf::from("/c")]);
        set_key(&mut f, "files.allowed_dirs", Some("/a:/d".into())).expect("PATH-like");
        assert_eq!(f.files.allowed_dirs.len(), if cfg!(windows) { 1 } else { 2 });
        assert!(is_secret("roles.planner.api_key") && !is_secret("llm.model"));
    }
}
