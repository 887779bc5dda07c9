//! From download to a first task, as a new user does it: a fresh Chromium profile loads the
//! extension from its zip (packed like the release zip: no manifest key, so Chrome gives it an
//! ID of its own), the side panel's first-run guide shows the Linux install command, the test
//! runs exactly that command in a shell (with the host saved in `~/Downloads` as the release
//! file), then follows the guide: check the host again, set the model (the scripted one) and
//! test it, try the sample task on the page, which finishes. The guide is never shown again.

use crate::common;
use common::{Panel, TASK_TIMEOUT, host_binary, role_reply};
use serde_json::json;
use std::path::Path;
use std::process::Command;
use waymark_tests::chromium::{Browser, LaunchOptions};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// The sample task's answer from the scripted model.
const ANSWER: &str = "This is the Profile form: it lets you save your name.";

/// Unpacks the test zip into `dir` (what a user does with the release zip).
fn unzip(zip: &Path, dir: &Path) {
    let file = std::fs::File::open(zip).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `WAYMARK_WASM_PROFILE=wasm-dev cargo xtask build --test-hooks` (it \
             packs the zip)",
            zip.display()
        )
    });
    let mut archive = zip::ZipArchive::new(file).expect("a zip");
    archive.extract(dir).expect("unzip");
}

fn wait(panel: &Panel, js: &str) -> serde_json::Value {
    panel.page.wait_for(js, TASK_TIMEOUT).unwrap_or_else(|e| {
        panic!("waiting for {js}: {e:#}\nconsole: {:?}", panel.page.console_messages())
    })
}

fn eval(panel: &Panel, js: &str) -> serde_json::Value {
    panel.page.eval(js).unwrap_or_else(|e| panic!("{js}: {e:#}"))
}

fn click(panel: &Panel, id: &str) {
    eval(panel, &format!("document.getElementById('{id}').click()"));
}

fn set_value(panel: &Panel, id: &str, value: &str) {
    let value = serde_json::to_string(value).expect("json");
    eval(panel, &format!("document.getElementById('{id}').value = {value}"));
}

fn open_panel(browser: &Browser, id: &str) -> Panel {
    let page =
        browser.new_page(&format!("chrome-extension://{id}/sidepanel.html")).expect("panel page");
    page.wait_for("document.readyState === 'complete'", TASK_TIMEOUT).expect("panel loads");
    Panel { page }
}

/// The zip is packed by the same build the other tests use; no hooks are needed here.
fn a_new_user_installs_the_host_with_the_panel_s_command_and_finishes_the_sample_task(
    _built: &Path,
) {
    let home = tempfile::tempdir().expect("home");
    let extension = home.path().join("waymark-extension");
    unzip(&paths::extension_test_zip(), &extension);
    assert!(
        !std::fs::read_to_string(extension.join("manifest.json"))
            .expect("manifest")
            .contains("\"key\""),
        "the zip's manifest has no key"
    );
    // The profile is Chromium's default one for this HOME, where `--browser all` registers.
    let profile = home.path().join(".config/chromium");
    std::fs::create_dir_all(&profile).expect("profile");
    let llm = ScriptedLlm::start(|req| {
        if let Some(reply) = role_reply(req) {
            return reply;
        }
        ScriptedReply::tool_call("done", json!({"answer": ANSWER, "success": true}))
    })
    .expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let browser = Browser::launch(
        LaunchOptions::new(&profile)
            .extension(&extension)
            .env("HOME", home.path().display().to_string())
            .env("XDG_CONFIG_HOME", home.path().join(".config").display().to_string())
            .env("XDG_DATA_HOME", home.path().join(".local/share").display().to_string())
            .env("WAYMARK_LOG", "debug"),
    )
    .expect("browser");
    let worker = browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    let id = worker.extension_id().expect("extension id").to_owned();
    assert_ne!(id, waymark_protocol::EXTENSION_ID, "loaded from the zip, not the dev key");
    let _page = browser.new_page(&site.url("/form.html")).expect("a page to work on");

    // Step 1: no host yet; the guide and the install box name the command for Linux.
    let panel = open_panel(&browser, &id);
    wait(
        &panel,
        "!document.getElementById('guide').hidden && !document.getElementById('install').hidden",
    );
    assert_eq!(eval(&panel, "document.getElementById('guide').dataset.step"), json!("host"));
    let command = eval(&panel, "document.getElementById('install-command').textContent");
    let command = command.as_str().expect("command").to_owned();
    assert!(command.contains("./waymark-host-linux-x86_64 install --browser all"), "{command}");
    assert!(command.ends_with(&format!("--extension-id {id}")), "names this extension: {command}");

    // The user saved the release file in Downloads and pastes the command into a terminal.
    let downloads = home.path().join("Downloads");
    std::fs::create_dir_all(&downloads).expect("downloads");
    std::fs::copy(host_binary(), downloads.join("waymark-host-linux-x86_64")).expect("download");
    let out = Command::new("sh")
        .args(["-c", &command])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .output()
        .expect("run the install command");
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{out:?}");
    assert!(printed.contains("installed com.waymark.host for chromium"), "{printed}");
    let installed = home.path().join(".local/share/waymark/bin/waymark-host");
    assert!(installed.is_file(), "the host went to the user's directory: {printed}");
    let manifest = profile.join("NativeMessagingHosts/com.waymark.host.json");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("manifest")).expect("json");
    assert_eq!(manifest["path"], installed.canonicalize().expect("real").display().to_string());

    // "Check again": the host answers, the install box goes, the guide moves on.
    click(&panel, "guide-recheck");
    wait(&panel, "document.getElementById('guide-host-state').className === 'ok'");
    wait(&panel, "document.getElementById('install').hidden");
    wait(&panel, "document.querySelector('#status .dot').dataset.dot !== 'problem'");
    click(&panel, "guide-next");

    // Step 2: the model (the scripted one, as any OpenAI-compatible server), saved and tested.
    wait(&panel, "!document.getElementById('guide-model').hidden");
    set_value(&panel, "guide-preset", "custom");
    set_value(&panel, "guide-base", &llm.base_url());
    set_value(&panel, "guide-model-name", "scripted-model");
    click(&panel, "guide-test");
    wait(&panel, "document.getElementById('guide-model-state').className === 'ok'");
    assert!(llm.requests().iter().any(|r| r.body["max_tokens"] == 1), "the test called the model");
    click(&panel, "guide-next");

    // Step 3: the sample task on the page, which finishes; the guide is done.
    wait(&panel, "!document.getElementById('guide-sample').hidden");
    click(&panel, "guide-try");
    let answer = panel.answer().expect("the sample task finishes");
    assert!(answer.contains(ANSWER), "{answer}");
    wait(&panel, "document.getElementById('guide').hidden");
    let asked = llm
        .requests()
        .iter()
        .any(|r| r.body.to_string().contains("tell me its title and the main thing it offers"));
    assert!(asked, "the sample prompt went to the model");

    // Opened again, the panel goes straight to the conversation.
    drop(panel);
    let again = open_panel(&browser, &id);
    wait(&again, "document.querySelector('#status .dot').dataset.dot === 'ready'");
    assert_eq!(eval(&again, "document.getElementById('guide').hidden"), json!(true));
    llm.assert_no_script_panics().expect("script");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(
        extension,
        a_new_user_installs_the_host_with_the_panel_s_command_and_finishes_the_sample_task
    )]
}
