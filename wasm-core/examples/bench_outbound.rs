//! The outbound check's cost per action (release, native): a ledger filled by a long task
//! (300 tracked values from 30 pages, the user's task, 40 earlier sends to the destination),
//! checking a typed text, a long form submission and a navigation. Run with
//! `cargo run --release -p waymark-core --example bench_outbound`.
//!
//! A harness of ours (median and p95 of repeated runs), like `bench_sessions`.

use std::hint::black_box;
use waymark_core::safety::{TaintLedger, UserText};

mod timing;
use timing::{ms, time};

fn main() {
    if cfg!(debug_assertions) {
        eprintln!("note: a debug build; run with --release");
    }
    let mut ledger = TaintLedger::default();
    ledger.record_user_text(
        "Log in to shop.example with password sunshine42 and pay with card 4111 1111 1111 1111",
        UserText::Task,
    );
    for page in 0..30 {
        let mut text = String::new();
        for i in 0..10 {
            text.push_str(&format!(
                "Order {} ref AB{page:02}X{i:02}QZ7731KL code {} price $12.50 ",
                10_000_000 + page * 100 + i,
                100_000 + page * 37 + i
            ));
        }
        ledger.record_page_text(&format!("https://site{page}.example/p"), &text);
    }
    for i in 0..40 {
        ledger.record_sent("https://forum.example/post", &format!("comment number {i} about tea"));
    }
    println!("tracked values: {}", ledger.len());
    let form = "q=".to_owned() + &"lorem ipsum dolor sit amet ".repeat(40);
    for (what, url, data) in [
        ("type 40 characters", "https://forum.example/post", "a short comment about the teapot"),
        ("submit a 1 KB form", "https://forum.example/post", form.as_str()),
        ("navigate", "https://forum.example/search?q=teapot&page=2&sort=new", ""),
    ] {
        let (median, p95) = time(200, || black_box(ledger.check(url, data)).is_ok());
        println!("{what}: median {} p95 {}", ms(median), ms(p95));
    }
}
