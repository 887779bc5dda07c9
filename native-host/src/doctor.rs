//! `doctor`: checks the whole set-up and prints one line per check, `ok: …` or
//! `FIX: … (what to run)`, so a user can repair Waymark without reading docs.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use waymark_core::protocol::{EXTENSION_ID, HOST_NAME};

use crate::config::{self, Config, Env};
use crate::install::{ALL_BROWSERS, Target, current_exe, origin_for};

/// One check's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// Passed?
    pub ok: bool,
    /// What was found, or what to do.
    pub text: String,
}

impl Check {
    fn ok(text: impl Into<String>) -> Self {
        Self { ok: true, text: text.into() }
    }
    fn fix(text: impl Into<String>) -> Self {
        Self { ok: false, text: text.into() }
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", if self.ok { "ok" } else { "FIX" }, self.text)
    }
}

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
    manifests(opts, exe.as_deref(), id, &mut out);
    if let Some(cfg) = config_checks(env, &mut out) {
        if !opts.offline {
            out.push(llm_reachable(&cfg).await);
        }
        out.push(export_dir(&cfg.export_dir));
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
        if !path.exists() {
            if opts.explicit {
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
        (Some(p), Some(exe)) if p != exe => Check::fix(format!(
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
            Some(cfg)
        }
        Err(e) => {
            out.push(Check::fix(format!("configuration: {e}")));
            None
        }
    }
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

/// `GET {base}/models`: any HTTP answer proves the endpoint is up; 401/403 means the key.
async fn llm_reachable(cfg: &Config) -> Check {
    let l = &cfg.llm;
    let mut builder = reqwest::Client::builder().timeout(Duration::from_secs(5));
    if crate::llm::is_loopback(&l.base_url) {
        builder = builder.no_proxy();
    }
    let client = match builder.build() {
        Ok(c) => c,
        Err(e) => return Check::fix(format!("cannot build an HTTP client: {e}")),
    };
    let mut req = client.get(format!("{}/models", l.base_url));
    if let Some(key) = &l.api_key {
        req = match l.provider {
            config::ProviderKind::Openai => req.bearer_auth(key),
            config::ProviderKind::Anthropic => req
                .header("x-api-key", key)
                .header("anthropic-version", crate::llm::anthropic::ANTHROPIC_VERSION),
        };
    }
    let resp = match req.send().await {
        Ok(r) => r,
        Err(e) => {
            return Check::fix(format!(
                "LLM endpoint {} is unreachable ({}); {}",
                l.base_url,
                crate::llm::transport_detail(&e),
                crate::llm::hint(&l.base_url)
            ));
        }
    };
    let status = resp.status().as_u16();
    if status == 401 || status == 403 {
        return Check::fix(format!(
            "LLM endpoint {} rejects the API key (HTTP {status}); set WAYMARK_LLM_API_KEY \
             (or OPENAI_API_KEY / ANTHROPIC_API_KEY) or `waymark-host config set llm.api_key -`",
            l.base_url
        ));
    }
    if status == 200
        && let Ok(v) = resp.json::<Value>().await
    {
        let ids: Vec<&str> = v
            .get("data")
            .or_else(|| v.get("models"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|m| m.get("id").and_then(Value::as_str)).collect())
            .unwrap_or_default();
        let latest = format!("{}:latest", l.model);
        if !ids.is_empty() && !ids.iter().any(|id| *id == l.model || *id == latest) {
            return Check::fix(format!(
                "LLM endpoint {} is reachable but does not list model {:?} (set WAYMARK_LLM_MODEL \
                 to one of {:?}{}, or pull it: `ollama pull {}`)",
                l.base_url,
                l.model,
                &ids[..ids.len().min(5)],
                if ids.len() > 5 { ", …" } else { "" },
                l.model
            ));
        }
    }
    Check::ok(format!("LLM endpoint {} is reachable (HTTP {status})", l.base_url))
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
        let path = crate::install::install(&t, &exe, None).expect("install");
        let checks = check_manifest(&path, Some(&exe), EXTENSION_ID, &t);
        assert!(checks.iter().all(|c| c.ok), "{checks:?}");

        let other = crate::install::install(&t, Path::new("/bin/sh"), None).expect("install");
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
    }
}
