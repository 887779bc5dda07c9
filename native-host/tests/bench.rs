//! `cargo xtask bench host`: start-up, round-trip and streaming overhead of the host.
//! Ignored in normal test runs (they are measurements, not checks); the xtask runs them in a
//! release build with `--ignored --nocapture` and prints one line per figure.

mod common;

use std::time::{Duration, Instant};

use common::Host;
use serde_json::json;
use waymark_host::framing::encode_frame;
use waymark_host::llm::Provider;
use waymark_host::llm::openai::OpenAi;
use waymark_protocol::{EventFrame, HostEvent, HostFrame, PROTOCOL_VERSION};
use waymark_tests::llm_server::{LlmServerOptions, ScriptedLlm};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn p(v: &[Duration], q: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort_unstable();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

#[test]
#[ignore = "benchmark: run by `cargo xtask bench host`"]
fn bench_host() {
    // Cold start: spawn the binary, send hello, wait for its reply.
    let mut cold = Vec::new();
    for _ in 0..40 {
        let start = Instant::now();
        let mut h = Host::builder().env("WAYMARK_LOG", "warn").spawn();
        h.request(1, "hello", json!({"extension_version": "bench"}));
        let r = h.reply(1);
        cold.push(start.elapsed());
        assert_eq!(r["ok"], true);
    }
    println!(
        "host cold start to first reply (hello): median {} p90 {} (n={})",
        ms(median(cold.clone())),
        ms(p(&cold, 0.9)),
        cold.len()
    );

    // Warm round trip of a small echo through the framing.
    let mut h = Host::builder().env("WAYMARK_LOG", "warn").spawn();
    for id in 0..200 {
        h.request(id, "echo", json!({"payload": "warm-up"}));
        h.reply(id);
    }
    let mut warm = Vec::new();
    for id in 1000..6000 {
        let start = Instant::now();
        h.request(id, "echo", json!({"payload": format!("small message {id}")}));
        h.reply(id);
        warm.push(start.elapsed());
    }
    println!(
        "host warm round trip (small echo): median {} p99 {} (n={})",
        ms(median(warm.clone())),
        ms(p(&warm, 0.99)),
        warm.len()
    );

    // Per streamed delta, in process: parse one SSE chunk, build the event frame, encode it.
    let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                       "choices": [{"index": 0, "delta": {"content": "word "}, "finish_reason": null}]})
    .to_string();
    let n = 100_000u32;
    let mut state = OpenAi.stream();
    let start = Instant::now();
    let mut bytes = 0usize;
    for _ in 0..n {
        if let Ok(waymark_host::llm::Step::Text(t)) = state.feed("", &chunk) {
            let frame = HostFrame::<()>::Event(EventFrame {
                v: PROTOCOL_VERSION,
                id: 7,
                event: HostEvent::LlmDelta { text: t },
            });
            bytes += encode_frame(&frame).len();
        }
    }
    let per = start.elapsed() / n;
    assert!(bytes > 0);
    println!("host work per streamed delta (parse SSE chunk + encode frame): {per:?} (n={n})");

    // Per streamed delta, end to end: a 2000-word answer streamed with no pause between chunks;
    // the interval between deltas bounds what the host adds (it includes the server's work).
    let words = "lorem ".repeat(2000);
    let llm =
        ScriptedLlm::start_with(LlmServerOptions { chunk_delay: Duration::ZERO }, move |_| {
            waymark_tests::llm_server::ScriptedReply::text(words.clone())
        })
        .expect("llm");
    let mut h = Host::builder().llm(&llm.base_url()).env("WAYMARK_LOG", "warn").spawn();
    let mut intervals = Vec::new();
    for id in 1..=5 {
        h.request(
            id,
            "llm.complete",
            json!({"stream": true, "messages": [{"role": "user", "content": "go"}]}),
        );
        let mut first: Option<Instant> = None;
        let mut deltas = 0u32;
        loop {
            let f = h.next();
            if f["event"] == "llm.delta" {
                first.get_or_insert_with(Instant::now);
                deltas += 1;
            } else if f["id"] == id && f.get("ok").is_some() {
                break;
            }
        }
        let total = first.map(|t| t.elapsed()).unwrap_or_default();
        intervals.push(total / deltas.max(1));
    }
    println!(
        "host end-to-end interval per streamed delta (scripted server, no pauses): median {}",
        ms(median(intervals))
    );
    let size = std::fs::metadata(common::BIN).map(|m| m.len()).unwrap_or(0);
    println!(
        "host binary size: {:.2} MiB ({size} bytes, {})",
        size as f64 / 1048576.0,
        common::BIN
    );
}
