//! The settings view: the form the panel sends, its validation, and what it changes: host
//! settings (through `config.set`, keys write-only) and the extension's own settings (allowed
//! sites, kept in `chrome.storage`). Every check happens here, not in the view.

use crate::protocol::{DoctorCheck, HostSettings, LlmStatus, ModelPrice, PriceSource};
use crate::safety::origin_of;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

/// One model's prices as the user left them: US dollars per million tokens, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceForm {
    /// The model the row prices.
    pub model: String,
    /// Prompt tokens; empty together with `output` for "no price of mine".
    #[serde(default)]
    pub input: String,
    /// Completion tokens.
    #[serde(default)]
    pub output: String,
}

/// The host part of the form as Rust fills it from [`HostSettings`] (the view only copies
/// these strings into its fields, so conversions such as bytes to MB happen here).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFields {
    /// Transcript retention in days.
    pub retention_days: String,
    /// Readable directories, one per line.
    pub allowed_read_dirs: String,
    /// Largest readable file in MB.
    pub max_read_mb: String,
    /// One row per model the roles use, in name order.
    pub prices: Vec<PriceRow>,
}

/// One model's row in the prices part of the form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceRow {
    /// The model.
    pub model: String,
    /// The input price as shown (empty when unknown).
    pub input: String,
    /// The output price as shown (empty when unknown).
    pub output: String,
    /// Where the price comes from, in words.
    pub note: String,
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

/// Bytes in the panel's MB (a mebibyte, as the host's default limit of 25 MB counts them).
const MB: u64 = 1024 * 1024;

/// The largest file size the form accepts, in MB (1 TiB): far beyond any attachment, and the
/// conversion to bytes stays exact.
const MAX_READ_MB: f64 = 1_048_576.0;

/// The form's host fields for `host`.
pub fn host_fields(host: &HostSettings) -> HostFields {
    HostFields {
        retention_days: host.transcripts.retention_days.to_string(),
        allowed_read_dirs: host.allowed_read_dirs.join("\n"),
        max_read_mb: format_mb(host.max_read_bytes),
        prices: host
            .prices
            .iter()
            .map(|(model, price)| PriceRow {
                model: model.clone(),
                input: price.input.map(|p| p.to_string()).unwrap_or_default(),
                output: price.output.map(|p| p.to_string()).unwrap_or_default(),
                note: price_note(price.source).to_owned(),
            })
            .collect(),
    }
}

/// Where a price comes from, for the user deciding whether to correct it.
fn price_note(source: PriceSource) -> &'static str {
    match source {
        PriceSource::User => "your price (empty both fields to drop it)",
        PriceSource::BuiltIn => "built-in list price",
        PriceSource::Local => "runs on this computer: free unless you set a price",
        PriceSource::Unknown => "no known price: costs show tokens only until you set one",
    }
}

/// `bytes` in MB, without trailing zeros (`25`, `0.5`).
fn format_mb(bytes: u64) -> String {
    if bytes.is_multiple_of(MB) {
        return (bytes / MB).to_string();
    }
    #[allow(clippy::cast_precision_loss, reason = "a display value; sizes are far below 2^52")]
    let mb = bytes as f64 / MB as f64;
    let text = format!("{mb:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `mb` (positive, at most [`MAX_READ_MB`]) in bytes, at least one.
fn mb_to_bytes(mb: f64) -> u64 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "positive and at most 2^40 bytes, checked by the caller"
    )]
    let bytes = (mb * 1_048_576.0).round() as u64;
    bytes.max(1)
}

/// The transcript, file and price settings of the form: only what differs from `current`.
fn files_and_prices_changes(
    form: &SettingsForm,
    current: &HostSettings,
    host: &mut BTreeMap<String, Option<String>>,
    errors: &mut Vec<FieldError>,
) {
    let mut err = |field: &str, message: String| {
        errors.push(FieldError { field: field.to_owned(), message });
    };
    let days = form.retention_days.trim();
    match days.parse::<u32>() {
        Ok(d) if d != current.transcripts.retention_days => {
            host.insert("transcripts.retention_days".into(), Some(d.to_string()));
        }
        Ok(_) => {}
        Err(_) => err(
            "transcripts.retention_days",
            "a whole number of days, 0 to keep transcripts forever".into(),
        ),
    }

    let mut dirs: Vec<&str> = Vec::new();
    for line in form.allowed_read_dirs.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !is_absolute(line) {
            err("files.allowed_dirs", format!("{line:?} is not an absolute path"));
        } else if !dirs.contains(&line) {
            dirs.push(line);
        }
    }
    if dirs != current.allowed_read_dirs {
        // One per line, newline-terminated so that even one directory is read as a line
        // (a PATH-like list would split `C:\\…` or a name holding `:`).
        let value = (!dirs.is_empty()).then(|| dirs.iter().map(|d| format!("{d}\n")).collect());
        host.insert("files.allowed_dirs".into(), value);
    }

    let mb = form.max_read_mb.trim();
    if mb != format_mb(current.max_read_bytes) {
        match mb.parse::<f64>().ok().filter(|m| m.is_finite() && *m > 0.0 && *m <= MAX_READ_MB) {
            Some(m) => {
                let bytes = mb_to_bytes(m);
                if bytes != current.max_read_bytes {
                    host.insert("files.max_bytes".into(), Some(bytes.to_string()));
                }
            }
            None => err("files.max_bytes", "a size in MB above 0, e.g. 25 or 0.5".into()),
        }
    }

    for row in &form.prices {
        price_changes(row, current.prices.get(&row.model), host, errors);
    }
}

/// One model's `prices.<model>.input|output` changes. Only changed values are sent (the host
/// keeps the other price of a model priced for the first time); both emptied drops the
/// user's price.
fn price_changes(
    row: &PriceForm,
    current: Option<&ModelPrice>,
    host: &mut BTreeMap<String, Option<String>>,
    errors: &mut Vec<FieldError>,
) {
    let model = row.model.trim();
    let key = |side: &str| format!("prices.{model}.{side}");
    if model.is_empty() || model.chars().any(char::is_whitespace) {
        errors.push(FieldError {
            field: key("input"),
            message: "a model name, without spaces".into(),
        });
        return;
    }
    let parse = |text: &str, side: &str, errors: &mut Vec<FieldError>| -> Result<Option<f64>, ()> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        match text.parse::<f64>().ok().filter(|p| p.is_finite() && *p >= 0.0) {
            Some(p) => Ok(Some(p)),
            None => {
                errors.push(FieldError {
                    field: key(side),
                    message: "US dollars per million tokens: a number, 0 or more (e.g. 2.5)".into(),
                });
                Err(())
            }
        }
    };
    let input = parse(&row.input, "input", errors);
    let output = parse(&row.output, "output", errors);
    let (Ok(input), Ok(output)) = (input, output) else { return };
    let mine = current.is_some_and(|c| c.source == PriceSource::User);
    match (input, output) {
        (None, None) if mine => {
            host.insert(key("input"), None);
        }
        (None, None) => {}
        (Some(_), None) | (None, Some(_)) => {
            let empty = if input.is_none() { "input" } else { "output" };
            errors.push(FieldError {
                field: key(empty),
                message: "enter both prices, or leave both empty".into(),
            });
        }
        (Some(i), Some(o)) => {
            let was = current.map_or((None, None), |c| (c.input, c.output));
            if was.0 != Some(i) {
                host.insert(key("input"), Some(i.to_string()));
            }
            if was.1 != Some(o) {
                host.insert(key("output"), Some(o.to_string()));
            }
        }
    }
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
    use super::*;
    use crate::protocol::TranscriptSettings;

    fn status(model: &str) -> LlmStatus {
        LlmStatus {
            provider: "openai".into(),
            base_url: "http://127.0.0.1:9/v1".into(),
            model: model.into(),
            has_key: true,
        }
    }

    fn current() -> HostSettings {
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

    fn price(input: Option<f64>, output: Option<f64>, source: PriceSource) -> ModelPrice {
        ModelPrice { input, output, source }
    }

    fn price_row(model: &str, input: &str, output: &str) -> PriceForm {
        PriceForm { model: model.into(), input: input.into(), output: output.into() }
    }

    fn form() -> SettingsForm {
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
    fn the_host_fields_are_filled_from_the_host_settings() {
        let fields = host_fields(&current());
        assert_eq!(fields.retention_days, "30");
        assert_eq!(fields.allowed_read_dirs, "/data/a");
        assert_eq!(fields.max_read_mb, "25");
        let rows: Vec<(&str, &str, &str)> = fields
            .prices
            .iter()
            .map(|r| (r.model.as_str(), r.input.as_str(), r.output.as_str()))
            .collect();
        assert_eq!(rows, [("m", "1", "2"), ("mine", "0.5", "1.5"), ("odd", "", "")]);
        assert_eq!(fields.prices[0].note, "built-in list price");
        assert!(fields.prices[2].note.starts_with("no known price"));
        // The form as filled is the form unchanged.
        let mut f = form();
        f.retention_days = fields.retention_days;
        f.allowed_read_dirs = fields.allowed_read_dirs;
        f.max_read_mb = fields.max_read_mb;
        f.prices = fields.prices.iter().map(|r| price_row(&r.model, &r.input, &r.output)).collect();
        assert_eq!(f, form());
        assert_eq!((format_mb(MB * 3 / 2), format_mb(100)), ("1.5".into(), "0.000095".into()));
    }

    #[test]
    fn files_and_prices_send_only_what_changed() {
        let mut f = form();
        f.retention_days = " 0 ".into();
        f.allowed_read_dirs = "/data/a\n\n  /data/b \n/data/a".into();
        f.max_read_mb = "0.5".into();
        f.prices = vec![
            price_row("m", "1.25", "2"),
            price_row("mine", "", ""),
            price_row("odd", "3", "4.5"),
        ];
        let changes = validate(&f, Some(&current())).expect("valid");
        let host: Vec<(&str, Option<&str>)> =
            changes.host.iter().map(|(k, v)| (k.as_str(), v.as_deref())).collect();
        assert_eq!(
            host,
            [
                ("files.allowed_dirs", Some("/data/a\n/data/b\n")),
                ("files.max_bytes", Some("524288")),
                ("prices.m.input", Some("1.25")),
                ("prices.mine.input", None),
                ("prices.odd.input", Some("3")),
                ("prices.odd.output", Some("4.5")),
                ("transcripts.retention_days", Some("0")),
            ]
        );
        // No directory left: the setting is removed.
        f = form();
        f.allowed_read_dirs = " \n".into();
        let changes = validate(&f, Some(&current())).expect("valid");
        assert_eq!(changes.host.get("files.allowed_dirs"), Some(&None));
    }

    #[test]
    fn a_size_shown_rounded_is_not_a_change() {
        let mut host = current();
        host.max_read_bytes = 100;
        let mut f = form();
        f.max_read_mb = host_fields(&host).max_read_mb;
        assert!(validate(&f, Some(&host)).expect("valid").host.is_empty());
        f.max_read_mb = "0.0000001".into();
        let changes = validate(&f, Some(&host)).expect("valid");
        assert_eq!(changes.host["files.max_bytes"].as_deref(), Some("1"), "at least one byte");
    }

    #[test]
    fn bad_file_and_price_fields_are_all_reported() {
        let mut f = form();
        f.retention_days = "-1".into();
        f.allowed_read_dirs = "/ok\nrelative/dir".into();
        f.max_read_mb = "0".into();
        f.prices = vec![
            price_row("m", "abc", "-2"),
            price_row("mine", "NaN", "1"),
            price_row("odd", "3", ""),
        ];
        let errors = validate(&f, Some(&current())).expect_err("invalid");
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "transcripts.retention_days",
                "files.allowed_dirs",
                "files.max_bytes",
                "prices.m.input",
                "prices.m.output",
                "prices.mine.input",
                "prices.odd.output",
            ]
        );
        assert!(errors[1].message.contains("relative/dir"), "{errors:?}");
        for too_big in ["inf", "2000000", "1e400"] {
            f = form();
            f.max_read_mb = too_big.into();
            let errors = validate(&f, Some(&current())).expect_err(too_big);
            assert_eq!(errors[0].field, "files.max_bytes");
        }
    }

    #[test]
    fn windows_paths_are_absolute_too() {
        assert!(is_absolute("C:\\Users\\me") && is_absolute("\\\\srv\\share") && is_absolute("/x"));
        assert!(!is_absolute("x/y") && !is_absolute(""));
    }
}
