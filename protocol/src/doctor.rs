//! `doctor`: the host's set-up checks, one result per line, for the side panel's "Check setup"
//! button and the `waymark-host doctor` command alike (both show the same checks).

use serde::{Deserialize, Serialize};

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DoctorCheck {
    /// Passed?
    pub ok: bool,
    /// What was found, or what to do (with the exact command when there is one).
    pub text: String,
}

impl DoctorCheck {
    /// A passed check.
    pub fn ok(text: impl Into<String>) -> Self {
        Self { ok: true, text: text.into() }
    }

    /// A failed check whose text says what to do.
    pub fn fix(text: impl Into<String>) -> Self {
        Self { ok: false, text: text.into() }
    }
}

impl std::fmt::Display for DoctorCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", if self.ok { "ok" } else { "FIX" }, self.text)
    }
}

/// Data of a `doctor` reply: every check, in the order the host ran them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorReport {
    /// The checks.
    pub checks: Vec<DoctorCheck>,
}
