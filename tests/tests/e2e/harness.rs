//! Smoke tests of the scripted LLM server over real HTTP (ureq as a plain client).

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::time::Duration;
use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
use waymark_tests::trial::E2e;

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

fn post(url: &str, body: &Value) -> (u16, Vec<(String, String)>, String) {
    let mut resp = agent()
        .post(url)
        .header("content-type", "application/json")
        .header("authorization", "Bearer sk-test")
        .send(body.to_string())
        .expect("POST to scripted LLM");
    let status = resp.status().as_u16();
    let headers = resp
        .headers()
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or_default().to_owned()))
        .collect();
    let text = resp.body_mut().read_to_string().expect("read body");
    (status, headers, text)
}

/// Parses an SSE body into its `data:` payloads.
fn sse_data(body: &str) -> Vec<String> {
    body.lines().filter_map(|l| l.strip_prefix("data: ")).map(str::to_owned).collect()
}

fn non_streaming_text_and_tool_calls() {
    let llm = ScriptedLlm::start(|req| match req.index {
        0 => ScriptedReply::text(format!("You said: {}", req.last_user_text().unwrap_or_default())),
        _ => ScriptedReply::tool_call("fill", json!({"target": 3, "text": "Ada"}))
            .with_text("Filling."),
    })
    .expect("start LLM");
    let url = format!("{}/chat/completions", llm.base_url());
    let req = json!({"model": "gpt-test", "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "hello there"}]}]});
    let (status, _, body) = post(&url, &req);
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON reply");
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "gpt-test");
    assert_eq!(v["choices"][0]["message"]["content"], "You said: hello there");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");

    let (_, _, body) = post(&url, &req);
    let v: Value = serde_json::from_str(&body).expect("JSON reply");
    let call = &v["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(v["choices"][0]["message"]["content"], "Filling.");
    assert_eq!(call["function"]["name"], "fill");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().expect("arguments string"))
            .expect("arguments JSON");
    assert_eq!(args, json!({"target": 3, "text": "Ada"}));

    let reqs = llm.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].index, 1);
    assert_eq!(reqs[0].header("Authorization"), Some("Bearer sk-test"));
    assert!(reqs[0].all_text().contains("be brief"));
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    llm.assert_no_script_panics().expect("no panics");
}

fn streaming_text_and_tool_call_fragments() {
    let llm = ScriptedLlm::start(|req| match req.index {
        0 => ScriptedReply::text("The quick brown fox jumps"),
        _ => ScriptedReply::tool_calls([
            ("fill", json!({"target": 3, "text": "Ada Lovelace"})),
            ("click", json!({"target": 4})),
        ]),
    })
    .expect("start LLM");
    let url = format!("{}/chat/completions", llm.base_url());
    let req = json!({"model": "m", "stream": true, "stream_options": {"include_usage": true},
                     "messages": [{"role": "user", "content": "hi"}]});

    // Read the stream line by line, as a streaming client would.
    let resp = agent()
        .post(&url)
        .header("content-type", "application/json")
        .send(req.to_string())
        .expect("POST stream");
    assert_eq!(resp.status().as_u16(), 200);
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    let reader = BufReader::new(resp.into_body().into_reader());
    let mut datas = Vec::new();
    for line in reader.lines() {
        let line = line.expect("read SSE line");
        if let Some(d) = line.strip_prefix("data: ") {
            datas.push(d.to_owned());
        }
    }
    assert_eq!(datas.last().map(String::as_str), Some("[DONE]"));
    let chunks: Vec<Value> = datas[..datas.len() - 1]
        .iter()
        .map(|d| serde_json::from_str(d).expect("chunk JSON"))
        .collect();
    let text: String =
        chunks.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).collect();
    assert_eq!(text, "The quick brown fox jumps");
    let text_chunks = chunks
        .iter()
        .filter(|c| c["choices"][0]["delta"]["content"].as_str().is_some_and(|s| !s.is_empty()))
        .count();
    assert!(text_chunks >= 3, "text split in several deltas");
    assert!(chunks.iter().all(|c| c["object"] == "chat.completion.chunk"));
    let finish: Vec<&Value> =
        chunks.iter().map(|c| &c["choices"][0]["finish_reason"]).filter(|f| !f.is_null()).collect();
    assert_eq!(finish, [&json!("stop")]);
    let usage = chunks.last().expect("usage chunk");
    assert_eq!(usage["choices"], json!([]));
    assert!(usage["usage"]["total_tokens"].as_u64().unwrap_or(0) > 0);

    // Tool calls, reassembled by index the way OpenAI clients do.
    let (status, _, body) = post(&url, &req);
    assert_eq!(status, 200);
    let datas = sse_data(&body);
    let mut calls: Vec<(String, String, String)> = Vec::new();
    let mut fragments = 0;
    for d in &datas[..datas.len() - 1] {
        let c: Value = serde_json::from_str(d).expect("chunk JSON");
        for tc in c["choices"][0]["delta"]["tool_calls"].as_array().cloned().unwrap_or_default() {
            let i = tc["index"].as_u64().expect("index") as usize;
            if let Some(id) = tc["id"].as_str() {
                assert_eq!(calls.len(), i, "id+name arrive first, in index order");
                calls.push((
                    id.to_owned(),
                    tc["function"]["name"].as_str().expect("name").to_owned(),
                    String::new(),
                ));
            } else {
                fragments += 1;
            }
            calls[i].2 += tc["function"]["arguments"].as_str().unwrap_or_default();
        }
    }
    assert!(fragments >= 4, "arguments split across fragments");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].1, "fill");
    assert_eq!(
        serde_json::from_str::<Value>(&calls[0].2).expect("args"),
        json!({"target": 3, "text": "Ada Lovelace"})
    );
    assert_ne!(calls[0].0, calls[1].0);
    assert!(body.contains("\"finish_reason\":\"tool_calls\""));
}

fn failures_statuses_garbage_cut_and_delay() {
    let llm = ScriptedLlm::start(|req| match req.index {
        0 => ScriptedReply::error(500, "boom"),
        1 => ScriptedReply::rate_limited(7),
        2 => ScriptedReply::garbage("<html>not json</html>"),
        3 => ScriptedReply::CutStream,
        4 => ScriptedReply::text("late").delayed(300),
        _ => panic!("no reply scripted for request {}", req.index),
    })
    .expect("start LLM");
    let url = format!("{}/chat/completions", llm.base_url());
    let req = json!({"model": "m", "messages": [{"role": "user", "content": "x"}]});
    let (status, _, body) = post(&url, &req);
    assert_eq!(status, 500);
    assert!(body.contains("boom"));
    let (status, headers, _) = post(&url, &req);
    assert_eq!(status, 429);
    assert!(headers.iter().any(|(n, v)| n == "retry-after" && v == "7"));
    let (status, _, body) = post(&url, &req);
    assert_eq!((status, body.as_str()), (200, "<html>not json</html>"));

    let stream_req = json!({"model": "m", "stream": true, "messages": []});
    let mut resp =
        agent().post(&url).send(stream_req.to_string()).expect("headers of a cut stream");
    assert_eq!(resp.status().as_u16(), 200);
    let read = resp.body_mut().read_to_string();
    assert!(read.is_err(), "a cut stream must fail to read: {read:?}");

    let (status, _, body) = post(&url, &req);
    assert_eq!(status, 200);
    assert!(body.contains("late"));

    let (status, _, body) = post(&url, &req);
    assert_eq!(status, 500);
    assert!(body.contains("panicked"), "{body}");
    assert_eq!(llm.script_panics().len(), 1);
    assert!(llm.assert_no_script_panics().is_err());
    assert_eq!(llm.wait_for_requests(6, Duration::from_secs(5)).expect("6 requests").len(), 6);
}

fn models_listing_and_unknown_paths() {
    let llm = ScriptedLlm::always_text("ok").expect("start LLM");
    let mut resp = agent().get(format!("{}/models", llm.base_url())).call().expect("GET models");
    let v: Value = serde_json::from_str(&resp.body_mut().read_to_string().expect("body"))
        .expect("models JSON");
    assert_eq!(v["data"][0]["id"], "scripted-model");
    let (status, _, _) = post(&format!("{}/nope", llm.origin()), &json!({}));
    assert_eq!(status, 404);
    assert_eq!(llm.request_count(), 0);
    assert_eq!(llm.other_requests().len(), 2);
}

fn anthropic_messages_streaming_and_not() {
    let llm = ScriptedLlm::start(|req| match req.index {
        0 => ScriptedReply::text("Hello from Claude"),
        _ => ScriptedReply::tool_call("click", json!({"target": 9})).with_text("Clicking."),
    })
    .expect("start LLM");
    let url = format!("{}/v1/messages", llm.origin());
    let req = json!({"model": "claude-test", "max_tokens": 100, "system": "sys prompt",
                     "messages": [{"role": "user", "content": "hey"}]});
    let mut resp = agent()
        .post(&url)
        .header("x-api-key", "ak-test")
        .header("anthropic-version", "2023-06-01")
        .send(req.to_string())
        .expect("POST messages");
    let v: Value =
        serde_json::from_str(&resp.body_mut().read_to_string().expect("body")).expect("JSON");
    assert_eq!(v["type"], "message");
    assert_eq!(v["content"][0]["text"], "Hello from Claude");
    assert_eq!(v["stop_reason"], "end_turn");

    let mut sreq = req.clone();
    sreq["stream"] = json!(true);
    let (status, _, body) = post(&url, &sreq);
    assert_eq!(status, 200);
    assert!(body.starts_with("event: message_start\n"));
    assert!(body.trim_end().ends_with(r#"data: {"type":"message_stop"}"#));
    let mut text = String::new();
    let mut json_input = String::new();
    for d in sse_data(&body) {
        let e: Value = serde_json::from_str(&d).expect("event JSON");
        if e["type"] == "content_block_delta" {
            text += e["delta"]["text"].as_str().unwrap_or_default();
            json_input += e["delta"]["partial_json"].as_str().unwrap_or_default();
        }
    }
    assert_eq!(text, "Clicking.");
    assert_eq!(serde_json::from_str::<Value>(&json_input).expect("input"), json!({"target": 9}));
    assert!(body.contains(r#""stop_reason":"tool_use""#));
    let reqs = llm.requests();
    assert_eq!(reqs[0].header("x-api-key"), Some("ak-test"));
    assert_eq!(reqs[0].format, waymark_tests::llm_server::WireFormat::Anthropic);
    assert!(reqs[0].all_text().starts_with("sys prompt"));
}

// ---------------------------------------------------------------------------------------------
// Fixture server

fn fixture_server_serves_files_headers_and_records() {
    use waymark_tests::fixture_server::FixtureServer;
    let site = FixtureServer::builder(waymark_tests::paths::fixtures_dir())
        .with_header("/harness/hello.html", "Content-Security-Policy", "script-src 'self'")
        .with_page("/inline.html", "<!doctype html><p>inline</p>")
        .start()
        .expect("fixture server");
    let get = |path: &str| {
        let mut resp = agent().get(site.url(path)).call().expect("GET fixture");
        let status = resp.status().as_u16();
        let header =
            |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (ct, csp) = (header("content-type"), header("content-security-policy"));
        let body = resp.body_mut().read_to_string().unwrap_or_default();
        (status, ct, csp, body)
    };
    let (status, ct, csp, body) = get("/harness/hello.html");
    assert_eq!(status, 200);
    assert_eq!(ct.as_deref(), Some("text/html; charset=utf-8"));
    assert_eq!(csp.as_deref(), Some("script-src 'self'"));
    assert!(body.contains("Hello, harness"));
    let (status, ct, csp, _) = get("/harness/hello.js");
    assert_eq!((status, csp), (200, None));
    assert_eq!(ct.as_deref(), Some("text/javascript; charset=utf-8"));
    let (status, _, _, body) = get("/inline.html");
    assert_eq!((status, body.as_str()), (200, "<!doctype html><p>inline</p>"));
    assert_eq!(get("/missing.html").0, 404);
    assert_eq!(
        site.requested_paths(),
        ["/harness/hello.html", "/harness/hello.js", "/inline.html", "/missing.html"]
    );
    let other = FixtureServer::start(waymark_tests::paths::fixtures_dir()).expect("second origin");
    assert_ne!(other.origin(), site.origin());
}

// ---------------------------------------------------------------------------------------------
// Browser (real Chromium over CDP pipe)

/// Failure bound for anything the browser does; never a timing assertion.
const BOUND: Duration = Duration::from_secs(30);

fn browser_opens_fixture_page_evaluates_and_screenshots() {
    use waymark_tests::chromium::{Browser, LaunchOptions};
    use waymark_tests::fixture_server::FixtureServer;
    use waymark_tests::paths::{TempProfile, fixtures_dir};
    let site = FixtureServer::builder(fixtures_dir())
        .with_header("/harness/", "Content-Security-Policy", "script-src 'self'")
        .with_page("/second.html", "<!doctype html><title>second</title><p id=p>two</p>")
        .start()
        .expect("fixture server");
    let profile = TempProfile::new().expect("profile");
    let browser = Browser::launch(
        LaunchOptions::new(profile.path()).env("WAYMARK_HARNESS_MARK", "inherited-42"),
    )
    .expect("launch chromium");

    // The environment reaches the browser process (and so anything it spawns).
    let environ = std::fs::read(format!("/proc/{}/environ", browser.pid())).expect("environ");
    assert!(environ.split(|b| *b == 0).any(|kv| kv == b"WAYMARK_HARNESS_MARK=inherited-42"));

    let page = browser.new_page(&site.url("/harness/hello.html")).expect("open fixture page");
    assert_eq!(
        page.eval("document.getElementById('greeting').textContent").expect("eval"),
        json!("Hello, harness")
    );
    // The page's own script ran under `script-src 'self'`.
    assert_eq!(page.eval("window.harnessLoaded").expect("eval"), json!(true));
    page.eval(
        "document.getElementById('name').value = 'Ada'; \
         document.getElementById('save').click()",
    )
    .expect("fill and click");
    let status = page
        .wait_for(
            "document.getElementById('status').textContent.startsWith('saved') \
             && document.getElementById('status').textContent",
            BOUND,
        )
        .expect("page saw the click");
    assert_eq!(status, json!("saved Ada"));

    // Real (trusted) input: focus, type, a key, a mouse click.
    page.eval("document.getElementById('name').value = ''").expect("clear");
    page.focus("#name").expect("focus");
    page.insert_text("Grace").expect("type");
    page.press_key("Enter").expect("Enter");
    page.click("#save").expect("click");
    let status = page
        .wait_for("document.getElementById('status').textContent.includes('trusted') && document.getElementById('status').textContent", BOUND)
        .expect("trusted click");
    assert_eq!(status, json!("saved Grace (trusted)"));
    assert_eq!(page.eval("document.body.dataset.enter").expect("eval"), json!("pressed"));
    assert!(page.click("#no-such-element").is_err());

    // Promises are awaited; exceptions are surfaced with their text.
    assert_eq!(
        page.eval("new Promise(r => setTimeout(() => r(6 * 7), 20))").expect("promise"),
        json!(42)
    );
    let err = page.eval("throw new Error('scripted boom')").expect_err("exception");
    assert!(err.to_string().contains("scripted boom"), "{err}");
    page.eval("console.log('hello', 'console', 3)").expect("console");
    page.wait_for("true", BOUND).expect("trivial wait");
    assert!(
        page.console_messages().iter().any(|m| m == "[log] hello console 3"),
        "{:?}",
        page.console_messages()
    );

    let shot = profile.path().join("shots/hello.png");
    page.screenshot(&shot).expect("screenshot");
    let png = std::fs::read(&shot).expect("read screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000);

    page.navigate(&site.url("/second.html")).expect("navigate");
    assert_eq!(page.eval("document.getElementById('p').textContent").expect("eval"), json!("two"));
    assert_eq!(page.url().expect("url"), site.url("/second.html"));
    let paths = site.requested_paths();
    for p in ["/harness/hello.html", "/harness/hello.js", "/second.html"] {
        assert!(paths.iter().any(|x| x == p), "{p} not in {paths:?}");
    }
    assert!(
        browser
            .targets()
            .expect("targets")
            .iter()
            .any(|t| t.kind == "page" && t.url == site.url("/second.html"))
    );

    let err = page.navigate("http://127.0.0.1:9/unreachable").expect_err("refused port");
    assert!(err.to_string().contains("ERR_"), "{err}");

    let pid = browser.pid();
    browser.close(BOUND).expect("close");
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
}

/// Writes a tiny MV3 extension (module service worker importing a module, an extension page that
/// messages the worker) into `dir`.
fn write_probe_extension(dir: &std::path::Path) {
    let files = [
        (
            "manifest.json",
            r#"{"manifest_version": 3, "name": "waymark harness probe", "version": "1.0",
                "background": {"service_worker": "sw.js", "type": "module"}}"#,
        ),
        (
            "sw.js",
            "import { greeting } from './lib.js';\n\
             self.instance = crypto.randomUUID();\n\
             self.greeting = greeting;\n\
             chrome.runtime.onMessage.addListener((msg, _sender, sendResponse) => {\n\
               sendResponse({ pong: msg, instance: self.instance });\n\
             });\n",
        ),
        ("lib.js", "export const greeting = 'hello from a module';\n"),
        (
            "page.html",
            "<!doctype html><title>probe page</title><script src=\"page.js\"></script>\n",
        ),
        ("page.js", "window.ping = (m) => chrome.runtime.sendMessage(m);\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write probe extension file");
    }
}

fn extension_service_worker_can_be_evaluated_stopped_and_restarted() {
    use waymark_tests::chromium::{Browser, LaunchOptions};
    use waymark_tests::paths::TempProfile;
    let ext = tempfile::tempdir().expect("extension dir");
    write_probe_extension(ext.path());
    let profile = TempProfile::new().expect("profile");
    let browser = Browser::launch(LaunchOptions::new(profile.path()).extension(ext.path()))
        .expect("launch chromium with extension");

    let worker = browser.wait_for_extension_worker(BOUND).expect("service worker target");
    assert!(worker.url.ends_with("/sw.js"), "{}", worker.url);
    let id = worker.extension_id().expect("extension id").to_owned();
    let sw = browser.attach(&worker.target_id).expect("attach worker");
    assert_eq!(sw.kind(), "service_worker");
    assert_eq!(sw.eval("chrome.runtime.id").expect("eval"), json!(id));
    assert_eq!(sw.eval("self.greeting").expect("module import ran"), json!("hello from a module"));
    let first = sw.eval("self.instance").expect("instance");

    let page = browser
        .new_page(&format!("chrome-extension://{id}/page.html"))
        .expect("open extension page");
    let pong = page.eval("ping('a')").expect("message the worker");
    assert_eq!(pong, json!({"pong": "a", "instance": first}));

    browser.stop_service_worker(&worker, BOUND).expect("stop the worker");
    assert!(
        !browser.targets().expect("targets").iter().any(|t| t.is_extension_worker()),
        "worker still listed after stop"
    );

    // A message from the extension page wakes a fresh instance of the worker.
    let pong = page.eval("ping('b')").expect("message wakes the worker");
    assert_eq!(pong["pong"], json!("b"));
    assert_ne!(pong["instance"], first, "a new worker instance answered");
    let restarted = browser.wait_for_extension_worker(BOUND).expect("restarted worker target");
    let sw2 = browser.attach(&restarted.target_id).expect("attach again");
    assert_eq!(sw2.eval("self.instance").expect("eval"), pong["instance"]);
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(plain, non_streaming_text_and_tool_calls),
        e2e!(plain, streaming_text_and_tool_call_fragments),
        e2e!(plain, failures_statuses_garbage_cut_and_delay),
        e2e!(plain, models_listing_and_unknown_paths),
        e2e!(plain, anthropic_messages_streaming_and_not),
        e2e!(plain, fixture_server_serves_files_headers_and_records),
        e2e!(chromium, browser_opens_fixture_page_evaluates_and_screenshots),
        e2e!(chromium, extension_service_worker_can_be_evaluated_stopped_and_restarted),
    ]
}
