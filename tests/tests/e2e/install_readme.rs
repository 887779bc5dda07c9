//! The README's install and uninstall commands, copied from README.md itself and run as a user
//! pastes them into a terminal (only HOME and PATH set), against the release zip loaded
//! unpacked (no manifest key: Chrome gives it an ID of its own). The panel and `doctor` must
//! agree at each step: before the install (host missing), with a manifest that leaves this
//! copy out (wrong ID), after the README's command (connected), and after its uninstall.

use crate::common;
use common::{Panel, TASK_TIMEOUT, host_binary};
use serde_json::json;
use std::path::Path;
use std::process::Command;
use waymark_tests::chromium::{Browser, LaunchOptions};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// The command in the README's table row that starts with `row` (its last `code` cell).
fn readme_command(row: &str) -> String {
    let readme =
        std::fs::read_to_string(paths::workspace_root().join("README.md")).expect("README");
    let line = readme
        .lines()
        .find(|l| l.trim_start().starts_with(row))
        .unwrap_or_else(|| panic!("the README has no row {row:?}"));
    let cell = line.trim_end_matches('|').rsplit('|').find(|c| c.contains('`')).expect("a cell");
    let cell = cell.trim();
    let inner = cell.split('`').nth(1).expect("a command in backquotes");
    inner.replace("\\ ", " ")
}

/// Runs `command` in a shell with only HOME and PATH, as a terminal would.
fn terminal(home: &Path, command: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", command])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .output()
        .expect("run the command");
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{command}: {out:?}");
    printed
}

/// What `doctor` (run from the downloaded file) says about this copy of Waymark.
fn doctor_about(home: &Path, id: &str) -> Vec<String> {
    let doctor = home.join("Downloads/waymark-host-linux-x86_64");
    let out = Command::new(doctor)
        .arg("doctor")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .output()
        .expect("doctor");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines().filter(|l| l.contains(id)).map(str::to_owned).collect()
}

fn wait(panel: &Panel, js: &str) {
    panel.page.wait_for(js, TASK_TIMEOUT).unwrap_or_else(|e| panic!("waiting for {js}: {e:#}"));
}

/// The panel's "Check again", until it says the host answers (`true`) or is not installed
/// (`false`, with the install box shown).
fn panel_check(panel: &Panel, reaches: bool) {
    panel.page.eval("document.getElementById('guide-recheck').click()").expect("recheck");
    let js = if reaches {
        "document.getElementById('guide-host-state').className === 'ok'"
    } else {
        "document.getElementById('guide-host-state').className === '' && \
         !document.getElementById('install').hidden"
    };
    wait(panel, js);
}

/// Stops the extension's worker, which closes its port to the running host (what closing the
/// browser does): the next check starts the host from the manifest again.
fn drop_the_host(browser: &Browser) {
    let worker = browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop the worker");
}

fn the_readme_s_commands_copied_literally_install_and_uninstall_a_release_zip(_built: &Path) {
    let home = tempfile::tempdir().expect("home");
    let extension = home.path().join("waymark-extension");
    let zip = std::fs::File::open(paths::extension_test_zip()).expect("the test zip");
    zip::ZipArchive::new(zip).expect("a zip").extract(&extension).expect("unzip");
    let profile = home.path().join(".config/chromium");
    std::fs::create_dir_all(&profile).expect("profile");
    let browser = Browser::launch(
        LaunchOptions::new(&profile)
            .extension(&extension)
            .env("HOME", home.path().display().to_string())
            .env("XDG_CONFIG_HOME", home.path().join(".config").display().to_string())
            .env("XDG_DATA_HOME", home.path().join(".local/share").display().to_string()),
    )
    .expect("browser");
    let worker = browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    let id = worker.extension_id().expect("extension id").to_owned();
    assert_ne!(id, waymark_protocol::EXTENSION_ID, "the zip's copy has its own ID");
    // The browser records the extension in the profile's preferences (a few seconds later).
    let recorded = || {
        ["Default/Secure Preferences", "Default/Preferences"].iter().any(|f| {
            std::fs::read_to_string(profile.join(f)).is_ok_and(|t| t.contains(id.as_str()))
        })
    };
    let start = std::time::Instant::now();
    while !recorded() {
        assert!(start.elapsed() < TASK_TIMEOUT, "the profile never recorded the extension");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let page =
        browser.new_page(&format!("chrome-extension://{id}/sidepanel.html")).expect("panel page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("panel loads");
    let panel = Panel { page };
    wait(&panel, "!document.getElementById('guide').hidden");

    // The release file, saved in Downloads as the README says.
    let downloads = home.path().join("Downloads");
    std::fs::create_dir_all(&downloads).expect("downloads");
    std::fs::copy(host_binary(), downloads.join("waymark-host-linux-x86_64")).expect("download");

    // Host missing: the panel shows the install box, doctor names this copy.
    panel_check(&panel, false);
    let said = doctor_about(home.path(), &id);
    assert!(said.iter().any(|l| l.contains("cannot reach the host")), "{said:?}");

    // The README's Linux command, literally.
    let install = readme_command("| Linux (x86-64, ARM64) |");
    assert!(install.contains("install --browser all") && !install.contains("--extension-id"));
    let printed = terminal(home.path(), &install);
    assert!(printed.contains(&format!("found Waymark {id}")), "{printed}");
    panel_check(&panel, true);
    let said = doctor_about(home.path(), &id);
    assert!(said.iter().all(|l| l.starts_with("ok")) && !said.is_empty(), "{said:?}");

    // Wrong ID: a manifest that leaves this copy out (an install from before it was loaded).
    let manifest = profile.join("NativeMessagingHosts/com.waymark.host.json");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("json");
    let only_dev = format!("chrome-extension://{}/", waymark_protocol::EXTENSION_ID);
    value["allowed_origins"] = json!([only_dev]);
    std::fs::write(&manifest, value.to_string()).expect("rewrite");
    drop_the_host(&browser);
    panel_check(&panel, false);
    let said = doctor_about(home.path(), &id);
    assert!(said.iter().any(|l| l.starts_with("FIX") && l.contains("lacks")), "{said:?}");
    terminal(home.path(), &install);
    panel_check(&panel, true);

    // The README's uninstall, literally: the downloaded file may be gone by then.
    std::fs::remove_file(downloads.join("waymark-host-linux-x86_64")).expect("rm download");
    let uninstall = readme_command("| Linux | `~/");
    let printed = terminal(home.path(), &uninstall);
    assert!(printed.contains("removed"), "{printed}");
    assert!(!manifest.exists(), "the registration is gone");
    assert!(!home.path().join(".local/share/waymark/bin/waymark-host").exists());
    drop_the_host(&browser);
    panel_check(&panel, false);
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(
        extension,
        the_readme_s_commands_copied_literally_install_and_uninstall_a_release_zip
    )]
}
