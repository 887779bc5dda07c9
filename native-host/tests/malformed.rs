//! 1,000 malformed frames into one real host process: random payloads, invalid UTF-8, truncated
//! JSON, valid JSON of the wrong shape, unknown types, an oversize frame. While the length
//! prefixes are honest the stream stays in sync, so every frame must get exactly one clean
//! error reply (with its id whenever the id was readable) and a `hello` must still work after
//! them all. Streams that lie about their length cannot be re-synchronised: the host must then
//! answer what came before, exit 0 and never write a partial frame. (`fuzz.rs` shakes random
//! streams; this test checks each reply.) Seeded, so a failure replays exactly.

mod common;

use std::collections::HashMap;

use common::{Host, frame_bytes};
use serde_json::{Value, json};

/// Frames of the in-sync run.
const FRAMES: usize = 1_000;

/// What one malformed frame must be answered with.
struct Expect {
    /// The id the reply must carry (0 when the request's id was unreadable).
    id: u64,
    /// Acceptable error codes; empty = a success reply.
    codes: &'static [&'static str],
}

fn random_json(rng: &mut fastrand::Rng, depth: u32) -> Value {
    match rng.u8(0..if depth > 2 { 4 } else { 6 }) {
        0 => Value::Null,
        1 => json!(rng.bool()),
        2 => json!(rng.i64(..)),
        3 => json!((0..rng.usize(0..12)).map(|_| rng.char(..)).collect::<String>()),
        4 => Value::Array((0..rng.usize(0..4)).map(|_| random_json(rng, depth + 1)).collect()),
        _ => Value::Object(
            (0..rng.usize(0..4)).map(|i| (format!("k{i}"), random_json(rng, depth + 1))).collect(),
        ),
    }
}

/// One malformed (or, now and then, valid) frame whose length prefix is honest.
fn frame(rng: &mut fastrand::Rng, id: u64) -> (Vec<u8>, Expect) {
    const JSON: &[&str] = &["bad_json"];
    const SHAPE: &[&str] = &["bad_request"];
    let valid = json!({"v": 1, "id": id, "type": "echo", "payload": format!("n{id}")}).to_string();
    match rng.u8(0..10) {
        // Random bytes: not UTF-8, or UTF-8 but not JSON, or (rarely) a JSON scalar.
        0 => {
            let bytes: Vec<u8> = (0..rng.usize(1..64)).map(|_| rng.u8(..)).collect();
            (bytes, Expect { id: 0, codes: &["bad_json", "bad_request"] })
        }
        // A valid request with invalid UTF-8 spliced in.
        1 => {
            let mut bytes = valid.into_bytes();
            let at = rng.usize(0..bytes.len());
            bytes.splice(at..at, [0xC3, 0x28, 0xFF]);
            (bytes, Expect { id: 0, codes: JSON })
        }
        // A valid request cut short (but framed with its shorter length).
        2 => {
            let cut = rng.usize(1..valid.len() - 1);
            (valid.as_bytes()[..cut].to_vec(), Expect { id: 0, codes: JSON })
        }
        // JSON that is not an object.
        3 => {
            let v = match rng.u8(0..4) {
                0 => json!([1, 2, id]),
                1 => json!(id),
                2 => json!("hello"),
                _ => Value::Null,
            };
            (v.to_string().into_bytes(), Expect { id: 0, codes: SHAPE })
        }
        // The envelope broken: no version, a wrong version, a version of the wrong type.
        4 => {
            let (v, codes): (Value, &'static [&'static str]) = match rng.u8(0..3) {
                0 => (json!({"id": id, "type": "hello", "extension_version": "1"}), SHAPE),
                1 => (
                    json!({"v": rng.u32(2..), "id": id, "type": "hello", "extension_version": "1"}),
                    &["version_mismatch"],
                ),
                _ => (json!({"v": "1", "id": id, "type": "echo", "payload": "1"}), SHAPE),
            };
            (v.to_string().into_bytes(), Expect { id, codes })
        }
        // A type nobody knows.
        5 => {
            let kind: String = (0..rng.usize(1..12)).map(|_| rng.alphanumeric()).collect();
            let v =
                json!({"v": 1, "id": id, "type": format!("x.{kind}"), "data": random_json(rng, 0)});
            (v.to_string().into_bytes(), Expect { id, codes: SHAPE })
        }
        // Known types with fields of the wrong shape.
        6 => {
            let v = match rng.u8(0..6) {
                0 => json!({"v": 1, "id": id, "type": "echo"}),
                1 => {
                    json!({"v": 1, "id": id, "type": "hello", "extension_version": random_json(rng, 3).as_array().map(|_| 1)})
                }
                2 => json!({"v": 1, "id": id, "type": "llm.cancel", "target": "seven"}),
                3 => json!({"v": 1, "id": id, "type": "file.read", "path": 42}),
                4 => {
                    json!({"v": 1, "id": id, "type": "export.write", "format": "exe", "content": []})
                }
                _ => json!({"v": 1, "id": id, "type": "llm.complete", "messages": "hi"}),
            };
            (v.to_string().into_bytes(), Expect { id, codes: SHAPE })
        }
        // An id of the wrong type: the request is refused and the reply cannot carry it.
        7 => {
            let v = json!({"v": 1, "id": format!("{id}"), "type": "echo", "payload": "1"});
            (v.to_string().into_bytes(), Expect { id: 0, codes: SHAPE })
        }
        // Random JSON objects.
        8 => {
            let mut v = random_json(rng, 1);
            if let Value::Object(map) = &mut v {
                map.insert("v".into(), json!(1));
                map.insert("id".into(), json!(id));
                map.insert("type".into(), json!("no.such.type"));
            } else {
                return (v.to_string().into_bytes(), Expect { id: 0, codes: SHAPE });
            }
            (v.to_string().into_bytes(), Expect { id, codes: SHAPE })
        }
        // A valid request among the bad ones: answered normally.
        _ => (valid.into_bytes(), Expect { id, codes: &[] }),
    }
}

#[test]
fn a_thousand_malformed_frames_get_clean_errors_and_hello_still_works() {
    let mut rng = fastrand::Rng::with_seed(0x5EED_F417);
    let mut host = Host::spawn();
    let mut by_id: HashMap<u64, Expect> = HashMap::new();
    let mut anonymous: Vec<&'static [&'static str]> = Vec::new();
    let mut stream = Vec::new();
    for i in 0..FRAMES {
        let id = 1_000 + i as u64;
        let (bytes, expect) = frame(&mut rng, id);
        stream.extend(frame_bytes(&bytes));
        if expect.id == 0 {
            anonymous.push(expect.codes);
        } else {
            by_id.insert(expect.id, expect);
        }
        // One frame above the 64 MiB cap, in the middle: skipped, answered, stream in sync.
        if i == FRAMES / 2 {
            let len = waymark_protocol::MAX_BROWSER_TO_HOST + 1;
            stream.extend(u32::try_from(len).expect("len").to_ne_bytes());
            stream.resize(stream.len() + len, b' ');
            anonymous.push(&["frame_too_large"]);
        }
    }
    host.write_raw(&stream);
    drop(stream);

    let mut anonymous_codes: Vec<String> = Vec::new();
    for _ in 0..by_id.len() + anonymous.len() {
        let reply = host.next();
        assert!(reply.get("event").is_none(), "no request here streams: {reply}");
        let id = reply["id"].as_u64().expect("every reply has an id");
        let code = reply["error"]["code"].as_str().map(str::to_owned);
        if id == 0 {
            anonymous_codes
                .push(code.unwrap_or_else(|| panic!("id 0 is always an error: {reply}")));
            continue;
        }
        let expect =
            by_id.remove(&id).unwrap_or_else(|| panic!("unexpected or repeated reply {reply}"));
        match code {
            None => {
                assert!(expect.codes.is_empty(), "expected {:?}: {reply}", expect.codes);
                assert_eq!(
                    reply["data"],
                    json!({"payload": format!("n{id}")}),
                    "the echo came back intact"
                );
            }
            Some(code) => {
                assert!(
                    expect.codes.contains(&code.as_str()),
                    "expected {:?}: {reply}",
                    expect.codes
                );
                let message = reply["error"]["message"].as_str().unwrap_or_default();
                assert!(!message.is_empty() && message.len() < 2_000, "short, clear: {reply}");
            }
        }
    }
    assert!(by_id.is_empty(), "requests without a reply: {:?}", by_id.keys().collect::<Vec<_>>());
    // Replies without an id come in order, so their codes line up with what was sent.
    assert_eq!(anonymous_codes.len(), anonymous.len());
    for (code, allowed) in anonymous_codes.iter().zip(&anonymous) {
        assert!(allowed.contains(&code.as_str()), "{code} not in {allowed:?}");
    }
    assert!(anonymous_codes.iter().any(|c| c == "frame_too_large"));

    // Still in sync and fully working.
    host.request(7, "hello", json!({"extension_version": "0.1.0"}));
    let hello = host.reply(7);
    assert_eq!(hello["ok"], true, "{hello}");
    assert!(hello["data"]["capabilities"].as_array().is_some_and(|c| !c.is_empty()));
    let (status, stderr) = host.wait_exit();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(host.drain().is_empty(), "nothing after the last reply");
}

#[test]
fn lying_length_prefixes_end_the_stream_cleanly_after_answering_what_came_before() {
    let mut rng = fastrand::Rng::with_seed(0x00DE_51C0);
    let hello = json!({"v": 1, "id": 1, "type": "hello", "extension_version": "0.1.0"}).to_string();
    let endings: Vec<(&str, Vec<u8>)> = vec![
        ("half a length prefix", vec![0x10, 0x00]),
        ("a length with no payload", 64u32.to_ne_bytes().to_vec()),
        ("a length longer than the payload", {
            let mut v = 4096u32.to_ne_bytes().to_vec();
            v.extend(b"{\"v\":1,\"id\":2");
            v
        }),
        ("an oversize length, then EOF", u32::MAX.to_ne_bytes().to_vec()),
        ("a random length and random bytes", {
            let mut v = rng.u32(100..).to_ne_bytes().to_vec();
            v.extend((0..rng.usize(0..64)).map(|_| rng.u8(..)));
            v
        }),
    ];
    for (what, ending) in endings {
        let mut host = Host::spawn();
        let mut stream = frame_bytes(hello.as_bytes());
        stream.extend(ending);
        host.write_raw(&stream);
        assert_eq!(host.reply(1)["ok"], true, "{what}: the request before was answered");
        let (status, stderr) = host.wait_exit();
        assert!(status.success(), "{what}: {status:?} {stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        for frame in host.drain() {
            assert_eq!(frame["ok"], false, "{what}: only an error may follow: {frame}");
        }
    }
}
