//! The sessions benchmark, run by `cargo xtask bench sessions` (release, native): the session
//! model at scale.
//!
//! * the next task's context for a session of 10,000 tasks (target: median < 2 ms);
//! * search across 1,000 sessions of 50 tasks (target: median < 20 ms);
//! * bytes written to storage for one turn at turn 10 and at turn 1,000 (must not grow).
//!
//! A harness of ours (median and p95 of repeated runs) rather than criterion: three numbers, no
//! plots, and no extra dependency tree in every xtask build.

use std::hint::black_box;
use std::time::Instant;
use waymark_core::record::TaskOutcome;
use waymark_core::session::{SearchIndex, Session, TaskRecord, build_context};

mod timing;
use timing::{ms, time};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("note: a debug build; `cargo xtask bench sessions` runs the release build");
    }
    println!("## sessions (`cargo xtask bench sessions`, release, native)\n");
    println!("| measurement | median | p95 | target |");
    println!("|---|---|---|---|");

    let big = session("big", 10_000);
    let (median, p95) = time(200, || black_box(build_context(black_box(&big.records))).len());
    let context_len = build_context(&big.records).len();
    println!(
        "| next-task context, 10,000 tasks ({context_len} bytes) | {} | {} | < 2 ms |",
        ms(median),
        ms(p95)
    );

    let sessions: Vec<Session> = (0..1_000).map(|s| session(&format!("s{s}"), 50)).collect();
    let built = Instant::now();
    let mut index = SearchIndex::new();
    for s in &sessions {
        index.add_session(s);
    }
    let build_time = built.elapsed();
    let queries =
        ["lisbon", "cheapest flight", "hotel price 42", "baggage", "museum op", "tap air"];
    let mut q = 0;
    let (median, p95) = time(300, || {
        q = (q + 1) % queries.len();
        black_box(index.search(queries[q], None, 20)).len()
    });
    println!(
        "| search, 1,000 sessions × 50 tasks (index built in {}) | {} | {} | < 20 ms |",
        ms(build_time),
        ms(median),
        ms(p95)
    );

    let mut long = session("bytes", 1_000);
    let at_10 = turn_bytes(&mut long, 10)?;
    let at_1000 = turn_bytes(&mut long, 1_000)?;
    println!("| bytes written for turn 10 | {at_10} B | | |");
    println!("| bytes written for turn 1,000 | {at_1000} B | | must not grow |");
    // Only the turn number's digits may differ (in the record and the header's count).
    if at_1000 > at_10 + 4 {
        return Err(format!("bytes per turn grew with the session: {at_10} → {at_1000}").into());
    }
    Ok(())
}

/// What `chrome.storage.local.set` receives for turn `n`: the turn's key and JSON, the header's
/// key and JSON, and `current_session` (storage keeps values as JSON). The turn's content is the
/// same at every `n` (turn 10's task relabelled), so only the session's length could change it.
fn turn_bytes(session: &mut Session, n: u32) -> Result<usize> {
    let Some(template) = session.turn(10).cloned() else { return Err("no turn 10".into()) };
    let full = std::mem::take(&mut session.records);
    session.records = full[..n as usize].to_vec();
    let meta = session.meta();
    session.records = full;
    let record = TaskRecord { turn: n, ..template };
    let turn_json = serde_json::to_string(&record)?;
    let meta_json = serde_json::to_string(&meta)?;
    Ok(Session::turn_key(&session.id, n).len()
        + turn_json.len()
        + Session::meta_key(&session.id).len()
        + meta_json.len()
        + "current_session".len()
        + session.id.len()
        + 2)
}

const TOPICS: &[&str] = &[
    "flights to Lisbon",
    "hotel prices in Porto",
    "baggage rules",
    "museum opening hours",
    "cheapest flight to Madrid",
    "TAP Air Portugal seats",
    "train from Lisbon to Porto",
    "restaurant reviews",
    "car rental deposit",
    "weather next week",
];

fn session(id: &str, tasks: u32) -> Session {
    let mut s = Session::new(id.to_owned(), 0.0);
    for t in 1..=tasks {
        let topic = TOPICS[(t as usize + id.len()) % TOPICS.len()];
        let outcome = TaskOutcome {
            answer: format!(
                "Found three options for {topic}: option A at {} EUR, option B at {} EUR and \
                 option C at {} EUR. Option A is the cheapest; details on https://example.com/{t}.",
                40 + t % 50,
                60 + t % 70,
                80 + t % 90
            ),
            success: t % 7 != 0,
            error: None,
            steps: Vec::new(),
            step_count: 4,
            elapsed_ms: 12_000.0,
            ending: Default::default(),
        };
        let mut record =
            TaskRecord::from_outcome(t, &format!("Look up {topic} (#{t})"), &outcome, f64::from(t));
        record.structured_data.insert("cheapest".into(), format!("option A, {} EUR", 40 + t % 50));
        record.structured_data.insert("source".into(), format!("https://example.com/{t}"));
        s.push(record);
    }
    s.title = "Trip planning".into();
    s
}
