use std::collections::HashMap;
use std::path::PathBuf;

use waymark_protocol::{LlmRole, Provider};

use super::*;

fn run(file: ConfigFile, env: &[(&'static str, &'static str)]) -> Config {
    let mut map: HashMap<&str, &str> = env.iter().copied().collect();
    map.entry(ENV_EXPORT_DIR).or_insert("/tmp/exports");
    resolve(file, &map, PathBuf::from("/tmp/cfg/config.toml")).expect("resolve")
}

fn file_with(llm: LlmSection) -> ConfigFile {
    ConfigFile { llm, ..ConfigFile::default() }
}

#[test]
fn nothing_set_means_local_ollama() {
    let c = run(ConfigFile::default(), &[]);
    assert_eq!(c.llm.provider, Provider::Openai);
    assert_eq!(c.llm.base_url, DEFAULT_BASE_URL);
    assert_eq!(c.llm.model, DEFAULT_MODEL);
    assert!(c.llm.api_key.is_none());
    assert_eq!(c.llm.retry_base.as_millis(), 500);
    assert_eq!(c.llm.idle_timeout.as_secs(), 60);
}

#[test]
fn openai_key_selects_openai() {
    let c = run(ConfigFile::default(), &[(ENV_OPENAI_KEY, "sk-test")]);
    assert_eq!(c.llm.base_url, OPENAI_BASE_URL);
    assert_eq!(c.llm.model, OPENAI_DEFAULT_MODEL);
    assert_eq!(c.llm.api_key.as_deref(), Some("sk-test"));
}

#[test]
fn anthropic_key_selects_anthropic() {
    let c = run(ConfigFile::default(), &[(ENV_ANTHROPIC_KEY, "sk-ant")]);
    assert_eq!(c.llm.provider, Provider::Anthropic);
    assert_eq!(c.llm.base_url, ANTHROPIC_BASE_URL);
    assert_eq!(c.llm.model, ANTHROPIC_DEFAULT_MODEL);
    assert_eq!(c.llm.api_key.as_deref(), Some("sk-ant"));
}

#[test]
fn vendor_key_is_never_sent_to_another_endpoint() {
    let c = run(
        ConfigFile::default(),
        &[(ENV_OPENAI_KEY, "sk-test"), (ENV_BASE_URL, "http://127.0.0.1:9/v1/")],
    );
    assert_eq!(c.llm.base_url, "http://127.0.0.1:9/v1", "trailing slash trimmed");
    assert!(c.llm.api_key.is_none());
    assert_eq!(c.llm.model, DEFAULT_MODEL);
}

#[test]
fn file_beats_defaults_and_env_beats_file() {
    let file = file_with(LlmSection {
        base_url: Some("http://file:1/v1".into()),
        model: Some("file-model".into()),
        api_key: Some("file-key".into()),
        retry_base_ms: Some(7),
        ..LlmSection::default()
    });
    let c = run(file.clone(), &[]);
    assert_eq!(c.llm.base_url, "http://file:1/v1");
    assert_eq!(c.llm.model, "file-model");
    assert_eq!(c.llm.api_key.as_deref(), Some("file-key"));
    assert_eq!(c.llm.retry_base.as_millis(), 7);

    let c = run(
        file,
        &[
            (ENV_BASE_URL, "http://env:2/v1"),
            (ENV_MODEL, "env-model"),
            (ENV_API_KEY, "env-key"),
            (ENV_RETRY_BASE_MS, "9"),
            (ENV_OPENAI_KEY, "sk-ignored"),
        ],
    );
    assert_eq!(c.llm.base_url, "http://env:2/v1");
    assert_eq!(c.llm.model, "env-model");
    assert_eq!(c.llm.api_key.as_deref(), Some("env-key"));
    assert_eq!(c.llm.retry_base.as_millis(), 9);
}

#[test]
fn explicit_provider_wins_over_key_shortcuts() {
    let c = run(
        ConfigFile::default(),
        &[(ENV_OPENAI_KEY, "sk-o"), (ENV_ANTHROPIC_KEY, "sk-a"), (ENV_PROVIDER, "anthropic")],
    );
    assert_eq!(c.llm.provider, Provider::Anthropic);
    assert_eq!(c.llm.api_key.as_deref(), Some("sk-a"));
}

#[test]
fn bad_values_are_reported_not_ignored() {
    let map: HashMap<&str, &str> = [(ENV_PROVIDER, "gopher"), (ENV_EXPORT_DIR, "/x")].into();
    assert!(resolve(ConfigFile::default(), &map, PathBuf::new()).is_err());
    let map: HashMap<&str, &str> = [(ENV_RETRY_BASE_MS, "soon"), (ENV_EXPORT_DIR, "/x")].into();
    assert!(resolve(ConfigFile::default(), &map, PathBuf::new()).is_err());
    let map: HashMap<&str, &str> = [(ENV_BASE_URL, "ftp://x"), (ENV_EXPORT_DIR, "/x")].into();
    assert!(resolve(ConfigFile::default(), &map, PathBuf::new()).is_err());
}

#[test]
fn export_dir_env_beats_file() {
    let file = ConfigFile { export_dir: Some("/from/file".into()), ..ConfigFile::default() };
    assert_eq!(run(file.clone(), &[]).export_dir, PathBuf::from("/tmp/exports"));
    let map: HashMap<&str, &str> = HashMap::new();
    let c = resolve(file, &map, PathBuf::new()).expect("resolve");
    assert_eq!(c.export_dir, PathBuf::from("/from/file"));
}

#[test]
fn file_round_trips_with_private_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("sub").join(CONFIG_FILE_NAME);
    assert!(load_file(&path).expect("absent is fine").is_none());
    let file = file_with(LlmSection {
        model: Some("m".into()),
        api_key: Some("k".into()),
        ..LlmSection::default()
    });
    save_file(&path, &file).expect("save");
    assert_eq!(load_file(&path).expect("load"), Some(file));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn unknown_keys_and_bad_toml_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(CONFIG_FILE_NAME);
    std::fs::write(&path, "[llm]\nmodle = \"x\"\n").expect("write");
    assert!(matches!(load_file(&path), Err(FileError::Parse { .. })));
    std::fs::write(&path, "not toml [").expect("write");
    assert!(matches!(load_file(&path), Err(FileError::Parse { .. })));
}

#[test]
fn debug_output_hides_the_key() {
    let c = run(ConfigFile::default(), &[(ENV_API_KEY, "super-secret")]);
    assert!(!format!("{c:?}").contains("super-secret"));
    assert!(c.llm.status().has_key);
}

#[test]
fn roles_fall_back_to_the_default_and_override_per_field() {
    let mut file = file_with(LlmSection {
        base_url: Some("http://file:1/v1".into()),
        model: Some("default-model".into()),
        api_key: Some("default-key".into()),
        ..LlmSection::default()
    });
    file.roles.insert(
        LlmRole::Summariser,
        RoleSection { model: Some("small".into()), ..RoleSection::default() },
    );
    file.roles.insert(
        LlmRole::Planner,
        RoleSection { provider: Some(Provider::Anthropic), ..RoleSection::default() },
    );
    let c = run(file, &[(role_env(LlmRole::Validator, "MODEL").leak(), "checker")]);
    assert_eq!(c.for_role(LlmRole::Navigator).model, "default-model");
    assert_eq!(c.for_role(LlmRole::Navigator).api_key.as_deref(), Some("default-key"));
    assert_eq!(c.for_role(LlmRole::Summariser).model, "small");
    assert_eq!(c.for_role(LlmRole::Summariser).base_url, "http://file:1/v1");
    assert_eq!(c.for_role(LlmRole::Validator).model, "checker");
    let planner = c.for_role(LlmRole::Planner);
    assert_eq!(planner.provider, Provider::Anthropic);
    assert_eq!(planner.base_url, ANTHROPIC_BASE_URL);
    assert_eq!(planner.model, ANTHROPIC_DEFAULT_MODEL);
    assert!(planner.api_key.is_none(), "the default key never goes to another endpoint");
    assert!(c.env_overrides.contains(&"WAYMARK_LLM_VALIDATOR_MODEL".to_owned()));
}

#[test]
fn unknown_roles_and_bad_booleans_are_rejected() {
    let err = toml::from_str::<ConfigFile>("[roles.chef]\nmodel = \"m\"\n").expect_err("chef");
    assert!(err.to_string().contains("unknown role \"chef\""), "{err}");
    let file: ConfigFile =
        toml::from_str("[roles.Summarizer]\nmodel = \"m\"\n[llm]\nprovider = \"ollama\"\n")
            .expect("the alias and provider aliases still load");
    assert_eq!(file.roles[&LlmRole::Summariser].model.as_deref(), Some("m"));
    assert_eq!(file.llm.provider, Some(Provider::Openai));
    assert!(toml::from_str::<ConfigFile>("[llm]\nprovider = \"gopher\"\n").is_err());
    let mut map: HashMap<&str, &str> = HashMap::new();
    map.insert(ENV_EXPORT_DIR, "/tmp/e");
    map.insert(ENV_TRANSCRIPTS, "maybe");
    assert!(resolve(ConfigFile::default(), &map, PathBuf::from("/x")).is_err());
}

#[test]
fn readable_dirs_must_be_absolute_on_this_system() {
    let mut file = ConfigFile::default();
    file.files.allowed_dirs = vec![PathBuf::from("relative/dir")];
    let map: HashMap<&str, &str> = [(ENV_EXPORT_DIR, "/tmp/e")].into();
    let err = resolve(file, &map, PathBuf::from("/x")).expect_err("relative");
    assert!(err.to_string().contains("files.allowed_dirs"), "{err}");
}

#[test]
fn transcripts_settings_and_keys_are_redacted_secrets() {
    let mut file =
        file_with(LlmSection { api_key: Some("k-default".into()), ..LlmSection::default() });
    file.transcripts.redact = vec!["hunter2".into(), " ".into()];
    file.roles.insert(
        LlmRole::Planner,
        RoleSection { api_key: Some("k-planner".into()), ..RoleSection::default() },
    );
    let c = run(file, &[(ENV_DATA_DIR, "/tmp/data"), (ENV_TRANSCRIPTS, "on")]);
    assert!(c.transcripts.enabled);
    assert_eq!(c.transcripts.dir, PathBuf::from("/tmp/data/sessions"));
    assert_eq!(c.transcripts.redact, vec!["hunter2", "k-default", "k-planner"]);
    assert_eq!(c.transcripts.retention_days, DEFAULT_RETENTION_DAYS);
}

#[test]
fn full_file_round_trips_through_toml() {
    let text = r#"
        export_dir = "/e"
        [llm]
        model = "m"
        [roles.planner]
        model = "big"
        [transcripts]
        enabled = true
        retention_days = 7
        [files]
        allowed_dirs = ["/home/me/uploads"]
        max_bytes = 1000
        [prices."my-model"]
        input = 1.5
        output = 2.0
    "#;
    let file: ConfigFile = toml::from_str(text).expect("parse");
    assert_eq!(file.roles[&LlmRole::Planner].model.as_deref(), Some("big"));
    assert_eq!(file.prices["my-model"].input, 1.5);
    let back: ConfigFile = toml::from_str(&toml::to_string(&file).expect("ser")).expect("again");
    assert_eq!(back, file);
}

#[test]
fn a_role_s_token_limit_is_its_own_else_the_default_s_even_on_its_own_endpoint() {
    let limit = |n| waymark_protocol::MaxTokens::new(n).ok();
    let mut file = file_with(LlmSection { max_tokens: limit(5000), ..LlmSection::default() });
    file.roles.insert(
        LlmRole::Validator,
        RoleSection { max_tokens: limit(300), ..RoleSection::default() },
    );
    let own_endpoint = RoleSection {
        provider: Some(Provider::Anthropic),
        base_url: Some("https://api.anthropic.com/v1".into()),
        ..RoleSection::default()
    };
    file.roles.insert(LlmRole::Planner, own_endpoint);
    let c = run(file, &[]);
    let of = |role| c.for_role(role).max_tokens.map(waymark_protocol::MaxTokens::get);
    assert_eq!(of(LlmRole::Validator), Some(300));
    assert_eq!(of(LlmRole::Navigator), Some(5000));
    assert_eq!(of(LlmRole::Planner), Some(5000), "a separate endpoint keeps the default's limit");
    assert_eq!(c.for_role(LlmRole::Validator).max_tokens_for(Some(400)), Some(300));
    let none = run(ConfigFile::default(), &[]);
    assert_eq!(none.llm.max_tokens_for(Some(400)), Some(400), "no limit: the request's own");
}
