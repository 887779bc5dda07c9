//! `cargo xtask bench collect`: a 10-page listing (20 records a page, "Next" on each) read
//! with `collect` — the model names the columns once — against a model-per-page baseline that
//! reads each page (`extract`) and clicks "Next" with a model call each, as agents that
//! extract with a model on every page do. The scripted model answers every call after 1.5 s.
//! Wall time is from the user's Send to the answer shown; rows per second and model calls per
//! 100 rows are printed. Ignored in normal runs: numbers, never assertions about speed.

use crate::common;
use common::{Panel, Setup, TASK_TIMEOUT, Waymark, find_ref, message_text, role_reply};
use serde_json::json;
use std::path::Path;
use std::time::Instant;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::trial::E2e;

const MODEL_MS: u64 = 1500;
const PAGES: usize = 10;
const PER_PAGE: usize = 20;
const COLLECT: &str = "Collect every part on all pages into a table";
const BASELINE: &str = "Read every part on all pages, page by page";

fn page(n: usize) -> String {
    let rows: String = (0..PER_PAGE)
        .map(|i| {
            let id = (n - 1) * PER_PAGE + i + 1;
            format!(
                "<tr><td><a href=\"/part/{id}\">Part {id:03}</a></td><td>{}.{:02} €</td><td>{}</td></tr>\n",
                id % 90 + 5,
                id % 100,
                if id.is_multiple_of(3) { "in stock" } else { "ships in 2 days" }
            )
        })
        .collect();
    let next = if n < PAGES {
        format!("<a href=\"/parts-{}.html\">Next</a>", n + 1)
    } else {
        String::new()
    };
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Parts {n}</title></head>\
         <body><h1>Parts, page {n}</h1><table><thead><tr><th>Part</th><th>Price</th><th>Stock</th></tr></thead>\
         <tbody>{rows}</tbody></table><nav>{next}</nav></body></html>"
    )
}

fn task_of(user: &str) -> &str {
    user.lines()
        .filter_map(|l| l.strip_prefix("New task: ").or_else(|| l.strip_prefix("Task: ")))
        .next_back()
        .unwrap_or_default()
}

fn navigator(req: &RecordedRequest) -> ScriptedReply {
    let user = message_text(&req.body, 1);
    let done = |answer: String| {
        ScriptedReply::tool_call("done", json!({"answer": answer, "success": true}))
    };
    if task_of(&user) == COLLECT {
        if let Some(line) = user.lines().find(|l| l.starts_with("Collected parts:")) {
            return done(line.to_owned());
        }
        let example = find_ref(&user, "link", "Part 001").expect("first part");
        return ScriptedReply::tool_call(
            "extract",
            json!({"ref": example.to_string(), "name": "parts", "pages": PAGES + 2, "columns": [
                {"name": "part", "example": "Part 001"},
                {"name": "price", "example": "6.01 €"},
                {"name": "stock", "example": "ships in 2 days"}]}),
        );
    }
    // The baseline: read the page, then go to the next one (the steps so far say which).
    let extracts = user.matches("Extract the page's text →").count();
    let clicks = user.matches("Click “Next”").count();
    match (extracts > clicks, find_ref(&user, "link", "Next")) {
        (false, _) => ScriptedReply::tool_call("extract", json!({})),
        (true, Some(next)) => ScriptedReply::tool_call("click", json!({"ref": next})),
        (true, None) => done(format!("Read {} parts.", PAGES * PER_PAGE)),
    }
}

fn model(req: &RecordedRequest) -> ScriptedReply {
    role_reply(req).unwrap_or_else(|| navigator(req)).delayed(MODEL_MS)
}

fn turns(panel: &Panel) -> u64 {
    panel
        .page
        .eval("document.querySelectorAll('#toc li').length")
        .ok()
        .and_then(|v| v.as_u64())
        .unwrap_or(0)
}

fn run(wm: &Waymark, panel: &Panel, llm: &ScriptedLlm, task: &str, expect: &str) -> (f64, usize) {
    let _tab = wm.open("/parts-1.html").expect("listing");
    let calls = common::navigator_requests(llm).len();
    let before = turns(panel);
    let started = Instant::now();
    panel.send(task).expect("send");
    let predicate = format!(
        "t.includes({}) && document.querySelectorAll('#toc li').length > {before}",
        serde_json::to_string(expect).expect("json")
    );
    panel.page.wait_for(
        &format!("(() => {{ const t = document.getElementById('answer')?.textContent || ''; return ({predicate}) ? t : false; }})()"),
        TASK_TIMEOUT * 3,
    ).expect("answer");
    (started.elapsed().as_secs_f64(), common::navigator_requests(llm).len() - calls)
}

fn bench_collect_against_a_model_per_page_baseline(extension: &Path) {
    let llm = ScriptedLlm::start(model).expect("scripted LLM");
    let mut site = FixtureServer::builder(std::env::temp_dir());
    for n in 1..=PAGES {
        site = site.with_page(format!("/parts-{n}.html"), page(n));
    }
    let site = site.start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    let rows = (PAGES * PER_PAGE) as f64;

    let (c_secs, c_calls) = run(&wm, &panel, &llm, COLLECT, &format!("{} rows", PAGES * PER_PAGE));
    let (b_secs, b_calls) = run(&wm, &panel, &llm, BASELINE, "Read 200 parts");
    println!(
        "\n## collect vs a model-per-page baseline ({PAGES} pages × {PER_PAGE} rows, model latency {MODEL_MS} ms per call)\n"
    );
    println!(
        "| run | navigator calls | wall time (s) | rows per second | model calls per 100 rows |"
    );
    println!("|---|---|---|---|---|");
    for (name, secs, calls) in [
        ("collect (columns named once)", c_secs, c_calls),
        ("model per page (extract + click Next)", b_secs, b_calls),
    ] {
        println!(
            "| {name} | {calls} | {secs:.2} | {:.1} | {:.2} |",
            rows / secs,
            calls as f64 * 100.0 / rows
        );
    }
    println!("\ncollect is {:.1}× faster; navigator calls {b_calls} → {c_calls}", b_secs / c_secs);
    llm.assert_no_script_panics().expect("script ok");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, bench_collect_against_a_model_per_page_baseline).only_when_asked()]
}
