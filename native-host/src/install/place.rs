//! Puts the host binary in the user's own directory, so the release a user downloaded can be
//! deleted from Downloads and the manifests keep pointing at a stable path:
//! `~/.local/share/waymark/bin` (Linux), `~/Library/Application Support/waymark/bin` (macOS),
//! `%LOCALAPPDATA%\waymark\data\bin` (Windows).

use std::path::{Path, PathBuf};

use super::InstallError;

/// File name of the installed binary.
pub const BIN_NAME: &str = if cfg!(windows) { "waymark-host.exe" } else { "waymark-host" };

/// The per-user directory the host is copied into.
pub fn bin_dir() -> Result<PathBuf, InstallError> {
    crate::config::project_dirs()
        .map(|p| p.data_local_dir().join("bin"))
        .ok_or_else(|| InstallError::Exe("cannot find the home directory".into()))
}

/// Copies `exe` to `dir/`[`BIN_NAME`] (through a temporary file and a rename, so a browser
/// starting the host meanwhile never runs half a file) and returns the new path; when `exe`
/// already is that file, returns it unchanged.
pub fn place(exe: &Path, dir: &Path) -> Result<PathBuf, InstallError> {
    let dest = dir.join(BIN_NAME);
    let io = |action, source| InstallError::Io { action, path: dest.clone(), source };
    if dest.canonicalize().is_ok_and(|d| d == exe) {
        return Ok(dest);
    }
    std::fs::create_dir_all(dir).map_err(|e| io("cannot create the directory of", e))?;
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| io("cannot write", e))?;
    std::fs::copy(exe, tmp.path()).map_err(|e| io("cannot copy the host to", e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io("cannot make executable", e))?;
    }
    tmp.persist(&dest).map_err(|e| io("cannot write", e.error))?;
    dest.canonicalize().map_err(|e| io("cannot resolve", e))
}

/// Removes the installed copy from `dir`; returns whether there was one. The running binary
/// on Windows cannot delete itself: that error is returned for the caller to report.
pub fn remove(dir: &Path) -> Result<bool, InstallError> {
    let dest = dir.join(BIN_NAME);
    if !dest.exists() {
        return Ok(false);
    }
    std::fs::remove_file(&dest).map_err(|source| InstallError::Io {
        action: "cannot remove",
        path: dest.clone(),
        source,
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_copied_executable_and_a_second_install_from_there_is_a_no_op() {
        let dir = tempfile::tempdir().expect("tempdir");
        let download = dir.path().join("waymark-host-linux-x86_64");
        std::fs::write(&download, b"#!/bin/sh\n").expect("write");
        let bin = dir.path().join("user/bin");
        let placed = place(&download, &bin).expect("place");
        assert_eq!(placed, bin.join(BIN_NAME).canonicalize().expect("exists"));
        assert_eq!(std::fs::read(&placed).expect("read"), b"#!/bin/sh\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&placed).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        assert_eq!(place(&placed, &bin).expect("again"), placed);
        assert!(remove(&bin).expect("remove"));
        assert!(!remove(&bin).expect("gone"));
    }
}
