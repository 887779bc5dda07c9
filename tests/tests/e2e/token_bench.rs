//! Benchmark (run by `cargo xtask bench tokens`, ignored in normal test runs): what Waymark sends
//! the model, in o200k tokens, through the real extension and host.
//!
//! 1. The same 10-step task on three corpus pages (scroll, scroll, extract, scroll up, hover a
//!    link, scroll, find, scroll, scroll up, done), every request recorded by the scripted
//!    server and split by part (system, tools, session notes, task, plan, history, observation,
//!    other) and by role; the share of each navigator request that repeats the previous one's
//!    prefix (what provider prompt caching can serve).
//! 2. Session memory: the notes and the navigator call of a task that follows 0, 1, 5, 10, 29, 99
//!    and 999 earlier tasks (seeded straight into storage).
//!
//! The figures are printed as markdown tables (xtask also writes them to
//! `target/bench-tokens.md`); browser-use's are the issue's own measurement (0.13.8, its default
//! settings, the same pages and script).

use crate::common;
use common::{Setup, TASK_TIMEOUT, Waymark, message_text, role_of};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;
use tiktoken_rs::CoreBPE;
use waymark_core::record::TaskOutcome;
use waymark_core::session::{Session, TaskRecord};
use waymark_tests::fixture_server::FixtureServer;
use waymark_tests::llm_server::{RecordedRequest, ScriptedLlm, ScriptedReply};
use waymark_tests::trial::E2e;

/// The pages, with browser-use 0.13.8's step 1, step 10 and whole-task tokens on them.
const PAGES: [(&str, [u64; 3]); 3] = [
    ("readability/bbc-1.html", [14_717, 15_367, 171_249]),
    ("postlight/www.reddit.com.html", [22_529, 23_208, 262_341]),
    ("postlight/www.youtube.com.html", [19_989, 20_669, 222_245]),
];

/// Earlier tasks in the session before the measured one (tasks 1, 2, 6, 11, 30, 100, 1,000).
const SESSION_SIZES: [u32; 7] = [0, 1, 5, 10, 29, 99, 999];

/// The parts a request is split into.
const PARTS: [&str; 8] =
    ["system", "tools", "session notes", "task", "plan", "history", "observation", "other"];

fn corpus_dir() -> PathBuf {
    std::env::var_os("WAYMARK_DOM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/dom-corpus"))
}

/// The navigator's script: the action of its `n`-th call (1-based) on `page`.
fn scripted_step(n: usize, page: &str) -> ScriptedReply {
    let progress = |evaluation: &str| json!({"evaluation": evaluation, "confidence": 0.9});
    let (name, args) = match n {
        1 | 2 | 6 | 8 => ("scroll", json!({"direction": "down"})),
        3 => ("extract", json!({})),
        4 | 9 => ("scroll", json!({"direction": "up"})),
        5 => match first_ref(page, "] link") {
            Some(r) => ("hover", json!({"ref": r})),
            None => ("scroll", json!({"direction": "down"})),
        },
        7 => ("find", json!({"query": title_word(page)})),
        _ => {
            return ScriptedReply::tool_calls([
                ("progress", progress("read what the page says")),
                (
                    "done",
                    json!({"answer": "The page is read; the main story is summarised.", "success": true}),
                ),
            ]);
        }
    };
    let memory =
        (n == 4).then_some("The extract gave the article's headline and first paragraphs.");
    let mut report = progress("the last action worked");
    if let Some(m) = memory {
        report["memory"] = json!(m);
    }
    ScriptedReply::tool_calls([("progress", report), (name, args)])
}

/// The ref of the first line of the observation containing `marker`.
fn first_ref(page: &str, marker: &str) -> Option<u64> {
    page.lines().filter(|l| l.contains(marker)).find_map(|l| {
        let start = l.find('[')? + 1;
        let end = l[start..].find(']')? + start;
        l[start..end].parse().ok()
    })
}

/// A word of the page's title for `find`.
fn title_word(page: &str) -> String {
    page.lines()
        .find_map(|l| l.strip_prefix("page: "))
        .and_then(|t| {
            t.split_whitespace().find(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4)
        })
        .map(|w| w.chars().filter(|c| c.is_alphanumeric()).collect())
        .unwrap_or_else(|| "news".into())
}

/// Tokens of one request by part, and the token sequence in wire order (for prefix reuse).
struct Measured {
    role: &'static str,
    parts: BTreeMap<&'static str, usize>,
    sequence: Vec<u32>,
    /// Navigator call number within the task (0 for other roles).
    call: usize,
}

impl Measured {
    fn total(&self) -> usize {
        self.parts.values().sum()
    }
}

/// Splits one user message into parts by its fences and section headers.
fn split_user(text: &str) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    let mut part = "other";
    let mut fence: Option<(&str, &'static str)> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let this = if let Some((close, inside)) = fence {
            if trimmed.starts_with(close) {
                fence = None;
            }
            inside
        } else {
            let opened = [
                ("<session_notes", "</session_notes", "session notes"),
                ("<page_content", "</page_content", "observation"),
                ("<step_output", "</step_output", "history"),
                ("<steps", "</steps", "history"),
            ]
            .into_iter()
            .find(|(open, _, _)| trimmed.starts_with(open));
            if let Some((_, close, inside)) = opened {
                if !trimmed.contains(close) {
                    fence = Some((close, inside));
                }
                inside
            } else {
                let header = [
                    ("Task:", "task"),
                    ("New task:", "task"),
                    ("The user added:", "task"),
                    ("Plan", "plan"),
                    ("Steps so far", "history"),
                    ("Note:", "history"),
                    ("Current page", "observation"),
                    ("page: ", "observation"),
                    ("Tools (answer", "tools"),
                    ("Output of step", "history"),
                    ("Now: ", "observation"),
                    ("Earlier tasks matching", "session notes"),
                    ("Shared context", "other"),
                    ("Files you may use", "task"),
                ]
                .into_iter()
                .find(|(h, _)| trimmed.starts_with(h));
                if let Some((_, p)) = header {
                    part = p;
                } else if trimmed.starts_with("You seem to be stuck")
                    || trimmed.starts_with("Your previous answer")
                {
                    part = "other";
                }
                part
            }
        };
        match out.last_mut() {
            Some((p, s)) if *p == this => s.push_str(line),
            _ => out.push((this, line.to_owned())),
        }
    }
    out
}

fn measure(bpe: &CoreBPE, req: &RecordedRequest, call: usize) -> Measured {
    let role = role_of(req);
    let mut parts: BTreeMap<&'static str, usize> = PARTS.iter().map(|p| (*p, 0)).collect();
    let mut sequence = Vec::new();
    let mut add = |part: &'static str, text: &str, parts: &mut BTreeMap<&'static str, usize>| {
        let tokens = bpe.encode_ordinary(text);
        *parts.entry(part).or_default() += tokens.len();
        sequence.extend(tokens);
    };
    // Wire order of what a provider caches: tools, then the messages.
    if let Some(tools) = req.body.get("tools").filter(|t| !t.is_null()) {
        add("tools", &tools.to_string(), &mut parts);
    }
    for (i, message) in req.messages().iter().enumerate() {
        let text = message_text(&req.body, i);
        match message["role"].as_str() {
            Some("system") => add("system", &text, &mut parts),
            Some("user") => {
                for (part, chunk) in split_user(&text) {
                    add(part, &chunk, &mut parts);
                }
            }
            _ => add("other", &text, &mut parts),
        }
    }
    Measured { role, parts, sequence, call }
}

/// Tokens `next` shares with the start of `previous`.
fn common_prefix(previous: &[u32], next: &[u32]) -> usize {
    previous.iter().zip(next).take_while(|(a, b)| a == b).count()
}

/// Records the worker's state on a second panel port, then runs `task` and waits for its end.
fn run_task(panel: &common::Panel, task: &str) -> Value {
    panel
        .page
        .eval(
            "(() => { if (window.__benchPort) return true; \
             const p = chrome.runtime.connect({ name: 'panel' }); window.__benchPort = p; \
             p.onMessage.addListener((s) => { window.__benchState = s; }); return true; })()",
        )
        .expect("listen");
    panel.send(task).expect("send");
    let prompt = serde_json::to_string(task).expect("json");
    panel
        .page
        .wait_for(
            &format!(
                "window.__benchState?.task?.prompt === {prompt} \
                 && window.__benchState.task.running === false"
            ),
            TASK_TIMEOUT,
        )
        .expect("task finished");
    panel.page.eval("window.__benchState").expect("state")
}

/// A scripted model: the planner's one-step plan, the validator's yes, the summariser's
/// fallback, and the navigator's script by its call number in the current task.
fn scripted_llm(steps: usize) -> ScriptedLlm {
    let navigator_calls = std::sync::atomic::AtomicUsize::new(0);
    ScriptedLlm::start(move |req| {
        if let Some(reply) = common::role_reply(req) {
            return reply;
        }
        let user = message_text(&req.body, 1);
        // A new task starts its script again (its history is empty).
        if !user.contains("Steps so far") {
            navigator_calls.store(0, std::sync::atomic::Ordering::SeqCst);
        }
        let n = navigator_calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        scripted_step(if n >= steps { 10 } else { n }, &user)
    })
    .expect("scripted LLM")
}

/// One page's 10-step task: the measured requests in order.
fn page_task(extension: &std::path::Path, page: &str) -> Vec<Measured> {
    let bpe = tiktoken_rs::o200k_base().expect("o200k");
    let llm = scripted_llm(10);
    let site = FixtureServer::builder(corpus_dir()).start().expect("corpus server");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    let _tab = wm.open(&format!("/{page}")).expect("open page");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    let state = run_task(&panel, "Read this page and tell me what its main story says");
    assert_eq!(state["task"]["success"], true, "{}", state["task"]);
    let mut call = 0;
    // WAYMARK_TOKENS_DUMP=dir keeps every request body for a look at what was sent.
    if let Some(dir) = std::env::var_os("WAYMARK_TOKENS_DUMP") {
        let dir = PathBuf::from(dir).join(page.replace('/', "_"));
        std::fs::create_dir_all(&dir).expect("dump dir");
        for req in llm.requests() {
            let file = dir.join(format!("{:02}-{}.json", req.index, role_of(&req)));
            std::fs::write(file, serde_json::to_string_pretty(&req.body).expect("json"))
                .expect("dump");
        }
    }
    llm.requests()
        .iter()
        .map(|req| {
            let role = role_of(req);
            if role == "navigator" {
                call += 1;
            }
            measure(&bpe, req, if role == "navigator" { call } else { 0 })
        })
        .collect()
}

/// `n` realistic earlier tasks, as the storage items the worker writes.
fn seeded_session(n: u32) -> Map<String, Value> {
    let now = 1_790_000_000_000.0;
    let mut session = Session::new(format!("tokensession{n}"), now);
    for i in 1..=n {
        let outcome = TaskOutcome {
            answer: format!(
                "Compared the offers on page {i}: the cheapest is Plan {i} at ${}.99 a month, \
                 with {} GB of storage and e-mail support; the next is Plan {} at ${}.99.",
                i % 40 + 3,
                i % 7 + 1,
                i + 1,
                i % 40 + 5
            ),
            success: i % 17 != 0,
            error: None,
            steps: vec![],
            step_count: 4,
            elapsed_ms: 8_000.0,
            ending: Default::default(),
        };
        let task = format!("Find the cheapest plan on offer page {i} and note its storage");
        let mut record = TaskRecord::from_outcome(i, &task, &outcome, now + f64::from(i));
        record.structured_data.insert("cheapest_plan".into(), format!("Plan {i}"));
        record.structured_data.insert("price".into(), format!("${}.99", i % 40 + 3));
        record.toc_line = format!("Offer page {i}: Plan {i} cheapest at ${}.99", i % 40 + 3);
        record.read_from = vec![format!("https://offers{}.example", i % 5)];
        session.push(record);
    }
    session.set_title("Cheapest plans across the offer pages", n, true);
    common::session_items(&session)
}

/// Session notes and the first navigator call of a task after `earlier` seeded tasks.
fn session_task(extension: &std::path::Path, earlier: u32) -> (usize, usize) {
    let bpe = tiktoken_rs::o200k_base().expect("o200k");
    let llm = scripted_llm(2);
    let site = FixtureServer::builder(corpus_dir()).start().expect("corpus server");
    let wm =
        Waymark::launch(extension, Setup { llm: &llm, install_host: true, site }).expect("launch");
    if earlier > 0 {
        common::seed_storage(&wm, seeded_session(earlier));
    }
    let _tab = wm.open(&format!("/{}", PAGES[0].0)).expect("open page");
    let panel = wm.panel().expect("panel");
    panel.wait_text("host-status", "t.includes('connected')").expect("host connects");
    run_task(&panel, "Which plan was cheapest overall, and what does this page say?");
    let requests = llm.requests();
    let first = requests.iter().find(|r| role_of(r) == "navigator").expect("a navigator call");
    let m = measure(&bpe, first, 1);
    (m.parts["session notes"], m.total())
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn bench_tokens_per_task_and_session(extension: &Path) {
    assert!(corpus_dir().join("manifest.json").is_file(), "no DOM corpus at {:?}", corpus_dir());
    let mut report = String::new();
    let mut by_part = String::new();
    let mut by_role = String::new();
    let _ = writeln!(
        report,
        "| page | navigator step 1 / step 10 | whole task (calls) | browser-use step 1 / step 10 | \
         browser-use task | ratio | cacheable prefix (min / mean) |\n|---|---|---|---|---|---|---|"
    );
    let _ =
        writeln!(by_part, "| page | {} |\n|---|{}", PARTS.join(" | "), "---|".repeat(PARTS.len()));
    let _ = writeln!(
        by_role,
        "| page | planner | navigator | validator | summariser |\n|---|---|---|---|---|"
    );
    // WAYMARK_TOKENS_ONLY=word measures only the pages whose name has it and no sessions (quick
    // iterations); the full run is what BENCHMARKS.md reports.
    let only = std::env::var("WAYMARK_TOKENS_ONLY").unwrap_or_default();
    for (page, [bu1, bu10, bu_task]) in PAGES.into_iter().filter(|(p, _)| p.contains(&only)) {
        let measured = page_task(extension, page);
        let nav: Vec<&Measured> = measured.iter().filter(|m| m.role == "navigator").collect();
        assert!(nav.len() >= 10, "{page}: {} navigator calls", nav.len());
        let whole: usize = measured.iter().map(Measured::total).sum();
        let shares: Vec<f64> = nav
            .windows(2)
            .map(|w| {
                common_prefix(&w[0].sequence, &w[1].sequence) as f64 / w[1].sequence.len() as f64
            })
            .collect();
        let min = shares.iter().copied().fold(1.0, f64::min);
        let mean = shares.iter().sum::<f64>() / shares.len() as f64;
        let _ = writeln!(
            report,
            "| {page} | {} / {} | {} ({}) | {} / {} | {} | {:.2}× | {:.0}% / {:.0}% |",
            thousands(nav[0].total()),
            thousands(nav[9].total()),
            thousands(whole),
            measured.len(),
            thousands(bu1 as usize),
            thousands(bu10 as usize),
            thousands(bu_task as usize),
            whole as f64 / bu_task as f64,
            min * 100.0,
            mean * 100.0,
        );
        let mut sums: BTreeMap<&str, usize> = BTreeMap::new();
        for m in &measured {
            for (p, t) in &m.parts {
                *sums.entry(p).or_default() += t;
            }
        }
        let cells: Vec<String> = PARTS.iter().map(|p| thousands(sums[p])).collect();
        let _ = writeln!(by_part, "| {page} | {} |", cells.join(" | "));
        let role_sum = |role: &str| -> String {
            let calls: Vec<&Measured> = measured.iter().filter(|m| m.role == role).collect();
            let sum: usize = calls.iter().map(|m| m.total()).sum();
            format!("{} ({})", thousands(sum), calls.len())
        };
        let _ = writeln!(
            by_role,
            "| {page} | {} | {} | {} | {} |",
            role_sum("planner"),
            role_sum("navigator"),
            role_sum("validator"),
            role_sum("summariser")
        );
        let per_call: Vec<String> =
            nav.iter().map(|m| format!("{}:{}", m.call, thousands(m.total()))).collect();
        eprintln!("{page}: navigator calls {}", per_call.join(" "));
    }
    let mut sessions =
        String::from("| task in the session | session notes | navigator call |\n|---|---|---|\n");
    for earlier in SESSION_SIZES.into_iter().filter(|_| only.is_empty()) {
        let (notes, call) = session_task(extension, earlier);
        let _ =
            writeln!(sessions, "| {} | {} | {} |", earlier + 1, thousands(notes), thousands(call));
    }
    println!(
        "## Tokens per 10-step task (o200k)\n\n{report}\n### By part, whole task\n\n{by_part}\n\
         ### By role, whole task (calls)\n\n{by_role}\n## Session memory\n\n{sessions}"
    );
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![e2e!(extension, bench_tokens_per_task_and_session).only_when_asked()]
}
