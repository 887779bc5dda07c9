//! Property tests over hostile input (`waymark-fuzzgen`) for what the host reads and writes:
//! frames from arbitrary bytes, requests (with `\ud800` escapes, as `JSON.stringify` writes a
//! lone surrogate), the config file and `config set`, export names, and the JSONL transcripts
//! with their markdown and JSON exports. No input may panic; a frame that fits round-trips, a
//! setting and a config file read back as written, and every transcript line is one JSON line.

#![allow(
    clippy::let_underscore_must_use,
    reason = "a call made only for the panic it must not cause drops its result"
)]

use std::collections::HashMap;
use std::io::Cursor;
use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Value, json};
use waymark_fuzzgen::{config, costly, hostile_short, hostile_text, js_string};
use waymark_protocol::{HostFrame, ReplyFrame, Setting, TranscriptEvent};

use crate::config::{self as cfg, ConfigFile, TranscriptConfig, apply_setting, resolve};
use crate::dispatch::parse_request;
use crate::export::name::{MAX_STEM_CHARS, candidate, sanitize_stem};
use crate::framing::{EndReason, Inbound, encode_frame, read_inbound};
use crate::transcript::TranscriptStore;
use crate::transcript::read::{event_text, read_session, search, to_json, to_markdown, toc};

/// Setting names as `config set` takes them, and hostile ones.
const NAMES: &[&str] = &[
    "llm.provider",
    "llm.base_url",
    "llm.model",
    "llm.api_key",
    "llm.retry_base_ms",
    "llm.max_concurrent",
    "roles.planner.model",
    "roles.navigator.api_key",
    "export_dir",
    "data_dir",
    "transcripts.enabled",
    "transcripts.redact",
    "files.allowed_dirs",
    "files.max_bytes",
];

fn setting_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(NAMES).prop_map(str::to_owned),
        1 => (hostile_short(), proptest::sample::select(&["input", "output"][..]))
            .prop_map(|(model, side)| format!("prices.{model}.{side}")),
        1 => hostile_short(),
    ]
}

fn setting_value() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(prop_oneof![
        hostile_text(),
        "[0-9]{1,6}(\\.[0-9]{1,3})?",
        "/[a-z]{1,8}(/[a-zA-Z0-9 ]{1,8}){0,3}",
        proptest::sample::select(
            &["openai", "anthropic", "true", "false", "-1", "1e400", "NaN"][..]
        )
        .prop_map(str::to_owned),
    ])
}

/// A config file as people edit it: sections and keys of the real file with hostile values,
/// now and then a hostile line.
fn toml_text() -> impl Strategy<Value = String> {
    let section = proptest::sample::select(
        &["", "[llm]\n", "[transcripts]\n", "[files]\n", "[roles.planner]\n", "[prices.\"m\"]\n"][..],
    );
    let key = proptest::sample::select(
        &[
            "provider",
            "base_url",
            "model",
            "api_key",
            "retry_base_ms",
            "enabled",
            "redact",
            "allowed_dirs",
            "input",
            "export_dir",
        ][..],
    );
    let value = prop_oneof![
        hostile_short().prop_map(|s| toml::Value::String(s).to_string()),
        proptest::collection::vec(hostile_short(), 0..3)
            .prop_map(|l| toml::Value::Array(l.into_iter().map(toml::Value::String).collect())
                .to_string()),
        "-?[0-9]{1,20}(\\.[0-9]{1,3})?",
        hostile_short(),
    ];
    proptest::collection::vec((section, key, value), 0..8).prop_map(|lines| {
        lines
            .into_iter()
            .map(|(section, key, value)| format!("{section}{key} = {value}\n"))
            .collect()
    })
}

fn frame(payload: &[u8]) -> Vec<u8> {
    let mut bytes = (payload.len() as u32).to_ne_bytes().to_vec();
    bytes.extend_from_slice(payload);
    bytes
}

fn event() -> impl Strategy<Value = TranscriptEvent> {
    prop_oneof![
        (proptest::option::of(hostile_short()), hostile_short()).prop_map(|(title, m)| {
            TranscriptEvent::SessionStart { title, meta: json!({ "note": m }) }
        }),
        (hostile_short(), hostile_text()).prop_map(|(role, text)| TranscriptEvent::Turn {
            role,
            text,
            task_id: None,
        }),
        (hostile_short(), hostile_text(), hostile_text(), any::<bool>()).prop_map(
            |(name, p, output, success)| TranscriptEvent::Tool {
                name,
                params: json!({ "text": p }),
                output,
                success,
            }
        ),
        (hostile_text(), hostile_short(), hostile_text()).prop_map(|(text, k, v)| {
            TranscriptEvent::Summary { text, findings: json!({ k: v }) }
        }),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fuzz_framing_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..256), cap in 0usize..64) {
        let mut reader = Cursor::new(bytes.clone());
        for _ in 0..=bytes.len() {
            if let Inbound::End(reason) = read_inbound(&mut reader, cap) {
                prop_assert!(!matches!(reason, EndReason::Io(_)), "{reason:?}");
                return Ok(());
            }
        }
        prop_assert!(false, "a frame is at least its 4-byte prefix: the stream must end");
    }

    #[test]
    fn fuzz_framing_round_trip(text in hostile_text(), js in js_string()) {
        let bytes = encode_frame(&HostFrame::Reply(ReplyFrame::ok(7, text.clone())));
        let mut reader = Cursor::new(bytes);
        let Inbound::Frame(read) = read_inbound(&mut reader, crate::framing::INBOUND_CAP) else {
            return Err(TestCaseError::fail("one frame"));
        };
        let back: ReplyFrame<String> = serde_json::from_str(&read).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, ReplyFrame::ok(7, text.clone()));
        // Requests as the extension would send them, strings from JavaScript.
        let literal = js.json_literal(false);
        for request in [
            text.clone(),
            format!(r#"{{"v":1,"id":9,"type":"echo","payload":{literal}}}"#),
            format!(r#"{{"v":1,"id":9,"type":{literal}}}"#),
        ] {
            let mut reader = Cursor::new(frame(request.as_bytes()));
            if let Inbound::Frame(read) = read_inbound(&mut reader, crate::framing::INBOUND_CAP) {
                prop_assert_eq!(&read, &request);
                match parse_request(&read) {
                    Ok(r) => prop_assert_eq!(r.id, 9),
                    Err(reply) => prop_assert!(reply.id == 0 || reply.id == 9),
                }
            }
        }
    }

    #[test]
    fn fuzz_config_text(text in prop_oneof![toml_text(), hostile_text()]) {
        if let Ok(file) = toml::from_str::<ConfigFile>(&text) {
            let written = toml::to_string_pretty(&file).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(toml::from_str::<ConfigFile>(&written).ok(), Some(file));
        }
    }

    #[test]
    fn fuzz_config_settings(settings in proptest::collection::vec((setting_name(), setting_value()), 1..6)) {
        let mut file = ConfigFile::default();
        for (name, value) in &settings {
            let Ok(setting) = Setting::parse(name, value.as_deref()) else { continue };
            let again = Setting::parse(&setting.key().to_string(), setting.text().as_deref());
            prop_assert_eq!(again.as_ref(), Ok(&setting), "{} = {:?}", name, value);
            apply_setting(&mut file, &setting);
        }
        let written = toml::to_string_pretty(&file).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let read: ConfigFile = toml::from_str(&written).map_err(|e| TestCaseError::fail(format!("{e}\n{written}")))?;
        prop_assert_eq!(read, file.clone());
        let env: HashMap<&str, &str> =
            settings.iter().map(|(_, v)| v.as_deref().unwrap_or("")).zip([
                cfg::ENV_BASE_URL, cfg::ENV_MODEL, cfg::ENV_PROVIDER, cfg::ENV_RETRY_BASE_MS,
                cfg::ENV_TRANSCRIPTS, cfg::ENV_API_KEY,
            ]).map(|(v, k)| (k, v)).chain([(cfg::ENV_EXPORT_DIR, "/tmp/x"), (cfg::ENV_DATA_DIR, "/tmp/d")]).collect();
        let _ = resolve(file, &env, PathBuf::from("/tmp/config.toml"));
    }

    #[test]
    fn fuzz_export_names(hint in hostile_text(), ext in proptest::sample::select(&["md", "json", "jsonl"][..])) {
        if let Some(stem) = sanitize_stem(&hint, ext) {
            prop_assert!(stem.chars().count() <= MAX_STEM_CHARS);
            prop_assert!(!stem.starts_with('.') && !stem.contains(".."));
            prop_assert!(!stem.contains(['/', '\\', ':', '\0']) && !stem.chars().any(char::is_control));
            let name = candidate(&stem, ext, 3);
            prop_assert_eq!(std::path::Path::new(&name).components().count(), 1);
        }
    }

    #[test]
    fn fuzz_transcript_text(events in proptest::collection::vec(event(), 0..6), query in hostile_short()) {
        let values: Vec<Value> = events.iter().filter_map(|e| serde_json::to_value(e).ok()).collect();
        for v in &values {
            let _ = event_text(v);
        }
        let _ = toc(&values);
        let _ = to_markdown(&query, &values);
        let _ = to_json(&query, &values);
    }
}

proptest! {
    #![proptest_config(costly(8))]

    /// Real files: every event becomes one JSON line that reads back, and search finds text.
    #[test]
    fn fuzz_transcript_files(events in proptest::collection::vec(event(), 1..6), query in hostile_short()) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut store = TranscriptStore::new(TranscriptConfig {
            enabled: true,
            dir: dir.path().to_path_buf(),
            retention_days: 30,
            flush_every: 1,
            redact: vec![query.clone()],
        });
        let n = events.len();
        store.record("fuzz-1", events).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let text = std::fs::read_to_string(dir.path().join("fuzz-1.jsonl")).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for line in text.lines() {
            prop_assert!(serde_json::from_str::<Value>(line).is_ok(), "{line:?}");
        }
        let read = read_session(dir.path(), "fuzz-1").map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(read.len() == n || read.len() == n + 1, "{} of {n}", read.len());
        let _ = search(dir.path(), &query, 5);
        let _ = to_markdown("fuzz-1", &read);
    }
}
