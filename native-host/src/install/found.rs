//! Finds every copy of Waymark a browser has, by reading its profiles' preferences, so one
//! `install` command lets each of them connect: the store's copy (its ID is the store's) and
//! the release zip loaded unpacked (Chrome derives its ID from the folder), without the user
//! looking the ID up. `doctor` reads the same list to say which copy the manifest leaves out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One copy of Waymark in a browser profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its extension ID.
    pub id: String,
    /// The profile directory it is installed in.
    pub profile: PathBuf,
}

/// The part of a profile's `Preferences` / `Secure Preferences` read here.
#[derive(Debug, Default, Deserialize)]
struct Prefs {
    #[serde(default)]
    extensions: Extensions,
}

#[derive(Debug, Default, Deserialize)]
struct Extensions {
    #[serde(default)]
    settings: BTreeMap<String, Entry>,
}

/// One installed extension: where its files are (absolute when loaded unpacked, else under
/// the profile's `Extensions/`), and its manifest when the browser keeps a copy. Any other
/// shape (the browser's own entries vary) reads as nothing, without failing the rest.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Entry {
    /// An extension with the fields read here.
    Known {
        #[serde(default)]
        path: Option<PathBuf>,
        #[serde(default)]
        manifest: Option<Manifest>,
    },
    /// Anything else the browser wrote.
    Other(serde::de::IgnoredAny),
}

/// What tells Waymark from other extensions.
#[derive(Debug, Default, Deserialize)]
struct Manifest {
    #[serde(default)]
    name: String,
    #[serde(default)]
    permissions: Vec<Permission>,
}

/// A manifest permission: a name, or an object (`{"usbDevices": …}`) that is not ours.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Permission {
    Name(String),
    Other(serde::de::IgnoredAny),
}

impl Manifest {
    /// Waymark by its name and its use of native messaging (the one thing the host is for).
    fn is_waymark(&self) -> bool {
        self.name == "Waymark"
            && self
                .permissions
                .iter()
                .any(|p| matches!(p, Permission::Name(n) if n == "nativeMessaging"))
    }
}

/// Every copy of Waymark in the profiles of `user_data_dir` (a browser's data directory, or a
/// dedicated `--user-data-dir`), by ID, each once.
pub fn waymark_in(user_data_dir: &Path) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    let Ok(entries) = std::fs::read_dir(user_data_dir) else { return out };
    let mut profiles: Vec<PathBuf> =
        entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect();
    profiles.sort();
    for profile in profiles {
        for file in ["Secure Preferences", "Preferences"] {
            let Ok(text) = std::fs::read_to_string(profile.join(file)) else { continue };
            let prefs: Prefs = match serde_json::from_str(&text) {
                Ok(p) => p,
                Err(e) => {
                    tracing::debug!(profile = %profile.display(), error = %e, "unreadable preferences");
                    continue;
                }
            };
            for (id, entry) in prefs.extensions.settings {
                if super::validate_extension_id(&id).is_err() || out.iter().any(|f| f.id == id) {
                    continue;
                }
                if manifest_of(&profile, entry).is_some_and(|m| m.is_waymark()) {
                    out.push(Found { id, profile: profile.clone() });
                }
            }
        }
    }
    out
}

/// The manifest the browser kept, else the one in the extension's folder.
fn manifest_of(profile: &Path, entry: Entry) -> Option<Manifest> {
    let Entry::Known { path, manifest } = entry else { return None };
    if let Some(m) = manifest
        && !m.name.is_empty()
    {
        return Some(m);
    }
    let path = path?;
    let dir = if path.is_absolute() { path } else { profile.join("Extensions").join(path) };
    let text = std::fs::read_to_string(dir.join("manifest.json")).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNPACKED: &str = "abcdefghijklmnopabcdefghijklmnop";
    const STORE: &str = "ponmlkjihgfedcbaponmlkjihgfedcba";
    const OTHER: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    #[test]
    fn finds_the_unpacked_and_the_store_copy_and_nothing_else() {
        let data = tempfile::tempdir().expect("data dir");
        let zip = tempfile::tempdir().expect("unzipped release");
        let waymark = r#"{"name": "Waymark", "permissions": ["storage", "nativeMessaging"]}"#;
        std::fs::write(zip.path().join("manifest.json"), waymark).expect("manifest");
        let default = data.path().join("Default");
        std::fs::create_dir_all(default.join("Extensions/store/0.1.0_0")).expect("ext dir");
        std::fs::write(default.join("Extensions/store/0.1.0_0/manifest.json"), waymark)
            .expect("store manifest");
        let secure = serde_json::json!({"extensions": {"settings": {
            UNPACKED: {"path": zip.path(), "location": 4},
            STORE: {"path": "store/0.1.0_0", "location": 1},
            OTHER: {"path": "/nowhere", "manifest": {"name": "Other",
                     "permissions": [{"usbDevices": []}, "nativeMessaging"]}},
            "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb": 7,
            "not-an-id": {"path": zip.path()},
        }}});
        std::fs::write(default.join("Secure Preferences"), secure.to_string()).expect("prefs");
        // A profile with broken preferences is skipped.
        std::fs::create_dir_all(data.path().join("Profile 1")).expect("p1");
        std::fs::write(data.path().join("Profile 1/Preferences"), "{nope").expect("broken");
        let found: Vec<String> = waymark_in(data.path()).into_iter().map(|f| f.id).collect();
        assert_eq!(found, [UNPACKED, STORE]);
        assert!(waymark_in(&data.path().join("missing")).is_empty());
    }
}
