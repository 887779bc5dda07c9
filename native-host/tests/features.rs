//! The requests added for the side panel — `config.get`/`config.set`, `transcript.record`,
//! `file.read` — through the built binary, with every error code they can produce.
#![allow(
    clippy::string_slice,
    reason = "assertions cut prompts and fixtures at ASCII markers the test itself found"
)]

mod common;

use std::path::Path;

use base64::Engine;
use common::{Host, err_code};
use serde_json::{Value, json};
use waymark_tests::llm_server::ScriptedLlm;

fn set(h: &mut Host, id: u64, values: Value) -> Value {
    h.request(id, "config.set", json!({ "values": values }));
    h.reply(id)
}

#[test]
fn config_set_applies_live_and_never_sends_a_key_back() {
    let llm = ScriptedLlm::always_text("hi").expect("llm");
    // Only the base URL comes from the environment; the model is free for config.set.
    let mut h = Host::builder().env("WAYMARK_LLM_BASE_URL", llm.base_url()).spawn();
    let secret = "sk-live-secret-0123456789abcdef";
    let r = set(
        &mut h,
        1,
        json!({"llm.api_key": secret, "llm.model": "fresh-model", "roles.planner.model": "big"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(!r.to_string().contains(secret), "{r}");
    assert_eq!(r["data"]["llm"]["has_key"], true);
    assert_eq!(r["data"]["roles"]["planner"]["model"], "big");
    assert_eq!(r["data"]["roles"]["validator"]["model"], "fresh-model");
    assert!(
        r["data"]["env_overrides"]
            .as_array()
            .expect("list")
            .contains(&json!("WAYMARK_LLM_BASE_URL"))
    );

    h.request(2, "config.get", json!({}));
    let g = h.reply(2);
    assert_eq!(g["data"], r["data"]);
    assert!(!g.to_string().contains(secret));

    h.request(3, "llm.complete", json!({"messages": [{"role": "user", "content": "x"}]}));
    assert_eq!(h.reply(3)["ok"], true);
    let req = &llm.requests()[0];
    assert_eq!(req.model(), Some("fresh-model"), "the new settings apply without a restart");
    assert_eq!(req.header("authorization"), Some(format!("Bearer {secret}").as_str()));

    let file = h.dir.path().join("config/config.toml");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).expect("config written").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // A setting that does not decode fails the whole request, naming the setting.
    for (bad, names) in [
        (json!({"llm.model": "other", "llm.base_url": "ftp://x"}), "llm.base_url"),
        (json!({"nope.key": "1"}), "nope.key"),
        (json!({"roles.chef.model": "m"}), "unknown role \"chef\""),
        (json!({"transcripts.enabled": "maybe"}), "transcripts.enabled"),
        (json!({"llm.api_key": "sk with spaces"}), "llm.api_key"),
    ] {
        let r = set(&mut h, 4, bad.clone());
        assert_eq!(err_code(&r), "bad_request", "{bad}: {r}");
        assert!(r["error"]["message"].as_str().is_some_and(|m| m.contains(names)), "{r}");
        assert!(!r.to_string().contains("sk with spaces"), "secrets are never repeated: {r}");
    }
    h.request(5, "config.set", json!({"values": "not a map"}));
    assert_eq!(err_code(&h.reply(5)), "bad_request");
    // Settings that decode but make a config the host cannot use: nothing is saved.
    #[cfg(unix)]
    {
        let r = set(&mut h, 6, json!({"llm.model": "other", "files.allowed_dirs": "C:\\docs"}));
        assert_eq!(err_code(&r), "config_invalid", "{r}");
    }
    let text = std::fs::read_to_string(&file).expect("read");
    assert!(text.contains("fresh-model") && !text.contains("ftp://"), "all or nothing: {text}");
}

#[test]
fn config_get_reports_each_models_price_and_where_it_comes_from() {
    let llm = ScriptedLlm::always_text("hi").expect("llm");
    let mut h = Host::builder().env("WAYMARK_LLM_BASE_URL", llm.base_url()).spawn();
    let r = set(
        &mut h,
        1,
        json!({
            "llm.model": "local-model",
            "roles.planner.model": "gpt-4o",
            "roles.summariser.model": "mine",
            "roles.validator.model": "mystery",
            "roles.validator.base_url": "https://llm.example.com/v1",
            "prices.mine.input": "0.5",
            "prices.mine.output": "1.5",
            "prices.gpt-4o.output": "12",
        }),
    );
    assert_eq!(r["ok"], true, "{r}");
    h.request(2, "config.get", json!({}));
    let prices = h.reply(2)["data"]["prices"].clone();
    assert_eq!(
        prices,
        json!({
            "gpt-4o": {"input": 2.5, "output": 12.0, "source": "user"},
            "local-model": {"input": 0.0, "output": 0.0, "source": "local"},
            "mine": {"input": 0.5, "output": 1.5, "source": "user"},
            "mystery": {"input": null, "output": null, "source": "unknown"},
        }),
        "every model the roles use, the built-in input price kept beside the user's output"
    );
    // Removing the user's price brings the built-in one back.
    let r = set(&mut h, 3, json!({"prices.gpt-4o.input": null}));
    assert_eq!(
        r["data"]["prices"]["gpt-4o"],
        json!({"input": 2.5, "output": 10.0, "source": "built_in"})
    );
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("transcript written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("whole JSON line"))
        .collect()
}

#[test]
fn transcripts_are_opt_in_redacted_private_and_flushed_on_exit() {
    let mut h = Host::builder()
        .env("WAYMARK_DATA_DIR", "")
        .env("WAYMARK_LLM_API_KEY", "configured-key-123456")
        .spawn();
    let data = h.dir.path().join("data");
    h.request(0, "echo", json!({"payload": "0"}));
    h.reply(0);
    let turn = json!({"kind": "turn", "role": "user", "text": "hello"});

    // Off by default: accepted but nothing written.
    h.request(1, "transcript.record", json!({"session_id": "s1", "events": [turn]}));
    assert_eq!(h.reply(1)["data"], json!({"enabled": false, "accepted": 0}));

    let r = set(
        &mut h,
        2,
        json!({"transcripts.enabled": "true", "data_dir": data.to_string_lossy(),
               "transcripts.redact": "my-bank-password"}),
    );
    assert_eq!(r["data"]["transcripts"]["enabled"], true, "{r}");
    assert_eq!(r["data"]["transcripts"]["redact_count"], 2, "configured secret + the API key");
    assert!(!r.to_string().contains("my-bank-password"));

    let events = json!([
        {"kind": "session_start", "title": "Flights to Lisbon"},
        {"kind": "turn", "role": "user", "text": "log in with my-bank-password please"},
        {"kind": "tool", "name": "type_text", "params": {"text": "4111 1111 1111 1111"},
         "output": "typed", "success": true},
        {"kind": "turn", "role": "assistant", "text": "key configured-key-123456, code: 123456 is your login code"},
        {"kind": "summary", "text": "3 flights found", "findings": {"cheapest": "€89"}},
        {"kind": "session_end", "meta": {"tasks": 1}},
    ]);
    h.request(3, "transcript.record", json!({"session_id": "s-1", "events": events}));
    assert_eq!(h.reply(3)["data"], json!({"enabled": true, "accepted": 6}));

    let file = data.join("sessions/s-1.jsonl");
    let lines = read_jsonl(&file);
    assert_eq!(lines.len(), 6, "session_end flushes at once: {lines:?}");
    let text = std::fs::read_to_string(&file).expect("read");
    for secret in ["my-bank-password", "4111 1111", "configured-key-123456", "123456 is"] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
    assert_eq!(lines[2]["params"]["text"], "[REDACTED:card]");
    assert_eq!(lines[4]["findings"]["cheapest"], "€89");
    assert_eq!(lines[5]["host_version"], env!("CARGO_PKG_VERSION"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    for bad in ["../escape", "a/b", "", "x.y"] {
        h.request(4, "transcript.record", json!({"session_id": bad, "events": [turn]}));
        assert_eq!(err_code(&h.reply(4)), "transcript_failed", "{bad:?}");
    }
    assert!(!h.dir.path().join("escape.jsonl").exists());

    // Buffered (below flush_every, before the periodic flush) and written on exit.
    h.request(5, "transcript.record", json!({"session_id": "open", "events": [turn]}));
    h.reply(5);
    let (status, _) = h.wait_exit();
    assert!(status.success());
    let open = read_jsonl(&data.join("sessions/open.jsonl"));
    assert_eq!(open.len(), 2, "host session_start + the turn: {open:?}");
    assert_eq!(open[0]["kind"], "session_start");
}

#[test]
fn two_hosts_append_to_one_session_without_tearing_lines() {
    let data = tempfile::tempdir().expect("tempdir");
    let d = data.path().to_string_lossy().into_owned();
    let mut hosts: Vec<Host> = (0..2)
        .map(|_| {
            Host::builder()
                .env("WAYMARK_DATA_DIR", d.clone())
                .env("WAYMARK_TRANSCRIPTS", "1")
                .spawn()
        })
        .collect();
    let long = "z".repeat(20_000);
    for round in 0..20u64 {
        for (w, h) in hosts.iter_mut().enumerate() {
            let events: Vec<Value> = (0..5)
                .map(|i| json!({"kind": "turn", "role": "user", "text": format!("{w}-{round}-{i} {long}")}))
                .collect();
            h.request(
                round,
                "transcript.record",
                json!({"session_id": "shared", "events": events}),
            );
        }
        for h in &hosts {
            assert_eq!(h.reply(round)["ok"], true);
        }
    }
    for h in &mut hosts {
        assert!(h.wait_exit().0.success());
    }
    let lines = read_jsonl(&data.path().join("sessions/shared.jsonl"));
    assert_eq!(lines.len(), 201, "200 turns and one start line");
    assert_eq!(lines.iter().filter(|l| l["kind"] == "session_start").count(), 1);
}

#[test]
fn file_read_streams_chunks_and_refuses_everything_outside() {
    let mut h = Host::spawn();
    let uploads = h.dir.path().join("uploads");
    std::fs::create_dir_all(&uploads).expect("mkdir");
    let content: Vec<u8> = (0..700_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(uploads.join("cv.pdf"), &content).expect("write");
    std::fs::write(h.dir.path().join("secret.txt"), "private").expect("write");

    h.request(1, "file.read", json!({"path": "cv.pdf"}));
    assert_eq!(err_code(&h.reply(1)), "file_refused", "nothing allowed by default");

    let r = set(&mut h, 2, json!({"files.allowed_dirs": uploads.to_string_lossy()}));
    assert_eq!(r["ok"], true, "{r}");
    h.request(3, "file.read", json!({"path": uploads.join("cv.pdf").to_string_lossy()}));
    let frames = h.until_reply(3);
    let reply = frames.last().expect("reply");
    assert_eq!(reply["data"]["bytes"], 700_000, "{reply}");
    assert_eq!(reply["data"]["name"], "cv.pdf");
    assert_eq!(reply["data"]["media_type"], "application/pdf");
    let chunks: Vec<&Value> = frames.iter().filter(|f| f["event"] == "file.chunk").collect();
    assert_eq!(chunks.len(), 3);
    assert_eq!(reply["data"]["chunks"], 3);
    let mut got = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c["seq"], i);
        let data = c["data"].as_str().expect("data");
        assert!(data.len() < 512 * 1024, "frames stay far below 1 MiB");
        got.extend(base64::engine::general_purpose::STANDARD.decode(data).expect("base64"));
    }
    assert_eq!(got, content);

    let outside = h.dir.path().join("secret.txt").to_string_lossy().into_owned();
    let long = "n".repeat(10 * 1024);
    for (path, code) in [
        ("../secret.txt", "file_refused"),
        (outside.as_str(), "file_refused"),
        ("/etc/passwd", "file_refused"),
        ("C:\\x", "file_refused"),
        ("NUL", "file_failed"),
        ("missing.pdf", "file_failed"),
        (long.as_str(), "file_failed"),
    ] {
        h.request(4, "file.read", json!({ "path": path }));
        let frames = h.until_reply(4);
        assert_eq!(frames.len(), 1, "no chunk for {}", &path[..path.len().min(30)]);
        assert_eq!(err_code(&frames[0]), code, "{}", &path[..path.len().min(30)]);
    }
    let r = set(&mut h, 5, json!({"files.max_bytes": "1000"}));
    assert_eq!(r["data"]["max_read_bytes"], 1000);
    h.request(6, "file.read", json!({"path": "cv.pdf"}));
    assert_eq!(err_code(&h.reply(6)), "file_too_large");
}

#[test]
fn hello_lists_config_problems_and_capabilities() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("config.toml"),
        "[files]\nallowed_dirs = [\"/definitely/not/here\"]\n",
    )
    .expect("write");
    let mut h = Host::builder().env("WAYMARK_CONFIG_DIR", dir.path().to_string_lossy()).spawn();
    h.request(1, "hello", json!({"extension_version": "x"}));
    let data = h.reply(1)["data"].clone();
    let problems = data["problems"].as_array().expect("problems");
    assert!(problems[0].as_str().expect("text").contains("/definitely/not/here"), "{data}");
    for cap in ["config.get", "config.set", "transcript.record", "file.read"] {
        assert!(data["capabilities"].as_array().expect("caps").contains(&json!(cap)), "{cap}");
    }
}
