//! Applies typed settings (from `waymark-host config set` or the `config.set` request) to the
//! config file. Names and values were read and checked by the protocol crate's one parser
//! ([`waymark_protocol::Setting::parse`]); here each lands in its field of the file.

use std::path::PathBuf;

use waymark_protocol::{EndpointValue, PriceSide, Setting};

use super::{ConfigFile, PriceSection};

/// Sets (or, with a `None` value, removes) one setting in `file`.
pub fn apply_setting(file: &mut ConfigFile, setting: &Setting) {
    let path = |p: &Option<String>| p.as_ref().map(PathBuf::from);
    match setting {
        Setting::Endpoint(None, value) => {
            let llm = &mut file.llm;
            set_endpoint(
                (
                    &mut llm.provider,
                    &mut llm.base_url,
                    &mut llm.model,
                    &mut llm.api_key,
                    &mut llm.max_tokens,
                ),
                value,
            );
        }
        Setting::Endpoint(Some(role), value) => {
            let section = file.roles.entry(*role).or_default();
            set_endpoint(
                (
                    &mut section.provider,
                    &mut section.base_url,
                    &mut section.model,
                    &mut section.api_key,
                    &mut section.max_tokens,
                ),
                value,
            );
            if section.is_empty() {
                file.roles.remove(role);
            }
        }
        Setting::RetryBaseMs(v) => file.llm.retry_base_ms = *v,
        Setting::IdleTimeoutSecs(v) => file.llm.idle_timeout_secs = *v,
        Setting::RequestTimeoutSecs(v) => file.llm.request_timeout_secs = *v,
        Setting::MaxConcurrent(v) => {
            file.llm.max_concurrent = v.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        }
        Setting::ExportDir(v) => file.export_dir = path(v),
        Setting::DataDir(v) => file.data_dir = path(v),
        Setting::TranscriptsEnabled(v) => file.transcripts.enabled = *v,
        Setting::RetentionDays(v) => file.transcripts.retention_days = *v,
        Setting::FlushEvery(v) => file.transcripts.flush_every = *v,
        Setting::Redact(v) => file.transcripts.redact = v.clone().unwrap_or_default(),
        Setting::AllowedDirs(v) => {
            file.files.allowed_dirs = v.iter().flatten().map(PathBuf::from).collect();
        }
        Setting::MaxBytes(v) => file.files.max_bytes = *v,
        Setting::ApprovalTimeoutSecs(v) => file.agents.approval_timeout_secs = *v,
        Setting::Price(model, _, None) => {
            file.prices.remove(model);
        }
        Setting::Price(model, side, Some(price)) => {
            // A model priced for the first time keeps its other price (built-in, or 0 when none
            // is known), so setting only `input` does not make its output free.
            let seed = crate::llm::price::price_of(model, &file.prices)
                .map(|(input, output)| PriceSection { input, output })
                .unwrap_or_default();
            let entry = file.prices.entry(model.clone()).or_insert(seed);
            match side {
                PriceSide::Input => entry.input = *price,
                PriceSide::Output => entry.output = *price,
            }
        }
    }
}

/// The five fields an endpoint table has, `[llm]` or `[roles.<role>]`.
type EndpointFields<'a> = (
    &'a mut Option<waymark_protocol::Provider>,
    &'a mut Option<String>,
    &'a mut Option<String>,
    &'a mut Option<String>,
    &'a mut Option<waymark_protocol::MaxTokens>,
);

fn set_endpoint(
    (provider, base_url, model, api_key, max_tokens): EndpointFields<'_>,
    value: &EndpointValue,
) {
    match value {
        EndpointValue::Provider(v) => *provider = *v,
        EndpointValue::BaseUrl(v) => v.clone_into(base_url),
        EndpointValue::Model(v) => v.clone_into(model),
        EndpointValue::ApiKey(v) => v.clone_into(api_key),
        EndpointValue::MaxTokens(v) => *max_tokens = *v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use waymark_protocol::LlmRole;

    fn set(f: &mut ConfigFile, name: &str, value: Option<&str>) {
        let setting = Setting::parse(name, value).unwrap_or_else(|e| panic!("{e}"));
        apply_setting(f, &setting);
    }

    #[test]
    fn every_setting_lands_in_its_field() {
        let mut f = ConfigFile::default();
        set(&mut f, "llm.model", Some("x"));
        set(&mut f, "llm.provider", Some("claude"));
        set(&mut f, "llm.retry_base_ms", Some("20"));
        set(&mut f, "llm.max_concurrent", Some("3"));
        assert_eq!(f.llm.model.as_deref(), Some("x"));
        assert_eq!(f.llm.provider, Some(waymark_protocol::Provider::Anthropic));
        assert_eq!((f.llm.retry_base_ms, f.llm.max_concurrent), (Some(20), Some(3)));
        set(&mut f, "llm.model", None);
        assert_eq!(f.llm.model, None);
        set(&mut f, "export_dir", Some("/e"));
        set(&mut f, "data_dir", Some("/d"));
        assert_eq!(
            (f.export_dir.clone(), f.data_dir.clone()),
            (Some("/e".into()), Some("/d".into()))
        );
        set(&mut f, "transcripts.enabled", Some("on"));
        set(&mut f, "transcripts.retention_days", Some("7"));
        set(&mut f, "transcripts.flush_every", Some("2"));
        set(&mut f, "transcripts.redact", Some("a1234\n\n b5678 "));
        assert_eq!(f.transcripts.enabled, Some(true));
        assert_eq!((f.transcripts.retention_days, f.transcripts.flush_every), (Some(7), Some(2)));
        assert_eq!(f.transcripts.redact, vec!["a1234", "b5678"]);
        set(&mut f, "files.allowed_dirs", Some("/a:b\n\n /c \n"));
        set(&mut f, "files.max_bytes", Some("10"));
        assert_eq!(f.files.allowed_dirs, [PathBuf::from("/a:b"), PathBuf::from("/c")]);
        assert_eq!(f.files.max_bytes, Some(10));
        set(&mut f, "files.allowed_dirs", None);
        assert!(f.files.allowed_dirs.is_empty());
        set(&mut f, "agents.approval_timeout_secs", Some("45"));
        assert_eq!(f.agents.approval_timeout_secs, Some(45));
    }

    #[test]
    fn role_tables_and_prices() {
        let mut f = ConfigFile::default();
        set(&mut f, "roles.summarizer.model", Some("mini"));
        assert_eq!(f.roles[&LlmRole::Summariser].model.as_deref(), Some("mini"));
        set(&mut f, "roles.summariser.model", None);
        assert!(f.roles.is_empty(), "empty role tables are dropped");
        set(&mut f, "roles.validator.max_tokens", Some("300"));
        set(&mut f, "llm.max_tokens", Some("5000"));
        let tokens =
            |t: Option<waymark_protocol::MaxTokens>| t.map(waymark_protocol::MaxTokens::get);
        assert_eq!(tokens(f.roles[&LlmRole::Validator].max_tokens), Some(300));
        assert_eq!(tokens(f.llm.max_tokens), Some(5000));
        set(&mut f, "roles.validator.max_tokens", None);
        assert!(f.roles.is_empty(), "a role table holding only a limit is dropped with it");
        set(&mut f, "prices.gpt-4.1.input", Some("2.5"));
        assert_eq!(f.prices["gpt-4.1"].input, 2.5);
        assert_eq!(f.prices["gpt-4.1"].output, 8.0, "the built-in output price is kept");
        set(&mut f, "prices.mystery.output", Some("3"));
        assert_eq!((f.prices["mystery"].input, f.prices["mystery"].output), (0.0, 3.0));
        set(&mut f, "prices.mystery.input", None);
        assert!(!f.prices.contains_key("mystery"), "clearing drops the user's price");
    }
}
