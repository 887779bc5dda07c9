//! The command line: `--version`, `install`/`uninstall` (per browser with a temporary HOME, and
//! for a dedicated profile), `doctor` and `config`.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::BIN;
use serde_json::Value;
use waymark_protocol::{EXTENSION_ID, HOST_NAME};
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};

/// Runs the binary with a private HOME, config and export dir under `home`.
fn run(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("WAYMARK_CONFIG_DIR", home.join("config"))
        .env("WAYMARK_EXPORT_DIR", home.join("exports"))
        .env("WAYMARK_LLM_BASE_URL", "http://127.0.0.1:9/v1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run waymark-host")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn exe() -> std::path::PathBuf {
    Path::new(BIN).canonicalize().expect("canonical binary path")
}

#[test]
fn version_prints_the_crate_version() {
    let home = tempfile::tempdir().expect("tempdir");
    let o = run(home.path(), &["--version"], &[]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim(), format!("waymark-host {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn install_for_a_profile_then_doctor_then_uninstall() {
    let home = tempfile::tempdir().expect("tempdir");
    let profile = home.path().join("profile");
    let p = profile.to_str().expect("utf8");
    let o = run(home.path(), &["install", "--in-place", "--user-data-dir", p], &[]);
    assert!(o.status.success(), "{o:?}");
    let manifest = profile.join("NativeMessagingHosts").join(format!("{HOST_NAME}.json"));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read")).expect("json");
    assert_eq!(v["name"], HOST_NAME);
    assert_eq!(v["path"], exe().to_str().expect("utf8"));
    assert_eq!(v["allowed_origins"][0], format!("chrome-extension://{EXTENSION_ID}/"));

    // Everything fine but the LLM endpoint (nothing on port 9): exactly one FIX.
    let o = run(home.path(), &["doctor", "--user-data-dir", p], &[]);
    let out = stdout(&o);
    let fixes: Vec<&str> = out.lines().filter(|l| l.starts_with("FIX: ")).collect();
    assert!(out.lines().all(|l| l.starts_with("ok: ") || l.starts_with("FIX: ")), "{out}");
    assert_eq!(fixes.len(), 1, "{out}");
    assert!(
        fixes[0].contains("http://127.0.0.1:9/v1") && fixes[0].contains("unreachable"),
        "{out}"
    );
    assert!(!o.status.success(), "a FIX means a non-zero exit");
    assert!(out.contains("ok: allowed origin") && out.contains("ok: export directory"), "{out}");

    let o = run(home.path(), &["uninstall", "--user-data-dir", p], &[]);
    assert!(o.status.success());
    assert!(!manifest.exists());
    let o = run(home.path(), &["doctor", "--user-data-dir", p], &[]);
    assert!(stdout(&o).contains("FIX: no host manifest"), "{}", stdout(&o));
}

#[test]
fn doctor_is_all_ok_with_a_reachable_endpoint() {
    let llm = ScriptedLlm::always_text("hi").expect("llm");
    let home = tempfile::tempdir().expect("tempdir");
    let p = home.path().join("profile");
    let p = p.to_str().expect("utf8");
    assert!(run(home.path(), &["install", "--user-data-dir", p], &[]).status.success());
    let base = llm.base_url();
    let o = run(home.path(), &["doctor", "--user-data-dir", p], &[("WAYMARK_LLM_BASE_URL", &base)]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("is reachable (default: openai model llama3.1 answered a one-token call)"),
        "{out}"
    );
    let calls = llm.requests();
    assert_eq!(calls.len(), 1, "one call for the one endpoint");
    assert_eq!(calls[0].body["max_tokens"], 1);
}

#[test]
fn doctor_checks_every_role_endpoint_and_names_the_setting_to_fix() {
    let good = ScriptedLlm::always_text("OK").expect("llm");
    let bad = ScriptedLlm::start(|_| ScriptedReply::error(401, "bad key")).expect("llm");
    let home = tempfile::tempdir().expect("tempdir");
    let p = home.path().join("profile");
    let p = p.to_str().expect("utf8");
    assert!(run(home.path(), &["install", "--user-data-dir", p], &[]).status.success());
    let (g, b) = (good.base_url(), bad.base_url());
    let o = run(
        home.path(),
        &["doctor", "--user-data-dir", p],
        &[
            ("WAYMARK_LLM_BASE_URL", &g),
            ("WAYMARK_LLM_PLANNER_BASE_URL", &b),
            ("WAYMARK_LLM_PLANNER_PROVIDER", "anthropic"),
        ],
    );
    let out = stdout(&o);
    assert!(!o.status.success(), "{out}");
    let fixes: Vec<&str> = out.lines().filter(|l| l.starts_with("FIX: ")).collect();
    assert_eq!(fixes.len(), 1, "{out}");
    assert!(
        fixes[0].contains("LLM planner") && fixes[0].contains("roles.planner.api_key"),
        "{out}"
    );
    assert_eq!(bad.requests()[0].path, "/v1/messages", "the planner speaks Anthropic");
    assert_eq!(good.requests().len(), 1, "navigator, summariser, validator share the default");
}

#[test]
fn install_for_a_browser_copies_the_host_into_the_user_dir_and_uses_the_crate_paths() {
    let home = tempfile::tempdir().expect("tempdir");
    let o = run(home.path(), &["install", "--browser", "chromium"], &[]);
    assert!(o.status.success(), "{o:?}");
    let manifest =
        home.path().join(".config/chromium/NativeMessagingHosts").join(format!("{HOST_NAME}.json"));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read")).expect("json");
    let copy = home.path().join(".local/share/waymark/bin/waymark-host");
    assert_eq!(v["path"], copy.canonicalize().expect("copied").to_str().expect("utf8"));
    assert_eq!(std::fs::read(&copy).expect("copy"), std::fs::read(exe()).expect("binary"));
    assert!(
        v["description"].as_str().expect("description").contains("Waymark"),
        "our template, not the crate's"
    );

    let o = run(home.path(), &["doctor", "--browser", "chromium"], &[]);
    assert!(stdout(&o).contains("ok: manifest for chromium found"), "{}", stdout(&o));

    // `all` installs only where a browser profile exists (chromium's dir exists now).
    std::fs::create_dir_all(home.path().join(".config/BraveSoftware/Brave-Browser"))
        .expect("mkdir");
    let o = run(
        home.path(),
        &["install", "--browser", "all", "--extension-id", "abcdefghijklmnopabcdefghijklmnop"],
        &[],
    );
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(
        out.contains("for chromium") && out.contains("for brave") && !out.contains("for edge"),
        "{out}"
    );

    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read")).expect("json");
    let origins = &v["allowed_origins"];
    assert_eq!(origins[0], format!("chrome-extension://{EXTENSION_ID}/"), "the fixed ID stays");
    assert_eq!(origins[1], "chrome-extension://abcdefghijklmnopabcdefghijklmnop/");

    let o = run(home.path(), &["uninstall", "--browser", "all"], &[]);
    assert!(o.status.success(), "{o:?}");
    assert!(!manifest.exists());
    assert!(!copy.exists(), "uninstall removes the copy too");
}

#[test]
fn install_needs_a_target_and_a_valid_id() {
    let home = tempfile::tempdir().expect("tempdir");
    let o = run(home.path(), &["install"], &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--browser"));
    let o = run(home.path(), &["install", "--browser", "chrome", "--extension-id", "nope"], &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid extension ID"));
}

#[test]
fn config_set_writes_a_private_file_that_the_host_reads() {
    let home = tempfile::tempdir().expect("tempdir");
    let o = run(home.path(), &["config", "set", "llm.model", "qwen2.5"], &[]);
    assert!(o.status.success(), "{o:?}");
    let file = home.path().join("config/config.toml");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let o = run(home.path(), &["config", "show"], &[]);
    assert!(stdout(&o).contains("qwen2.5"), "{}", stdout(&o));
    let o = run(home.path(), &["config", "show"], &[("WAYMARK_LLM_MODEL", "from-env")]);
    assert!(stdout(&o).contains("from-env"), "env beats the file");
    assert!(!run(home.path(), &["config", "set", "llm.provider", "gopher"], &[]).status.success());
    let o = run(home.path(), &["config", "set", "transcripts.retention_days", "soon"], &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("transcripts.retention_days: a whole"));
    let o = run(home.path(), &["config", "set", "roles.chef.model", "m"], &[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown role \"chef\""), "{o:?}");
    // The help lists every setting from the protocol's one list.
    let help = stdout(&run(home.path(), &["config", "set", "--help"], &[]));
    for name in ["llm.max_concurrent", "roles.<planner|navigator|validator|summariser>.api_key"] {
        assert!(help.contains(name), "{name} in {help}");
    }
    // A PATH-like list of readable directories, and unset.
    let (a, b) = (home.path().join("a"), home.path().join("b"));
    let dirs = std::env::join_paths([&a, &b]).expect("join");
    let o = run(
        home.path(),
        &["config", "set", "files.allowed_dirs", dirs.to_str().expect("utf8")],
        &[],
    );
    assert!(o.status.success(), "{o:?}");
    let text = std::fs::read_to_string(&file).expect("config");
    assert!(text.contains(a.to_str().expect("utf8")) && text.contains(b.to_str().expect("utf8")));
    assert!(run(home.path(), &["config", "unset", "files.allowed_dirs"], &[]).status.success());
    assert!(!std::fs::read_to_string(&file).expect("config").contains("allowed_dirs"));
}

#[test]
fn sessions_commands_list_show_search_export_delete_prune() {
    let home = tempfile::tempdir().expect("tempdir");
    let data = home.path().join("data");
    let sessions = data.join("sessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let line = |kind: &str, extra: Value| {
        let mut v = serde_json::json!({"ts": "2026-01-01T10:00:00.000Z", "kind": kind});
        if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
            o.extend(e);
        }
        format!("{v}\n")
    };
    let text = [
        line("session_start", serde_json::json!({"title": "Baggage rules"})),
        line("turn", serde_json::json!({"role": "user", "text": "compare baggage allowances"})),
        line("summary", serde_json::json!({"text": "TAP allows 23 kg"})),
    ]
    .concat();
    std::fs::write(sessions.join("bag-7.jsonl"), text).expect("write");
    let d = data.to_str().expect("utf8");
    let env = [("WAYMARK_DATA_DIR", d)];

    let o = run(home.path(), &["sessions", "list"], &env);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.starts_with("bag-7\t") && out.contains("3 events\tBaggage rules [open]"), "{out}");

    let out = stdout(&run(home.path(), &["sessions", "show", "bag-7"], &env));
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.lines().nth(1).expect("line").contains("user: compare baggage"), "{out}");

    let o = run(home.path(), &["sessions", "search", "23 KG"], &env);
    assert!(stdout(&o).starts_with("bag-7#2\tsummary\t"), "{}", stdout(&o));
    assert!(!run(home.path(), &["sessions", "search", "nowhere"], &env).status.success());

    let o = run(home.path(), &["export", "bag-7", "--format", "md"], &env);
    assert!(o.status.success(), "{o:?}");
    let path = stdout(&o).trim().to_owned();
    assert!(path.ends_with("waymark-bag-7.md"), "{path}");
    assert!(std::fs::read_to_string(&path).expect("export").starts_with("# Baggage rules"));
    let o = run(home.path(), &["export", "bag-7", "--format", "json", "--stdout"], &env);
    let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(v["events"].as_array().expect("events").len(), 3);

    let o = run(home.path(), &["sessions", "show", "../config"], &env);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid session id"));

    // Retention: nothing is old enough yet.
    let o = run(home.path(), &["sessions", "prune"], &env);
    assert!(stdout(&o).contains("removed 0 session(s) older than 30 days"), "{}", stdout(&o));

    assert!(run(home.path(), &["sessions", "delete", "bag-7"], &env).status.success());
    assert!(!sessions.join("bag-7.jsonl").exists());
    assert!(!run(home.path(), &["sessions", "delete", "bag-7"], &env).status.success());
    assert!(stdout(&run(home.path(), &["sessions", "list"], &env)).starts_with("no sessions"));
}
