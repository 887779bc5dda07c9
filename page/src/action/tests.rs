use super::*;
use serde_json::json;

#[test]
fn tool_names_match_the_serde_tags() {
    let samples = [
        json!({"action": "click", "ref": 1}),
        json!({"action": "double_click", "ref": "f2:3"}),
        json!({"action": "hover", "ref": 1}),
        json!({"action": "type", "ref": 1, "text": "x", "append": true}),
        json!({"action": "clear", "ref": 1}),
        json!({"action": "press_keys", "keys": "Control+a Enter"}),
        json!({"action": "select_text", "ref": 1, "text": "second paragraph"}),
        json!({"action": "select_option", "ref": 1, "option": "France"}),
        json!({"action": "check", "ref": 1}),
        json!({"action": "uncheck", "ref": 1}),
        json!({"action": "drag", "ref": 1, "to": 2}),
        json!({"action": "scroll", "direction": "bottom"}),
        json!({"action": "scroll_to", "text": "Terms"}),
        json!({"action": "upload", "ref": 1, "file": "cv.pdf"}),
        json!({"action": "navigate", "url": "http://x/"}),
        json!({"action": "back"}),
        json!({"action": "forward"}),
        json!({"action": "reload"}),
        json!({"action": "open_tab", "url": "http://x/"}),
        json!({"action": "switch_tab", "tab": 3}),
        json!({"action": "close_tab"}),
        json!({"action": "wait", "text": "Loading", "seconds": 2, "gone": true}),
        json!({"action": "extract"}),
        json!({"action": "find", "query": "price"}),
        json!({"action": "collect", "ref": 4, "columns": [{"name": "price", "example": "$3"}], "pages": 2}),
        json!({"action": "screenshot"}),
        json!({"action": "done", "answer": "a", "success": true}),
    ];
    assert_eq!(samples.len(), ActionKind::ALL.len());
    for (sample, kind) in samples.iter().zip(ActionKind::ALL) {
        let action: Action = serde_json::from_value(sample.clone()).expect("parses");
        assert_eq!(action.kind(), *kind);
        assert_eq!(serde_json::to_value(&action).expect("ser")["action"], json!(kind.name()));
        assert_eq!(serde_json::to_value(kind).expect("kind"), json!(kind.name()));
        assert_eq!(ActionKind::from_name(kind.name()), Some(*kind));
        assert!(!action.describe(Some("X")).is_empty());
    }
}

/// Every kind of action has one example, at its place in the table (a new variant without an
/// example fails here; without a kind or a row, it does not compile).
#[test]
fn every_kind_has_an_example_in_table_order() {
    let examples = Action::examples();
    let kinds: Vec<ActionKind> = examples.iter().map(Action::kind).collect();
    assert_eq!(kinds, ActionKind::ALL);
    for example in &examples {
        let round: Action =
            serde_json::from_value(serde_json::to_value(example).expect("ser")).expect("de");
        assert_eq!(&round, example);
    }
    let select = Action::SelectText { ref_id: Ref::top(4), text: "second line".into() };
    assert_eq!(select.describe(Some("Note")), "Select “second line” in “Note” [4]");
    assert!(select.runs_in_page() && !select.may_navigate());
    assert_eq!(select.target_ref(), Some(Ref::top(4)));
}

#[test]
fn descriptions_name_the_target() {
    let click = Action::Click { ref_id: Ref { frame: 2, index: 3 } };
    assert_eq!(click.describe(Some("Pay")), "Click “Pay” [f2:3]");
    assert_eq!(click.target_ref(), Some(Ref { frame: 2, index: 3 }));
    let scroll = Action::Scroll { direction: ScrollDirection::Bottom, ref_id: None };
    assert_eq!(scroll.describe(None), "Scroll to the bottom");
    assert_eq!(scroll.target_ref(), None);
    let keys = Action::PressKeys { keys: "Enter".into(), ref_id: Some(Ref::top(4)) };
    assert_eq!(keys.describe(Some("Search")), "Press Enter on “Search” [4]");
    assert!(keys.runs_in_page());
    assert!(!Action::Navigate { url: "http://x".into() }.runs_in_page());
    assert!(keys.may_navigate());
    let typing = Action::Type { ref_id: Ref::top(1), text: "a".into(), append: false };
    assert!(typing.runs_in_page() && !typing.may_navigate());
    let drag = Action::Drag { ref_id: Ref::top(2), to: Ref::top(5) };
    assert_eq!(drag.describe(Some("Card")), "Drag “Card” [2] onto [5]");
    assert_eq!((drag.target_ref(), drag.drop_ref()), (Some(Ref::top(2)), Some(Ref::top(5))));
    assert!(drag.runs_in_page() && drag.settle_window().is_some());
    let gone = Action::Wait { text: Some("Loading…".into()), seconds: None, gone: true };
    assert_eq!(gone.describe(None), "Wait until “Loading…” disappears");
    let parsed: Action =
        serde_json::from_value(json!({"action": "wait", "text": "x"})).expect("wait");
    assert_eq!(parsed, Action::Wait { text: Some("x".into()), seconds: None, gone: false });
}

#[test]
fn outcome_summary_carries_text_and_changes() {
    let mut outcome = ActionOutcome::with_text("| a | b |");
    outcome.navigated = true;
    assert_eq!(outcome.summary(), "ok (page changed):\n| a | b |");
    assert_eq!(ActionOutcome::failed("covered").summary(), "failed: covered");
}

#[test]
fn only_actions_that_can_start_something_wait_for_the_page_to_settle() {
    let r = crate::observation::Ref::top(1);
    let typing = Action::Type { ref_id: r, text: "a".into(), append: false }.settle_window();
    let click = Action::Click { ref_id: r }.settle_window().expect("click settles");
    let scroll = Action::Scroll { direction: Default::default(), ref_id: None }.settle_window();
    let typing = typing.expect("typing settles");
    let scroll = scroll.expect("scroll settles");
    assert!(typing.without_change_ms <= click.without_change_ms);
    assert!(click.without_change_ms > click.after_change_ms, "no effect needs longer to conclude");
    assert!(scroll.without_change_ms < click.without_change_ms);
    for read in
        [Action::Extract { ref_id: None }, Action::Find { query: "x".into() }, Action::Screenshot]
    {
        assert_eq!(read.settle_window(), None, "{read:?}");
    }
    let quiet =
        |mutations, quiet_ms| Settled { acted: true, mutations, quiet_ms, ..Settled::default() };
    assert!(quiet(3, 50.0).is_settled(click), "changed, then quiet");
    assert!(!quiet(3, 10.0).is_settled(click), "still changing");
    assert!(!quiet(0, 50.0).is_settled(click), "nothing yet: give it longer");
    assert!(quiet(0, 90.0).is_settled(click));
    let started = Settled { waiting: 1, ..quiet(3, 500.0) };
    assert!(!started.is_settled(click), "a request or a debounce the click started");
    assert!(!Settled { waiting: 1, ..quiet(0, 900.0) }.is_settled(typing), "a debounce");
    assert!(
        !Settled { animating_ms: 120.0, ..quiet(3, 900.0) }.is_settled(typing),
        "a list still fading in"
    );
    let older = Settled { pending: 2, ..quiet(3, 50.0) };
    assert!(older.is_settled(click), "a long poll sent before the click does not hold it");
    assert!(!older.is_quiet(50.0), "but `wait` waits for every request");
    // A drag that changed nothing says so, although it reports how it was done.
    let drag = Action::Drag { ref_id: r, to: crate::observation::Ref::top(2) };
    let mut released = ActionOutcome::with_text("dragged with the pointer and released");
    released.judge_effect(&drag, &quiet(0, 500.0));
    assert!(released.no_effect);
    let mut moved = ActionOutcome::with_text("dragged with the pointer and released");
    moved.judge_effect(&drag, &quiet(4, 200.0));
    assert!(!moved.no_effect);
    let mut extracted = ActionOutcome::with_text("| a |");
    extracted.judge_effect(&Action::Click { ref_id: r }, &quiet(0, 500.0));
    assert!(!extracted.no_effect, "a click that reports text said what it did");
}

#[test]
fn where_find_read_its_lines_is_never_stored() {
    let found = ActionOutcome::read_in(vec![
        ReadText { url: "https://a.example/".into(), text: "one".into() },
        ReadText { url: "https://b.example/".into(), text: "key sk-live-secret".into() },
    ]);
    assert_eq!(found.text.as_deref(), Some("one\nkey sk-live-secret"));
    assert_eq!(found.read.len(), 2);
    // Storage and exports redact `text`; the parts would repeat it unredacted.
    let stored = serde_json::to_value(&found).expect("json");
    assert!(stored.get("read").is_none(), "{stored}");
    let back: ActionOutcome = serde_json::from_value(stored).expect("outcome");
    assert!(back.read.is_empty());
}

#[test]
fn a_replay_settles_briefly_after_the_actions_that_settle_at_all() {
    let r = Ref::top(1);
    for action in [
        Action::Type { ref_id: r, text: "a".into(), append: false },
        Action::Click { ref_id: r },
        Action::SelectOption { ref_id: r, option: "x".into() },
        Action::Scroll { direction: ScrollDirection::Down, ref_id: None },
        Action::Navigate { url: "https://a.example/".into() },
    ] {
        match (action.settle_window(), action.replay_settle_window()) {
            (None, None) => {}
            (Some(live), Some(replay)) => {
                assert!(replay.after_change_ms <= live.after_change_ms, "{action:?}");
                assert!(replay.without_change_ms <= live.without_change_ms, "{action:?}");
            }
            other => panic!("{action:?}: {other:?}"),
        }
    }
}

/// The table's rows agree with what the page does: page actions have refs in a frame, only
/// page actions (and the upload, set by the content script) settle, and what may navigate or
/// should visibly change is a page action.
#[test]
fn the_table_rows_are_consistent() {
    for example in Action::examples() {
        let spec = example.spec();
        let kind = example.kind();
        if spec.settle.is_some() {
            assert!(matches!(spec.runs, Runs::Page | Runs::Worker), "{kind:?}");
        }
        if spec.may_navigate || spec.expects_change {
            assert_eq!(spec.runs, Runs::Page, "{kind:?}");
            assert!(spec.settle.is_some(), "{kind:?}: judged after settling");
        }
        // Every kind is reached by its offered tool.
        assert!(Tool::ALL.contains(&spec.tool), "{kind:?}");
    }
    assert_eq!(ActionKind::Done.spec().runs, Runs::Agent);
    assert_eq!(ActionKind::from_name("delete_everything"), None);
}

#[test]
fn a_wait_for_a_text_is_ready_when_shown_or_gone_from_a_loaded_page() {
    let probe = |loaded, found| Probe { loaded, found, url: String::new() };
    assert!(probe(false, true).ready(false), "shown while loading counts");
    assert!(!probe(true, false).ready(false));
    assert!(probe(true, false).ready(true));
    assert!(!probe(false, false).ready(true), "gone only from a page that has loaded");
    assert!(!probe(true, true).ready(true));
}

#[test]
fn a_wait_counts_the_quiet_of_a_document_without_an_action_from_its_start() {
    let acted = Settled { acted: true, quiet_ms: 30.0, ..Settled::default() };
    assert_eq!(acted.quiet_for_wait(900.0), 30.0);
    let fresh = Settled { acted: false, quiet_ms: 1e9, ..Settled::default() };
    assert_eq!(fresh.quiet_for_wait(120.0), 120.0);
}

#[test]
fn the_page_side_waits_travel_as_the_content_script_reads_them() {
    let request =
        ContentRequest::WaitFor { text: "Saved “x”".into(), gone: true, within_ms: 700.0 };
    let json = serde_json::to_value(&request).expect("encode");
    assert_eq!(
        json,
        json!({"op": "wait_for", "text": "Saved “x”", "gone": true, "within_ms": 700.0})
    );
    let quiet: ContentRequest =
        serde_json::from_value(json!({"op": "wait_quiet", "quiet_ms": 400.0, "within_ms": 5000.0}))
            .expect("decode");
    assert_eq!(quiet, ContentRequest::WaitQuiet { quiet_ms: 400.0, within_ms: 5000.0 });
}

#[test]
fn a_change_the_page_undid_while_settling_fails_the_action() {
    let r = crate::observation::Ref::top(1);
    let check = Action::Check { ref_id: r };
    let settled = |undone| Settled {
        acted: true,
        mutations: 1,
        quiet_ms: 90.0,
        undone,
        ..Settled::default()
    };
    let mut kept = ActionOutcome::with_text("it is checked now");
    kept.judge_effect(&check, &settled(None));
    assert!(kept.ok);
    let mut undone = ActionOutcome::with_text("it is checked now");
    undone.judge_effect(&check, &settled(Some(crate::act_error::Undone::Checked)));
    assert!(!undone.ok);
    assert_eq!(undone.text, None, "what was read back first no longer holds");
    assert!(undone.error.as_deref().is_some_and(|e| e.contains("set it back")), "{undone:?}");
    let wire = serde_json::to_value(settled(Some(crate::act_error::Undone::Text))).expect("encode");
    assert_eq!(wire["undone"], json!("text"));
    let back: Settled = serde_json::from_value(wire).expect("decode");
    assert_eq!(back.undone, Some(crate::act_error::Undone::Text));
}
