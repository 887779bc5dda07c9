//! `install` / `uninstall`: the host binary in the user's directory and its manifest for each
//! Chromium-family browser.
//!
//! Per-browser, per-OS manifest paths and the Windows registry key templates come from the
//! `native_messaging` crate's browser table; the manifest is our template from `manifest/`
//! (the reviewed, documented shape), and on Windows the registry entries [`registry`] plans
//! are written with the crate's registry helpers. A dedicated profile (`--user-data-dir DIR`)
//! is not a location the crate knows: Chromium reads `DIR/NativeMessagingHosts/` for it.

pub mod found;
pub mod place;
pub mod registry;

use std::io::Write;
use std::path::{Path, PathBuf};

use native_messaging::Scope;
use waymark_protocol::{EXTENSION_ID, HOST_NAME};

/// The Chromium-family manifest template, with `{{HOST_NAME}}`, `{{HOST_PATH}}` and
/// `{{ALLOWED_ORIGINS}}` placeholders.
pub const CHROMIUM_TEMPLATE: &str = include_str!("../../../manifest/chromium-host.json");

/// Browser keys of the `native_messaging` crate that `--browser all` covers.
pub const ALL_BROWSERS: &[&str] = &["chromium", "chrome", "brave", "edge", "vivaldi"];

/// Where one manifest goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A browser's per-user location (key of the `native_messaging` crate).
    Browser(&'static str),
    /// A dedicated profile: `DIR/NativeMessagingHosts/`.
    UserDataDir(PathBuf),
}

impl Target {
    /// The manifest file path for this target.
    pub fn manifest_path(&self) -> Result<PathBuf, InstallError> {
        match self {
            Self::Browser(key) => native_messaging::manifest_path(key, Scope::User, HOST_NAME)
                .map_err(|source| InstallError::Locate { browser: key, source }),
            Self::UserDataDir(dir) => {
                Ok(dir.join("NativeMessagingHosts").join(format!("{HOST_NAME}.json")))
            }
        }
    }

    /// Short label for output lines.
    pub fn label(&self) -> String {
        match self {
            Self::Browser(key) => (*key).to_owned(),
            Self::UserDataDir(dir) => format!("profile {}", dir.display()),
        }
    }

    /// The browser's data directory (its profiles): where the manifest directory sits, or the
    /// dedicated profile itself. Unknown on Windows, whose manifests live elsewhere.
    pub fn user_data_dir(&self) -> Option<PathBuf> {
        match self {
            Self::Browser(_) if cfg!(windows) => None,
            Self::Browser(_) => {
                self.manifest_path().ok()?.parent().and_then(Path::parent).map(Path::to_path_buf)
            }
            Self::UserDataDir(dir) => Some(dir.clone()),
        }
    }

    /// Every copy of Waymark this browser has (see [`found`]).
    pub fn waymark_copies(&self) -> Vec<found::Found> {
        self.user_data_dir().map(|d| found::waymark_in(&d)).unwrap_or_default()
    }

    /// Whether the browser seems present (its config directory exists); profiles always are.
    pub fn seems_installed(&self) -> bool {
        match self {
            Self::Browser(_) => self
                .manifest_path()
                .ok()
                .and_then(|p| p.parent().and_then(Path::parent).map(Path::is_dir))
                .unwrap_or(false),
            Self::UserDataDir(_) => true,
        }
    }
}

/// Why install or uninstall failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The extension ID is not 32 letters a–p.
    #[error("invalid extension ID {0:?}: expected 32 letters a-p (see chrome://extensions)")]
    BadExtensionId(String),
    /// The crate does not know where this browser keeps manifests on this OS.
    #[error("cannot locate the manifest directory of {browser}: {source}")]
    Locate {
        /// Browser key.
        browser: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// Reading or writing a file or the registry failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What we were doing.
        action: &'static str,
        /// Which file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The path of this binary is unknown or not UTF-8.
    #[error("cannot determine this binary's path: {0}")]
    Exe(String),
    /// The template is not valid JSON after substitution (a build defect).
    #[error("manifest template is broken: {0}")]
    Template(String),
}

/// Checks that `id` looks like a Chrome extension ID.
pub fn validate_extension_id(id: &str) -> Result<(), InstallError> {
    if id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b)) {
        Ok(())
    } else {
        Err(InstallError::BadExtensionId(id.to_owned()))
    }
}

/// The `allowed_origins` entry for `id`, with the trailing `/` Chrome requires.
pub fn origin_for(id: &str) -> String {
    format!("chrome-extension://{id}/")
}

/// Absolute canonical path of the running binary, as browsers need it in the manifest.
pub fn current_exe() -> Result<PathBuf, InstallError> {
    let exe = std::env::current_exe().map_err(|e| InstallError::Exe(e.to_string()))?;
    exe.canonicalize().map_err(|e| InstallError::Exe(e.to_string()))
}

/// The extensions a manifest lets connect: Waymark's fixed ID first, then each extra one (the
/// store's, or the ID Chrome gave an unpacked copy of the store zip), without repeats.
pub fn allowed_ids(extra: &[String]) -> Result<Vec<String>, InstallError> {
    let mut ids = vec![EXTENSION_ID.to_owned()];
    for id in extra {
        validate_extension_id(id)?;
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    Ok(ids)
}

/// Fills the template; values are JSON-escaped, and the result is checked to parse.
pub fn render_manifest(exe: &Path, extension_ids: &[String]) -> Result<String, InstallError> {
    for id in extension_ids {
        validate_extension_id(id)?;
    }
    let path = exe.to_str().ok_or_else(|| InstallError::Exe("path is not valid UTF-8".into()))?;
    let esc = |s: &str| {
        let quoted = serde_json::Value::from(s).to_string();
        quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')).unwrap_or(&quoted).to_owned()
    };
    let origins: Vec<String> = extension_ids.iter().map(|id| origin_for(id)).collect();
    let origins =
        serde_json::to_string(&origins).map_err(|e| InstallError::Template(e.to_string()))?;
    let text = CHROMIUM_TEMPLATE
        .replace("{{HOST_NAME}}", &esc(HOST_NAME))
        .replace("{{HOST_PATH}}", &esc(path))
        .replace("{{ALLOWED_ORIGINS}}", &origins);
    serde_json::from_str::<serde_json::Value>(&text)
        .map_err(|e| InstallError::Template(e.to_string()))?;
    Ok(text)
}

/// Installs the manifest for `target`, pointing at `exe` and letting `extension_ids`
/// connect (see [`allowed_ids`]), plus its registry entry on Windows; returns the manifest
/// path.
pub fn install(
    target: &Target,
    exe: &Path,
    extension_ids: &[String],
) -> Result<PathBuf, InstallError> {
    let text = render_manifest(exe, extension_ids)?;
    let path = target.manifest_path()?;
    write_atomically(&path, text.as_bytes())?;
    if let Target::Browser(key) = target {
        for entry in registry::entries(key, &path)? {
            registry::write(&entry)?;
        }
    }
    Ok(path)
}

/// Removes the manifest (and registry key) for `target`; returns the path and whether a
/// file was there.
pub fn uninstall(target: &Target) -> Result<(PathBuf, bool), InstallError> {
    let path = target.manifest_path()?;
    let existed = path.exists();
    if existed {
        std::fs::remove_file(&path).map_err(|source| InstallError::Io {
            action: "cannot remove",
            path: path.clone(),
            source,
        })?;
    }
    if let Target::Browser(key) = target {
        for entry in registry::entries(key, &path)? {
            registry::remove(&entry)?;
        }
    }
    Ok((path, existed))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    let io = |action, source| InstallError::Io { action, path: path.to_path_buf(), source };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| io("cannot create the directory of", e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| io("cannot write", e))?;
    tmp.write_all(bytes).map_err(|e| io("cannot write", e))?;
    tmp.as_file().sync_all().map_err(|e| io("cannot write", e))?;
    // Browsers only need to read it; 0644 like the crate's own manifests.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644)) {
            tracing::warn!(error = %e, "the manifest keeps the temporary file's permissions");
        }
    }
    tmp.persist(path).map_err(|e| io("cannot write", e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_renders_valid_json_with_trailing_slash_origin() {
        let ids = allowed_ids(&["abcdefghijklmnopabcdefghijklmnop".to_owned()]).expect("ids");
        let text =
            render_manifest(Path::new("/opt/way \"mark\"/waymark-host"), &ids).expect("render");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(v["name"], HOST_NAME);
        assert_eq!(v["type"], "stdio");
        assert_eq!(v["path"], "/opt/way \"mark\"/waymark-host");
        let origin = v["allowed_origins"][0].as_str().expect("origin");
        assert_eq!(origin, format!("chrome-extension://{EXTENSION_ID}/"));
        assert!(origin.ends_with('/'));
        assert_eq!(v["allowed_origins"][1], "chrome-extension://abcdefghijklmnopabcdefghijklmnop/");
        assert!(!text.contains("{{"));
    }

    #[test]
    fn extra_ids_are_added_once_and_checked() {
        let extra = "abcdefghijklmnopabcdefghijklmnop".to_owned();
        let ids =
            allowed_ids(&[extra.clone(), extra.clone(), EXTENSION_ID.to_owned()]).expect("ok");
        assert_eq!(ids, [EXTENSION_ID.to_owned(), extra]);
        assert!(allowed_ids(&["nope".to_owned()]).is_err());
    }

    #[test]
    fn extension_ids_are_checked() {
        assert!(validate_extension_id(EXTENSION_ID).is_ok());
        for bad in
            ["", "abc", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""]
        {
            assert!(validate_extension_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn user_data_dir_install_and_uninstall() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = Target::UserDataDir(dir.path().to_path_buf());
        let exe = Path::new("/usr/bin/waymark-host");
        let path = install(&target, exe, &allowed_ids(&[]).expect("ids")).expect("install");
        assert_eq!(path, dir.path().join("NativeMessagingHosts/com.waymark.host.json"));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v["path"], "/usr/bin/waymark-host");
        assert_eq!(uninstall(&target).expect("uninstall"), (path.clone(), true));
        assert!(!path.exists());
        assert!(!uninstall(&target).expect("again").1);
    }
}
