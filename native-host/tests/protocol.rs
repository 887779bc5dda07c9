//! Framed-stdio tests against the built binary: every request type and envelope error.

mod common;

use std::path::Path;

use common::{Host, err_code, err_message, frame_bytes};
use serde_json::json;

#[test]
fn hello_reports_version_capabilities_and_no_key() {
    let mut h = Host::builder().env("WAYMARK_LLM_API_KEY", "sk-very-secret").spawn();
    h.request(1, "hello", json!({"extension_version": "0.1.0"}));
    let r = h.reply(1);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["v"], 1);
    let d = &r["data"];
    assert_eq!(d["protocol"], 1);
    assert_eq!(d["host_version"], env!("CARGO_PKG_VERSION"));
    for cap in ["hello", "echo", "llm.complete", "llm.cancel", "export.write"] {
        assert!(d["capabilities"].as_array().expect("caps").contains(&json!(cap)), "{cap}");
    }
    assert_eq!(d["llm"]["has_key"], true);
    assert_eq!(d["llm"]["base_url"], "http://127.0.0.1:9/v1");
    assert!(!r.to_string().contains("sk-very-secret"));
    let (status, stderr) = h.wait_exit();
    assert!(status.success());
    assert!(!stderr.contains("sk-very-secret"));
}

#[test]
fn echo_returns_its_payload() {
    let mut h = Host::spawn();
    let payload = json!("a [1, \"two\", null] ü 😀");
    h.request(7, "echo", json!({"payload": payload}));
    let r = h.reply(7);
    assert_eq!(r["data"]["payload"], payload);
}

#[test]
fn export_write_lands_in_the_export_dir_and_never_overwrites() {
    let mut h = Host::spawn();
    let long = "n".repeat(10 * 1024);
    let hints = ["../x", "/etc/passwd", "C:\\x", "NUL", long.as_str(), "report", "report"];
    for (i, hint) in hints.iter().enumerate() {
        h.request(
            10 + i as u64,
            "export.write",
            json!({"name_hint": hint, "format": "md", "content": "# Trip\n"}),
        );
    }
    h.request(20, "export.write", json!({"format": "jsonl", "content": "{}\n"}));
    let mut paths = Vec::new();
    for id in (10..10 + hints.len() as u64).chain([20]) {
        let r = h.reply(id);
        assert_eq!(r["ok"], true, "{r}");
        let p = r["data"]["path"].as_str().expect("path").to_owned();
        assert!(common::directly_in(Path::new(&p), &h.export_dir()), "{p}");
        paths.push(p);
    }
    assert!(paths[5].ends_with("/report.md") && paths[6].ends_with("/report-1.md"), "{paths:?}");
    assert!(paths[7].contains("browse-session-") && paths[7].ends_with(".jsonl"));
    assert_eq!(std::fs::read_to_string(&paths[0]).expect("read"), "# Trip\n");
    assert!(!h.dir.path().join("x.md").exists());
}

#[test]
fn export_failure_is_reported() {
    let mut h = Host::builder().env("WAYMARK_EXPORT_DIR", "/proc/waymark-cannot-write").spawn();
    h.request(1, "export.write", json!({"format": "md", "content": "x"}));
    let r = h.reply(1);
    assert_eq!(err_code(&r), "export_failed");
    assert!(err_message(&r).contains("/proc/waymark-cannot-write"));
}

#[test]
fn envelope_errors_get_replies_and_the_host_keeps_going() {
    let mut h = Host::spawn();
    h.write_raw(&frame_bytes(b"{not json"));
    assert_eq!(err_code(&h.reply(0)), "bad_json");
    h.write_raw(&frame_bytes(&[0xff, 0xfe, 0xfd]));
    assert_eq!(err_code(&h.reply(0)), "bad_json");
    h.request(3, "teleport", json!({}));
    assert_eq!(err_code(&h.reply(3)), "bad_request");
    h.request(4, "echo", json!({}));
    assert_eq!(err_code(&h.reply(4)), "bad_request");
    h.send(&json!({"v": 2, "id": 5, "type": "hello", "extension_version": "9"}));
    let r = h.reply(5);
    assert_eq!(err_code(&r), "version_mismatch");
    h.send(&json!([1, 2]));
    assert_eq!(err_code(&h.reply(0)), "bad_request");
    h.request(6, "echo", json!({"payload": "still alive"}));
    assert_eq!(h.reply(6)["data"]["payload"], "still alive");
    let (status, _) = h.wait_exit();
    assert!(status.success());
}

#[test]
fn oversize_frame_is_skipped_and_the_next_frame_answered() {
    let mut h = Host::spawn();
    let len = waymark_protocol::MAX_BROWSER_TO_HOST + 1;
    let mut bytes = u32::try_from(len).expect("len").to_ne_bytes().to_vec();
    bytes.resize(4 + len, b' ');
    h.write_raw(&bytes);
    let r = h.reply(0);
    assert_eq!(err_code(&r), "frame_too_large");
    h.request(2, "echo", json!({"payload": "2"}));
    assert_eq!(h.reply(2)["data"]["payload"], "2");
}

#[test]
fn truncated_frame_exits_cleanly() {
    for cut in [1usize, 3, 4, 10] {
        let mut h = Host::spawn();
        h.request(1, "echo", json!({"payload": "1"}));
        assert_eq!(h.reply(1)["data"]["payload"], "1");
        let full = frame_bytes(br#"{"v":1,"id":2,"type":"echo","payload":"2"}"#);
        h.write_raw(&full[..cut]);
        let (status, stderr) = h.wait_exit();
        assert!(status.success(), "cut {cut}: {status:?} {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(h.drain().is_empty());
    }
}

#[test]
fn eof_exits_zero_and_answers_what_was_sent() {
    let mut h = Host::spawn();
    h.request(1, "echo", json!({"payload": "a"}));
    h.request(2, "hello", json!({"extension_version": "x"}));
    h.close_stdin();
    let (status, stderr) = h.wait_exit();
    assert!(status.success(), "{stderr}");
    let frames = h.drain();
    assert_eq!(frames.len(), 2, "{frames:?}");
}

#[test]
fn cancel_of_nothing_says_so() {
    let mut h = Host::spawn();
    h.request(1, "llm.cancel", json!({"target": 99}));
    let r = h.reply(1);
    assert_eq!(r["data"]["cancelled"], false);
}

#[test]
fn broken_config_is_reported_per_request_not_fatal() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("config.toml"), "[llm\nbroken").expect("write");
    let mut h = Host::builder().env("WAYMARK_CONFIG_DIR", dir.path().to_string_lossy()).spawn();
    h.request(1, "hello", json!({"extension_version": "x"}));
    assert_eq!(h.reply(1)["data"]["llm"]["provider"], "unconfigured");
    h.request(2, "llm.complete", json!({"messages": [{"role": "user", "content": "hi"}]}));
    let r = h.reply(2);
    assert_eq!(err_code(&r), "not_configured");
    assert!(err_message(&r).contains("config.toml"), "{r}");
}

#[test]
fn reply_above_one_mib_becomes_reply_too_large() {
    let mut h = Host::spawn();
    let big = "x".repeat(2 * 1024 * 1024);
    h.request(1, "echo", json!({"payload": big}));
    let r = h.reply(1);
    assert_eq!(err_code(&r), "reply_too_large");
    h.request(2, "echo", json!({"payload": "small"}));
    assert_eq!(h.reply(2)["data"]["payload"], "small");
}
