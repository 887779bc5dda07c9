//! The settings view: the form the panel sends, its validation, and what it changes: host
//! settings (through `config.set`, keys write-only) and the extension's own settings (allowed
//! sites, kept in `chrome.storage`). Every check happens here, not in the view.

use crate::protocol::{DoctorCheck, HostSettings, LlmStatus};
use crate::safety::origin_of;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod host_files;

use host_files::files_and_prices_changes;
pub use host_files::{HostFields, PriceForm, PriceRow, host_fields};

/// The roles whose endpoint the user can choose, in the order the panel lists them.
pub const ROLES: [&str; 4] = ["planner", "navigator", "validator", "summariser"];

/// Providers the host speaks.
pub const PROVIDERS: [&str; 2] = ["openai", "anthropic"];

/// One role's row of the form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleForm {
    /// `planner`, `navigator`, `validator` or `summariser`.
    pub role: String,
    /// `openai` or `anthropic`.
    pub provider: String,
    /// Model name.
    pub model: String,
    /// Endpoint base URL.
    pub base_url: String,
    /// A new API key, or empty to keep the current one. Sent to the host once, never shown.
    #[serde(default)]
    pub api_key: String,
}

/// The whole settings form as the user left it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsForm {
    /// One row per role.
    #[serde(default)]
    pub roles: Vec<RoleForm>,
    /// Transcript capture on the host.
    #[serde(default)]
    pub transcripts: bool,
    /// Where the host writes exports.
    #[serde(default)]
    pub export_dir: String,
    /// Sites the agent may act on besides the one it starts on, one per line.
    #[serde(default)]
    pub allowed_sites: String,
    /// Days the host keeps transcripts (`0` keeps them forever).
    #[serde(default)]
    pub retention_days: String,
    /// Directories the host may read attached files from, one per line.
    #[serde(default)]
    pub allowed_read_dirs: String,
    /// Largest file the host reads, in MB (MiB, as the host's default of 25 MB is).
    #[serde(default)]
    pub max_read_mb: String,
    /// One row per model the roles use.
    #[serde(default)]
    pub prices: Vec<PriceForm>,
}

/// The extension's own settings (stored in `chrome.storage`, used by the agent).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSettings {
    /// Origins the agent may act on besides the start tab's (sensitive ones count as granted).
    #[serde(default)]
    pub allowed_sites: Vec<String>,
}

/// A field the user must correct.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    /// The field, as the panel names its inputs (`navigator.base_url`, `export_dir`, …).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

/// What the settings view shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SettingsView {
    /// The roles the form lists, in order ([`ROLES`]).
    pub roles: Vec<String>,
    /// The host's settings (no secrets), once fetched.
    pub host: Option<HostSettings>,
    /// Why the host's settings could not be read or saved.
    pub host_error: Option<String>,
    /// The extension's settings.
    pub agent: AgentSettings,
    /// Fields to correct after the last save attempt.
    pub errors: Vec<FieldError>,
    /// The outcome of the last save (`Saved.`), or a request in flight (`Saving…`).
    pub notice: Option<String>,
    /// The last "Check setup".
    pub doctor: Option<DoctorView>,
    /// The host part of the form, filled from `host` (see [`SettingsView::show_host`]).
    #[serde(default)]
    pub fields: Option<HostFields>,
}

impl SettingsView {
    /// Shows the host's settings: keeps them (the next save is compared with them) and fills
    /// the form's host fields from them.
    pub fn show_host(&mut self, host: HostSettings) {
        self.fields = Some(host_fields(&host));
        self.host = Some(host);
    }
}

/// The doctor's checks as the panel shows them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorView {
    /// Still running.
    pub running: bool,
    /// Each result, in order.
    pub checks: Vec<DoctorCheck>,
    /// Why the checks could not run at all (no host).
    pub error: Option<String>,
}

/// What a valid form changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsChanges {
    /// `config.set` values (dotted names); empty when nothing on the host changes.
    pub host: BTreeMap<String, Option<String>>,
    /// The new extension settings.
    pub agent: AgentSettings,
}

/// Checks `form` against the host's current settings and returns only what changed, or every
/// field that needs correcting. Without the host's settings (no host) only the extension's own
/// settings are checked and saved: the host part of the form was never filled in.
pub fn validate(
    form: &SettingsForm,
    current: Option<&HostSettings>,
) -> Result<SettingsChanges, Vec<FieldError>> {
    let mut errors = Vec::new();
    let mut host = BTreeMap::new();
    if let Some(current) = current {
        host_changes(form, current, &mut host, &mut errors);
    }
    let allowed_sites = allowed_sites(&form.allowed_sites, &mut errors);
    if errors.is_empty() {
        Ok(SettingsChanges { host, agent: AgentSettings { allowed_sites } })
    } else {
        Err(errors)
    }
}

/// The `config.set` values of the host part of the form: only what differs from `current`.
fn host_changes(
    form: &SettingsForm,
    current: &HostSettings,
    host: &mut BTreeMap<String, Option<String>>,
    errors: &mut Vec<FieldError>,
) {
    let mut err = |field: String, message: &str| {
        errors.push(FieldError { field, message: message.to_owned() });
    };
    for row in &form.roles {
        if !ROLES.contains(&row.role.as_str()) {
            err(row.role.clone(), "unknown role");
            continue;
        }
        let was: Option<&LlmStatus> = current.roles.get(&row.role);
        let key = |name: &str| format!("roles.{}.{name}", row.role);
        let provider = row.provider.trim();
        if !PROVIDERS.contains(&provider) {
            err(key("provider"), "choose openai or anthropic");
        } else if was.is_none_or(|w| w.provider != provider) {
            host.insert(key("provider"), Some(provider.to_owned()));
        }
        let model = row.model.trim();
        if model.is_empty() || model.chars().any(char::is_whitespace) {
            err(key("model"), "a model name, without spaces");
        } else if was.is_none_or(|w| w.model != model) {
            host.insert(key("model"), Some(model.to_owned()));
        }
        let url = row.base_url.trim().trim_end_matches('/');
        if origin_of(url).is_none() {
            err(key("base_url"), "an http:// or https:// URL");
        } else if was.is_none_or(|w| w.base_url.trim_end_matches('/') != url) {
            host.insert(key("base_url"), Some(url.to_owned()));
        }
        let api_key = row.api_key.trim();
        if api_key.chars().any(char::is_whitespace) {
            err(key("api_key"), "an API key has no spaces");
        } else if !api_key.is_empty() {
            host.insert(key("api_key"), Some(api_key.to_owned()));
        }
    }
    if current.transcripts.enabled != form.transcripts {
        host.insert("transcripts.enabled".into(), Some(form.transcripts.to_string()));
    }
    let dir = form.export_dir.trim();
    if !dir.is_empty() || !current.export_dir.is_empty() {
        if !is_absolute(dir) {
            err("export_dir".into(), "an absolute path, e.g. /home/me/waymark");
        } else if current.export_dir != dir {
            host.insert("export_dir".into(), Some(dir.to_owned()));
        }
    }
    files_and_prices_changes(form, current, host, errors);
}

/// The allowed sites, one per line, as origins.
fn allowed_sites(text: &str, errors: &mut Vec<FieldError>) -> Vec<String> {
    let mut allowed_sites = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let url = if line.contains("://") { line.to_owned() } else { format!("https://{line}") };
        match origin_of(&url).filter(|_| !line.contains(char::is_whitespace)) {
            Some(o) if !o.ends_with("://") && !allowed_sites.contains(&o) => allowed_sites.push(o),
            Some(_) => {}
            None => errors.push(FieldError {
                field: "allowed_sites".into(),
                message: format!(
                    "{line:?} is not a site (write e.g. example.com or https://example.com)"
                ),
            }),
        }
    }
    allowed_sites
}

/// Absolute on Unix (`/…`) or Windows (`C:\…`, `\\server\…`).
fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || path.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::host_files::MB;
    use super::*;
    use crate::protocol::{ModelPrice, PriceSource, TranscriptSettings};

    fn status(model: &str) -> LlmStatus {
        LlmStatus {
            provider: "openai".into(),
            base_url: "http://127.0.0.1:9/v1".into(),
            model: model.into(),
            has_key: true,
        }
    }

    pub(super) fn current() -> HostSettings {
        HostSettings {
            llm: status("m"),
            roles: ROLES.iter().map(|r| ((*r).to_owned(), status("m"))).collect(),
            export_dir: "/tmp/exports".into(),
            transcripts: TranscriptSettings {
                enabled: false,
                dir: String::new(),
                retention_days: 30,
                flush_every: 1,
                redact_count: 0,
            },
            allowed_read_dirs: vec!["/data/a".into()],
            max_read_bytes: 25 * MB,
            config_path: String::new(),
            env_overrides: vec![],
            problems: vec![],
            prices: [
                ("m", price(Some(1.0), Some(2.0), PriceSource::BuiltIn)),
                ("mine", price(Some(0.5), Some(1.5), PriceSource::User)),
                ("odd", price(None, None, PriceSource::Unknown)),
            ]
            .into_iter()
            .map(|(m, p)| (m.to_owned(), p))
            .collect(),
        }
    }

    pub(super) fn price(
        input: Option<f64>,
        output: Option<f64>,
        source: PriceSource,
    ) -> ModelPrice {
        ModelPrice { input, output, source }
    }

    pub(super) fn price_row(model: &str, input: &str, output: &str) -> PriceForm {
        PriceForm { model: model.into(), input: input.into(), output: output.into() }
    }

    pub(super) fn form() -> SettingsForm {
        SettingsForm {
            roles: ROLES
                .iter()
                .map(|r| RoleForm {
                    role: (*r).into(),
                    provider: "openai".into(),
                    model: "m".into(),
                    base_url: "http://127.0.0.1:9/v1/".into(),
                    api_key: String::new(),
                })
                .collect(),
            transcripts: false,
            export_dir: "/tmp/exports".into(),
            allowed_sites: String::new(),
            retention_days: "30".into(),
            allowed_read_dirs: "/data/a".into(),
            max_read_mb: "25".into(),
            prices: vec![
                price_row("m", "1", "2"),
                price_row("mine", "0.5", "1.5"),
                price_row("odd", "", ""),
            ],
        }
    }

    #[test]
    fn an_unchanged_form_changes_nothing() {
        let changes = validate(&form(), Some(&current())).expect("valid");
        assert!(changes.host.is_empty(), "{:?}", changes.host);
    }

    #[test]
    fn only_changed_fields_and_new_keys_are_sent() {
        let mut f = form();
        f.roles[3].model = "small".into();
        f.roles[1].api_key = " sk-new ".into();
        f.transcripts = true;
        f.allowed_sites = "example.com\nhttps://shop.example.org/path\nexample.com".into();
        let changes = validate(&f, Some(&current())).expect("valid");
        let keys: Vec<&str> = changes.host.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["roles.navigator.api_key", "roles.summariser.model", "transcripts.enabled"]
        );
        assert_eq!(changes.host["roles.navigator.api_key"].as_deref(), Some("sk-new"));
        assert_eq!(
            changes.agent.allowed_sites,
            ["https://example.com", "https://shop.example.org"]
        );
    }

    #[test]
    fn bad_fields_are_all_reported() {
        let mut f = form();
        f.roles[0].provider = "gemini".into();
        f.roles[0].model = "two words".into();
        f.roles[2].base_url = "ftp://x".into();
        f.export_dir = "relative/dir".into();
        f.allowed_sites = "exa mple.com".into();
        let errors = validate(&f, Some(&current())).expect_err("invalid");
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "roles.planner.provider",
                "roles.planner.model",
                "roles.validator.base_url",
                "export_dir",
                "allowed_sites"
            ]
        );
    }

    #[test]
    fn without_the_host_only_the_extension_settings_count() {
        let mut f = SettingsForm { allowed_sites: "example.com".into(), ..SettingsForm::default() };
        f.roles.push(RoleForm { role: "planner".into(), ..RoleForm::default() });
        let changes = validate(&f, None).expect("host fields are not checked");
        assert!(changes.host.is_empty());
        assert_eq!(changes.agent.allowed_sites, ["https://example.com"]);
    }

    #[test]
    fn windows_paths_are_absolute_too() {
        assert!(is_absolute("C:\\Users\\me") && is_absolute("\\\\srv\\share") && is_absolute("/x"));
        assert!(!is_absolute("x/y") && !is_absolute(""));
    }
}
