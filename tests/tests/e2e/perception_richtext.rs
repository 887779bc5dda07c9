//! Rich-text editors and drag-to-reorder lists of published libraries (issue 27, classes 3
//! and 4), in real Chromium on the library zoo (`tests/fixtures/libzoo`): Quill and Tiptap
//! (ProseMirror) take a selection by quoted words and a formatting command on it, the
//! formatting reads back in the observation and in `extract`, and a command that changed
//! nothing says so; SortableJS and dnd kit lists list each item as its own ref, a drag between
//! items reorders them, and the order reads back. Every check reads the library's own state.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, text};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::trial::{Data, E2e};

/// The library zoo in Chromium with the test-hooks build.
fn launch(extension: &Path) -> Zoo {
    waymark_tests::libzoo::require();
    let site = waymark_tests::libzoo::serve().expect("library zoo");
    Zoo::launch_serving(extension, site).expect("launch")
}

fn failed(outcome: &Value) -> String {
    assert_eq!(outcome["ok"], json!(false), "{outcome}");
    outcome["error"].as_str().unwrap_or_default().to_owned()
}

fn words_are_selected_and_formatted_in_quill_and_tiptap(extension: &Path) {
    let zoo = launch(extension);
    let (page, tab) = zoo.open("/richtext.html").expect("page");
    page.wait_for("!!document.querySelector('.ProseMirror')", perception_support::BOUND)
        .expect("editors");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let quill = must_ref(&obs, "textbox", "Team notes");
    let tiptap = must_ref(&obs, "textbox", "Launch plan");

    // Quill: the second paragraph, selected by its words, made bold with the keyboard.
    let selected = zoo
        .act(tab, json!({"action": "select_text", "ref": quill, "text": "Fix the login bug"}))
        .expect("select");
    ok(&selected);
    assert_eq!(selected["text"], json!("selected “Fix the login bug”"));
    ok(&zoo.act(tab, json!({"action": "press_keys", "keys": "Control+b"})).expect("bold"));
    assert_eq!(
        text(&page, "JSON.stringify(zoo.quill.getContents().ops)"),
        r#"[{"insert":"Ship the beta on Monday.\n"},{"attributes":{"bold":true},"insert":"Fix the login bug"},{"insert":" before launch.\n"}]"#
    );

    // Tiptap: words across a sentence, made italic by the toolbar's own button.
    ok(&zoo
        .act(tab, json!({"action": "select_text", "ref": tiptap, "text": "every beta tester"}))
        .expect("select"));
    let (obs, _) = zoo.observe(tab).expect("observe");
    let italic = must_ref(&obs, "button", "Italic");
    let clicked = zoo.act(tab, json!({"action": "click", "ref": italic})).expect("italic");
    ok(&clicked);
    assert!(
        clicked["text"].as_str().unwrap_or_default().contains("_every beta tester_"),
        "{clicked}"
    );
    assert_eq!(
        text(&page, "document.querySelector('.ProseMirror').innerHTML"),
        "<p>Announce the launch on the blog.</p><p>Email <em>every beta tester</em>.</p>"
    );

    // The formatting reads back in the observation and in extract.
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("**Fix the login bug** before launch."), "{obs}");
    assert!(obs.contains("Email _every beta tester_."), "{obs}");
    let extract = zoo.act(tab, json!({"action": "extract"})).expect("extract");
    let md = extract["text"].as_str().unwrap_or_default();
    assert!(md.contains("**Fix the login bug** before launch."), "{md}");
    assert!(md.contains("Email _every beta tester_."), "{md}");
}

fn selecting_says_when_words_are_missing_or_ambiguous_and_commands_that_change_nothing_fail(
    extension: &Path,
) {
    let zoo = launch(extension);
    let (page, tab) = zoo.open("/richtext.html").expect("page");
    page.wait_for("!!document.querySelector('.ProseMirror')", perception_support::BOUND)
        .expect("editors");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let quill = must_ref(&obs, "textbox", "Team notes");
    let missing = failed(
        &zoo.act(tab, json!({"action": "select_text", "ref": quill, "text": "ship it on Friday"}))
            .expect("missing"),
    );
    assert!(missing.contains("is not in the editor; it reads: “Ship the beta"), "{missing}");
    let twice = failed(
        &zoo.act(tab, json!({"action": "select_text", "ref": quill, "text": "the"})).expect("the"),
    );
    assert!(twice.contains("occurs"), "{twice}");

    // Italic on already-italic words in Tiptap is taken off; pressed on words where the page
    // swallows the shortcut, nothing changes and the outcome says so instead of "ok".
    let tiptap = must_ref(&obs, "textbox", "Launch plan");
    ok(&zoo
        .act(tab, json!({"action": "select_text", "ref": tiptap, "text": "on the blog"}))
        .expect("select"));
    page.eval(
        "document.querySelector('.ProseMirror').addEventListener('keydown', \
         (e) => { if (e.ctrlKey) { e.preventDefault(); e.stopImmediatePropagation(); } }, true)",
    )
    .expect("swallow shortcuts");
    let nothing = failed(
        &zoo.act(tab, json!({"action": "press_keys", "keys": "Control+b"})).expect("ctrl+b"),
    );
    assert!(nothing.starts_with("changed nothing"), "{nothing}");
    assert_eq!(
        text(&page, "document.querySelector('.ProseMirror').innerHTML"),
        "<p>Announce the launch on the blog.</p><p>Email every beta tester.</p>"
    );
}

/// The ref of the first line naming `name` with one of `roles`.
fn item(obs: &str, roles: &[&str], name: &str) -> Value {
    roles
        .iter()
        .find_map(|role| perception_support::ref_of(obs, role, name))
        .unwrap_or_else(|| panic!("no {roles:?} \"{name}\" in:\n{obs}"))
}

fn sortable_and_dnd_kit_items_are_refs_and_a_drag_reorders_them(extension: &Path) {
    let zoo = launch(extension);
    let (page, tab) = zoo.open("/reorder.html").expect("page");
    page.wait_for(
        "!!window.zoo && !!document.querySelector('#songs li')",
        perception_support::BOUND,
    )
    .expect("lists");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let roles = ["draggable", "button"];
    // Each item is its own ref, not one clickable for the whole list.
    for name in ["Wash the dishes", "Take out the trash", "Book the tickets", "Coda"] {
        item(&obs, &roles, name);
    }

    // SortableJS (HTML5 drag and drop armed on the press): the last chore onto the first.
    let (trash, dishes) =
        (item(&obs, &roles, "Take out the trash"), item(&obs, &roles, "Wash the dishes"));
    let moved = zoo.act(tab, json!({"action": "drag", "ref": trash, "to": dishes})).expect("drag");
    ok(&moved);
    assert!(moved["text"].as_str().unwrap_or_default().starts_with("moved: now 1 of 4"), "{moved}");
    assert_eq!(text(&page, "zoo.chores.toArray().join()"), "trash,dishes,laundry,plants");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let at = |name: &str| obs.find(name).unwrap_or_else(|| panic!("{name} in:\n{obs}"));
    assert!(at("Take out the trash") < at("Wash the dishes"), "{obs}");

    // The board: a card of one column onto a card of the other.
    let tickets = item(&obs, &roles, "Book the tickets");
    let passport = item(&obs, &roles, "Renew the passport");
    let moved =
        zoo.act(tab, json!({"action": "drag", "ref": tickets, "to": passport})).expect("card");
    ok(&moved);
    assert_eq!(text(&page, "zoo.todo.toArray().join()"), "hotel");
    assert!(text(&page, "zoo.done.toArray().join()").contains("tickets"));

    // dnd kit (pointer sensor with an activation distance): the last song onto the first.
    let (coda, intro) = (item(&obs, &roles, "Coda"), item(&obs, &roles, "Intro theme"));
    let moved = zoo.act(tab, json!({"action": "drag", "ref": coda, "to": intro})).expect("song");
    ok(&moved);
    assert_eq!(text(&page, "zoo.songs().join()"), "coda,intro,rain,drive");
    assert!(moved["text"].as_str().unwrap_or_default().contains("Coda · Intro theme"), "{moved}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, words_are_selected_and_formatted_in_quill_and_tiptap).with_data(Data::EvalTools),
        e2e!(test_hooks, selecting_says_when_words_are_missing_or_ambiguous_and_commands_that_change_nothing_fail).with_data(Data::EvalTools),
        e2e!(test_hooks, sortable_and_dnd_kit_items_are_refs_and_a_drag_reorders_them).with_data(Data::EvalTools),
    ]
}
