//! `collect` end to end in real Chromium with the scripted LLM, on fixture listings
//! (`site/listing/`): a table, a card grid, a list with "Next" across 3 pages, an infinite
//! scroll and a list with ads between records. The model names the records and columns once;
//! every row comes from the DOM (0 model calls after the first page), the panel draws the
//! table, "Save CSV" writes a CSV that parses back, and the tables survive a service-worker
//! restart into the markdown and JSON exports.

use crate::common;
use common::{Panel, Setup, TASK_TIMEOUT, Waymark, find_ref, message_text, role_reply};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::paths;
use waymark_tests::trial::E2e;

/// One fixture listing and what collecting it must give.
struct Case {
    /// Task words (the script tells the cases apart by them).
    task: &'static str,
    path: &'static str,
    /// The example record's link, when it has one (its ref is the example).
    example_link: Option<&'static str>,
    /// Column name → the example record's value.
    columns: &'static [(&'static str, &'static str)],
    rows: usize,
    pages: u64,
    /// Some rows, as the CSV must have them (every column, then the source page's file).
    expect: &'static [(&'static [&'static str], &'static str)],
}

const CASES: &[Case] = &[
    Case {
        task: "Collect every kettle from the table",
        path: "/listing/table.html",
        example_link: Some("Red Kettle"),
        columns: &[
            ("name", "Red Kettle"),
            ("price", "$11.99"),
            ("rating", "3.1"),
            ("link", "/listing/item/2"),
        ],
        rows: 12,
        pages: 1,
        expect: &[
            (&["Blue Kettle", "$10.99", "3.0", "/listing/item/1"], "table.html"),
            (&["Travel Kettle, small", "$15.99", "3.5", "/listing/item/6"], "table.html"),
            (&["Steel “Pro” Kettle", "$12.99", "3.2", "/listing/item/3"], "table.html"),
        ],
    },
    Case {
        task: "Collect every lamp card",
        path: "/listing/cards.html",
        example_link: Some("Clip Lamp"),
        columns: &[("name", "Clip Lamp"), ("brand", "Brand D"), ("price", "€35")],
        rows: 9,
        pages: 1,
        expect: &[
            (&["Desk Lamp", "Brand A", "€20"], "cards.html"),
            (&["Wall Lamp", "Brand I", "€60"], "cards.html"),
        ],
    },
    Case {
        task: "Collect every book on all pages",
        path: "/listing/next-1.html",
        example_link: Some("Book 02: Emma"),
        columns: &[("title", "Book 02: Emma"), ("author", "Author 2")],
        rows: 22,
        pages: 3,
        expect: &[
            (&["Book 01: Dune", "Author 1"], "next-1.html"),
            (&["Book 09: Persuasion", "Author 9"], "next-2.html"),
            (&["Book 22: Heidi", "Author 22"], "next-3.html"),
        ],
    },
    Case {
        task: "Collect every photo of the feed",
        path: "/listing/scroll.html",
        example_link: None,
        columns: &[("photo", "Photo 1"), ("by", "by user1")],
        rows: 30,
        pages: 3,
        expect: &[
            (&["Photo 1", "by user1"], "scroll.html"),
            (&["Photo 30", "by user30"], "scroll.html"),
        ],
    },
    Case {
        task: "Collect every job, not the ads",
        path: "/listing/ads.html",
        example_link: Some("Data analyst"),
        columns: &[("job", "Data analyst"), ("place", "City 2"), ("pay", "£31k")],
        rows: 10,
        pages: 1,
        expect: &[
            (&["Rust engineer", "City 1", "£30k"], "ads.html"),
            (&["Gardener", "City 10", "£39k"], "ads.html"),
        ],
    },
];

fn case_of(user: &str) -> Option<&'static Case> {
    let task = user
        .lines()
        .filter_map(|l| l.strip_prefix("New task: ").or_else(|| l.strip_prefix("Task: ")))
        .next_back()?;
    CASES.iter().find(|c| c.task == task)
}

/// The model: names the records once (the example's ref and each column's value), then, once
/// the collect's output is in its prompt, answers.
fn script(req: &RecordedRequest) -> ScriptedReply {
    if let Some(r) = role_reply(req) {
        return r;
    }
    let user = message_text(&req.body, 1);
    let Some(case) = case_of(&user) else { panic!("unexpected navigator prompt: {user}") };
    // This task's collect output (earlier tasks' answers are in the session notes too).
    let mine = format!("Collected {}:", case.path.trim_start_matches("/listing/"));
    if let Some(line) = user.lines().find(|l| l.starts_with(&mine)) {
        return ScriptedReply::tool_call("done", json!({"answer": line, "success": true}));
    }
    let columns: Vec<Value> = case
        .columns
        .iter()
        .map(|(name, example)| json!({"name": name, "example": example}))
        .collect();
    let mut args = json!({"columns": columns, "name": case.path.trim_start_matches("/listing/")});
    if let Some(link) = case.example_link {
        let r = find_ref(&user, "link", link).unwrap_or_else(|| panic!("no link {link}: {user}"));
        args["ref"] = json!(r.to_string());
    }
    ScriptedReply::tool_call("extract", args)
}

fn wait_js(panel: &Panel, js: &str) -> Value {
    panel.page.wait_for(js, TASK_TIMEOUT).unwrap_or_else(|e| panic!("waiting for {js}: {e:#}"))
}

/// Parses CSV as RFC 4180 reads it (quoted fields, doubled quotes, CRLF records), written
/// here apart from the writer so the two cannot share a mistake.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {
                chars.next();
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(field.is_empty() && record.is_empty(), "the CSV ends with CRLF");
    records
}

fn collect_reads_every_row_of_five_listings_without_the_model_and_keeps_the_tables(
    extension: &Path,
) {
    let llm = ScriptedLlm::start(script).expect("scripted LLM");
    let site = FixtureServer::builder(paths::fixtures_dir().join("site")).start().expect("site");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let origin = wm.site.origin();
    let mut panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");

    let mut last_status = String::new();
    for case in CASES {
        let _tab = wm.open(case.path).expect("open listing");
        let before = common::navigator_requests(&llm).len();
        panel.send(case.task).expect("send");
        let name = case.path.trim_start_matches("/listing/");
        let said = format!("{name}: {} rows", case.rows);
        let predicate = format!("t.includes({})", serde_json::to_string(&said).expect("json"));
        panel.wait_text("answer", &predicate).unwrap_or_else(|e| {
            panic!(
                "{}: {e:#}\nanswer: {:?}\nsteps: {:?}\nnotes: {:?}",
                case.task,
                panel.text("answer"),
                panel.steps(),
                panel.text("notes")
            )
        });
        // One call named the records, one answered: no call per page.
        assert_eq!(common::navigator_requests(&llm).len() - before, 2, "{}", case.task);

        // The panel draws the table (the Rust view model decides every cell).
        let shown = wait_js(
            &panel,
            &format!(
                "(() => {{ const t = document.querySelector('#findings-tables table.collected'); \
                 return t && t.tBodies[0].rows.length === {} && \
                 [...t.tHead.rows[0].cells].map((c) => c.textContent).join('|'); }})()",
                case.rows
            ),
        );
        let names: Vec<&str> = case.columns.iter().map(|c| c.0).collect();
        assert_eq!(shown.as_str(), Some(names.join("|").as_str()), "{}", case.task);
        if case.path == "/listing/cards.html" {
            panel.shoot_accessible("table-400", Some("findings-tables"));
        }

        // "Save CSV": the host writes it; it parses back with every row and the right columns.
        panel
            .page
            .eval("document.querySelector('#findings-tables button[data-table]').click()")
            .expect("save csv");
        let status = panel
            .wait_text(
                "export-status",
                &format!(
                    "t.endsWith('.csv') && t !== {}",
                    serde_json::to_string(&last_status).expect("json")
                ),
            )
            .expect("csv written");
        last_status = status.clone();
        let path = std::path::PathBuf::from(status.trim_start_matches("Exported to "));
        assert!(path.starts_with(&wm.export_dir), "{}", path.display());
        let csv = parse_csv(&std::fs::read_to_string(&path).expect("read csv"));
        let mut header = names.clone();
        header.push("source_url");
        assert_eq!(csv[0], header, "{}", case.task);
        assert_eq!(csv.len() - 1, case.rows, "{}: {csv:?}", case.task);
        for (values, page) in case.expect {
            let want: Vec<String> = values
                .iter()
                .map(|v| if v.starts_with('/') { format!("{origin}{v}") } else { (*v).to_owned() })
                .chain([format!("{origin}/listing/{page}")])
                .collect();
            assert!(csv.contains(&want), "{}: {want:?} not in {csv:?}", case.task);
        }
        // Every row once.
        let mut distinct = csv[1..].iter().map(|r| r[..names.len()].to_vec()).collect::<Vec<_>>();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), case.rows, "{}", case.task);
    }
    let ads = std::fs::read_dir(&wm.export_dir).expect("exports").count();
    assert_eq!(ads, CASES.len(), "one CSV per listing");

    // The tables outlive the service worker and appear in both exports.
    let worker = wm.browser.wait_for_extension_worker(TASK_TIMEOUT).expect("worker");
    wm.browser.stop_service_worker(&worker, TASK_TIMEOUT).expect("stop worker");
    panel = wm.panel().expect("panel after the kill");
    wait_js(&panel, &format!("document.querySelectorAll('#toc li').length === {}", CASES.len()));
    panel.page.eval("document.getElementById('export').click()").expect("export md");
    let md_status = panel.wait_text("export-status", "t.endsWith('.md')").expect("md written");
    panel.page.eval("document.getElementById('export-json').click()").expect("export json");
    let json_status = panel.wait_text("export-status", "t.endsWith('.json')").expect("json");
    let md = std::fs::read_to_string(md_status.trim_start_matches("Exported to ")).expect("md");
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(json_status.trim_start_matches("Exported to ")).expect("json"),
    )
    .expect("json export");
    for (i, case) in CASES.iter().enumerate() {
        let table = &doc["tasks"][i]["tables"][0];
        assert_eq!(table["rows"].as_array().map(Vec::len), Some(case.rows), "{}", case.task);
        assert_eq!(table["pages"], json!(case.pages), "{}", case.task);
        let summary = format!("{} rows × {} columns", case.rows, case.columns.len());
        assert!(md.contains(&summary), "{summary} not in the markdown export");
    }
    assert!(md.contains("| Book 22: Heidi | Author 22 |"), "{md}");
    // The ads never became rows.
    assert!(!md.contains("Sponsored") && !md.contains("£999k"), "{md}");
    llm.assert_no_script_panics().expect("the script saw what it expected");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(
        extension,
        collect_reads_every_row_of_five_listings_without_the_model_and_keeps_the_tables
    )]
}
