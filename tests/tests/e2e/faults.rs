//! Faults end to end in real Chromium: uploads of task resources (and the refusals around them),
//! the native host killed mid-call, the tab closed or navigated under an action, the model
//! endpoint failing in every way it can (429, 500, silence, cut streams), and storage running
//! out of quota. Each test says what the user sees and checks that nothing is lost or repeated.
//!
//! The service worker stopped mid-task is covered by
//! `agent.rs::a_worker_killed_mid_task_resumes_from_the_last_completed_step`; garbage from the
//! model and one 500 then recovery by `skeleton.rs`.

use crate::common;
use common::{
    Gate, Panel, Setup, TASK_TIMEOUT, Waymark, descendants_running, extension_with_quota,
    fill_the_form, find_ref, is_summary_call, message_text, role_of, role_reply,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// The form fixture, plus `/away.html` (a page the user navigates to) for the tab tests.
fn site() -> FixtureServer {
    FixtureServer::builder(paths::fixtures_dir().join("site"))
        .with_page(
            "/away.html",
            "<!doctype html><title>Away</title><h1>Welcome back</h1><p>Another page.</p>",
        )
        .start()
        .expect("fixture server")
}

fn zoo() -> FixtureServer {
    FixtureServer::start(paths::fixtures_dir().join("zoo")).expect("zoo server")
}

fn done(answer: &str) -> ScriptedReply {
    ScriptedReply::tool_call("done", json!({"answer": answer, "success": true}))
}

/// The task a navigator request works on (the last `Task:` line: earlier tasks of the session
/// appear in its context too).
fn task_of(req: &RecordedRequest) -> String {
    message_text(&req.body, 1)
        .lines()
        .filter_map(|l| l.strip_prefix("New task: ").or_else(|| l.strip_prefix("Task: ")))
        .next_back()
        .unwrap_or_default()
        .to_owned()
}

/// Writes the host's `config.toml` (read by every host process at start, so before the panel
/// first connects).
fn host_config(wm: &Waymark, toml: &str) {
    let path = wm.work.path().join("config").join("config.toml");
    std::fs::write(&path, toml).expect("write host config");
}

/// Starts a task from the panel page with resources attached, through a second panel port (the
/// panel view has no resource picker of its own yet; the worker treats both ports alike).
fn start_task_with_resources(panel: &Panel, prompt: &str, resources: &Value) {
    let js = format!(
        "(() => {{ const p = chrome.runtime.connect({{ name: 'panel' }}); \
         p.postMessage({{ type: 'start_task', prompt: {prompt}, resources: {resources} }}); \
         globalThis.__extraPorts = [...(globalThis.__extraPorts || []), p]; return true; }})()",
        prompt = serde_json::to_string(prompt).expect("json"),
    );
    panel.page.eval(&js).expect("start task");
}

fn wait_answer(panel: &Panel, expect: &str) -> String {
    let predicate = format!("t.includes({})", serde_json::to_string(expect).expect("json"));
    panel.wait_text("answer", &predicate).unwrap_or_else(|e| {
        let shown = panel.text("answer").unwrap_or_default();
        let progress = panel.text("task-progress").unwrap_or_default();
        panic!("waiting for an answer with {expect:?} (shown: {shown:?}, {progress:?}): {e:#}")
    })
}

/// Approves every confirmation card (as a user who asked for these uploads would) until the
/// answer containing `expect` is shown; returns each card's title and message.
fn approve_until_answer(panel: &Panel, expect: &str) -> Vec<String> {
    let js = format!(
        "(() => {{ const c = document.getElementById('intervention'); \
         if (!c.hidden && c.dataset.kind === 'confirm') return {{card: \
           document.getElementById('intervention-title').textContent + ' ' + \
           document.getElementById('intervention-message').textContent}}; \
         const a = document.getElementById('answer'); \
         return a && !a.hidden && a.textContent.includes({m}) ? {{answer: true}} : false; }})()",
        m = serde_json::to_string(expect).expect("json")
    );
    let mut cards = Vec::new();
    loop {
        let seen = panel.page.wait_for(&js, TASK_TIMEOUT).unwrap_or_else(|e| {
            let progress = panel.text("task-progress").unwrap_or_default();
            panic!("waiting for a card or {expect:?} ({progress:?}, cards {cards:?}): {e:#}")
        });
        let Some(card) = seen.get("card").and_then(Value::as_str) else { return cards };
        let card = card.to_lowercase();
        panel
            .page
            .eval("document.getElementById('intervention-approve').click()")
            .expect("approve");
        let gone = format!(
            "(() => {{ const c = document.getElementById('intervention'); return c.hidden || \
             (document.getElementById('intervention-title').textContent + ' ' + \
              document.getElementById('intervention-message').textContent).toLowerCase() !== {}; }})()",
            serde_json::to_string(&card).expect("json")
        );
        panel.page.wait_for(&gone, TASK_TIMEOUT).expect("card answered");
        cards.push(card);
    }
}

/// Waits until the agent has begun the `wait` action for `text`: the task's write-ahead journal
/// (in `chrome.storage.local`, read from the panel page) holds its intent, which the loop writes
/// right before it acts.
fn wait_action_begun(panel: &Panel, text: &str) {
    let js = format!(
        "chrome.storage.local.get(null).then((all) => Object.values(all).some((v) => \
           v && v.entry === 'intent' && v.action && v.action.action === 'wait' && \
           v.action.text === {}))",
        json!(text)
    );
    panel.page.wait_for(&js, TASK_TIMEOUT).expect("the wait action began");
}

fn steps(panel: &Panel) -> Vec<String> {
    panel.steps().expect("steps")
}

fn page_text(page: &waymark_tests::chromium::Page, js: &str) -> String {
    page.eval(js).expect("page eval").as_str().unwrap_or_default().to_owned()
}

/// Tool results the model received in its latest request, flattened to text.
fn latest_tool_results(llm: &ScriptedLlm) -> String {
    let requests = llm.requests();
    let last = requests.iter().rev().find(|r| role_of(r) == "navigator").expect("navigator");
    message_text(&last.body, 1)
}

/// Bytes of the larger upload: text (the page echoes it into its DOM) in a pattern that a
/// truncated or reordered copy would not match.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| if i % 64 == 63 { b'\n' } else { b'a' + (i % 26) as u8 }).collect()
}

fn an_attached_resource_is_uploaded_and_nothing_else_can_be(extension: &Path) {
    let calls = Arc::new(Mutex::new(0usize));
    let counter = calls.clone();
    let llm = ScriptedLlm::start(move |req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let page = message_text(&req.body, 1);
        let Some(input) = find_ref(&page, "file", "Attachment") else {
            return ScriptedReply::text("no file input");
        };
        let mut n = counter.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        let upload =
            |file: &str| ScriptedReply::tool_call("upload", json!({"ref": input, "file": file}));
        match *n {
            // Attached and inside the allowed directory: uploaded, a large one and a small one.
            1 => upload("photos"),
            2 => upload("notes"),
            // Attached, but outside the host's allowed directories: the host refuses.
            3 => upload("secret"),
            // Never attached (what a hostile page would ask for): refused before the host.
            4 => upload("~/.ssh/id_rsa"),
            // Attached and allowed by the host, but above the agent's own upload cap.
            5 => upload("huge"),
            _ => done("Uploaded notes.txt."),
        }
    })
    .expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: zoo() })
        .expect("launch");
    let uploads = wm.work.path().join("uploads");
    std::fs::create_dir_all(&uploads).expect("uploads dir");
    std::fs::write(uploads.join("notes.txt"), "hello waymark").expect("notes");
    // Five chunks of the host's (256 KiB each, not a multiple of 3: base64 cannot be joined).
    let large = pattern(1024 * 1024 + 7);
    std::fs::write(uploads.join("photos.zip"), &large).expect("large");
    let huge = waymark_core::upload::MAX_UPLOAD_BYTES as usize + 1024 * 1024;
    std::fs::write(uploads.join("huge.bin"), vec![b'x'; huge]).expect("huge");
    let secret = wm.work.path().join("secret.txt");
    std::fs::write(&secret, "canary-secret-3141").expect("secret");
    host_config(
        &wm,
        &format!(
            "[files]\nallowed_dirs = [{}]\nmax_bytes = {}\n",
            serde_json::to_string(&uploads.display().to_string()).expect("json"),
            32 * 1024 * 1024
        ),
    );
    let page = wm.open("/upload.html").expect("open upload page");
    // What the page's own script receives: name, size and a checksum of every file set.
    page.eval(
        "window.__files = []; document.getElementById('file').addEventListener('change', async () => { \
           const f = document.getElementById('file').files[0]; \
           const bytes = new Uint8Array(await f.arrayBuffer()); \
           let sum = 0; for (let i = 0; i < bytes.length; i++) sum = (sum * 31 + bytes[i]) % 1000000007; \
           window.__files.push([f.name, f.type, f.size, sum]); }); true",
    )
    .expect("watch the input");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");

    let resources = json!({
        "notes": uploads.join("notes.txt"),
        "photos": uploads.join("photos.zip"),
        "secret": secret,
        "huge": uploads.join("huge.bin"),
    });
    start_task_with_resources(&panel, "Attach my notes to the form", &resources);
    // Every upload of an attached file is a confirmation the user approves; the one naming a
    // file that is not attached is refused by the policy before any card.
    let cards = approve_until_answer(&panel, "Uploaded");
    assert_eq!(panel.text("answer").expect("answer"), "Uploaded notes.txt.");
    assert_eq!(cards.len(), 4, "photos, notes, secret and huge were each confirmed: {cards:?}");
    assert!(cards.iter().all(|c| c.contains("upload")), "{cards:?}");

    // The page's own script saw both files, whole, with their names, types and sizes.
    let checksum =
        |bytes: &[u8]| bytes.iter().fold(0u64, |s, b| (s * 31 + u64::from(*b)) % 1_000_000_007);
    page.wait_for("window.__files.length === 2", TASK_TIMEOUT).expect("two files seen");
    assert_eq!(
        page.eval("window.__files").expect("files"),
        json!([
            ["photos.zip", "application/zip", large.len(), checksum(&large)],
            ["notes.txt", "text/plain", 13, checksum(b"hello waymark")],
        ])
    );
    assert_eq!(
        page_text(&page, "document.getElementById('info').textContent"),
        "File: notes.txt text/plain 13 hello waymark"
    );
    assert_eq!(page_text(&page, "window.__uploadEvents.join()"), "input,change,input,change");

    let steps = steps(&panel);
    assert_eq!(steps.len(), 5, "{steps:?}");
    assert!(!steps[0].contains("failed") && !steps[1].contains("failed"), "{steps:?}");
    assert!(
        steps[2].contains("failed: the host could not read “secret” (file_refused)"),
        "{steps:?}"
    );
    assert!(steps[2].contains("outside the allowed directories"), "{steps:?}");
    assert!(steps[3].contains("“~/.ssh/id_rsa” is not a file attached to this task"), "{steps:?}");
    assert!(
        steps[4].contains("“huge” is too large to upload")
            && steps[4].contains("above the 10485760-byte limit"),
        "{steps:?}"
    );
    // The model was told why, and the refused file's content went nowhere.
    let told = latest_tool_results(&llm);
    assert!(told.contains("uploaded notes.txt (13 bytes)"), "{told}");
    assert!(told.contains("only those can be uploaded"), "{told}");
    assert!(!llm.requests().iter().any(|r| r.raw_body.contains("canary-secret-3141")));
    llm.assert_no_script_panics().expect("script ok");
}

/// The model a user would hope for on the form fixture.
fn form_filler(req: &RecordedRequest) -> ScriptedReply {
    fill_the_form(req, "Saved the name Ada.")
}

fn the_host_killed_mid_call_is_restarted_and_the_task_finishes(extension: &Path) {
    let navigator_calls = Arc::new(Mutex::new(0usize));
    let counter = navigator_calls.clone();
    let llm = ScriptedLlm::start(move |req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let mut n = counter.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        // The first navigator call hangs until the host that made it is killed.
        if *n == 1 { form_filler(req).delayed(30_000) } else { form_filler(req) }
    })
    .expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    panel.send("Fill the name field with Ada and press Save").expect("send");

    let requests = llm.wait_for_requests(2, TASK_TIMEOUT).expect("navigator call in flight");
    assert_eq!(role_of(&requests[1]), "navigator");
    let host = common::host_binary().canonicalize().expect("host binary");
    let before = descendants_running(wm.browser.pid(), &host);
    assert_eq!(before.len(), 1, "one host process per port: {before:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(before[0]),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the host");

    assert_eq!(wait_answer(&panel, "Saved"), "Saved the name Ada.");
    let after = descendants_running(wm.browser.pid(), &host);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(after, before, "a new host process took over");
    let notes = page_text(&panel.page, "document.getElementById('notes').textContent");
    assert!(notes.contains("The Waymark host stopped during a model call"), "{notes}");
    assert!(notes.contains("retry 1 of 2"), "{notes}");
    // The lost call was sent again unchanged; the page was filled and saved once.
    let navigator: Vec<_> =
        llm.requests().into_iter().filter(|r| role_of(r) == "navigator").collect();
    assert_eq!(navigator.len(), 3, "lost call, its retry, and the final check");
    assert_eq!(navigator[0].body, navigator[1].body);
    assert_eq!(
        page_text(
            &page,
            "JSON.stringify([window.__seen, document.getElementById('status').textContent])"
        ),
        r#"[{"inputs":1,"changes":1,"clicks":1},"Saved: Ada"]"#
    );
    panel.wait_text("host-status", "t.includes('connected')").expect("status recovered");
    llm.assert_no_script_panics().expect("script ok");
}

fn a_tab_navigated_or_closed_under_an_action_is_reported_clearly(extension: &Path) {
    let llm = ScriptedLlm::start(|req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let page = message_text(&req.body, 1);
        match task_of(req).as_str() {
            "Wait for the welcome" if page.contains("Welcome back") => {
                done("The page now says Welcome back.")
            }
            "Wait for the welcome" => {
                ScriptedReply::tool_call("wait", json!({"text": "Welcome back", "seconds": 15}))
            }
            // (The task starts on /away.html, where the first one left the tab.)
            _ if page.contains("/form.html") => done("Went on in the tab the user opened."),
            _ => ScriptedReply::tool_call(
                "wait",
                json!({"text": "never on any page", "seconds": 15}),
            ),
        }
    })
    .expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");

    // Navigated away during the action: the wait follows the tab to its new page, and the
    // task goes on there.
    panel.send("Wait for the welcome").expect("send");
    llm.wait_for_requests(2, TASK_TIMEOUT).expect("the wait was asked for");
    wait_action_begun(&panel, "Welcome back");
    page.navigate(&wm.site.url("/away.html")).expect("the user navigates");
    assert_eq!(wait_answer(&panel, "Welcome back"), "The page now says Welcome back.");
    let navigator: Vec<String> = llm
        .requests()
        .iter()
        .filter(|r| role_of(r) == "navigator")
        .map(|r| message_text(&r.body, 1))
        .collect();
    assert_eq!(navigator.len(), 2, "the task went on after the navigation");
    assert!(navigator[1].contains("/away.html"), "the model saw the new page");

    // Closed during the action: the action fails at once with the reason, and instead of
    // acting on some other tab by itself the agent asks; the user opens a page and continues.
    let before = llm.request_count();
    panel.send("Wait for something that never comes").expect("send");
    llm.wait_for_requests(before + 2, TASK_TIMEOUT).expect("the wait was asked for");
    wait_action_begun(&panel, "never on any page");
    wm.browser.close_target(page.target_id()).expect("the user closes the tab");
    let card = panel
        .page
        .wait_for(
            "!document.getElementById('intervention').hidden && \
             document.getElementById('intervention-title').textContent",
            TASK_TIMEOUT,
        )
        .expect("the closed-tab card");
    assert_eq!(card, "The tab Waymark was working on was closed");
    let _other = wm.open("/form.html").expect("the user opens the page again");
    panel.page.eval("document.getElementById('intervention-send').click()").expect("continue");
    assert_eq!(
        wait_answer(&panel, "Went on"),
        "Went on in the tab the user opened.",
        "the task went on in the new tab"
    );
    let notes = panel.page.eval("document.getElementById('notes').textContent").expect("notes");
    assert!(notes.as_str().is_some_and(|n| n.contains("Going on in the tab showing")), "{notes}");
    let steps = steps(&panel);
    let last = steps.last().expect("the wait step");
    assert!(last.contains("failed: the tab Waymark was working on"), "{steps:?}");
    // (Closed while the wait polls, or, on a slow machine, just before it began.)
    assert!(
        last.contains("was closed while waiting") || last.contains("was closed during the action"),
        "{steps:?}"
    );
    llm.assert_no_script_panics().expect("script ok");
}

fn model_endpoint_failures_are_retried_or_stop_with_a_clear_message(extension: &Path) {
    let attempts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let seen = attempts.clone();
    let llm = ScriptedLlm::start(move |req| {
        if let Some(r) = role_reply(req) {
            return r;
        }
        let task = task_of(req);
        let n = {
            let mut map = seen.lock().unwrap_or_else(|p| p.into_inner());
            let n = map.entry(task.clone()).or_default();
            *n += 1;
            *n
        };
        let ok = done(&format!("Finished: {task}."));
        match (task.as_str(), n) {
            ("Rate limited once", 1) => ScriptedReply::rate_limited(1),
            ("Rate limited for ten minutes", _) => ScriptedReply::rate_limited(600),
            ("Server keeps failing", _) => ScriptedReply::error(500, "upstream on fire"),
            ("Slow once", 1) => ok.delayed(5_000),
            ("Never answers", _) => ok.delayed(5_000),
            ("Stream cut once", 1) => ScriptedReply::CutStream,
            _ => ok,
        }
    })
    .expect("scripted LLM");
    let wm = Waymark::launch(extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    // Short timeouts so silence is detected quickly (the defaults are minutes).
    host_config(&wm, "[llm]\nrequest_timeout_secs = 2\nidle_timeout_secs = 2\n");
    let _page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");

    let navigator_for = |task: &str| -> Vec<RecordedRequest> {
        llm.requests()
            .into_iter()
            .filter(|r| role_of(r) == "navigator" && !is_summary_call(r) && task_of(r) == task)
            .collect()
    };
    // Recovered: the host retries the same request (after Retry-After for 429).
    for task in ["Rate limited once", "Slow once"] {
        panel.send(task).expect("send");
        let expect = format!("Finished: {task}.");
        assert_eq!(wait_answer(&panel, &expect), expect);
        let calls = navigator_for(task);
        assert_eq!(calls.len(), 2, "{task}: one failed call and its retry");
        assert_eq!(calls[0].body, calls[1].body, "{task}: the retry resends the same request");
    }
    // Stopped with a message that says what failed and what to do.
    let cases = [
        // Retry-After beyond a minute: reported at once with the wait, not slept through.
        ("Rate limited for ten minutes", "the endpoint asks to wait 600 s", 1),
        ("Server keeps failing", "upstream on fire", 4),
        ("Never answers", "sent nothing for 2 s", 4),
        // Cut after text was streamed: the host does not retry once text went out.
        ("Stream cut once", "the LLM stream broke off", 1),
    ];
    for (task, expect, calls) in cases {
        panel.send(task).expect("send");
        let answer = wait_answer(&panel, expect);
        assert!(answer.starts_with("The model endpoint"), "{task}: {answer}");
        if task == "Never answers" {
            assert!(answer.contains("raise llm.idle_timeout_secs"), "says what to do: {answer}");
        }
        assert_eq!(navigator_for(task).len(), calls, "{task}: attempts");
        assert!(steps(&panel).is_empty(), "{task}: nothing was done on the page");
    }
    llm.assert_no_script_panics().expect("script ok");
}

/// Fills `chrome.storage.local` until it refuses even a few bytes; returns the keys written.
const FILL_STORAGE: &str = "(async () => { let i = 0; \
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1 << 4, 1]) { \
      const chunk = 'x'.repeat(size); \
      try { for (;;) { await chrome.storage.local.set({ ['filler:' + i]: chunk }); i++; } } \
      catch (e) { globalThis.__quotaError = String(e && e.message || e); } } \
    return i; })()";

fn exhausted_storage_quota_is_explained_and_nothing_stored_is_lost(built: &Path) {
    let copy = tempfile::tempdir().expect("temp dir");
    let extension = extension_with_quota(built, copy.path());
    let gate = Gate::default();
    let held = gate.clone();
    let llm = ScriptedLlm::start(move |req| {
        if is_summary_call(req) {
            return ScriptedReply::text("no summary today");
        }
        if let Some(r) = role_reply(req) {
            return r;
        }
        if task_of(req) == "delta task" {
            // Answers only once the test has filled the storage under the running task.
            held.wait();
            let page = message_text(&req.body, 1);
            let name = find_ref(&page, "textbox", "Name").expect("Name field");
            return ScriptedReply::tool_call("type", json!({"ref": name, "text": "Ada"}));
        }
        done(&format!("Answer to {}.", task_of(req)))
    })
    .expect("scripted LLM");
    let wm = Waymark::launch(&extension, Setup { llm: &llm, install_host: true, site: site() })
        .expect("launch");
    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.send("alpha task").expect("send");
    wait_answer(&panel, "Answer to alpha task.");
    panel
        .page
        .wait_for("document.querySelectorAll('#toc li').length === 1", TASK_TIMEOUT)
        .expect("alpha stored");

    let worker = wm.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    let sw = wm.browser.attach(&worker.target_id).expect("attach worker");
    // The session's automatic title is stored after the turn: wait for it too, so the
    // snapshot below holds everything the task stored (under load it could miss the title).
    sw.wait_for(
        "chrome.storage.local.get(null).then((all) => Object.entries(all).some(([k, v]) => \
         k.endsWith(':meta') && v.title === 'alpha task'))",
        TASK_TIMEOUT,
    )
    .expect("title stored");
    let quota = sw.eval("chrome.storage.local.QUOTA_BYTES").expect("quota");
    assert_eq!(quota, json!(10_485_760), "the copy runs with the real quota");
    let stored_before = sw
        .eval("chrome.storage.local.get(null).then((all) => JSON.stringify(Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith('session')))))")
        .expect("sessions before");
    let fillers = sw.eval_timeout(FILL_STORAGE, TASK_TIMEOUT).expect("fill storage");
    assert!(fillers.as_u64().is_some_and(|n| n > 9), "{fillers}");
    let error = sw.eval("globalThis.__quotaError").expect("quota error");
    assert!(error.as_str().unwrap_or_default().contains("quota exceeded"), "{error}");

    // A task cannot be journalled, so it does not start: the user is told why.
    let task_calls = || llm.requests().iter().filter(|r| !is_summary_call(r)).count();
    let calls_before = task_calls();
    panel.send("beta task").expect("send");
    let answer = wait_answer(&panel, "Could not save the task before starting it");
    assert!(answer.contains("quota exceeded") && answer.contains("nothing was done"), "{answer}");
    assert_eq!(task_calls(), calls_before, "no model call for a task that did not start");
    let storage_error = panel
        .wait_text("storage-error", "t.includes('nothing saved earlier was lost')")
        .expect("storage error shown");
    assert!(storage_error.contains("quota exceeded"), "{storage_error}");

    // Nothing stored earlier was touched, and a fresh worker loads the session from it.
    let stored_after = sw
        .eval("chrome.storage.local.get(null).then((all) => JSON.stringify(Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith('session')))))")
        .expect("sessions after");
    assert_eq!(stored_before, stored_after);
    sw.detach().expect("detach");
    wm.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");
    let panel = wm.panel().expect("panel after the restart");
    panel
        .page
        .wait_for("document.querySelectorAll('#toc li').length >= 1", TASK_TIMEOUT)
        .expect("session loads");
    let toc =
        panel.page.eval("[...document.querySelectorAll('#toc li')].map((li) => li.textContent)");
    assert!(toc.expect("toc")[0].as_str().unwrap_or_default().contains("alpha task"));

    // Space freed: tasks run and are stored again.
    let sw = wm.attach_worker().expect("attach worker again");
    sw.eval_timeout(
        "chrome.storage.local.get(null).then((all) => chrome.storage.local.remove(Object.keys(all).filter((k) => k.startsWith('filler:')))).then(() => true)",
        TASK_TIMEOUT,
    )
    .expect("free space");
    panel.send("gamma task").expect("send");
    wait_answer(&panel, "Answer to gamma task.");
    panel
        .page
        .wait_for("document.getElementById('storage-error').hidden", TASK_TIMEOUT)
        .expect("error cleared");

    // Quota exhausted in the middle of a task: the action's intent cannot be written ahead, so
    // the action is not performed, and the task stops saying why.
    panel.send("delta task").expect("send");
    let asked = |n: usize| {
        llm.wait_for_requests(n, TASK_TIMEOUT)
            .expect("requests")
            .iter()
            .any(|r| role_of(r) == "navigator" && !is_summary_call(r) && task_of(r) == "delta task")
    };
    let mut n = llm.request_count() + 1;
    while !asked(n) {
        n += 1;
    }
    let fillers = sw.eval_timeout(FILL_STORAGE, TASK_TIMEOUT).expect("fill storage again");
    assert!(fillers.as_u64().is_some_and(|n| n > 9), "{fillers}");
    gate.open();
    let answer = wait_answer(&panel, "could not be saved before acting");
    assert!(
        answer.contains("quota exceeded") && answer.contains("nothing more was done"),
        "{answer}"
    );
    assert_eq!(
        page_text(&page, "JSON.stringify(window.__seen)"),
        r#"{"inputs":0,"changes":0,"clicks":0}"#,
        "the action whose intent could not be saved was not performed"
    );
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(extension, an_attached_resource_is_uploaded_and_nothing_else_can_be),
        e2e!(extension, the_host_killed_mid_call_is_restarted_and_the_task_finishes),
        e2e!(extension, a_tab_navigated_or_closed_under_an_action_is_reported_clearly),
        e2e!(extension, model_endpoint_failures_are_retried_or_stop_with_a_clear_message),
        e2e!(extension, exhausted_storage_quota_is_explained_and_nothing_stored_is_lost),
    ]
}
