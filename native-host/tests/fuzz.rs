//! Random and truncated input: the host must never panic, must exit 0 when stdin closes, and
//! must write nothing to stdout but well-formed frames. A fixed-seed PRNG keeps runs repeatable.

mod common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use common::{BIN, frame_bytes};
use waymark_protocol::{EXTENSION_ID, HostFrame};

/// xorshift64*: tiny, deterministic, good enough to shake a parser.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 24) as u8).collect()
    }
}

const TEMPLATES: &[&str] = &[
    r#"{"v":1,"id":1,"type":"hello","extension_version":"0.1.0"}"#,
    r#"{"v":1,"id":2,"type":"echo","payload":"a [1,2,3] b ü😀"}"#,
    r#"{"v":1,"id":3,"type":"export.write","name_hint":"../../x","format":"md","content":"- t"}"#,
    r#"{"v":1,"id":4,"type":"llm.cancel","target":7}"#,
    r#"{"v":1,"id":5,"type":"llm.complete","messages":[{"role":"user","content":"hi"}]}"#,
    r#"{"v":2,"id":6,"type":"hello","extension_version":"x"}"#,
];

/// One random input stream: a mix of valid, mutated and random frames, maybe cut at the end.
fn input(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.below(8) + 1 {
        match rng.below(6) {
            0 | 1 => out.extend(frame_bytes(
                TEMPLATES[rng.below(TEMPLATES.len() as u64) as usize].as_bytes(),
            )),
            2 => {
                // A template with a few bytes flipped.
                let mut t =
                    TEMPLATES[rng.below(TEMPLATES.len() as u64) as usize].as_bytes().to_vec();
                for _ in 0..rng.below(4) + 1 {
                    let i = rng.below(t.len() as u64) as usize;
                    t[i] = (rng.next() >> 16) as u8;
                }
                out.extend(frame_bytes(&t));
            }
            3 => {
                let n = rng.below(64) as usize;
                out.extend(frame_bytes(&rng.bytes(n)));
            }
            4 => {
                // A random length prefix followed by fewer bytes than it claims (or more).
                out.extend((rng.next() as u32).to_ne_bytes());
                let n = rng.below(32) as usize;
                out.extend(rng.bytes(n));
            }
            _ => {
                let n = rng.below(16) as usize;
                out.extend(rng.bytes(n));
            }
        }
    }
    if rng.below(3) == 0 && !out.is_empty() {
        let cut = rng.below(out.len() as u64) as usize;
        out.truncate(cut);
    }
    out
}

/// Splits stdout into frames; fails on anything that is not a complete, valid host frame.
fn check_stdout(mut out: &[u8]) -> Result<usize, String> {
    let mut n = 0;
    while !out.is_empty() {
        if out.len() < 4 {
            return Err(format!("{} stray bytes after {n} frames", out.len()));
        }
        let len = u32::from_ne_bytes([out[0], out[1], out[2], out[3]]) as usize;
        if len > 1024 * 1024 || out.len() < 4 + len {
            return Err(format!("bad frame length {len} after {n} frames"));
        }
        let text = std::str::from_utf8(&out[4..4 + len]).map_err(|e| e.to_string())?;
        serde_json::from_str::<HostFrame<serde_json::Value>>(text)
            .map_err(|e| format!("{e}: {text}"))?;
        out = &out[4 + len..];
        n += 1;
    }
    Ok(n)
}

#[test]
fn random_and_truncated_frames_never_panic_or_corrupt_stdout() {
    let mut rng = Rng(0x5EED_CAFE_F00D_1234);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut frames = 0;
    for iteration in 0..300 {
        let data = input(&mut rng);
        let mut child = Command::new(BIN)
            .arg(format!("chrome-extension://{EXTENSION_ID}/"))
            .env("WAYMARK_CONFIG_DIR", dir.path().join("config"))
            .env("WAYMARK_EXPORT_DIR", dir.path().join("exports"))
            .env("WAYMARK_LLM_BASE_URL", "http://127.0.0.1:9/v1")
            .env("WAYMARK_LLM_RETRY_BASE_MS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdout = child.stdout.take().expect("stdout");
        let reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            #[allow(
                clippy::let_underscore_must_use,
                reason = "the host may close stdout early on bad input: what was read is checked"
            )]
            let _ = stdout.read_to_end(&mut buf);
            buf
        });
        let mut stdin = child.stdin.take().expect("stdin");
        // The host may legitimately stop reading (e.g. after a truncated frame): ignore EPIPE.
        #[allow(
            clippy::let_underscore_must_use,
            reason = "the host may stop reading a bad frame early (EPIPE)"
        )]
        let _ = stdin.write_all(&data);
        drop(stdin);
        let output = child.wait_with_output().expect("wait");
        let out = reader.join().expect("reader");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "iteration {iteration}: {:?} {stderr}\ninput {data:?}",
            output.status
        );
        assert!(!stderr.contains("panicked"), "iteration {iteration}: {stderr}");
        frames += check_stdout(&out)
            .unwrap_or_else(|e| panic!("iteration {iteration}: {e}\ninput {data:?}"));
    }
    assert!(frames > 100, "the fuzz input should provoke many replies, got {frames}");
}
