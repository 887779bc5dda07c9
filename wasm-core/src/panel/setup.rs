//! Getting the native host onto the user's machine: the one command for *their* system (the
//! browser tells the worker which, `chrome.runtime.getPlatformInfo`), and what a `hello`
//! answer means for the panel (connected, or a host too old for this extension).

use serde::{Deserialize, Serialize};
use waymark_protocol::{Compatibility, EXTENSION_ID, HelloData, compatibility};

use super::HostStatus;

/// The operating system, as `chrome.runtime.getPlatformInfo().os` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Os {
    /// Linux.
    Linux,
    /// macOS.
    Mac,
    /// Windows.
    Win,
    /// Anything else (ChromeOS, Android, the BSDs): no released host.
    #[serde(other)]
    Other,
}

/// The processor, as `chrome.runtime.getPlatformInfo().arch` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arch {
    /// 64-bit x86.
    #[serde(rename = "x86-64")]
    X86_64,
    /// 64-bit ARM (Apple silicon, ARM Linux).
    #[serde(rename = "arm64")]
    Arm64,
    /// Anything else (32-bit): no released host.
    #[serde(other)]
    Other,
}

/// What the browser says about the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Platform {
    /// Operating system.
    pub os: Os,
    /// Processor.
    pub arch: Arch,
}

/// How to install (or update) the host on this machine, as the panel shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InstallCommand {
    /// The system in words ("Linux (x86-64)").
    pub system: String,
    /// The release file to download (empty when there is none for this system).
    pub artifact: String,
    /// Where to run the command ("a terminal", "PowerShell").
    pub shell: String,
    /// The command, to copy as is (empty when there is none for this system).
    pub command: String,
    /// One sentence around it: download this, run that.
    pub how: String,
}

/// The install command for `platform`. `extension_id` is this extension's own ID: when it is
/// not Waymark's fixed one (the store's copy, or the zip loaded unpacked) the command names it,
/// so the host lets exactly this extension connect.
pub fn install_command(platform: Platform, extension_id: &str) -> InstallCommand {
    let id = if extension_id == EXTENSION_ID || extension_id.is_empty() {
        String::new()
    } else {
        format!(" --extension-id {extension_id}")
    };
    let (system, artifact) = match (platform.os, platform.arch) {
        (Os::Linux, Arch::X86_64) => ("Linux (x86-64)", "waymark-host-linux-x86_64"),
        (Os::Linux, Arch::Arm64) => ("Linux (ARM64)", "waymark-host-linux-aarch64"),
        (Os::Mac, Arch::Arm64) => ("macOS (Apple silicon)", "waymark-host-macos-arm64"),
        (Os::Mac, Arch::X86_64) => ("macOS (Intel)", "waymark-host-macos-x86_64"),
        (Os::Win, Arch::X86_64 | Arch::Arm64) => ("Windows", "waymark-host-windows-x86_64.exe"),
        _ => {
            return InstallCommand {
                system: "this system".into(),
                how: "Waymark's host runs on Linux, macOS and Windows; this system has no \
                      release of it."
                    .into(),
                ..InstallCommand::default()
            };
        }
    };
    let (shell, command) = match platform.os {
        Os::Win => (
            "PowerShell",
            format!("& \"$env:USERPROFILE\\Downloads\\{artifact}\" install --browser all{id}"),
        ),
        Os::Mac => (
            "Terminal",
            format!(
                "cd ~/Downloads && chmod +x {artifact} && xattr -c {artifact} && \
                 ./{artifact} install --browser all{id}"
            ),
        ),
        _ => (
            "a terminal",
            format!(
                "cd ~/Downloads && chmod +x {artifact} && ./{artifact} install --browser all{id}"
            ),
        ),
    };
    InstallCommand {
        system: system.into(),
        artifact: artifact.into(),
        shell: shell.into(),
        how: format!(
            "Download {artifact} from the Waymark release page into Downloads, then run this \
             in {shell}. It copies the host into your user folder and registers it with every \
             Chromium-family browser you have."
        ),
        command,
    }
}

/// The host's status once it answered `hello`: connected, or too old for this extension
/// (the same rule the host applies the other way, [`compatibility`]).
pub fn after_hello(extension_version: &str, hello: &HelloData) -> HostStatus {
    match compatibility(extension_version, &hello.host_version) {
        Compatibility::HostOutdated { host, needed } => HostStatus::Outdated {
            message: format!(
                "Update the Waymark host: this extension needs host {needed} or later, and \
                 {host} is installed."
            ),
            version: host,
            needed,
        },
        _ => HostStatus::Connected { version: hello.host_version.clone(), llm: hello.llm.clone() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use waymark_protocol::LlmStatus;

    fn platform(os: &str, arch: &str) -> Platform {
        serde_json::from_value(serde_json::json!({ "os": os, "arch": arch })).expect("platform")
    }

    #[test]
    fn each_system_gets_its_own_command() {
        let linux = install_command(platform("linux", "x86-64"), EXTENSION_ID);
        assert_eq!(
            linux.command,
            "cd ~/Downloads && chmod +x waymark-host-linux-x86_64 && ./waymark-host-linux-x86_64 install --browser all"
        );
        let mac = install_command(platform("mac", "arm64"), EXTENSION_ID);
        assert!(mac.command.contains("waymark-host-macos-arm64 install --browser all"));
        assert!(mac.command.contains("xattr -c"), "downloads are quarantined on macOS");
        let win = install_command(platform("win", "x86-64"), EXTENSION_ID);
        assert_eq!(win.shell, "PowerShell");
        assert!(win.command.contains(r"Downloads\waymark-host-windows-x86_64.exe"));
        let arm = install_command(platform("linux", "arm64"), EXTENSION_ID);
        assert!(arm.command.contains("waymark-host-linux-aarch64"));
        let cros = install_command(platform("cros", "x86-64"), EXTENSION_ID);
        assert!(cros.command.is_empty() && cros.how.contains("no release"));
        let old = install_command(platform("linux", "x86-32"), EXTENSION_ID);
        assert!(old.command.is_empty());
    }

    #[test]
    fn another_extension_id_is_named_in_the_command() {
        let id = "abcdefghijklmnopabcdefghijklmnop";
        let c = install_command(platform("linux", "x86-64"), id);
        assert!(c.command.ends_with(&format!("install --browser all --extension-id {id}")));
    }

    #[test]
    fn an_outdated_host_is_told_to_update() {
        let hello = |v: &str| HelloData {
            host_version: v.into(),
            protocol: 1,
            capabilities: vec![],
            llm: LlmStatus {
                provider: "openai".into(),
                base_url: String::new(),
                model: "m".into(),
                has_key: false,
                max_tokens: None,
            },
            problems: vec![],
        };
        let HostStatus::Outdated { message, needed, .. } = after_hello("0.3.0", &hello("0.1.0"))
        else {
            panic!("not outdated")
        };
        assert_eq!(needed, "0.2.0");
        assert!(message.starts_with("Update the Waymark host"));
        assert!(matches!(after_hello("0.3.0", &hello("0.2.5")), HostStatus::Connected { .. }));
    }
}
