//! Where bridges register and how they are found: a private directory of sockets (one per
//! host process that Chrome started with external agents on), each beside a small file naming
//! its browser, and the per-install secret every client must present.
//!
//! The directory is `$WAYMARK_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/waymark`, else
//! `<temp dir>/waymark-<uid>` (on Windows `%LOCALAPPDATA%\Waymark\bridge`, inside the user's
//! own profile); on Unix it is created 0700 and refused unless it belongs to this user and no
//! one else may enter it. Sockets are 0600; on Windows each registration names its pipe, whose
//! DACL lets only this user in. The secret lives in the config directory (0600), created on
//! the first `bridge.open`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::config::{Env, config_dir};

/// Overrides the directory of bridge sockets (tests; a system without `$XDG_RUNTIME_DIR`).
pub const ENV_RUNTIME_DIR: &str = "WAYMARK_RUNTIME_DIR";

/// The secret's file name in the config directory.
pub const SECRET_FILE: &str = "bridge.secret";

/// What one registered bridge says about itself (`<pid>-<n>.json` beside `<pid>-<n>.sock`,
/// or naming its pipe on Windows).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registration {
    /// The host process that serves it.
    pub pid: u32,
    /// How people tell browsers apart: the extension's label, else browser and profile.
    pub label: String,
    /// The named pipe that serves it (Windows; Unix uses the socket beside the description).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipe: Option<String>,
    /// The socket, filled in when listed.
    #[serde(skip)]
    pub socket: PathBuf,
}

/// A broken link between an external agent and the browser, each with its fix.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// No directory for sockets could be found.
    #[error(
        "no directory for the bridge's sockets: neither {ENV_RUNTIME_DIR} nor XDG_RUNTIME_DIR \
         is set and the temporary directory is unusable"
    )]
    NoRuntimeDir,
    /// The socket directory could be entered by someone else, or is not ours.
    #[error("the bridge directory {dir} is unsafe ({why}); remove it and try again")]
    UnsafeDir {
        /// The directory.
        dir: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// No browser has registered: Waymark is not running, or external agents are off.
    #[error(
        "no browser with Waymark is reachable: open the browser with the Waymark extension and \
         switch on Settings → External agents in its side panel (the extension must be \
         installed and its host registered: run `waymark-host doctor`)"
    )]
    NotRegistered,
    /// Several browsers are registered and none was named.
    #[error(
        "several browsers with Waymark are reachable ({0}); name one with `waymark-host mcp \
         --browser NAME`"
    )]
    Several(String),
    /// The named browser is not among those registered.
    #[error("no reachable browser matches “{wanted}” (reachable: {found})")]
    NoMatch {
        /// What the user named.
        wanted: String,
        /// What is registered.
        found: String,
    },
    /// There is no secret yet: no browser ever opened the bridge on this install.
    #[error(
        "the bridge secret {0} is missing: switch on Settings → External agents in Waymark's \
         side panel (that creates it)"
    )]
    NoSecret(PathBuf),
    /// The browser's host rejected our secret.
    #[error(
        "the browser's Waymark host rejected this process's secret: `waymark-host mcp` and the \
         browser's host use different config directories (WAYMARK_CONFIG_DIR) or installs"
    )]
    SecretMismatch,
    /// The browser's host rejected us for another reason.
    #[error("the browser's Waymark host refused the connection: {0}")]
    Refused(String),
    /// The browser went away (closed, its extension restarted or switched external agents off).
    #[error("{0}")]
    Closed(String),
    /// The browser's host ended the connection (the user disconnected the agent or switched
    /// external agents off).
    #[error("{}", .0.explain())]
    Ended(super::wire::CloseReason),
    /// Reading or writing failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The other side sent something unreadable.
    #[error("the bridge sent something unreadable: {0}")]
    Protocol(String),
}

impl BridgeError {
    fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let what = what.into();
        move |source| Self::Io { what, source }
    }
}

/// The socket directory (not created).
pub fn runtime_dir(env: &dyn Env) -> Result<PathBuf, BridgeError> {
    if let Some(dir) = env.var(ENV_RUNTIME_DIR) {
        return Ok(PathBuf::from(dir));
    }
    if cfg!(windows)
        && let Some(dir) = env.var("LOCALAPPDATA")
    {
        return Ok(PathBuf::from(dir).join("Waymark").join("bridge"));
    }
    if let Some(dir) = env.var("XDG_RUNTIME_DIR") {
        return Ok(PathBuf::from(dir).join("waymark"));
    }
    let tmp = std::env::temp_dir();
    if tmp.as_os_str().is_empty() {
        return Err(BridgeError::NoRuntimeDir);
    }
    Ok(tmp.join(format!("waymark-{}", uid())))
}

/// This process's user id (0 where there are none).
pub fn uid() -> u32 {
    #[cfg(unix)]
    {
        nix::unistd::getuid().as_raw()
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// Creates `dir` (0700) if needed and checks that it is ours and closed to others.
pub fn private_dir(dir: &Path) -> Result<(), BridgeError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
        if !dir.exists() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(BridgeError::io(format!("creating {}", dir.display())))?;
        }
        let meta = std::fs::symlink_metadata(dir)
            .map_err(BridgeError::io(format!("reading {}", dir.display())))?;
        let unsafe_dir = |why: String| BridgeError::UnsafeDir { dir: dir.to_path_buf(), why };
        if !meta.is_dir() {
            return Err(unsafe_dir("not a directory".into()));
        }
        if meta.uid() != uid() {
            return Err(unsafe_dir(format!("owned by user {}, not {}", meta.uid(), uid())));
        }
        if meta.permissions().mode() & 0o077 != 0 {
            return Err(unsafe_dir(format!(
                "mode {:o}: others may enter it; it must be 0700",
                meta.permissions().mode() & 0o777
            )));
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        // Windows: the directory sits in the user's profile, whose ACL is the user's; the
        // pipes it names carry their own DACL. A link here could point anywhere: refused.
        std::fs::create_dir_all(dir)
            .map_err(BridgeError::io(format!("creating {}", dir.display())))?;
        let meta = std::fs::symlink_metadata(dir)
            .map_err(BridgeError::io(format!("reading {}", dir.display())))?;
        if !meta.is_dir() {
            return Err(BridgeError::UnsafeDir {
                dir: dir.to_path_buf(),
                why: "not a directory (a link?)".into(),
            });
        }
        Ok(())
    }
}

/// The per-install secret, as hex.
#[derive(Clone)]
pub struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Secret {
    /// Wraps what a client sent.
    pub fn from_sent(text: String) -> Self {
        Self(text)
    }

    /// The text to send.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Compares in constant time (a client learns nothing from how long a refusal takes).
    pub fn matches(&self, other: &Secret) -> bool {
        bool::from(self.0.as_bytes().ct_eq(other.0.as_bytes()))
    }
}

fn secret_path(env: &dyn Env) -> Result<PathBuf, BridgeError> {
    config_dir(env).map(|d| d.join(SECRET_FILE)).map_err(|e| BridgeError::Io {
        what: "finding the config directory".into(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// Reads the secret (the MCP side: it never creates one).
pub fn read_secret(env: &dyn Env) -> Result<Secret, BridgeError> {
    let path = secret_path(env)?;
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => Ok(Secret(text.trim().to_owned())),
        Ok(_) => Err(BridgeError::NoSecret(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(BridgeError::NoSecret(path)),
        Err(e) => Err(BridgeError::Io { what: format!("reading {}", path.display()), source: e }),
    }
}

/// Reads the secret, creating it (32 random bytes, file 0600) on first use.
pub fn load_or_create_secret(env: &dyn Env) -> Result<Secret, BridgeError> {
    match read_secret(env) {
        Err(BridgeError::NoSecret(path)) => create_secret(&path),
        other => other,
    }
}

fn create_secret(path: &Path) -> Result<Secret, BridgeError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| BridgeError::Io {
        what: "drawing the bridge secret".into(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(BridgeError::io(format!("creating {}", dir.display())))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(hex.as_bytes())
                .map_err(BridgeError::io(format!("writing {}", path.display())))?;
            Ok(Secret(hex))
        }
        // Another host process created it first: theirs counts.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => std::fs::read_to_string(path)
            .map(|t| Secret(t.trim().to_owned()))
            .map_err(BridgeError::io(format!("reading {}", path.display()))),
        Err(e) => Err(BridgeError::Io { what: format!("creating {}", path.display()), source: e }),
    }
}

/// The socket and description paths of host process `pid`'s `seq`-th bridge: one pair per
/// opening, so a bridge that closes late never removes the files of the one that replaced it.
pub fn paths_for(dir: &Path, pid: u32, seq: u64) -> (PathBuf, PathBuf) {
    (dir.join(format!("{pid}-{seq}.sock")), dir.join(format!("{pid}-{seq}.json")))
}

/// Every registration in `dir` (empty when the directory does not exist).
pub fn list(dir: &Path) -> Vec<Registration> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<Registration> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let mut reg: Registration = serde_json::from_str(&text).ok()?;
            reg.socket = p.with_extension("sock");
            // A pipe is opened by name (checking it would take one of its instances).
            let reachable = if cfg!(windows) { reg.pipe.is_some() } else { reg.socket.exists() };
            reachable.then_some(reg)
        })
        .collect();
    out.sort_by_key(|r| r.pid);
    out
}

/// Picks the registration the user named (a case-insensitive part of its label or its pid),
/// or the only one.
pub fn pick(found: Vec<Registration>, wanted: Option<&str>) -> Result<Registration, BridgeError> {
    let names = || found.iter().map(|r| format!("“{}”", r.label)).collect::<Vec<_>>().join(", ");
    match wanted.map(str::trim).filter(|w| !w.is_empty()) {
        Some(w) => {
            let lower = w.to_lowercase();
            let mut hits: Vec<&Registration> = found
                .iter()
                .filter(|r| r.label.to_lowercase().contains(&lower) || r.pid.to_string() == w)
                .collect();
            match hits.len() {
                1 => Ok(hits.remove(0).clone()),
                0 if found.is_empty() => Err(BridgeError::NotRegistered),
                _ => Err(BridgeError::NoMatch { wanted: w.to_owned(), found: names() }),
            }
        }
        None => match found.len() {
            0 => Err(BridgeError::NotRegistered),
            1 => Ok(found.into_iter().next().ok_or(BridgeError::NotRegistered)?),
            _ => Err(BridgeError::Several(names())),
        },
    }
}

/// The label of this host's browser when the extension gave none: the browser's program name
/// and, when it runs on another profile directory than its default, that directory.
pub fn default_label() -> String {
    #[cfg(target_os = "linux")]
    {
        let parent = std::os::unix::process::parent_id();
        let exe = std::fs::read_link(format!("/proc/{parent}/exe"))
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "browser".into());
        let profile = std::fs::read(format!("/proc/{parent}/cmdline")).ok().and_then(|raw| {
            raw.split(|b| *b == 0)
                .filter_map(|a| std::str::from_utf8(a).ok())
                .find_map(|a| a.strip_prefix("--user-data-dir=").map(str::to_owned))
        });
        match profile {
            Some(p) => format!("{exe} ({p})"),
            None => exe,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        "browser".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(pid: u32, label: &str) -> Registration {
        Registration { pid, label: label.into(), pipe: None, socket: PathBuf::new() }
    }

    #[test]
    fn picks_the_only_one_or_the_named_one() {
        assert!(matches!(pick(vec![], None), Err(BridgeError::NotRegistered)));
        assert_eq!(pick(vec![reg(1, "chromium")], None).expect("only").pid, 1);
        let two = vec![reg(1, "chromium (work)"), reg(2, "chrome")];
        assert!(matches!(pick(two.clone(), None), Err(BridgeError::Several(_))));
        assert_eq!(pick(two.clone(), Some("WORK")).expect("named").pid, 1);
        assert_eq!(pick(two.clone(), Some("2")).expect("by pid").pid, 2);
        assert!(matches!(pick(two, Some("edge")), Err(BridgeError::NoMatch { .. })));
    }

    #[test]
    fn secrets_compare_whole() {
        let a = Secret("abcd".into());
        assert!(a.matches(&Secret("abcd".into())));
        assert!(!a.matches(&Secret("abce".into())));
        assert!(!a.matches(&Secret("abc".into())));
        assert!(!format!("{a:?}").contains("abcd"), "never printed");
    }

    #[cfg(unix)]
    #[test]
    fn the_directory_must_be_private_and_the_secret_0600() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("rt");
        private_dir(&dir).expect("created");
        let mode = std::fs::metadata(&dir).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(matches!(private_dir(&dir), Err(BridgeError::UnsafeDir { .. })));
        let secret = create_secret(&tmp.path().join("cfg").join(SECRET_FILE)).expect("secret");
        assert_eq!(secret.expose().len(), 64);
        let mode = std::fs::metadata(tmp.path().join("cfg").join(SECRET_FILE))
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
}
