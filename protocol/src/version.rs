//! The version handshake: which extension and host releases work together.
//!
//! Both sides check at `hello` (the extension with the host's `host_version`, the host with the
//! extension's `extension_version`) using this one rule, so they cannot disagree: a release
//! works with its own release line and the one before it, in both directions (an extension
//! 0.3 with a host 0.2 or 0.3; a host 0.3 with an extension 0.2 or 0.3). A release line is
//! `0.MINOR` before 1.0 (where a minor release may break things) and `MAJOR` after.
//! Protocol changes that break the wire itself are caught earlier by [`crate::PROTOCOL_VERSION`].

use std::cmp::Ordering;

/// A `MAJOR.MINOR.PATCH` version (a pre-release or build suffix is ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release {
    /// Major number.
    pub major: u64,
    /// Minor number.
    pub minor: u64,
    /// Patch number.
    pub patch: u64,
}

impl Release {
    /// Reads `1.2.3` (or `1.2`); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let core = text.trim().split(['-', '+']).next()?;
        let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
        let major = parts.next()??;
        let minor = parts.next()??;
        let patch = parts.next().unwrap_or(Some(0))?;
        if parts.next().is_some() {
            return None;
        }
        Some(Self { major, minor, patch })
    }

    /// The release line and its position: `(0, minor)` before 1.0, `(major, 0)` after.
    fn line(self) -> (u64, u64) {
        if self.major == 0 { (0, self.minor) } else { (self.major, 0) }
    }

    /// The oldest release of the previous line, the oldest peer this one still works with.
    pub fn oldest_peer(self) -> Self {
        match self.line() {
            (0, minor) => Self { major: 0, minor: minor.saturating_sub(1), patch: 0 },
            (major, _) => Self { major: major - 1, minor: 0, patch: 0 },
        }
    }

    /// Whether `other` is on this line or the one just before it.
    fn accepts(self, other: Self) -> bool {
        other.line() >= self.oldest_peer().line()
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Whether an extension and a host work together, and if not, which to update.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Compatibility {
    /// They work together.
    Compatible,
    /// The host is older than the extension supports: update the host.
    HostOutdated {
        /// The host's version.
        host: String,
        /// The oldest host this extension works with.
        needed: String,
    },
    /// The extension is older than the host supports: update the extension.
    ExtensionOutdated {
        /// The extension's version.
        extension: String,
        /// The oldest extension this host works with.
        needed: String,
    },
    /// A version could not be read (a development build, say): assumed to work.
    Unknown,
}

/// The handshake's verdict for `extension` and `host` versions.
pub fn compatibility(extension: &str, host: &str) -> Compatibility {
    let (Some(e), Some(h)) = (Release::parse(extension), Release::parse(host)) else {
        return Compatibility::Unknown;
    };
    match h.line().cmp(&e.line()) {
        Ordering::Less if !e.accepts(h) => {
            Compatibility::HostOutdated { host: h.to_string(), needed: e.oldest_peer().to_string() }
        }
        Ordering::Greater if !h.accepts(e) => Compatibility::ExtensionOutdated {
            extension: e.to_string(),
            needed: h.oldest_peer().to_string(),
        },
        _ => Compatibility::Compatible,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_release_works_with_the_previous_one_of_the_other_side() {
        assert_eq!(compatibility("0.3.0", "0.3.4"), Compatibility::Compatible);
        assert_eq!(compatibility("0.3.0", "0.2.9"), Compatibility::Compatible, "older host");
        assert_eq!(compatibility("0.2.9", "0.3.0"), Compatibility::Compatible, "older extension");
        assert_eq!(compatibility("2.1.0", "1.9.0"), Compatibility::Compatible);
        assert_eq!(compatibility("1.0.0", "0.9.0"), Compatibility::Compatible);
    }

    #[test]
    fn two_releases_apart_names_the_side_to_update() {
        assert_eq!(
            compatibility("0.3.0", "0.1.2"),
            Compatibility::HostOutdated { host: "0.1.2".into(), needed: "0.2.0".into() }
        );
        assert_eq!(
            compatibility("0.1.0", "0.3.0-rc.1"),
            Compatibility::ExtensionOutdated { extension: "0.1.0".into(), needed: "0.2.0".into() }
        );
        assert_eq!(
            compatibility("3.0.0", "1.4.0"),
            Compatibility::HostOutdated { host: "1.4.0".into(), needed: "2.0.0".into() }
        );
    }

    #[test]
    fn unreadable_versions_are_not_blamed() {
        assert_eq!(compatibility("dev", "0.1.0"), Compatibility::Unknown);
        assert_eq!(Release::parse("1.2"), Some(Release { major: 1, minor: 2, patch: 0 }));
        assert_eq!(Release::parse("1.2.3.4"), None);
        assert_eq!(Release::parse(""), None);
    }
}
