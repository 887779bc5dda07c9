use super::*;
use serde_json::json;

fn tokens(n: u64) -> Option<crate::MaxTokens> {
    Some(crate::MaxTokens::new(n).expect("in range"))
}

/// One good text value for every setting name, and the typed setting it reads as.
fn every_setting() -> Vec<(&'static str, &'static str, Setting)> {
    use EndpointValue as E;
    let planner = Some(LlmRole::Planner);
    vec![
        ("llm.provider", "Claude", Setting::Endpoint(None, E::Provider(Some(Provider::Anthropic)))),
        ("llm.base_url", " http://127.0.0.1:9/v1/ ", {
            Setting::Endpoint(None, E::BaseUrl(Some("http://127.0.0.1:9/v1".into())))
        }),
        ("llm.model", "gpt-4.1", Setting::Endpoint(None, E::Model(Some("gpt-4.1".into())))),
        ("llm.api_key", "sk-1", Setting::Endpoint(None, E::ApiKey(Some("sk-1".into())))),
        ("llm.max_tokens", "32768", Setting::Endpoint(None, E::MaxTokens(tokens(32_768)))),
        ("llm.retry_base_ms", "0", Setting::RetryBaseMs(Some(0))),
        ("llm.idle_timeout_secs", "60", Setting::IdleTimeoutSecs(Some(60))),
        ("llm.request_timeout_secs", "300", Setting::RequestTimeoutSecs(Some(300))),
        ("llm.max_concurrent", "5", Setting::MaxConcurrent(Some(5))),
        ("roles.planner.provider", "openai", {
            Setting::Endpoint(planner, E::Provider(Some(Provider::Openai)))
        }),
        ("roles.navigator.base_url", "https://api.example.com/v1", {
            let url = Some("https://api.example.com/v1".into());
            Setting::Endpoint(Some(LlmRole::Navigator), E::BaseUrl(url))
        }),
        ("roles.validator.model", "m", {
            Setting::Endpoint(Some(LlmRole::Validator), E::Model(Some("m".into())))
        }),
        ("roles.summariser.api_key", "k", {
            Setting::Endpoint(Some(LlmRole::Summariser), E::ApiKey(Some("k".into())))
        }),
        ("roles.validator.max_tokens", " 16 ", {
            Setting::Endpoint(Some(LlmRole::Validator), E::MaxTokens(tokens(16)))
        }),
        ("export_dir", "/home/me/exports", Setting::ExportDir(Some("/home/me/exports".into()))),
        ("data_dir", "C:\\Users\\me\\waymark", {
            Setting::DataDir(Some("C:\\Users\\me\\waymark".into()))
        }),
        ("transcripts.enabled", "on", Setting::TranscriptsEnabled(Some(true))),
        ("transcripts.retention_days", "0", Setting::RetentionDays(Some(0))),
        ("transcripts.flush_every", "16", Setting::FlushEvery(Some(16))),
        ("transcripts.redact", "a1234\n\n b5678 \na1234", {
            Setting::Redact(Some(vec!["a1234".into(), "b5678".into()]))
        }),
        ("files.allowed_dirs", "/a:b\n\n /c \n\\\\srv\\share", {
            Setting::AllowedDirs(Some(vec!["/a:b".into(), "/c".into(), "\\\\srv\\share".into()]))
        }),
        ("files.max_bytes", "524288", Setting::MaxBytes(Some(524_288))),
        ("agents.approval_timeout_secs", "90", Setting::ApprovalTimeoutSecs(Some(90))),
        (
            "prices.gpt-4.1.input",
            "2.5",
            Setting::Price("gpt-4.1".into(), PriceSide::Input, Some(2.5)),
        ),
        ("prices.m.output", "0", Setting::Price("m".into(), PriceSide::Output, Some(0.0))),
    ]
}

#[test]
fn every_setting_parses_to_its_typed_value_and_back() {
    for (name, text, want) in every_setting() {
        let got = Setting::parse(name, Some(text)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, want, "{name}");
        assert_eq!(got.key().to_string(), name);
        assert_eq!(name.parse::<SettingKey>().expect("name"), got.key());
        let again = got.key().with_text(got.text().as_deref()).expect("text reads back");
        assert_eq!(again, got, "{name}");
        // Blank or absent text clears the setting.
        for clear in [None, Some(""), Some("  \n")] {
            let cleared = Setting::parse(name, clear).expect("clear");
            assert_eq!(cleared.text(), None, "{name}");
            assert_eq!(cleared.key(), got.key());
        }
        assert!(
            SettingKey::help().contains(&name.replace("gpt-4.1", "<model>")) || {
                name.starts_with("roles.") || name.starts_with("prices.")
            }
        );
    }
}

#[test]
fn bad_values_are_refused_naming_the_field() {
    for (name, text) in [
        ("llm.provider", "gopher"),
        ("llm.base_url", "ftp://x"),
        ("llm.base_url", "http://"),
        ("llm.base_url", "http://exa mple.com"),
        ("llm.model", "two words"),
        ("llm.retry_base_ms", "soon"),
        ("llm.retry_base_ms", "-1"),
        ("llm.idle_timeout_secs", "0"),
        ("llm.max_concurrent", "0"),
        ("llm.max_concurrent", "99999999999"),
        ("export_dir", "relative/dir"),
        ("data_dir", "~/data"),
        ("transcripts.enabled", "maybe"),
        ("transcripts.retention_days", "1.5"),
        ("transcripts.flush_every", "0"),
        ("files.allowed_dirs", "/ok\nrelative/dir"),
        ("files.max_bytes", "0"),
        ("agents.approval_timeout_secs", "0"),
        ("prices.m.input", "-1"),
        ("prices.m.input", "NaN"),
        ("prices.m.output", "inf"),
        ("prices.m.output", "1e400"),
        ("roles.planner.provider", "gemini"),
        ("roles.planner.max_tokens", "15"),
        ("roles.navigator.max_tokens", "32769"),
        ("roles.validator.max_tokens", "many"),
        ("roles.summariser.max_tokens", "-400"),
        ("llm.max_tokens", "512.5"),
    ] {
        let e = Setting::parse(name, Some(text)).expect_err(name);
        assert_eq!(e.field(), name);
        assert!(e.to_string().starts_with(&format!("{name}: ")), "{e}");
        let key: SettingKey = name.parse().expect("known");
        if key != SettingKey::AllowedDirs {
            assert_eq!(e.message(), format!("{}, not {text:?}", key.expects()));
        }
    }
    let e = Setting::parse("files.allowed_dirs", Some("/ok\nrelative/dir")).expect_err("rel");
    assert_eq!(e.message(), "\"relative/dir\" is not an absolute path");
    let e = Setting::parse("transcripts.retention_days", Some("soon")).expect_err("days");
    assert_eq!(
        e.to_string(),
        "transcripts.retention_days: a whole number of days, 0 to keep transcripts forever, \
         not \"soon\""
    );
}

#[test]
fn a_token_limit_out_of_bounds_says_which_bounds() {
    let e = Setting::parse("roles.navigator.max_tokens", Some("8")).expect_err("too few");
    assert_eq!(
        e.to_string(),
        "roles.navigator.max_tokens: a whole number of tokens from 16 to 32768, or nothing for \
         the role's default, not \"8\""
    );
    // The hint's bounds are the type's.
    let hint = SettingKey::Endpoint(None, EndpointField::MaxTokens).expects();
    let (min, max) = (crate::MaxTokens::MIN, crate::MaxTokens::MAX);
    assert!(hint.contains(&format!("from {min} to {max}")), "{hint}");
    assert!(
        SettingKey::help().contains("roles.<planner|navigator|validator|summariser>.max_tokens")
    );
}

#[test]
fn secrets_are_marked_and_never_repeated() {
    let secret = "sk-with a space";
    let e = Setting::parse("roles.planner.api_key", Some(secret)).expect_err("spaces");
    assert!(!e.to_string().contains(secret), "{e}");
    let set = Setting::parse("llm.api_key", Some("sk-very-secret")).expect("key");
    assert!(set.is_secret());
    assert!(!format!("{set:?}").contains("sk-very-secret"));
    let redact = Setting::parse("transcripts.redact", Some("hunter2")).expect("redact");
    assert!(redact.is_secret() && !format!("{redact:?}").contains("hunter2"));
    let model = Setting::parse("llm.model", Some("m1")).expect("model");
    assert!(!model.is_secret() && format!("{model:?}").contains("m1"));
    assert!(SettingKey::help().contains("transcripts.redact"));
    let secret_lines = SettingKey::help().lines().filter(|l| l.contains("secret")).count();
    assert_eq!(secret_lines, 3, "{}", SettingKey::help());
}

#[test]
fn names_take_the_role_alias_and_refuse_what_is_not_a_setting() {
    let s = Setting::parse("roles.Summarizer.model", Some("mini")).expect("alias");
    assert_eq!(
        s,
        Setting::Endpoint(Some(LlmRole::Summariser), EndpointValue::Model(Some("mini".into())))
    );
    assert_eq!(s.key().to_string(), "roles.summariser.model");
    for (name, says) in [
        ("nope", "no such setting; known: llm.provider, "),
        ("llm.colour", "no such setting"),
        ("roles.chef.model", "unknown role \"chef\"; use one of planner, navigator"),
        ("roles.planner.colour", "no such setting"),
        ("roles.planner", "no such setting"),
        ("prices.m.middle", "no such setting"),
        ("prices..input", "a price names a model"),
        ("prices.two words.input", "a price names a model"),
    ] {
        let e = name.parse::<SettingKey>().expect_err(name);
        assert_eq!(e.field(), name);
        assert!(e.message().starts_with(says), "{name}: {e}");
    }
    assert!(SettingKey::names().contains("roles.<planner|navigator|validator|summariser>.api_key"));
    assert!(SettingKey::names().ends_with("prices.<model>.<input|output>"));
}

#[test]
fn config_set_travels_as_names_and_text() {
    let settings: Vec<Setting> = every_setting().into_iter().map(|(.., s)| s).collect();
    let set = ConfigSet { settings };
    let json = serde_json::to_value(&set).expect("ser");
    assert_eq!(json["values"]["transcripts.redact"], "a1234\nb5678");
    assert_eq!(json["values"]["llm.provider"], "anthropic");
    assert_eq!(json["values"]["prices.gpt-4.1.input"], "2.5");
    let mut back: ConfigSet = serde_json::from_value(json).expect("de");
    // A JSON object may come back in another order (serde_json's map sorts its keys).
    let mut want = set.settings.clone();
    let by_name = |s: &Setting| s.key().to_string();
    back.settings.sort_by_key(by_name);
    want.sort_by_key(by_name);
    assert_eq!(back.settings, want);
    let text = serde_json::to_string(&set).expect("ser");
    assert_eq!(serde_json::from_str::<ConfigSet>(&text).expect("de"), set, "text keeps the order");

    let wire = json!({"values": {"llm.model": "m", "llm.api_key": null}});
    let set: ConfigSet = serde_json::from_value(wire).expect("old panels' form");
    assert_eq!(
        set.settings,
        [
            Setting::Endpoint(None, EndpointValue::ApiKey(None)),
            Setting::Endpoint(None, EndpointValue::Model(Some("m".into()))),
        ]
    );
    for (bad, says) in [
        (json!({"values": {"transcripts.enabled": "maybe"}}), "transcripts.enabled: true or false"),
        (json!({"values": {"nope": "1"}}), "unknown setting \"nope\""),
        (json!({"values": {"llm.model": 3}}), "invalid type"),
        (json!({"values": "not a map"}), "invalid type"),
        (
            json!({"values": {"roles.summarizer.model": "a", "roles.summariser.model": "b"}}),
            "roles.summariser.model: named twice",
        ),
    ] {
        let e = serde_json::from_value::<ConfigSet>(bad.clone()).expect_err("refused");
        assert!(e.to_string().contains(says), "{bad}: {e}");
    }
}

#[test]
fn host_settings_keep_their_role_keys() {
    let status = LlmStatus {
        provider: "openai".into(),
        base_url: "http://x".into(),
        model: "m".into(),
        has_key: false,
        max_tokens: None,
    };
    let roles: BTreeMap<LlmRole, LlmStatus> =
        LlmRole::ALL.into_iter().map(|r| (r, status.clone())).collect();
    let json = serde_json::to_value(&roles).expect("ser");
    let names: Vec<&String> = json.as_object().expect("object").keys().collect();
    let mut want = LlmRole::ALL.map(LlmRole::as_str).to_vec();
    want.sort_unstable();
    assert_eq!(names, want, "the same keys as when roles were strings");
}
