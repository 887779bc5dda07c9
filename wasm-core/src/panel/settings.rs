//! The settings view: the form the panel sends, its validation, and what it changes: host
//! settings (through `config.set`, keys write-only) and the extension's own settings (allowed
//! sites, kept in `chrome.storage`). Every check happens here, not in the view.

use crate::safety::origin_of;
use serde::{Deserialize, Serialize};
use waymark_protocol::{
    DoctorCheck, EndpointField, HostSettings, LlmRole, LlmStatus, Setting, SettingError, SettingKey,
};

mod host_files;

use host_files::files_and_prices_changes;
pub use host_files::{HostFields, PriceForm, PriceRow, TokenLimitField, host_fields};

/// One role's row of the form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RoleForm {
    /// Whose endpoint the row sets.
    pub role: LlmRole,
    /// `openai` or `anthropic`.
    pub provider: String,
    /// Model name.
    pub model: String,
    /// Endpoint base URL.
    pub base_url: String,
    /// A new API key, or empty to keep the current one. Sent to the host once, never shown.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub api_key: String,
    /// The most tokens one reply may take, as typed; empty for the role's default.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_tokens: String,
}

/// The whole settings form as the user left it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SettingsForm {
    /// One row per role.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub roles: Vec<RoleForm>,
    /// Transcript capture on the host.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub transcripts: bool,
    /// Where the host writes exports.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub export_dir: String,
    /// Sites the agent may act on besides the one it starts on, one per line.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub allowed_sites: String,
    /// Days the host keeps transcripts (`0` keeps them forever).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub retention_days: String,
    /// Directories the host may read attached files from, one per line.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub allowed_read_dirs: String,
    /// Largest file the host reads, in MB (MiB, as the host's default of 25 MB is).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub max_read_mb: String,
    /// One row per model the roles use.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub prices: Vec<PriceForm>,
}

/// The extension's own settings (stored in `chrome.storage`, used by the agent).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AgentSettings {
    /// Origins the agent may act on besides the start tab's (sensitive ones count as granted).
    #[serde(default)]
    pub allowed_sites: Vec<String>,
}

/// A field the user must correct.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FieldError {
    /// The field: the setting's dotted name, which is how the panel names its inputs
    /// (`roles.navigator.base_url`, `export_dir`, …), or `allowed_sites`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl From<SettingError> for FieldError {
    fn from(e: SettingError) -> Self {
        Self { field: e.field(), message: e.message().to_owned() }
    }
}

/// What the settings view shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SettingsView {
    /// The roles the form lists, in order ([`LlmRole::ALL`]).
    pub roles: Vec<LlmRole>,
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DoctorView {
    /// Still running.
    pub running: bool,
    /// Each result, in order.
    pub checks: Vec<DoctorCheck>,
    /// Why the checks could not run at all (no host).
    pub error: Option<String>,
}

/// What a valid form changes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsChanges {
    /// The host settings that change (one `config.set`); empty when none does.
    pub host: Vec<Setting>,
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
    let mut out = Changes::default();
    if let Some(current) = current {
        host_changes(form, current, &mut out);
    }
    let allowed_sites = allowed_sites(&form.allowed_sites, &mut out.errors);
    if out.errors.is_empty() {
        Ok(SettingsChanges { host: out.host, agent: AgentSettings { allowed_sites } })
    } else {
        Err(out.errors)
    }
}

/// What the host part of the form adds up to so far.
#[derive(Default)]
struct Changes {
    /// Settings that differ from the host's.
    host: Vec<Setting>,
    /// Fields to correct.
    errors: Vec<FieldError>,
}

impl Changes {
    /// Reads the form's `text` for `key` with the protocol's parser (the validation the host
    /// applies too) and keeps the setting when its value differs from `was`, the host's
    /// current value as text (`None`: unknown, always sent). A blank `required` field is an
    /// error rather than a cleared setting.
    fn field(&mut self, key: SettingKey, text: &str, was: Option<&str>, required: bool) {
        if required && text.trim().is_empty() {
            self.errors.push(FieldError { field: key.to_string(), message: key.expects().into() });
            return;
        }
        match key.with_text(Some(text)) {
            Ok(setting)
                if was.is_some_and(|w| setting.text().as_deref().unwrap_or_default() == w) => {}
            Ok(setting) => self.host.push(setting),
            Err(e) => self.errors.push(e.into()),
        }
    }
}

/// The host part of the form: only what differs from `current`.
fn host_changes(form: &SettingsForm, current: &HostSettings, out: &mut Changes) {
    for row in &form.roles {
        let was: Option<&LlmStatus> = current.roles.get(&row.role);
        let key = |field| SettingKey::Endpoint(Some(row.role), field);
        out.field(
            key(EndpointField::Provider),
            &row.provider,
            was.map(|w| w.provider.as_str()),
            true,
        );
        out.field(key(EndpointField::Model), &row.model, was.map(|w| w.model.as_str()), true);
        let url = was.map(|w| w.base_url.trim_end_matches('/'));
        out.field(key(EndpointField::BaseUrl), &row.base_url, url, true);
        let limit = was.map(|w| w.max_tokens.map(|n| n.to_string()).unwrap_or_default());
        out.field(key(EndpointField::MaxTokens), &row.max_tokens, limit.as_deref(), false);
        // A blank key field keeps the key the host has (it is never shown).
        if !row.api_key.trim().is_empty() {
            out.field(key(EndpointField::ApiKey), &row.api_key, None, true);
        }
    }
    if current.transcripts.enabled != form.transcripts {
        out.host.push(Setting::TranscriptsEnabled(Some(form.transcripts)));
    }
    if !(form.export_dir.trim().is_empty() && current.export_dir.is_empty()) {
        out.field(SettingKey::ExportDir, &form.export_dir, Some(&current.export_dir), true);
    }
    files_and_prices_changes(form, current, out);
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

#[cfg(test)]
pub(crate) mod tests {
    use super::host_files::MB;
    use super::*;
    use waymark_protocol::{ModelPrice, PriceSource, TranscriptSettings};

    fn status(model: &str) -> LlmStatus {
        LlmStatus {
            provider: "openai".into(),
            base_url: "http://127.0.0.1:9/v1".into(),
            model: model.into(),
            has_key: true,
            max_tokens: None,
        }
    }

    pub(crate) fn current() -> HostSettings {
        HostSettings {
            llm: status("m"),
            roles: LlmRole::ALL.into_iter().map(|r| (r, status("m"))).collect(),
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

    pub(crate) fn form() -> SettingsForm {
        SettingsForm {
            roles: LlmRole::ALL
                .into_iter()
                .map(|role| RoleForm {
                    role,
                    provider: "openai".into(),
                    model: "m".into(),
                    base_url: "http://127.0.0.1:9/v1/".into(),
                    api_key: String::new(),
                    max_tokens: String::new(),
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

    /// The changes as dotted names and text values, as they travel.
    pub(super) fn sent(changes: &SettingsChanges) -> Vec<(String, Option<String>)> {
        changes.host.iter().map(|s| (s.key().to_string(), s.text())).collect()
    }

    #[test]
    fn only_changed_fields_and_new_keys_are_sent() {
        let mut f = form();
        f.roles[3].model = "small".into();
        f.roles[1].api_key = " sk-new ".into();
        f.transcripts = true;
        f.allowed_sites = "example.com\nhttps://shop.example.org/path\nexample.com".into();
        let changes = validate(&f, Some(&current())).expect("valid");
        let text = |s: &str| Some(s.to_owned());
        assert_eq!(
            sent(&changes),
            [
                ("roles.navigator.api_key".into(), text("sk-new")),
                ("roles.summariser.model".into(), text("small")),
                ("transcripts.enabled".into(), text("true")),
            ]
        );
        assert!(changes.host[0].is_secret());
        assert_eq!(
            changes.agent.allowed_sites,
            ["https://example.com", "https://shop.example.org"]
        );
    }

    #[test]
    fn a_token_limit_is_sent_when_it_changes_and_empty_clears_it() {
        let mut host = current();
        let limit = waymark_protocol::MaxTokens::new(300).ok();
        host.roles.get_mut(&LlmRole::Validator).expect("validator").max_tokens = limit;
        let mut f = form();
        f.roles[2].max_tokens = " 300 ".into();
        assert!(validate(&f, Some(&host)).expect("valid").host.is_empty(), "unchanged");
        f.roles[1].max_tokens = "4096".into();
        f.roles[2].max_tokens = String::new();
        let changes = validate(&f, Some(&host)).expect("valid");
        assert_eq!(
            sent(&changes),
            [
                ("roles.navigator.max_tokens".into(), Some("4096".into())),
                ("roles.validator.max_tokens".into(), None),
            ]
        );
        f.roles[0].max_tokens = "8".into();
        f.roles[3].max_tokens = "lots".into();
        let errors = validate(&f, Some(&host)).expect_err("out of bounds");
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["roles.planner.max_tokens", "roles.summariser.max_tokens"]);
        assert_eq!(
            errors[0].message,
            "a whole number of tokens from 16 to 32768, or nothing for the role's default, \
             not \"8\""
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
    fn blank_required_fields_are_errors_and_keys_are_never_repeated() {
        let mut f = form();
        f.roles[1].model = "  ".into();
        f.roles[2].api_key = "sk secret with spaces".into();
        f.retention_days = String::new();
        f.export_dir = "C:\\Users\\me\\exports".into();
        let errors = validate(&f, Some(&current())).expect_err("invalid");
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            ["roles.navigator.model", "roles.validator.api_key", "transcripts.retention_days"]
        );
        assert_eq!(errors[0].message, "a model name, without spaces");
        assert!(errors.iter().all(|e| !e.message.contains("secret")), "{errors:?}");
        // A Windows path is absolute too (the host may run there).
        f = form();
        f.export_dir = "C:\\Users\\me\\exports".into();
        let changes = validate(&f, Some(&current())).expect("valid");
        assert_eq!(changes.host, [Setting::ExportDir(Some("C:\\Users\\me\\exports".into()))]);
    }

    #[test]
    fn without_the_host_only_the_extension_settings_count() {
        let mut f = SettingsForm { allowed_sites: "example.com".into(), ..SettingsForm::default() };
        f.roles.push(RoleForm {
            role: LlmRole::Planner,
            provider: String::new(),
            model: String::new(),
            base_url: String::new(),
            api_key: String::new(),
            max_tokens: String::new(),
        });
        let changes = validate(&f, None).expect("host fields are not checked");
        assert!(changes.host.is_empty());
        assert_eq!(changes.agent.allowed_sites, ["https://example.com"]);
    }
}
