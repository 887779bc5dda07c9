//! The Windows registry entries that register the host: Chromium-family browsers on Windows
//! find a native-messaging manifest only through a key under `HKEY_CURRENT_USER` whose
//! default value is the manifest's path.
//!
//! What to write is decided here on every OS (from the `native_messaging` crate's browser
//! table), so unit tests on Linux check exactly what a Windows install writes; only
//! [`write`] and [`remove`] touch a registry, and only on Windows.

use std::path::{Path, PathBuf};

use waymark_protocol::HOST_NAME;

use super::InstallError;

/// One registry value: `HKEY_CURRENT_USER\{key}` with default value `manifest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryEntry {
    /// Key path under `HKEY_CURRENT_USER`, e.g.
    /// `Software\Google\Chrome\NativeMessagingHosts\com.waymark.host`.
    pub key: String,
    /// The default value: the manifest file's path.
    pub manifest: PathBuf,
}

/// The entries a per-user install for `browser` writes on Windows (none elsewhere, and none
/// for a browser the table gives no registry key).
pub fn entries(browser: &'static str, manifest: &Path) -> Result<Vec<RegistryEntry>, InstallError> {
    if cfg!(windows) { planned(browser, manifest) } else { Ok(Vec::new()) }
}

/// The Windows entries for `browser`, whatever OS this runs on (what [`entries`] returns on
/// Windows; the tests read it on Linux).
pub fn planned(browser: &'static str, manifest: &Path) -> Result<Vec<RegistryEntry>, InstallError> {
    let cfg = native_messaging::paths::browser_cfg(browser)
        .map_err(|source| InstallError::Locate { browser, source })?;
    if !cfg.windows_registry {
        return Ok(Vec::new());
    }
    let template = cfg
        .windows
        .as_ref()
        .and_then(|w| w.registry.as_ref())
        .and_then(|r| r.hkcu_key_template.as_deref());
    Ok(template
        .map(|t| RegistryEntry {
            key: t.replace("{name}", HOST_NAME),
            manifest: manifest.to_path_buf(),
        })
        .into_iter()
        .collect())
}

/// Writes one entry (Windows).
#[cfg(windows)]
pub fn write(entry: &RegistryEntry) -> Result<(), InstallError> {
    use native_messaging::{Scope, install::winreg};
    winreg::write_manifest_path_to_reg(Scope::User, &entry.key, &entry.manifest).map_err(|source| {
        InstallError::Io {
            action: "cannot write the registry key for",
            path: entry.manifest.clone(),
            source,
        }
    })
}

/// Removes one entry (Windows); a missing key is not an error.
#[cfg(windows)]
pub fn remove(entry: &RegistryEntry) -> Result<(), InstallError> {
    use native_messaging::{Scope, install::winreg};
    winreg::remove_manifest_reg(Scope::User, &entry.key).map_err(|source| InstallError::Io {
        action: "cannot remove the registry key for",
        path: entry.manifest.clone(),
        source,
    })
}

/// No registry outside Windows ([`entries`] is empty there).
#[cfg(not(windows))]
pub fn write(_entry: &RegistryEntry) -> Result<(), InstallError> {
    Ok(())
}

/// No registry outside Windows ([`entries`] is empty there).
#[cfg(not(windows))]
pub fn remove(_entry: &RegistryEntry) -> Result<(), InstallError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::ALL_BROWSERS;

    #[test]
    fn a_windows_install_for_every_browser_writes_one_hkcu_key_each_pointing_at_the_manifest() {
        let manifest =
            Path::new(r"C:\Users\ada\AppData\Local\NativeMessagingHosts\com.waymark.host.json");
        let keys: Vec<String> = ALL_BROWSERS
            .iter()
            .flat_map(|b| planned(b, manifest).expect("known browser"))
            .map(|e| {
                assert_eq!(e.manifest, manifest);
                e.key
            })
            .collect();
        assert_eq!(
            keys,
            [
                r"Software\Chromium\NativeMessagingHosts\com.waymark.host",
                r"Software\Google\Chrome\NativeMessagingHosts\com.waymark.host",
                r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\com.waymark.host",
                r"Software\Microsoft\Edge\NativeMessagingHosts\com.waymark.host",
                r"Software\Vivaldi\NativeMessagingHosts\com.waymark.host",
            ]
        );
    }

    #[test]
    fn nothing_touches_a_registry_outside_windows() {
        if !cfg!(windows) {
            assert!(entries("chrome", Path::new("/x.json")).expect("ok").is_empty());
        }
    }
}
