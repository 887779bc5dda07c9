//! Where bridges register and how they are found: a private directory of sockets (one per
//! host process that Chrome started with external agents on), each beside a small file naming
//! its browser, and the per-install secret every client must present.
//!
//! The directory is a fixed place per user that needs no environment variable, so an MCP
//! client that starts `waymark-host mcp` with a minimal environment (the official SDKs pass
//! only `HOME`, `PATH`, `USER` and a few more) finds what the browser's host registered:
//! `<home>/.local/state/waymark/bridge` (`<home>/Library/Application Support/Waymark/bridge`
//! on macOS; `%LOCALAPPDATA%\Waymark\bridge` on Windows), the home being `$HOME` or, without
//! it, the user's entry in the password database. `$WAYMARK_RUNTIME_DIR` overrides it (tests).
//! On Unix it is created 0700 and refused unless it belongs to this user and no one else may
//! enter it. Sockets are 0600; on Windows each registration names its pipe, whose DACL lets
//! only this user in. The secret (0600) lives in the same directory, created on the first
//! `bridge.open`: whoever finds the sockets finds the secret, whatever its environment.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::config::Env;

/// Overrides the directory of bridge sockets (tests).
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
        "no directory for the bridge's sockets: this user has no home directory (neither \
         HOME nor the password database names one); set {ENV_RUNTIME_DIR}"
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
    /// No browser has registered in the directory (never, or it removed its registration
    /// when it closed).
    #[error(
        "no browser has registered for external agents at {}: open the browser with the \
         Waymark extension and switch on Settings → External agents in its side panel (if it \
         is on, the browser runs as another user or with another HOME; `waymark-host doctor` \
         checks the install)", .0.display()
    )]
    NotRegistered(PathBuf),
    /// A registration was found, but the browser's host that made it no longer runs.
    #[error(
        "found the registration of “{label}” at {}, but that browser is not running any more \
         (its Waymark host, process {pid}, ended): open the browser again; External agents \
         stays on", dir.display()
    )]
    BrowserGone {
        /// The directory.
        dir: PathBuf,
        /// The browser it named.
        label: String,
        /// The host process that ended.
        pid: u32,
    },
    /// The browser's host runs, and the user switched external agents off.
    #[error(
        "the browser “{0}” runs, but External agents is switched off in its Waymark side \
         panel: ask the user to switch on Settings → External agents"
    )]
    SwitchedOff(String),
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
    /// There is no secret yet: no browser ever opened the bridge in this directory.
    #[error(
        "the bridge secret {0} is missing: switch External agents off and on again in \
         Waymark's side panel (that creates it)"
    )]
    NoSecret(PathBuf),
    /// The browser's host rejected our secret.
    #[error(
        "the browser's Waymark host rejected this process's secret: the secret file changed \
         after the browser's host read it; switch External agents off and on again in \
         Waymark's side panel"
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

/// The socket directory (not created): `$WAYMARK_RUNTIME_DIR`, else the fixed per-user place
/// (see the module doc).
pub fn runtime_dir(env: &dyn Env) -> Result<PathBuf, BridgeError> {
    if let Some(dir) = env.var(ENV_RUNTIME_DIR).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    if cfg!(windows) {
        let local =
            env.var("LOCALAPPDATA").filter(|d| !d.is_empty()).map(PathBuf::from).or_else(|| {
                env.var("USERPROFILE").map(|p| PathBuf::from(p).join("AppData").join("Local"))
            });
        return local.map(|d| d.join("Waymark").join("bridge")).ok_or(BridgeError::NoRuntimeDir);
    }
    let home = home_dir(env).ok_or(BridgeError::NoRuntimeDir)?;
    Ok(if cfg!(target_os = "macos") {
        home.join("Library").join("Application Support").join("Waymark").join("bridge")
    } else {
        home.join(".local").join("state").join("waymark").join("bridge")
    })
}

/// The user's home: `$HOME` when it is an absolute path, else the password database's entry.
fn home_dir(env: &dyn Env) -> Option<PathBuf> {
    if let Some(home) = env.var("HOME").map(PathBuf::from).filter(|h| h.is_absolute()) {
        return Some(home);
    }
    #[cfg(unix)]
    {
        nix::unistd::User::from_uid(nix::unistd::getuid()).ok().flatten().map(|u| u.dir)
    }
    #[cfg(not(unix))]
    {
        None
    }
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

/// Reads the secret of bridge directory `dir` (the MCP side: it never creates one).
pub fn read_secret(dir: &Path) -> Result<Secret, BridgeError> {
    let path = dir.join(SECRET_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => Ok(Secret(text.trim().to_owned())),
        Ok(_) => Err(BridgeError::NoSecret(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(BridgeError::NoSecret(path)),
        Err(e) => Err(BridgeError::Io { what: format!("reading {}", path.display()), source: e }),
    }
}

/// Reads the secret of bridge directory `dir`, creating it (32 random bytes, file 0600) on
/// first use.
pub fn load_or_create_secret(dir: &Path) -> Result<Secret, BridgeError> {
    match read_secret(dir) {
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

/// Every registration in `dir` (empty when the directory does not exist), reachable or not.
pub fn list(dir: &Path) -> Vec<Registration> {
    read_all(dir, "json", |p| p.with_extension("sock"))
}

/// The marker a host leaves while the user has external agents switched off in its browser
/// (`<pid>.off`, naming the browser like a registration).
pub fn off_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("{pid}.off"))
}

/// Every switched-off marker in `dir`.
pub fn list_off(dir: &Path) -> Vec<Registration> {
    read_all(dir, "off", |_| PathBuf::new())
}

/// The files in `dir` ending in `.ext` that read as registrations, by pid; `socket` says
/// where each one's socket is.
fn read_all(dir: &Path, ext: &str, socket: impl Fn(&Path) -> PathBuf) -> Vec<Registration> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<Registration> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let mut reg: Registration = serde_json::from_str(&text).ok()?;
            reg.socket = socket(&p);
            Some(reg)
        })
        .collect();
    out.sort_by_key(|r| r.pid);
    out
}

/// Whether a registration can be opened now (a pipe is opened by name: checking it would take
/// one of its instances).
pub fn reachable(reg: &Registration) -> bool {
    if cfg!(windows) { reg.pipe.is_some() } else { reg.socket.exists() }
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
