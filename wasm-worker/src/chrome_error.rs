//! Chrome's error messages, turned into the typed kinds the core decides on. The wording is the
//! browser's (and differs between Chromium forks and versions), so this adapter module is the
//! only place that reads it; the core matches on the kinds.
//!
//! Plain Rust with no `chrome.*` call: compiled natively too, so its tests run under
//! `cargo test`.

use waymark_core::panel::HostUnreachable;

/// What a native-messaging failure (`chrome.runtime.lastError` when the port to the host
/// closes without an answer) means: Chrome says "Specified native messaging host not found.",
/// "Access to the specified native messaging host is forbidden.", "Native host has exited." or
/// "Failed to start native messaging host.".
pub fn native_host_error(message: &str) -> HostUnreachable {
    let lower = message.to_ascii_lowercase();
    if lower.contains("not found") {
        HostUnreachable::NotInstalled
    } else if lower.contains("forbidden") {
        HostUnreachable::Forbidden
    } else if lower.contains("exited") || lower.contains("failed to start") {
        HostUnreachable::Exited
    } else {
        HostUnreachable::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromes_native_messaging_errors_are_told_apart() {
        let kind = native_host_error;
        assert_eq!(
            kind("Specified native messaging host not found."),
            HostUnreachable::NotInstalled
        );
        assert_eq!(
            kind("Access to the specified native messaging host is forbidden."),
            HostUnreachable::Forbidden
        );
        assert_eq!(kind("Native host has exited."), HostUnreachable::Exited);
        assert_eq!(kind("Failed to start native messaging host."), HostUnreachable::Exited);
        assert_eq!(
            kind("Error when communicating with the native messaging host."),
            HostUnreachable::Other
        );
    }
}
