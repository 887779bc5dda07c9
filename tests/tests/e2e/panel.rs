//! The side panel end to end in real Chromium with the scripted LLM: settings (per-role models,
//! write-only keys, allowed sites, transcripts, readable folders, file size, prices) and the host's setup check; the LLM's state
//! (rate limited, key rejected) and what tasks cost; the prompt box (history on the arrow keys,
//! attachments, JSON mode with its copy button); findings as a table with links; safe rendering
//! of model text; the keyboard (Ctrl+E exports, Escape stops, the open-panel command); the
//! accessibility basics; and the host-missing state.
//!
//! Screenshots of the main states go to `target/screenshots/panel/` (git-ignored).

use crate::common;
use common::{Panel, Setup, TASK_TIMEOUT, Waymark, find_ref, message_text, role_of};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

const FILL: &str = "Fill in the name Ada and save the form";
const HEADING: &str = "Read the page heading";
const SLOW: &str = "Take your time reading this page";
const BAD_KEY: &str = "Try once more";
const ELSEWHERE: &str = "Open the same form on localhost";
const ATTACHED: &str = "/tmp/waymark-notes.txt";

fn site() -> FixtureServer {
    FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("fixture server")
}

/// Where the panel's screenshots and axe-core results go (the test output CI keeps).
fn screenshot_dir() -> std::path::PathBuf {
    paths::target_dir().join("screenshots").join("panel")
}

/// A side-panel-sized viewport, so screenshots look like the real panel.
fn panel_sized(panel: &Panel) {
    panel
        .page
        .call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 400, "height": 860, "deviceScaleFactor": 1, "mobile": false}),
        )
        .expect("viewport");
}

/// Screenshots of one state at the two side-panel widths Chrome users set most (360 and 480
/// px), light and dark, each checked with axe-core (no serious or critical violation); the
/// PNGs and `<name>-<width>-<theme>.axe.json` go to `target/screenshots/panel/`. The panel is
/// left as it was (width 400, its theme).
fn shot(panel: &Panel, name: &str) {
    let dark = eval(panel, "matchMedia('(prefers-color-scheme: dark)').matches") == json!(true);
    for width in [360, 480] {
        for theme in ["light", "dark"] {
            set_view(panel, width, theme);
            let path = screenshot_dir().join(format!("{name}-{width}-{theme}.png"));
            panel.page.screenshot(&path).unwrap_or_else(|e| panic!("screenshot {name}: {e:#}"));
            check_accessibility(panel, &format!("{name}-{width}-{theme}"));
        }
    }
    set_view(panel, 400, if dark { "dark" } else { "light" });
}

fn set_view(panel: &Panel, width: u32, theme: &str) {
    panel
        .page
        .call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": 860, "deviceScaleFactor": 1, "mobile": false}),
        )
        .expect("viewport");
    panel
        .page
        .call(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": theme}]}),
        )
        .expect("theme");
}

/// Runs axe-core (WCAG 2 A and AA rules) on the panel as shown; writes the full result and
/// fails on any serious or critical violation.
fn check_accessibility(panel: &Panel, name: &str) {
    let loaded = eval(panel, "typeof globalThis.axe === 'object'");
    if loaded != json!(true) {
        let script = std::fs::read_to_string(paths::axe_script()).unwrap_or_else(|e| {
            panic!("axe-core is missing ({e}); run `cargo xtask setup` to install it")
        });
        eval(panel, &format!("{script}\n;true"));
    }
    let result = eval(
        panel,
        "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }).then((r) => \
           ({ violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, \
              nodes: v.nodes.map((n) => n.target.join(' ')) })), passes: r.passes.length }))",
    );
    let path = screenshot_dir().join(format!("{name}.axe.json"));
    std::fs::write(&path, serde_json::to_string_pretty(&result).expect("json"))
        .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    let bad: Vec<&Value> = result["violations"]
        .as_array()
        .map(|v| {
            v.iter()
                .filter(|v| matches!(v["impact"].as_str(), Some("serious" | "critical")))
                .collect()
        })
        .unwrap_or_default();
    assert!(bad.is_empty(), "{name}: axe-core found serious or critical violations: {bad:#?}");
}

fn wait_js(panel: &Panel, js: &str) -> Value {
    panel.page.wait_for(js, TASK_TIMEOUT).unwrap_or_else(|e| {
        panic!("waiting for {js}: {e:#}\nconsole: {:?}", panel.page.console_messages())
    })
}

fn eval(panel: &Panel, js: &str) -> Value {
    panel.page.eval(js).unwrap_or_else(|e| panic!("{js}: {e:#}"))
}

fn click(panel: &Panel, id: &str) {
    eval(panel, &format!("document.getElementById('{id}').click()"));
}

fn set_value(panel: &Panel, id: &str, value: &str) {
    let js = format!(
        "(() => {{ const e = document.getElementById('{id}'); e.value = {}; \
         e.dispatchEvent(new Event('input', {{ bubbles: true }})); return true; }})()",
        serde_json::to_string(value).expect("json")
    );
    eval(panel, &js);
}

/// A trusted key press with modifiers (2 = Ctrl) through the browser's input pipeline.
fn press_with(panel: &Panel, key: &str, code: &str, vk: i64, modifiers: i64) {
    for kind in ["rawKeyDown", "keyUp"] {
        panel
            .page
            .call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk,
                       "modifiers": modifiers}),
            )
            .expect("key event");
    }
}

/// WCAG contrast ratios of the panel's text against its background, per element id.
fn contrasts(panel: &Panel) -> HashMap<String, f64> {
    let v = eval(
        panel,
        r#"(() => {
            const lum = (c) => {
              const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
                v /= 255;
                return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
              });
              return 0.2126 * r + 0.7152 * g + 0.0722 * b;
            };
            const ratio = (a, b) => {
              const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
              return (x + 0.05) / (y + 0.05);
            };
            const bg = getComputedStyle(document.body).backgroundColor;
            const out = {};
            for (const id of ['host-status', 'session-meta', 'prompt-help', 'settings-open',
                              'prompt', 'task-prompt']) {
              out[id] = ratio(getComputedStyle(document.getElementById(id)).color, bg);
            }
            const send = getComputedStyle(document.getElementById('send'));
            out.send = ratio(send.color, send.backgroundColor);
            return out;
          })()"#,
    );
    serde_json::from_value(v).expect("ratios")
}

fn assert_contrast(panel: &Panel, theme: &str) {
    for (id, ratio) in contrasts(panel) {
        assert!(ratio >= 4.5, "{theme} theme: #{id} has contrast {ratio:.2} (< 4.5)");
    }
}

/// The task a navigator request is about (the last `Task: …` line of its prompt).
fn task_of(req: &RecordedRequest) -> String {
    let user = message_text(&req.body, 1);
    user.lines()
        .filter_map(|l| l.strip_prefix("New task: ").or_else(|| l.strip_prefix("Task: ")))
        .next_back()
        .unwrap_or_default()
        .to_owned()
}

/// The scripted model. `calls` counts navigator calls per task.
fn script(
    req: &RecordedRequest,
    calls: &Mutex<HashMap<String, usize>>,
    source: &str,
) -> ScriptedReply {
    let all = req.all_text();
    if all.contains("Reply with the single word OK.") {
        // The doctor's one-token call.
        return ScriptedReply::text("OK");
    }
    match role_of(req) {
        "planner" => {
            return ScriptedReply::tool_call(
                "plan",
                json!({"questions": [], "steps": [{"phase": "filling", "goal": "type the name"},
                                                  {"phase": "saving", "goal": "press Save"}]}),
            );
        }
        "validator" => {
            return ScriptedReply::tool_call(
                "verdict",
                json!({"confirmed": true, "reason": "the page shows it"}),
            );
        }
        "summariser" => {
            let user = message_text(&req.body, 1);
            if user.contains(BAD_KEY) {
                // The same bad key for every role.
                return ScriptedReply::error(401, "Incorrect API key provided (scripted)");
            }
            return if user.contains(FILL) {
                ScriptedReply::text(
                    json!({"summary": "Saved the name Ada on the profile form.",
                           "data": {"name": "Ada", "source": source,
                                    "note": "<img src=\"http://127.0.0.1:9/x.png\"> <b>bold</b>"},
                           "toc": "Saved Ada", "title": "Profile"})
                    .to_string(),
                )
            } else {
                ScriptedReply::text("no summary")
            };
        }
        _ => {}
    }
    let task = task_of(req);
    let n = {
        let mut map = calls.lock().expect("lock");
        let n = map.entry(task.clone()).or_default();
        *n += 1;
        *n - 1
    };
    let page = message_text(&req.body, 1);
    let progress = |p: Value| ("progress", p);
    if task == FILL {
        let name = find_ref(&page, "textbox", "Name").unwrap_or(0);
        let save = find_ref(&page, "button", "Save").unwrap_or(0);
        return match n {
            0 => ScriptedReply::rate_limited(2),
            1 => ScriptedReply::tool_calls([
                progress(json!({"evaluation": "Starting", "phase": "filling"})),
                ("type", json!({"ref": name, "text": "Ada"})),
            ]),
            2 => ScriptedReply::tool_calls([
                progress(json!({"evaluation": "Name typed", "phase": "saving"})),
                ("click", json!({"ref": save})),
            ])
            .delayed(2500),
            _ => ScriptedReply::tool_call(
                "done",
                json!({"answer": "Saved <b>Ada</b>. <img src=\"http://127.0.0.1:9/x.png\"> \
                                  <script>alert(1)</script>",
                       "success": true}),
            ),
        };
    }
    if task == ELSEWHERE {
        // Another origin: the safety policy asks for a confirmation first.
        let other = source.replace("127.0.0.1", "localhost");
        return match n {
            0 => ScriptedReply::tool_call("navigate", json!({"url": other})),
            _ => ScriptedReply::tool_call(
                "done",
                json!({"answer": "You did not allow the other site.", "success": false}),
            ),
        };
    }
    if task == HEADING {
        return ScriptedReply::tool_call(
            "done",
            json!({"answer": "The heading reads Your profile.", "success": true}),
        );
    }
    if task == SLOW {
        // An action, not `done`: the stop takes effect at the safe point after it.
        let name = find_ref(&page, "textbox", "Name").unwrap_or(0);
        return ScriptedReply::tool_call("type", json!({"ref": name, "text": "Grace"}))
            .delayed(if n == 0 { 4000 } else { 0 });
    }
    if task == BAD_KEY {
        return ScriptedReply::error(401, "Incorrect API key provided (scripted)");
    }
    panic!("unexpected navigator prompt for task {task:?}");
}

/// Retention days, readable folders and largest file (MB), as the settings form shows them.
fn host_file_fields(panel: &Panel) -> Value {
    eval(
        panel,
        "['retention-days', 'read-dirs', 'max-read-mb'].map(id => document.getElementById(id).value)",
    )
}

/// Each price row: model, input, output.
fn price_rows(panel: &Panel) -> Value {
    eval(
        panel,
        "[...document.querySelectorAll('#prices .price-row:not(.price-head)')].map(r => \
           [r.querySelector('.price-model span').textContent, \
            ...[...r.querySelectorAll('input')].map(i => i.value)])",
    )
}

fn history_value(panel: &Panel, key: &str) -> String {
    panel.page.press_key(key).expect("key");
    eval(panel, "document.getElementById('prompt').value").as_str().unwrap_or_default().to_owned()
}

fn settings_status_prompt_box_findings_and_keyboard(extension: &Path) {
    let site = site();
    let source = site.url("/form.html");
    let calls = Arc::new(Mutex::new(HashMap::new()));
    let llm = {
        let calls = calls.clone();
        let source = source.clone();
        ScriptedLlm::start(move |req| script(req, &calls, &source)).expect("scripted LLM")
    };
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let _page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel_sized(&panel);
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    wait_js(&panel, "!document.getElementById('prompt').disabled");
    // A fresh profile opens on the first-run guide; its steps, then skipped for good.
    wait_js(&panel, "!document.getElementById('guide').hidden");
    shot(&panel, "guide-host");
    click(&panel, "guide-next");
    wait_js(&panel, "!document.getElementById('guide-model').hidden");
    shot(&panel, "guide-model");
    click(&panel, "guide-next");
    wait_js(&panel, "!document.getElementById('guide-sample').hidden");
    shot(&panel, "guide-sample");
    click(&panel, "guide-skip");
    wait_js(&panel, "document.getElementById('guide').hidden");
    shot(&panel, "idle");
    click(&panel, "status");
    wait_js(&panel, "!document.getElementById('status-details').hidden");
    shot(&panel, "status-details");
    click(&panel, "status");
    click(&panel, "drawer-open");
    wait_js(&panel, "document.body.classList.contains('drawer-open')");
    shot(&panel, "sessions-drawer");
    click(&panel, "drawer-open");

    // The open-panel command is declared with a shortcut.
    let commands = eval(
        &panel,
        "chrome.commands.getAll().then(c => c.map(x => [x.name, x.shortcut, x.description]))",
    );
    let action = commands.as_array().and_then(|c| c.iter().find(|c| c[0] == "_execute_action"));
    assert!(action.is_some(), "open-panel command: {commands}");

    // Accessibility basics: every control has a name; one live region carries step updates.
    let unlabelled = eval(
        &panel,
        "[...document.querySelectorAll('input, select, textarea, button')].filter(e => \
           !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim())) \
           .map(e => e.id || e.outerHTML)",
    );
    assert_eq!(unlabelled, json!([]), "controls without a label");
    assert_eq!(eval(&panel, "document.getElementById('live').getAttribute('aria-live')"), "polite");
    assert_contrast(&panel, "light");

    // --- Settings: the host's settings, keys write-only.
    click(&panel, "settings-open");
    wait_js(&panel, "document.getElementById('navigator-model')?.value === 'scripted-model'");
    assert_eq!(panel.text("navigator-key-state").expect("key state"), "key set");
    assert_eq!(eval(&panel, "document.getElementById('planner-api_key').type"), "password");
    assert_eq!(eval(&panel, "document.getElementById('planner-api_key').value"), "");
    assert!(
        !eval(&panel, "document.getElementById('transcripts').checked").as_bool().unwrap_or(true)
    );

    // A reply limit left empty is the role's default, which Rust writes as its placeholder.
    let limit =
        |id: &str, what: &str| eval(&panel, &format!("document.getElementById('{id}').{what}"));
    assert_eq!(limit("validator-max_tokens", "placeholder"), "default 400");
    assert_eq!(limit("validator-max_tokens", "value"), "");

    // Invalid fields are reported by Rust and nothing is saved.
    set_value(&panel, "validator-base_url", "ftp://nowhere");
    set_value(&panel, "allowed-sites", "exa mple.com");
    click(&panel, "settings-save");
    wait_js(&panel, "document.querySelectorAll('#settings-errors li').length === 2");
    assert_eq!(
        eval(&panel, "document.getElementById('validator-base_url').getAttribute('aria-invalid')"),
        "true"
    );
    let errors = eval(&panel, "document.getElementById('settings-errors').textContent");
    assert!(errors.as_str().is_some_and(|e| e.contains("Validator")), "{errors}");

    // Corrected: a new summariser model, a planner key, transcripts on, an allowed site.
    set_value(&panel, "validator-base_url", &llm.base_url());
    set_value(&panel, "allowed-sites", "example.com\nhttps://shop.example.org/cart");
    set_value(&panel, "summariser-model", "summary-model");
    set_value(&panel, "planner-api_key", "sk-panel-secret");
    set_value(&panel, "validator-max_tokens", "300");
    eval(&panel, "document.getElementById('transcripts').click()");
    click(&panel, "settings-save");
    panel.wait_text("settings-notice", "t === 'Saved.'").expect("saved");
    assert_eq!(eval(&panel, "document.getElementById('planner-api_key').value"), "");
    assert_eq!(panel.text("planner-key-state").expect("key state"), "key set");
    assert!(eval(&panel, "document.getElementById('transcripts').checked").as_bool() == Some(true));
    let config = std::fs::read_to_string(wm.work.path().join("config/config.toml"))
        .expect("the host wrote its config");
    assert!(config.contains("summary-model") && config.contains("sk-panel-secret"), "{config}");
    assert!(config.contains("max_tokens = 300"), "{config}");
    // The key never reaches the page or extension storage.
    let everywhere = eval(
        &panel,
        "chrome.storage.local.get(null).then(s => JSON.stringify(s) + document.documentElement.outerHTML)",
    );
    assert!(!everywhere.as_str().unwrap_or_default().contains("sk-panel-secret"));
    let stored = eval(&panel, "chrome.storage.local.get('settings:agent')");
    assert_eq!(
        stored["settings:agent"]["allowed_sites"],
        json!(["https://example.com", "https://shop.example.org"])
    );

    // Files and prices: Rust fills them from the host (30 days and 25 MB are the defaults; both
    // models run on this computer, so they are free until priced).
    assert_eq!(host_file_fields(&panel), json!(["30", "", "25"]));
    wait_js(
        &panel,
        "document.getElementById('price-1-input')?.name === 'prices.summary-model.input'",
    );
    assert_eq!(
        price_rows(&panel),
        json!([["scripted-model", "0", "0"], ["summary-model", "0", "0"]])
    );
    // A bad size is refused with its field marked.
    set_value(&panel, "max-read-mb", "0");
    click(&panel, "settings-save");
    wait_js(&panel, "document.querySelectorAll('#settings-errors li').length === 1");
    assert_eq!(
        eval(&panel, "document.getElementById('max-read-mb').getAttribute('aria-invalid')"),
        "true"
    );
    let errors = panel.text("settings-errors").expect("errors");
    assert!(errors.starts_with("Largest file the host reads (MB): a size in MB"), "{errors}");
    // Retention, a readable folder, a size and a price, saved to the host.
    let docs = wm.work.path().join("docs");
    std::fs::create_dir_all(&docs).expect("docs dir");
    let docs = docs.display().to_string();
    set_value(&panel, "retention-days", "7");
    set_value(&panel, "read-dirs", &format!("{docs}\n"));
    set_value(&panel, "max-read-mb", "0.5");
    set_value(&panel, "price-1-input", "0.4");
    set_value(&panel, "price-1-output", "1.6");
    click(&panel, "settings-save");
    panel.wait_text("settings-notice", "t === 'Saved.'").expect("saved");
    assert_eq!(eval(&panel, "document.querySelectorAll('#settings [aria-invalid]').length"), 0);
    let config = std::fs::read_to_string(wm.work.path().join("config/config.toml"))
        .expect("the host wrote its config");
    for line in [
        "retention_days = 7",
        "max_bytes = 524288",
        docs.as_str(),
        "[prices.summary-model]",
        "input = 0.4",
        "output = 1.6",
    ] {
        assert!(config.contains(line), "{line} in {config}");
    }
    assert!(!config.contains("scripted-model]"), "an unchanged price is not sent: {config}");
    // A new host process reads the same settings back.
    let fresh = eval(
        &panel,
        "chrome.runtime.sendNativeMessage('com.waymark.host', {v: 1, id: 1, type: 'config.get'})",
    );
    let fresh = &fresh["data"];
    assert_eq!(fresh["transcripts"]["retention_days"], 7, "{fresh}");
    assert_eq!(fresh["roles"]["validator"]["max_tokens"], 300, "{fresh}");
    assert_eq!(limit("validator-max_tokens", "value"), "300");
    assert_eq!(fresh["allowed_read_dirs"], json!([docs]));
    assert_eq!(fresh["max_read_bytes"], 524_288);
    assert_eq!(
        fresh["prices"]["summary-model"],
        json!({"input": 0.4, "output": 1.6, "source": "user"})
    );
    assert_eq!(host_file_fields(&panel), json!(["7", docs, "0.5"]));
    assert_eq!(
        price_rows(&panel),
        json!([["scripted-model", "0", "0"], ["summary-model", "0.4", "1.6"]])
    );

    // Check setup: the host's doctor checks, each shown.
    click(&panel, "check-setup");
    panel.wait_text("doctor-status", "t.includes('checks passed')").expect("doctor ran");
    let checks = eval(
        &panel,
        "[...document.querySelectorAll('#doctor-results li')].map(li => li.textContent)",
    );
    let checks: Vec<String> = serde_json::from_value(checks).expect("checks");
    assert!(checks.iter().any(|c| c.starts_with("OK") && c.contains("is reachable")), "{checks:?}");
    assert!(checks.iter().any(|c| c.contains("the browser started this host")), "{checks:?}");
    shot(&panel, "settings");
    eval(&panel, "document.getElementById('files-settings').scrollIntoView()");
    shot(&panel, "settings-files-prices");
    eval(&panel, "document.getElementById('settings').scrollIntoView({block: 'end'})");
    shot(&panel, "settings-doctor");
    // Both prices emptied: the user's price is dropped (later costs stay those of a local model).
    set_value(&panel, "price-1-input", "");
    set_value(&panel, "price-1-output", "");
    click(&panel, "settings-save");
    panel.wait_text("settings-notice", "t === 'Saved.'").expect("saved");
    wait_js(&panel, "document.getElementById('price-1-input').value === '0'");
    let config = std::fs::read_to_string(wm.work.path().join("config/config.toml"))
        .expect("the host wrote its config");
    assert!(!config.contains("prices"), "{config}");
    // Escape closes the settings and gives the focus back.
    panel.page.press_key("Escape").expect("escape");
    wait_js(&panel, "document.getElementById('settings').hidden");
    assert_eq!(eval(&panel, "document.activeElement.id"), "settings-open");

    // --- A confirmation card (a new site), denied.
    panel.send(ELSEWHERE).expect("send");
    wait_js(
        &panel,
        "document.getElementById('intervention').dataset.kind === 'confirm' && !document.getElementById('intervention').hidden",
    );
    shot(&panel, "confirmation-card");
    click(&panel, "intervention-deny");
    panel.wait_text("answer", "t.includes('did not allow')").expect("denied");

    // --- Attachments: full paths only; the task gets them by name.
    click(&panel, "attach-toggle");
    set_value(&panel, "attach-path", "notes.txt");
    eval(&panel, "document.getElementById('attach-form').requestSubmit()");
    panel.wait_text("attach-error", "t.includes('not a full path')").expect("refused");
    set_value(&panel, "attach-path", ATTACHED);
    eval(&panel, "document.getElementById('attach-form').requestSubmit()");
    wait_js(
        &panel,
        "document.querySelector('#attachments li')?.textContent.includes('waymark-notes.txt')",
    );

    // --- A verbose task: rate limited first, a checkpoint, findings with a link.
    eval(&panel, "document.getElementById('mode').value = 'verbose'");
    panel.send(FILL).expect("send");
    panel.wait_text("llm-status", "t.includes('rate limited')").expect("rate limit shown");
    shot(&panel, "rate-limited");
    wait_js(&panel, "document.querySelectorAll('#attachments li').length === 0");
    panel.wait_text("llm-status", "t.includes('LLM ready')").expect("ready again");
    wait_js(&panel, "document.querySelectorAll('#steps li').length === 1");
    panel.wait_text("task-usage", "t.includes('tokens')").expect("task usage");
    assert!(panel.text("live").expect("live").starts_with("Step 1:"));
    shot(&panel, "running-verbose");
    wait_js(&panel, "!document.getElementById('intervention').hidden");
    assert!(panel.text("intervention-title").expect("card").starts_with("Checkpoint"));
    shot(&panel, "checkpoint-card");
    click(&panel, "intervention-send");
    panel.wait_text("answer", "t.includes('Saved <b>Ada</b>')").expect("answer");
    // Model text is shown as text: no element was created from it.
    assert_eq!(eval(&panel, "document.getElementById('answer').childElementCount"), 0);
    wait_js(&panel, "document.querySelectorAll('#findings-table tbody tr').length === 3");
    let link = eval(
        &panel,
        "(() => { const a = document.querySelector('#findings-table a'); \
           return a && [a.href, a.target, a.rel, a.textContent]; })()",
    );
    assert_eq!(link, json!([source, "_blank", "noopener noreferrer", source]));
    let note = eval(
        &panel,
        "[...document.querySelectorAll('#findings-table tbody tr')].find(r => r.cells[0].textContent === 'note')\
           .cells[0].parentElement.querySelector('td').childElementCount",
    );
    assert_eq!(note, 0, "HTML in a finding stays text");
    assert_eq!(eval(&panel, "document.querySelectorAll('img').length"), 0);
    eval(&panel, "document.getElementById('findings').scrollIntoView({block: 'end'})");
    shot(&panel, "findings");
    let fill_requests: Vec<RecordedRequest> = llm
        .requests()
        .into_iter()
        .filter(|r| task_of(r) == FILL && role_of(r) == "navigator")
        .collect();
    assert!(
        fill_requests.iter().any(|r| message_text(&r.body, 1).contains("waymark-notes.txt")),
        "the attachment reached the task"
    );
    // The summariser uses the model chosen in Settings.
    let summary_models: Vec<String> = llm
        .requests()
        .iter()
        .filter(|r| role_of(r) == "summariser")
        .filter_map(|r| r.model().map(str::to_owned))
        .collect();
    assert!(summary_models.iter().all(|m| m == "summary-model") && !summary_models.is_empty());
    panel.wait_text("session-usage", "t.includes('tokens')").expect("session usage");

    // --- JSON mode with its copy button.
    #[allow(
        clippy::unused_result_ok,
        reason = "without the grant the copy button still works in headless Chromium; the check below decides"
    )]
    panel
        .page
        .call(
            "Browser.grantPermissions",
            json!({"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
                   "origin": format!("chrome-extension://{}", common::EXTENSION_ID)}),
        )
        .ok();
    eval(&panel, "document.getElementById('mode').value = 'json'");
    panel.send(HEADING).expect("send");
    panel
        .wait_text("answer", "t.includes('\"task\"') && t.includes('Your profile')")
        .expect("json");
    wait_js(&panel, "!document.getElementById('copy-json').hidden");
    panel.page.focus("#copy-json").expect("focus");
    click(&panel, "copy-json");
    let copied = wait_js(&panel, "document.body.dataset.copied");
    let shown = panel.text("answer").expect("answer");
    assert_eq!(copied.as_str(), Some(shown.as_str()));
    assert!(serde_json::from_str::<Value>(&shown).is_ok(), "the JSON result parses: {shown}");

    // --- Export, then copy the prompt that names the written file (for Claude Code).
    click(&panel, "export");
    panel.wait_text("export-status", "t.startsWith('Exported to')").expect("exported");
    let status = panel.text("export-status").expect("status");
    let path = status.trim_start_matches("Exported to ").to_owned();
    assert!(std::path::Path::new(&path).is_file(), "the host wrote {path}");
    wait_js(&panel, "!document.getElementById('copy-prompt').hidden");
    click(&panel, "copy-prompt");
    let copied = wait_js(
        &panel,
        "document.body.dataset.copied?.includes('markdown file') && document.body.dataset.copied",
    );
    let copied = copied.as_str().unwrap_or_default();
    assert!(copied.contains(&format!("`{path}`")), "the prompt names the file: {copied}");
    assert!(copied.contains("Waymark browser agent"), "{copied}");
    eval(&panel, "document.getElementById('copy-prompt').scrollIntoView()");
    shot(&panel, "exported");

    // --- History: Up at the start walks back, Down at the end walks forward to the draft.
    panel.page.focus("#prompt").expect("focus");
    set_value(&panel, "prompt", "");
    assert_eq!(history_value(&panel, "ArrowUp"), HEADING);
    assert_eq!(history_value(&panel, "ArrowUp"), FILL);
    assert_eq!(history_value(&panel, "ArrowDown"), HEADING);
    assert_eq!(history_value(&panel, "ArrowDown"), "");

    // --- Shift+Enter adds a line instead of sending.
    panel.page.insert_text("first line").expect("type");
    for kind in ["keyDown", "keyUp"] {
        let mut event = json!({"type": kind, "key": "Enter", "code": "Enter",
                               "windowsVirtualKeyCode": 13, "modifiers": 8});
        if kind == "keyDown" {
            event["text"] = json!("\r");
        }
        panel.page.call("Input.dispatchKeyEvent", event).expect("shift+enter");
    }
    panel.page.insert_text("second line").expect("type");
    assert_eq!(eval(&panel, "document.getElementById('prompt').value"), "first line\nsecond line");
    assert_eq!(panel.text("task-prompt").expect("task"), HEADING, "nothing was sent");
    set_value(&panel, "prompt", "");

    // --- Ctrl+E exports.
    press_with(&panel, "e", "KeyE", 69, 2);
    panel.wait_text("export-status", "t.startsWith('Exported to')").expect("exported");

    // --- Escape stops the running task.
    eval(&panel, "document.getElementById('mode').value = 'default'");
    panel.send(SLOW).expect("send");
    wait_js(&panel, "!document.getElementById('task-controls').hidden");
    panel.page.press_key("Escape").expect("escape");
    let stopped = panel.answer().expect("stopped");
    assert!(stopped.starts_with("Stopped by you"), "{stopped}");

    // --- A rejected key shows as such.
    // Per role: the navigator's bad key shows by its name, beside the roles that still answer.
    panel.send(BAD_KEY).expect("send");
    panel.wait_text("llm-status", "/Navigator.*: API key rejected/.test(t)").expect("key invalid");
    let ready = eval(&panel, "document.querySelector('#llm-status .ready')?.textContent ?? ''");
    assert!(ready.as_str().is_some_and(|t| t.contains("(planner")), "{ready}");
    panel.answer().expect("answer");
    shot(&panel, "key-invalid");

    // Dark theme: the same panel, following the system.
    panel
        .page
        .call(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
        )
        .expect("dark");
    eval(&panel, "window.scrollTo(0, 0)");
    assert_contrast(&panel, "dark");
    llm.assert_no_script_panics().expect("script");
}

fn host_missing_is_explained_with_the_fix(extension: &Path) {
    let llm = ScriptedLlm::always_text("unused").expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: false, site: site() })
        .expect("launch");
    let panel = wm.panel().expect("panel");
    panel_sized(&panel);
    let status = panel.wait_text("host-status", "t.includes('Fix')").expect("missing host");
    assert!(status.contains("waymark-host install --browser"), "{status}");
    // The prompt box still works (a task then explains what is missing).
    wait_js(&panel, "!document.getElementById('prompt').disabled");
    shot(&panel, "host-missing");
    click(&panel, "settings-open");
    panel.wait_text("settings-host-error", "t.length > 0").expect("settings say why");
    // The extension's own settings still save.
    set_value(&panel, "allowed-sites", "example.com");
    click(&panel, "settings-save");
    panel.wait_text("settings-notice", "t.startsWith('Saved the allowed sites')").expect("saved");
    let stored = eval(&panel, "chrome.storage.local.get('settings:agent')");
    assert_eq!(stored["settings:agent"]["allowed_sites"], json!(["https://example.com"]));
    click(&panel, "check-setup");
    panel.wait_text("doctor-status", "t.startsWith('Could not run the checks')").expect("doctor");
    shot(&panel, "host-missing-settings");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, settings_status_prompt_box_findings_and_keyboard),
        e2e!(extension, host_missing_is_explained_with_the_fix),
    ]
}
