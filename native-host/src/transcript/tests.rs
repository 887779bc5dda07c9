use serde_json::json;
use waymark_protocol::TranscriptEvent;

use super::read::{list_sessions, read_session, search, to_markdown, toc};
use super::*;

fn cfg(dir: &Path, flush_every: u32) -> TranscriptConfig {
    TranscriptConfig {
        enabled: true,
        dir: dir.to_path_buf(),
        retention_days: 30,
        flush_every,
        redact: vec!["p@ssw0rd-42".into()],
    }
}

fn turn(text: &str) -> TranscriptEvent {
    TranscriptEvent::Turn { role: "user".into(), text: text.into(), task_id: None }
}

#[test]
fn buffers_until_flush_every_then_writes_whole_redacted_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = TranscriptStore::new(cfg(dir.path(), 3));
    store.record("s1", vec![turn("hello"), turn("my password is p@ssw0rd-42")]).expect("rec");
    assert!(!dir.path().join("s1.jsonl").exists(), "still buffered");
    store
        .record(
            "s1",
            vec![TranscriptEvent::Tool {
                name: "type_text".into(),
                params: json!({"text": "4111 1111 1111 1111"}),
                output: "x".repeat(5000),
                success: true,
            }],
        )
        .expect("rec");
    let events = read_session(dir.path(), "s1").expect("read");
    assert_eq!(events.len(), 4, "host session_start + 3: {events:?}");
    assert_eq!(events[0]["kind"], "session_start");
    assert_eq!(events[2]["text"], "my password is [REDACTED:secret]");
    assert_eq!(events[3]["params"]["text"], "[REDACTED:card]");
    let out = events[3]["output"].as_str().expect("output");
    assert!(out.len() < 2100 && out.ends_with("[3000 more characters]"), "{}", out.len());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("s1.jsonl")).expect("meta").permissions();
        assert_eq!(mode.mode() & 0o777, 0o600);
    }
}

#[test]
fn session_end_and_drop_flush() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let mut store = TranscriptStore::new(cfg(dir.path(), 100));
        store
            .record(
                "a",
                vec![
                    TranscriptEvent::SessionStart {
                        title: Some("Flights".into()),
                        meta: json!({}),
                    },
                    turn("find flights"),
                    TranscriptEvent::SessionEnd { meta: json!({"tasks": 1}) },
                ],
            )
            .expect("rec");
        assert_eq!(read_session(dir.path(), "a").expect("read").len(), 3, "no extra start");
        store.record("b", vec![turn("pending")]).expect("rec");
    }
    assert_eq!(read_session(dir.path(), "b").expect("flushed on drop").len(), 2);
    let list = list_sessions(dir.path()).expect("list");
    let a = list.iter().find(|s| s.id == "a").expect("a listed");
    assert_eq!(a.title.as_deref(), Some("Flights"));
    assert!(a.ended);
    let hits = search(dir.path(), "FLIGHTS", 10).expect("search");
    assert_eq!(hits.len(), 2, "{hits:?}");
    let md = to_markdown("a", &read_session(dir.path(), "a").expect("read"));
    assert!(md.starts_with("# Flights") && md.contains("find flights"), "{md}");
    assert_eq!(toc(&read_session(dir.path(), "a").expect("read"))[1].preview, "user: find flights");
}

#[test]
fn disabled_store_writes_nothing_and_bad_ids_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = cfg(dir.path(), 1);
    c.enabled = false;
    let mut store = TranscriptStore::new(c);
    assert_eq!(store.record("s", vec![turn("x")]).expect("ok"), 0);
    assert!(std::fs::read_dir(dir.path()).expect("ls").next().is_none());
    for bad in ["../x", "", "a/b", "a.b", &"x".repeat(200)] {
        assert!(store.record(bad, vec![]).is_err(), "{bad:?}");
    }
}

#[test]
fn two_writers_never_interleave_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_path_buf();
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut store = TranscriptStore::new(cfg(&path, 7));
                for i in 0..200 {
                    let text = format!("writer {w} event {i} {}", "y".repeat(3000));
                    store.record("shared", vec![turn(&text)]).expect("rec");
                }
                store.flush().expect("flush");
            })
        })
        .collect();
    for w in writers {
        w.join().expect("join");
    }
    let text = std::fs::read_to_string(path.join("shared.jsonl")).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
    let starts = lines.iter().filter(|l| l.contains(r#""kind":"session_start""#)).count();
    assert_eq!(starts, 1, "one host start line");
    assert_eq!(lines.len(), 401);
}

#[test]
fn prune_removes_only_old_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("old.jsonl"), "{}\n").expect("w");
    std::fs::write(dir.path().join("notes.txt"), "keep").expect("w");
    let later = SystemTime::now() + Duration::from_secs(10 * 86_400);
    assert!(prune(dir.path(), 30, later).expect("prune").is_empty());
    assert!(prune(dir.path(), 0, later).expect("prune").is_empty());
    assert_eq!(prune(dir.path(), 5, later).expect("prune"), vec!["old".to_owned()]);
    assert!(dir.path().join("notes.txt").exists());
}
