//! The host part of the settings form beyond the endpoints: each role's reply limit,
//! transcript retention, the folders attached files may come from, the largest readable file,
//! and each model's prices.
//! Rust fills these fields from the host's settings and turns the user's edits into typed
//! settings, so the view only copies strings.

use super::{Changes, FieldError, SettingsForm};
use serde::{Deserialize, Serialize};
use waymark_protocol::{
    HostSettings, LlmRole, ModelPrice, PriceSide, PriceSource, Setting, SettingKey,
};

/// One model's prices as the user left them: US dollars per million tokens, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PriceForm {
    /// The model the row prices.
    pub model: String,
    /// Prompt tokens; empty together with `output` for "no price of mine".
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub input: String,
    /// Completion tokens.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub output: String,
}

/// The host part of the form as Rust fills it from [`HostSettings`] (the view only copies
/// these strings into its fields, so conversions such as bytes to MB happen here).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HostFields {
    /// Each role's reply limit, in [`LlmRole::ALL`] order.
    pub limits: Vec<TokenLimitField>,
    /// Transcript retention in days.
    pub retention_days: String,
    /// Readable directories, one per line.
    pub allowed_read_dirs: String,
    /// Largest readable file in MB.
    pub max_read_mb: String,
    /// One row per model the roles use, in name order.
    pub prices: Vec<PriceRow>,
}

/// One role's output-token limit (`roles.<role>.max_tokens`) as the form shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TokenLimitField {
    /// Whose limit.
    pub role: LlmRole,
    /// The limit the host applies, or empty when the role's default does.
    pub value: String,
    /// What an empty field means, e.g. "default 2048".
    pub placeholder: String,
}

/// One model's row in the prices part of the form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
/// Bytes in the panel's MB (a mebibyte, as the host's default limit of 25 MB counts them).
pub(super) const MB: u64 = 1024 * 1024;

/// The largest file size the form accepts, in MB (1 TiB): far beyond any attachment, and the
/// conversion to bytes stays exact.
const MAX_READ_MB: f64 = 1_048_576.0;

/// The form's host fields for `host`.
pub fn host_fields(host: &HostSettings) -> HostFields {
    let limit = |role: LlmRole| {
        let status = host.roles.get(&role).unwrap_or(&host.llm);
        TokenLimitField {
            role,
            value: status.max_tokens.map(|n| n.to_string()).unwrap_or_default(),
            placeholder: format!("default {}", role.max_output_tokens()),
        }
    };
    HostFields {
        limits: LlmRole::ALL.map(limit).into(),
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
    let bytes = (mb * MB as f64).round() as u64;
    bytes.max(1)
}

/// The transcript, file and price settings of the form: only what differs from `current`.
pub(super) fn files_and_prices_changes(
    form: &SettingsForm,
    current: &HostSettings,
    out: &mut Changes,
) {
    let days = current.transcripts.retention_days.to_string();
    out.field(SettingKey::RetentionDays, &form.retention_days, Some(&days), true);
    let dirs = current.allowed_read_dirs.join("\n");
    out.field(SettingKey::AllowedDirs, &form.allowed_read_dirs, Some(&dirs), false);

    // The form counts in MB, the setting in bytes: the conversion and its check are the form's.
    let mb = form.max_read_mb.trim();
    if mb != format_mb(current.max_read_bytes) {
        match mb.parse::<f64>().ok().filter(|m| m.is_finite() && *m > 0.0 && *m <= MAX_READ_MB) {
            Some(m) => {
                let bytes = mb_to_bytes(m);
                if bytes != current.max_read_bytes {
                    out.host.push(Setting::MaxBytes(Some(bytes)));
                }
            }
            None => out.errors.push(FieldError {
                field: SettingKey::MaxBytes.to_string(),
                message: "a size in MB above 0, e.g. 25 or 0.5".into(),
            }),
        }
    }

    for row in &form.prices {
        price_changes(row, current.prices.get(&row.model), out);
    }
}

/// One model's `prices.<model>.input|output` changes. Only changed values are sent (the host
/// keeps the other price of a model priced for the first time); both emptied drops the
/// user's price.
fn price_changes(row: &PriceForm, current: Option<&ModelPrice>, out: &mut Changes) {
    let model = row.model.trim();
    let (input_key, output_key) = match (
        SettingKey::price(model, PriceSide::Input),
        SettingKey::price(model, PriceSide::Output),
    ) {
        (Ok(i), Ok(o)) => (i, o),
        (Err(e), _) | (_, Err(e)) => return out.errors.push(e.into()),
    };
    let mut read = |key: SettingKey, text: &str| match key.with_text(Some(text)) {
        Ok(setting) => Some(setting),
        Err(e) => {
            out.errors.push(e.into());
            None
        }
    };
    let (Some(input), Some(output)) = (read(input_key, &row.input), read(output_key, &row.output))
    else {
        return;
    };
    let mine = current.is_some_and(|c| c.source == PriceSource::User);
    match (input.text(), output.text()) {
        (None, None) if mine => {
            out.host.push(Setting::Price(model.to_owned(), PriceSide::Input, None))
        }
        (None, None) => {}
        (Some(_), None) | (None, Some(_)) => {
            let empty = if input.text().is_none() { input.key() } else { output.key() };
            out.errors.push(FieldError {
                field: empty.to_string(),
                message: "enter both prices, or leave both empty".into(),
            });
        }
        (Some(i), Some(o)) => {
            let was = |p: Option<f64>| p.map(|p| p.to_string());
            let (was_in, was_out) = current.map_or((None, None), |c| (was(c.input), was(c.output)));
            if was_in != Some(i) {
                out.host.push(input);
            }
            if was_out != Some(o) {
                out.host.push(output);
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::panel::settings::tests::{current, form, price_row, sent};
    use crate::panel::settings::validate;

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
        let limits: Vec<(LlmRole, &str, &str)> = fields
            .limits
            .iter()
            .map(|l| (l.role, l.value.as_str(), l.placeholder.as_str()))
            .collect();
        assert_eq!(limits[1], (LlmRole::Navigator, "", "default 2048"));
        assert_eq!(limits.len(), LlmRole::ALL.len());
        let mut host = current();
        host.roles.get_mut(&LlmRole::Validator).expect("validator").max_tokens =
            waymark_protocol::MaxTokens::new(300).ok();
        host.roles.remove(&LlmRole::Summariser);
        host.llm.max_tokens = waymark_protocol::MaxTokens::new(700).ok();
        let limits = host_fields(&host).limits;
        assert_eq!(
            (limits[2].value.as_str(), limits[2].placeholder.as_str()),
            ("300", "default 400")
        );
        assert_eq!(limits[3].value, "700", "a role the host does not list has the default's");
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
        let sent = sent(&changes);
        let host: Vec<(&str, Option<&str>)> =
            sent.iter().map(|(k, v)| (k.as_str(), v.as_deref())).collect();
        assert_eq!(
            host,
            [
                ("transcripts.retention_days", Some("0")),
                ("files.allowed_dirs", Some("/data/a\n/data/b")),
                ("files.max_bytes", Some("524288")),
                ("prices.m.input", Some("1.25")),
                ("prices.mine.input", None),
                ("prices.odd.input", Some("3")),
                ("prices.odd.output", Some("4.5")),
            ]
        );
        assert_eq!(changes.host[2], Setting::MaxBytes(Some(524_288)), "typed");
        // No directory left: the setting is removed.
        f = form();
        f.allowed_read_dirs = " \n".into();
        let changes = validate(&f, Some(&current())).expect("valid");
        assert_eq!(changes.host, [Setting::AllowedDirs(None)]);
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
        assert_eq!(changes.host, [Setting::MaxBytes(Some(1))], "at least one byte");
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
}
