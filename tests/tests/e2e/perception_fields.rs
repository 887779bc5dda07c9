//! Perception gaps the MiniWoB oracle found (issue 27), one class per test, in real Chromium
//! on the zoo's `fields.html`: a field named by the caption laid out under it, a multi-line
//! box told from a one-line one, a value shown with the space at its edge, and a short value
//! repeated further down the page kept where it stands. Each assertion failed before its fix.

use crate::perception_support;
use perception_support::{Zoo, ok, text};
use serde_json::json;
use std::path::Path;
use waymark_tests::trial::E2e;

fn a_field_is_named_by_the_caption_laid_out_under_it(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (_page, tab) = zoo.open("/fields.html").expect("fields");
    let (obs, _) = zoo.observe(tab).expect("observe");
    for line in ["] textbox Genre\n", "] textbox Director\n", "] textbox \"Height\" value=\"180\""]
    {
        assert!(obs.contains(line), "missing {line:?} in:\n{obs}");
    }
    // The heading before the list of fields names none of them; a unit beside a field is
    // not its name.
    assert!(!obs.contains("] textbox Movie search"), "{obs}");
    assert!(!obs.contains("] textbox cm"), "{obs}");
    // The caption is the field's name now, not a separate line after it.
    assert!(!obs.lines().any(|l| l == "Genre"), "{obs}");
}

fn a_multiline_box_is_told_from_a_one_line_box(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (_page, tab) = zoo.open("/fields.html").expect("fields");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert_eq!(obs.matches(" multiline").count(), 1, "{obs}");
    // (Named by the heading just before it, as any field that nothing labels.)
    assert!(obs.contains("] textbox \"Copy\" value=\"Lorem ipsum dolor \" multiline\n"), "{obs}");
    assert!(obs.contains("] textbox (no name) value=\" padded\"\n"), "{obs}");
}

fn a_value_is_shown_and_copied_with_the_space_at_its_edge(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/fields.html").expect("fields");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let line = obs
        .lines()
        .find(|l| l.contains("value=\" padded\""))
        .unwrap_or_else(|| panic!("no padded value in:\n{obs}"));
    let answer = &line[1..line.find(']').unwrap_or(1)];
    assert!(obs.contains("value=\"Lorem ipsum dolor \""), "{obs}");
    let typed = json!({"action": "type", "ref": answer.parse::<u64>().expect("ref"),
                       "text": "Lorem ipsum dolor "});
    ok(&zoo.act(tab, typed).expect("type"));
    assert_eq!(
        text(&page, "JSON.stringify(document.getElementById('answer').value)"),
        "\"Lorem ipsum dolor \""
    );
}

fn a_short_value_repeated_down_the_page_stays_where_it_stands(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (_page, tab) = zoo.open("/fields.html").expect("fields");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let numbers: Vec<&str> = obs.lines().filter(|l| matches!(*l, "5" | "8" | "42")).collect();
    // Three rows (5, 8, 5), then one number drawn twice in a row, which is one line.
    assert_eq!(numbers, ["5", "8", "5", "42"], "{obs}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, a_field_is_named_by_the_caption_laid_out_under_it),
        e2e!(test_hooks, a_multiline_box_is_told_from_a_one_line_box),
        e2e!(test_hooks, a_value_is_shown_and_copied_with_the_space_at_its_edge),
        e2e!(test_hooks, a_short_value_repeated_down_the_page_stays_where_it_stands),
    ]
}
