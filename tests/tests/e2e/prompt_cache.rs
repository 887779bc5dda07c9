//! Prompt caching end to end (issue 14): real Chromium, the real extension and host, the
//! scripted LLM on Anthropic's wire with a provider-like prompt cache. A task's cost line in
//! the side panel shows the cached part of its prompts, and every request the host sent marks
//! its cached prefixes where Anthropic needs them: the end of the system prompt, and each
//! break the worker set in a message (`cache_breaks`, read from what the worker really sent to
//! the host: the host runs behind a `tee` that keeps its input).

use crate::common;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use waymark_tests::trial::E2e;

use common::{Setup, Waymark, fill_the_form, host_binary, role_reply};
use serde_json::{Value, json};
use waymark_protocol::{ChatMessage, ChatRole, HOST_NAME, LlmRequest, LlmRole};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{CacheReport, RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;

const TASK: &str = "Fill the name field with Ada and press Save";
const ANSWER: &str = "Saved the name Ada.";
/// Anthropic's limit on `cache_control` breakpoints in one request.
const MAX_BREAKPOINTS: usize = 4;

fn the_cost_line_shows_cached_tokens_and_anthropic_requests_mark_the_cached_prefixes(
    extension: &Path,
) {
    let llm = ScriptedLlm::start(|req| form_filler(&openai_view(req))).expect("scripted LLM");
    llm.report_cache(CacheReport::Prefix);
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    // The host is registered only once its config and tap are in place (the worker connects
    // to it again with the panel).
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: false, site }).expect("launch");
    let config = wm.work.path().join("config");
    std::fs::write(
        config.join("config.toml"),
        "[llm]\nprovider = \"anthropic\"\n\n[prices.\"scripted-model\"]\ninput = 3.0\noutput = 15.0\n",
    )
    .expect("host config");
    let tap = wm.work.path().join("tap");
    install_tapped_host(wm.profile.path(), &config, &tap);

    let page = wm.open("/form.html").expect("open fixture");
    let panel = wm.panel().expect("panel");
    panel.send(TASK).expect("send");
    assert_eq!(panel.answer().expect("answer"), ANSWER);
    let status = page.eval("document.getElementById('status').textContent").expect("status");
    assert_eq!(status.as_str(), Some("Saved: Ada"));

    // --- The cost line: the server's counts (no ≈), the cached part, a price.
    let line = panel.wait_text("task-usage", "t.includes('cached')").expect("cached tokens shown");
    let (input, cached) = in_and_cached(&line);
    assert!(cached > 0 && cached < input, "{line}");
    assert!(line.contains('$') && !line.contains('≈'), "{line}");
    let session = panel.wait_text("session-usage", "t.includes('cached')").expect("session");
    assert!(session.contains(" cached)"), "{session}");

    // --- The wire: every request marks the end of its system prompt, never more than 4.
    let requests = llm.requests();
    assert!(requests.len() >= 3, "planner, navigator steps, validator: {}", requests.len());
    for r in &requests {
        let system = r.body["system"].as_array().expect("system blocks");
        let last = system.last().expect("a system block");
        assert_eq!(last["cache_control"], json!({"type": "ephemeral"}), "request {}", r.index);
        let marks = marked_blocks(&r.body);
        assert!(marks <= MAX_BREAKPOINTS, "request {}: {marks} breakpoints", r.index);
    }

    // --- The worker's breaks became block boundaries with cache_control.
    let sent = worker_requests(&tap);
    assert!(!sent.is_empty(), "the tap saw the worker's llm.complete requests");
    let bodies: Vec<Value> = requests.iter().map(|r| r.body.clone()).collect();
    let checked = check_breaks(&sent, &bodies).unwrap_or_else(|e| panic!("{e}"));
    // Every navigator call marks where its page and its step list end.
    assert!(checked >= 2, "the worker's cache_breaks were checked: {checked}");
    llm.assert_no_script_panics().expect("script");
}

fn the_break_check_accepts_the_hosts_cuts_and_catches_a_missing_one() {
    let content = "TOOLS AND RULES|TASK|the page now";
    let mut user = ChatMessage::text(ChatRole::User, content);
    user.cache_breaks = vec![16, 21];
    let w = LlmRequest {
        role: LlmRole::Navigator,
        messages: vec![ChatMessage::text(ChatRole::System, "rules"), user],
        tools: Vec::new(),
        stream: true,
        max_tokens: None,
    };
    let mark = json!({"type": "ephemeral"});
    let system = json!([{"type": "text", "text": "rules", "cache_control": mark}]);
    let cut = json!({"system": system, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "TOOLS AND RULES|", "cache_control": mark},
        {"type": "text", "text": "TASK|", "cache_control": mark},
        {"type": "text", "text": "the page now"}]}]});
    assert_eq!(check_breaks(std::slice::from_ref(&w), &[cut]), Ok(1));
    let uncut = json!({"system": system, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "TOOLS AND RULES|", "cache_control": mark},
        {"type": "text", "text": "TASK|the page now"}]}]});
    assert!(check_breaks(std::slice::from_ref(&w), &[uncut]).is_err());
    let unmarked = json!({"system": system, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "TOOLS AND RULES|", "cache_control": mark},
        {"type": "text", "text": "TASK|"},
        {"type": "text", "text": "the page now"}]}]});
    assert!(check_breaks(std::slice::from_ref(&w), &[unmarked]).is_err());
    assert_eq!(check_breaks(&[], &[]), Ok(0));
}

/// Checks that each break the worker set in `sent` is a block boundary marked `cache_control`
/// in one of the request `bodies` the host sent (the latest ones when there were more than
/// Anthropic allows), and that blocks are cut nowhere else; returns how many messages with
/// breaks it checked.
fn check_breaks(sent: &[LlmRequest], bodies: &[Value]) -> Result<usize, String> {
    let mut checked = 0;
    for w in sent.iter().filter(|w| w.messages.iter().any(|m| !m.cache_breaks.is_empty())) {
        let kept = kept_breaks(w);
        let Some(runs) = bodies.iter().find_map(|b| runs_of(w, b)) else {
            return Err(format!("no request sent carries the texts of {:?}", w.messages));
        };
        for ((m, run), kept) in w.messages.iter().zip(&runs).zip(&kept) {
            let Some(run) = run else { continue };
            if let Some(at) =
                m.cache_breaks.iter().find(|&&at| !m.content.is_char_boundary(at as usize))
            {
                return Err(format!("offset {at} is no char boundary of {:?}", m.content));
            }
            // Blocks end at the kept breaks, marked; anywhere else only at the message's end.
            let cut: Vec<usize> =
                run.iter().map(|(at, _)| *at).filter(|&at| at != m.content.len()).collect();
            let mut expected = kept.clone();
            expected.retain(|&at| at != m.content.len());
            if cut != expected {
                return Err(format!(
                    "{:?} message cut at {cut:?}, breaks kept {expected:?}",
                    m.role
                ));
            }
            let marked: Vec<usize> = run.iter().filter(|(_, c)| *c).map(|(at, _)| *at).collect();
            if let Some(at) = kept.iter().find(|at| !marked.contains(at)) {
                return Err(format!("break {at} of a {:?} message is not marked: {run:?}", m.role));
            }
            checked += 1;
        }
    }
    Ok(checked)
}

/// The default role answers, and the navigator that fills the form (both read OpenAI shapes).
fn form_filler(req: &RecordedRequest) -> ScriptedReply {
    role_reply(req).unwrap_or_else(|| fill_the_form(req, ANSWER))
}

/// An Anthropic request as the OpenAI-shaped helpers read it: the system prompt as message 0,
/// each message's text (its text blocks joined) after it.
fn openai_view(req: &RecordedRequest) -> RecordedRequest {
    let mut messages = vec![json!({"role": "system", "content": text_of(&req.body["system"])})];
    for m in req.messages() {
        messages.push(json!({"role": m["role"], "content": text_of(&m["content"])}));
    }
    RecordedRequest {
        body: json!({"messages": messages, "tools": req.body["tools"]}),
        ..req.clone()
    }
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// Registers the host for the profile with its manifest pointing at a script that copies the
/// host's input (the worker's frames) to `tap/in-<pid>.bin` on its way to the real host.
fn install_tapped_host(profile: &Path, config: &Path, tap: &Path) {
    let status = Command::new(host_binary())
        .args(["install", "--browser", "chromium", "--user-data-dir"])
        .arg(profile)
        .env("WAYMARK_CONFIG_DIR", config)
        .status()
        .expect("run waymark-host install");
    assert!(status.success(), "waymark-host install: {status}");
    std::fs::create_dir_all(tap).expect("tap dir");
    let script = tap.join("host.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntee \"{}/in-$$.bin\" | \"{}\" \"$@\"\n",
            tap.display(),
            host_binary().display()
        ),
    )
    .expect("write tap script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let manifest: PathBuf = profile.join("NativeMessagingHosts").join(format!("{HOST_NAME}.json"));
    let text = std::fs::read_to_string(&manifest).expect("host manifest");
    let mut m: Value = serde_json::from_str(&text).expect("manifest JSON");
    m["path"] = json!(script.display().to_string());
    std::fs::write(&manifest, m.to_string()).expect("rewrite manifest");
}

/// Every `llm.complete` request the worker sent, from the tap's copies of the host's input
/// (native messaging frames: a 32-bit native-endian length, then JSON).
fn worker_requests(tap: &Path) -> Vec<LlmRequest> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(tap)
        .expect("tap dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    for file in files {
        let bytes = std::fs::read(&file).expect("tap file");
        let mut rest = bytes.as_slice();
        while rest.len() >= 4 {
            let len = u32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            let Some(frame) = rest.get(4..4 + len) else { break };
            rest = &rest[4 + len..];
            let Ok(v) = serde_json::from_slice::<Value>(frame) else { continue };
            if v["type"] == "llm.complete" {
                out.push(serde_json::from_value(v).expect("an llm.complete request"));
            }
        }
    }
    out
}

/// The worker's breaks the host can keep, per message: valid ones, the latest first when over
/// the limit (the end of the system prompt always takes one of the four).
fn kept_breaks(w: &LlmRequest) -> Vec<Vec<usize>> {
    let last_system = w.messages.iter().rposition(|m| m.role == ChatRole::System);
    let mut all: Vec<(usize, usize)> = Vec::new();
    let system_first = w
        .messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == ChatRole::System)
        .chain(w.messages.iter().enumerate().filter(|(_, m)| m.role != ChatRole::System));
    for (i, m) in system_first {
        for &at in &m.cache_breaks {
            let at = at as usize;
            if Some(i) == last_system && at == m.content.len() {
                continue; // the system mark itself
            }
            all.push((i, at));
        }
    }
    let budget = MAX_BREAKPOINTS - usize::from(last_system.is_some() || !w.tools.is_empty());
    let keep = &all[all.len().saturating_sub(budget)..];
    w.messages
        .iter()
        .enumerate()
        .map(|(i, _)| keep.iter().filter(|(j, _)| *j == i).map(|(_, at)| *at).collect())
        .collect()
}

/// Where a message's text blocks end (offsets into the message) and whether each is marked.
type Run = Vec<(usize, bool)>;

/// For each message of `w` with breaks, where its text blocks end in `body` (offsets into the
/// message, and whether the block is marked); `None` when `body` does not carry one of them.
fn runs_of(w: &LlmRequest, body: &Value) -> Option<Vec<Option<Run>>> {
    let lists = block_lists(body);
    let mut out = Vec::new();
    for m in &w.messages {
        if m.cache_breaks.is_empty() {
            out.push(None);
            continue;
        }
        out.push(Some(lists.iter().find_map(|list| run_in(list, m))?));
    }
    Some(out)
}

/// The consecutive text blocks of `list` whose texts make up `m`'s content (a system message
/// after the first may start with the blank line that separates them).
fn run_in(list: &[(String, bool)], m: &ChatMessage) -> Option<Run> {
    for start in 0..list.len() {
        let mut text = String::new();
        let mut ends = Vec::new();
        for (piece, marked) in &list[start..] {
            text.push_str(piece);
            let body = text.strip_prefix("\n\n").filter(|_| m.role == ChatRole::System);
            let shift = if body.is_some() { 2 } else { 0 };
            let body = body.unwrap_or(&text);
            ends.push((text.len() - shift, *marked));
            if body == m.content {
                return Some(ends);
            }
            if !m.content.starts_with(body) {
                break;
            }
        }
    }
    None
}

/// Runs of text blocks in a request (system, each message, each tool result), as
/// (text, has cache_control); any other block ends a run.
fn block_lists(body: &Value) -> Vec<Vec<(String, bool)>> {
    let mut lists = Vec::new();
    let mut add = |blocks: &Value| {
        let mut run = Vec::new();
        for b in blocks.as_array().into_iter().flatten() {
            match b["text"].as_str().filter(|_| b["type"] == "text") {
                Some(t) => run.push((t.to_owned(), b.get("cache_control").is_some())),
                None => lists.push(std::mem::take(&mut run)),
            }
        }
        lists.push(run);
    };
    add(&body["system"]);
    for m in body["messages"].as_array().into_iter().flatten() {
        add(&m["content"]);
        for b in m["content"].as_array().into_iter().flatten() {
            add(&b["content"]);
        }
    }
    lists
}

/// How many blocks (and tools) of a request carry `cache_control`.
fn marked_blocks(body: &Value) -> usize {
    let count = |v: &Value| {
        v.as_array().into_iter().flatten().filter(|b| b.get("cache_control").is_some()).count()
    };
    let mut n = count(&body["tools"]) + count(&body["system"]);
    for m in body["messages"].as_array().into_iter().flatten() {
        n += count(&m["content"]);
        for b in m["content"].as_array().into_iter().flatten() {
            n += count(&b["content"]);
        }
    }
    n
}

/// The prompt and cached figures of a cost line `… tokens (12,400 in (9,800 cached), …`.
fn in_and_cached(line: &str) -> (u64, u64) {
    let number = |s: &str| s.replace(',', "").parse::<u64>().unwrap_or(0);
    let (head, tail) = line.split_once(" in (").unwrap_or_else(|| panic!("no ' in (' in {line}"));
    let input = number(head.rsplit('(').next().unwrap_or_default());
    let cached = number(tail.split(" cached)").next().unwrap_or_default());
    (input, cached)
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(
            extension,
            the_cost_line_shows_cached_tokens_and_anthropic_requests_mark_the_cached_prefixes
        ),
        e2e!(plain, the_break_check_accepts_the_hosts_cuts_and_catches_a_missing_one),
    ]
}
