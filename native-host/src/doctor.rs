//! `doctor`: checks the whole set-up and prints one line per check, `ok: …` or
//! `FIX: … (what to run)`, so a user can repair Waymark without reading docs.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use waymark_protocol::{
    ChatMessage, ChatRole, EXTENSION_ID, EndpointField, ErrorCode, HOST_NAME, LlmRequest, LlmRole,
    SettingKey,
};

use crate::config::{self, Config, Env, LlmConfig};
use crate::llm::{EventSink, Gateway};

/// Failure bound of the doctor's one-token calls.
const DOCTOR_TIMEOUT: Duration = Duration::from_secs(15);
use crate::install::{ALL_BROWSERS, Target, current_exe, origin_for};

/// One check's outcome: the protocol's type, so the side panel shows exactly these lines.
pub use waymark_protocol::DoctorCheck as Check;

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct DoctorOptions {
    /// Manifest locations; empty means every supported browser (only those present count).
    pub targets: Vec<Target>,
    /// Whether `targets` was chosen by the user (then a missing manifest is a FIX).
    pub explicit: bool,
    /// Extension ID expected in `allowed_origins`.
    pub extension_id: Option<String>,
    /// Skip the network check (tests without a server).
    pub offline: bool,
    /// Run from inside the browser (the side panel's "Check setup"): the browser started this
    /// process through its manifest, so the manifest checks are replaced by that fact.
    pub from_browser: bool,
}

/// Runs every check.
pub async fn run(opts: &DoctorOptions, env: &dyn Env) -> Vec<Check> {
    let mut out = Vec::new();
    let exe = match current_exe() {
        Ok(p) => {
            out.push(Check::ok(format!("waymark-host {} at {}", crate::HOST_VERSION, p.display())));
            Some(p)
        }
        Err(e) => {
            out.push(Check::fix(format!("{e} (reinstall waymark-host)")));
            None
        }
    };
    let id = opts.extension_id.as_deref().unwrap_or(EXTENSION_ID);
    if opts.from_browser {
        out.push(Check::ok(
            "the browser started this host, so its native-messaging manifest works",
        ));
    } else {
        manifests(opts, exe.as_deref(), id, &mut out);
    }
    if let Some(cfg) = config_checks(env, &mut out) {
        if !opts.offline {
            out.extend(providers_reachable(&cfg).await);
        }
        out.push(export_dir(&cfg.export_dir));
        out.extend(data_checks(&cfg));
    }
    if !opts.offline {
        out.extend(crate::doctor_bridge::checks(&crate::config::ProcessEnv).await);
    }
    out
}

fn manifests(opts: &DoctorOptions, exe: Option<&Path>, id: &str, out: &mut Vec<Check>) {
    let targets: Vec<Target> = if opts.targets.is_empty() {
        ALL_BROWSERS.iter().map(|k| Target::Browser(k)).collect()
    } else {
        opts.targets.clone()
    };
    let mut found = 0;
    for t in &targets {
        let path = match t.manifest_path() {
            Ok(p) => p,
            Err(e) => {
                if opts.explicit {
                    out.push(Check::fix(e.to_string()));
                }
                continue;
            }
        };
        let copies = t.waymark_copies();
        if !path.exists() {
            // A browser with Waymark in it and no manifest: the panel says "not installed".
            for copy in &copies {
                out.push(Check::fix(format!(
                    "Waymark {} in {} cannot reach the host: no host manifest for {} at {} (run \
                     `waymark-host install {}`)",
                    copy.id,
                    copy.profile.display(),
                    t.label(),
                    path.display(),
                    install_flags(t)
                )));
            }
            if opts.explicit && copies.is_empty() {
                out.push(Check::fix(format!(
                    "no host manifest for {} at {} (run `waymark-host install {}`)",
                    t.label(),
                    path.display(),
                    install_flags(t)
                )));
            }
            continue;
        }
        found += 1;
        out.push(Check::ok(format!("manifest for {} found at {}", t.label(), path.display())));
        out.extend(check_manifest(&path, exe, id, t));
        // Each copy of Waymark the browser has must be let in, or its panel says the host is
        // not installed while the manifest is there.
        for copy in copies.iter().filter(|c| c.id != id) {
            let lets_in = check_manifest(&path, exe, &copy.id, t).pop();
            if let Some(check) = lets_in {
                out.push(Check {
                    text: format!(
                        "Waymark {} in {}: {}",
                        copy.id,
                        copy.profile.display(),
                        check.text
                    ),
                    ..check
                });
            }
        }
    }
    if found == 0 && !opts.explicit {
        out.push(Check::fix(
            "no host manifest found for any browser (run `waymark-host install --browser chrome`, \
             or --browser chromium|brave|edge|vivaldi|all)",
        ));
    }
}

fn install_flags(t: &Target) -> String {
    match t {
        Target::Browser(k) => format!("--browser {k}"),
        Target::UserDataDir(d) => format!("--user-data-dir {}", d.display()),
    }
}

/// Checks one manifest file's contents against this binary and the extension ID.
pub fn check_manifest(path: &Path, exe: Option<&Path>, id: &str, t: &Target) -> Vec<Check> {
    let reinstall = format!("run `waymark-host install {}`", install_flags(t));
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            return vec![Check::fix(format!("cannot read {}: {e} ({reinstall})", path.display()))];
        }
    };
    let v: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            return vec![Check::fix(format!("manifest is not valid JSON: {e} ({reinstall})"))];
        }
    };
    let mut out = Vec::new();
    let name = v.get("name").and_then(Value::as_str).unwrap_or("");
    out.push(if name == HOST_NAME && v.get("type").and_then(Value::as_str) == Some("stdio") {
        Check::ok(format!("manifest name is {HOST_NAME}, type stdio"))
    } else {
        Check::fix(format!("manifest name {name:?} or type is wrong ({reinstall})"))
    });

    let host_path = Path::new(v.get("path").and_then(Value::as_str).unwrap_or(""));
    let canonical = host_path.canonicalize().ok();
    out.push(match (canonical, exe) {
        (None, _) => Check::fix(format!(
            "manifest path {} does not exist ({reinstall})",
            host_path.display()
        )),
        (Some(p), Some(exe)) if p != exe && !is_installed_copy(&p) => Check::fix(format!(
            "manifest points at {}, not this binary {} ({reinstall} from the binary you want)",
            p.display(),
            exe.display()
        )),
        (Some(p), _) if !is_executable(&p) => Check::fix(format!(
            "{} is not executable (run `chmod +x {}`)",
            p.display(),
            p.display()
        )),
        (Some(p), _) => Check::ok(format!("manifest path {} is this executable", p.display())),
    });

    let origins: Vec<&str> = v
        .get("allowed_origins")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let want = origin_for(id);
    out.push(if origins.contains(&want.as_str()) {
        Check::ok(format!("allowed origin {want} present"))
    } else {
        Check::fix(format!(
            "allowed_origins {origins:?} lacks {want} (trailing / included) ({reinstall} --extension-id {id})"
        ))
    });
    out
}

/// Whether `p` is the copy `install` put in the user's directory (a doctor run from the
/// downloaded binary then finds the manifest pointing there, which is right).
fn is_installed_copy(p: &Path) -> bool {
    crate::install::place::bin_dir()
        .ok()
        .and_then(|d| d.join(crate::install::place::BIN_NAME).canonicalize().ok())
        .is_some_and(|copy| copy == p)
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

fn config_checks(env: &dyn Env, out: &mut Vec<Check>) -> Option<Config> {
    let path = match config::config_dir(env) {
        Ok(d) => d.join(config::CONFIG_FILE_NAME),
        Err(e) => {
            out.push(Check::fix(e.to_string()));
            return None;
        }
    };
    match config::load_file(&path) {
        Ok(None) => out.push(Check::ok(format!(
            "no config file at {} (defaults and environment apply)",
            path.display()
        ))),
        Ok(Some(_)) => {
            out.push(Check::ok(format!("config file {} parses", path.display())));
            out.push(mode_check(&path));
        }
        Err(e) => {
            out.push(Check::fix(format!("{e} (edit it, or delete it to use defaults)")));
            return None;
        }
    }
    match Config::load_with(env) {
        Ok(cfg) => {
            let l = &cfg.llm;
            out.push(Check::ok(format!(
                "LLM: {} endpoint {} model {} ({})",
                l.provider.as_str(),
                l.base_url,
                l.model,
                if l.api_key.is_some() { "API key set" } else { "no API key" }
            )));
            out.extend(token_limits(&cfg));
            Some(cfg)
        }
        Err(e) => {
            out.push(Check::fix(format!("configuration: {e}")));
            None
        }
    }
}

/// The output-token limit of every role, when the user set any (otherwise each role's
/// default applies and there is nothing to report).
fn token_limits(cfg: &Config) -> Option<Check> {
    let limits: Vec<String> = LlmRole::ALL
        .into_iter()
        .map(|role| match cfg.for_role(role).max_tokens {
            Some(n) => format!("{role} {n}"),
            None => format!("{role} {} (default)", role.max_output_tokens()),
        })
        .collect();
    let any = LlmRole::ALL.into_iter().any(|r| cfg.for_role(r).max_tokens.is_some());
    any.then(|| Check::ok(format!("LLM reply limits (max_tokens): {}", limits.join(", "))))
}

#[cfg(unix)]
fn mode_check(path: &Path) -> Check {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().mode() & 0o077 == 0 => Check::ok("config file mode is 0600"),
        Ok(m) => Check::fix(format!(
            "config file mode is {:o}; it may hold an API key (run `chmod 600 {}`)",
            m.permissions().mode() & 0o777,
            path.display()
        )),
        Err(e) => Check::fix(format!("cannot stat {}: {e}", path.display())),
    }
}

#[cfg(not(unix))]
fn mode_check(_path: &Path) -> Check {
    Check::ok("config file is in the user's profile")
}

/// One one-token completion per distinct endpoint (the default and every role that differs):
/// proves in one go that the endpoint is up, accepts the key and serves the model.
async fn providers_reachable(cfg: &Config) -> Vec<Check> {
    let mut seen: Vec<&LlmConfig> = Vec::new();
    let mut out = Vec::new();
    let all = std::iter::once((None, &cfg.llm)).chain(cfg.roles.iter().map(|(r, l)| (Some(*r), l)));
    for (role, l) in all {
        // A role differing only in its reply limit is the same endpoint: one call proves both.
        let same = |s: &&LlmConfig| LlmConfig { max_tokens: s.max_tokens, ..l.clone() } == **s;
        if seen.iter().any(same) {
            continue;
        }
        seen.push(l);
        out.push(one_token_call(role, l).await);
    }
    out
}

/// Ignores progress: the doctor only wants the outcome.
struct NoSink;

impl EventSink for NoSink {
    fn delta(&self, _text: &str) {}
    fn retry(&self, _attempt: u32, _delay: Duration, _code: ErrorCode, _reason: &str) {}
}

/// Calls `l`, the endpoint of `role` (`None`: the default one).
async fn one_token_call(role: Option<LlmRole>, l: &LlmConfig) -> Check {
    let label = role.map_or("default", LlmRole::as_str);
    let setting = |field| SettingKey::Endpoint(role, field);
    let mut quick = l.clone();
    quick.max_retries = 0;
    // A probe of one token, whatever limit the user set for real calls.
    quick.max_tokens = None;
    quick.request_timeout = DOCTOR_TIMEOUT;
    quick.idle_timeout = DOCTOR_TIMEOUT;
    let gateway = match Gateway::new(quick) {
        Ok(g) => g,
        Err(e) => return Check::fix(format!("LLM {label}: {e}")),
    };
    let req = LlmRequest {
        role: role.unwrap_or(LlmRole::Navigator),
        messages: vec![ChatMessage::text(ChatRole::User, "Reply with the single word OK.")],
        tools: Vec::new(),
        stream: false,
        max_tokens: Some(1),
    };
    match gateway.complete(&req, &NoSink).await {
        Ok(_) => Check::ok(format!(
            "LLM endpoint {} is reachable ({label}: {} model {} answered a one-token call)",
            l.base_url,
            l.provider.as_str(),
            l.model
        )),
        Err(e) => {
            let what = match e.code() {
                ErrorCode::LlmAuth => format!(
                    "set the key: `waymark-host config set {} -` or WAYMARK_LLM_API_KEY",
                    setting(EndpointField::ApiKey)
                ),
                ErrorCode::LlmModelNotFound => format!(
                    "set a model it serves: `waymark-host config set {} NAME`",
                    setting(EndpointField::Model)
                ),
                ErrorCode::LlmUnreachable => {
                    return Check::fix(format!(
                        "LLM {label}: endpoint {} is unreachable: {}",
                        l.base_url,
                        e.body().with_advice()
                    ));
                }
                _ => "check the endpoint, then run `waymark-host doctor` again".to_owned(),
            };
            Check::fix(format!("LLM {label} ({}): {e} ({what})", l.base_url))
        }
    }
}

/// Transcript directory writable when capture is on; upload directories present.
fn data_checks(cfg: &Config) -> Vec<Check> {
    let mut out = Vec::new();
    let t = &cfg.transcripts;
    if t.enabled {
        let probe = std::fs::create_dir_all(&t.dir).and_then(|()| tempfile::tempfile_in(&t.dir));
        out.push(match probe {
            Ok(_) => Check::ok(format!(
                "transcripts on, written to {} (kept {} days)",
                t.dir.display(),
                t.retention_days
            )),
            Err(e) => Check::fix(format!(
                "transcript directory {} is not writable ({e}); set WAYMARK_DATA_DIR or data_dir",
                t.dir.display()
            )),
        });
    } else {
        out.push(Check::ok("transcripts off (`waymark-host config set transcripts.enabled true`)"));
    }
    for dir in &cfg.files.allowed_dirs {
        out.push(if dir.is_dir() {
            Check::ok(format!("upload directory {} exists", dir.display()))
        } else {
            Check::fix(format!(
                "upload directory {} does not exist (create it or fix files.allowed_dirs)",
                dir.display()
            ))
        });
    }
    out
}

fn export_dir(dir: &Path) -> Check {
    let probe = std::fs::create_dir_all(dir).and_then(|()| tempfile::tempfile_in(dir));
    match probe {
        Ok(_) => Check::ok(format!("export directory {} is writable", dir.display())),
        Err(e) => Check::fix(format!(
            "export directory {} is not writable ({e}); set WAYMARK_EXPORT_DIR or export_dir in config.toml",
            dir.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn manifest_checks_catch_wrong_path_and_origin() {
        let dir = tempfile::tempdir().expect("tempdir");
        let t = Target::UserDataDir(dir.path().to_path_buf());
        let exe = current_exe().expect("exe");
        let path = crate::install::install(&t, &exe, &[EXTENSION_ID.to_owned()]).expect("install");
        let checks = check_manifest(&path, Some(&exe), EXTENSION_ID, &t);
        assert!(checks.iter().all(|c| c.ok), "{checks:?}");

        let other = crate::install::install(&t, Path::new("/bin/sh"), &[EXTENSION_ID.to_owned()])
            .expect("install");
        let checks = check_manifest(&other, Some(&exe), "abcdefghijklmnopabcdefghijklmnop", &t);
        let fixes: Vec<String> = checks.iter().filter(|c| !c.ok).map(ToString::to_string).collect();
        assert_eq!(fixes.len(), 2, "{fixes:?}");
        assert!(fixes[0].contains("not this binary") && fixes[0].contains("waymark-host install"));
        assert!(fixes[1].contains("chrome-extension://abcdefghijklmnopabcdefghijklmnop/"));

        std::fs::write(&path, "{broken").expect("write");
        assert!(!check_manifest(&path, Some(&exe), EXTENSION_ID, &t)[0].ok);
    }

    #[tokio::test]
    async fn config_and_export_checks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cfg_dir = dir.path().join("cfg");
        let exp = dir.path().join("exp");
        let (c, e) = (cfg_dir.to_string_lossy().into_owned(), exp.to_string_lossy().into_owned());
        let env: HashMap<&str, &str> =
            [(config::ENV_CONFIG_DIR, c.as_str()), (config::ENV_EXPORT_DIR, e.as_str())].into();
        let opts = DoctorOptions {
            targets: vec![Target::UserDataDir(dir.path().join("profile"))],
            explicit: true,
            extension_id: None,
            offline: true,
            from_browser: false,
        };
        let checks = run(&opts, &env).await;
        let lines: Vec<String> = checks.iter().map(ToString::to_string).collect();
        assert!(lines.iter().any(|l| l.starts_with("FIX: no host manifest")), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("ok: no config file")), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("ok: export directory")), "{lines:?}");

        std::fs::create_dir_all(&cfg_dir).expect("mkdir");
        let file = cfg_dir.join(config::CONFIG_FILE_NAME);
        std::fs::write(&file, "[llm]\nmodel = \"m\"\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
            let lines: Vec<String> =
                run(&opts, &env).await.iter().map(ToString::to_string).collect();
            assert!(lines.iter().any(|l| l.contains("chmod 600")), "{lines:?}");
        }
        let limits = |lines: &[String]| lines.iter().find(|l| l.contains("max_tokens")).cloned();
        assert_eq!(limits(&lines), None, "no limit set: nothing to report");
        let text = "[llm]\nmodel = \"m\"\n\n[roles.validator]\nmax_tokens = 300\n";
        std::fs::write(&file, text).expect("write");
        let lines: Vec<String> = run(&opts, &env).await.iter().map(ToString::to_string).collect();
        assert_eq!(
            limits(&lines).as_deref(),
            Some(
                "ok: LLM reply limits (max_tokens): planner 1024 (default), navigator 2048 \
                 (default), validator 300, summariser 600 (default)"
            ),
            "{lines:?}"
        );
        std::fs::write(&file, "[roles.validator]\nmax_tokens = 3\n").expect("write");
        let lines: Vec<String> = run(&opts, &env).await.iter().map(ToString::to_string).collect();
        let bad = lines.iter().find(|l| l.starts_with("FIX: config file"));
        let bad = bad.unwrap_or_else(|| panic!("a bad limit fails the load: {lines:?}"));
        assert!(bad.contains("3 is not between 16 and 32768 tokens"), "{bad}");
    }
}
