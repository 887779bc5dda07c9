//! `install` / `uninstall`: the host manifest for each Chromium-family browser.
//!
//! Per-browser, per-OS manifest paths and the Windows registry keys come from the
//! `native_messaging` crate's installer. Its `install` writes a manifest of its own making,
//! so we call it (for the directory, validation and registry) and then replace the file with
//! our template from `manifest/`, which is the reviewed, documented shape. A dedicated profile
//! (`--user-data-dir DIR`) is not a location the crate knows: Chromium reads
//! `DIR/NativeMessagingHosts/` for it, and we write there ourselves.

use std::io::Write;
use std::path::{Path, PathBuf};

use native_messaging::Scope;
use waymark_protocol::{EXTENSION_ID, HOST_NAME};

/// The Chromium-family manifest template, with `{{HOST_NAME}}`, `{{HOST_PATH}}` and
/// `{{EXTENSION_ID}}` placeholders.
pub const CHROMIUM_TEMPLATE: &str = include_str!("../../manifest/chromium-host.json");

/// Shown in the native_messaging-written manifest for the instant before ours replaces it.
const DESCRIPTION: &str = "Waymark native host";

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

/// Fills the template; values are JSON-escaped, and the result is checked to parse.
pub fn render_manifest(exe: &Path, extension_id: &str) -> Result<String, InstallError> {
    validate_extension_id(extension_id)?;
    let path = exe.to_str().ok_or_else(|| InstallError::Exe("path is not valid UTF-8".into()))?;
    let esc = |s: &str| {
        let quoted = serde_json::Value::from(s).to_string();
        quoted[1..quoted.len() - 1].to_owned()
    };
    let text = CHROMIUM_TEMPLATE
        .replace("{{HOST_NAME}}", &esc(HOST_NAME))
        .replace("{{HOST_PATH}}", &esc(path))
        .replace("{{EXTENSION_ID}}", &esc(extension_id));
    serde_json::from_str::<serde_json::Value>(&text)
        .map_err(|e| InstallError::Template(e.to_string()))?;
    Ok(text)
}

/// Installs the manifest for `target`, pointing at `exe`; returns the manifest path.
pub fn install(
    target: &Target,
    exe: &Path,
    extension_id: Option<&str>,
) -> Result<PathBuf, InstallError> {
    let id = extension_id.unwrap_or(EXTENSION_ID);
    let text = render_manifest(exe, id)?;
    let path = target.manifest_path()?;
    if let Target::Browser(key) = target {
        // Directory, validation and (on Windows) the registry key come from the crate.
        native_messaging::install(
            HOST_NAME,
            DESCRIPTION,
            exe,
            &[origin_for(id)],
            &[],
            &[key],
            Scope::User,
        )
        .map_err(|source| InstallError::Io {
            action: "cannot install manifest at",
            path: path.clone(),
            source,
        })?;
    }
    write_atomically(&path, text.as_bytes())?;
    Ok(path)
}

/// Removes the manifest (and registry key) for `target`; returns the path and whether a
/// file was there.
pub fn uninstall(target: &Target) -> Result<(PathBuf, bool), InstallError> {
    let path = target.manifest_path()?;
    let existed = path.exists();
    match target {
        Target::Browser(key) => {
            native_messaging::remove(HOST_NAME, &[key], Scope::User).map_err(|source| {
                InstallError::Io { action: "cannot remove", path: path.clone(), source }
            })?
        }
        Target::UserDataDir(_) if existed => std::fs::remove_file(&path).map_err(|source| {
            InstallError::Io { action: "cannot remove", path: path.clone(), source }
        })?,
        Target::UserDataDir(_) => {}
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
        let text = render_manifest(Path::new("/opt/way \"mark\"/waymark-host"), EXTENSION_ID)
            .expect("render");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(v["name"], HOST_NAME);
        assert_eq!(v["type"], "stdio");
        assert_eq!(v["path"], "/opt/way \"mark\"/waymark-host");
        let origin = v["allowed_origins"][0].as_str().expect("origin");
        assert_eq!(origin, format!("chrome-extension://{EXTENSION_ID}/"));
        assert!(origin.ends_with('/'));
        assert!(!text.contains("{{"));
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
        let path = install(&target, exe, None).expect("install");
        assert_eq!(path, dir.path().join("NativeMessagingHosts/com.waymark.host.json"));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v["path"], "/usr/bin/waymark-host");
        assert_eq!(uninstall(&target).expect("uninstall"), (path.clone(), true));
        assert!(!path.exists());
        assert!(!uninstall(&target).expect("again").1);
    }
}
