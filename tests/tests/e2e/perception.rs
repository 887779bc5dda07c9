//! Perception end to end in real Chromium: what the model would read about each widget-zoo page
//! (frames of two origins, shadow DOM, states, secrets, hidden text, the token budget, the
//! wasm2js build under a strict CSP). Requests go through the agent's own `TabPage` (see
//! `perception_support` for why the service worker hook instead of a scripted model).

use crate::perception_support;
use perception_support::{Zoo, must_ref};
use std::path::Path;
use waymark_tests::trial::E2e;

fn forms_are_read_with_roles_names_states_values_and_no_secrets(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Forms: roles, names from every labelling source, states, values, and no secrets.
    let (_page, tab) = zoo.open("/forms.html").expect("forms");
    let (text, observation) = zoo.observe(tab).expect("observe forms");
    for line in [
        "page: Zoo: forms — http://",
        "# Account form",
        "Fields marked * are required.",
        "] textbox \"Full name *\" value=\"Grace\" required",
        "] textbox Email address\n",
        "] textbox \"Bio\" value=\"Hello\"",
        "] checkbox \"Newsletter\" checked",
        "] radio \"Free\" checked",
        "] radio Pro",
        "] combobox \"Country\" value=\"Spain\" options=[France|Spain|Germany]",
        "] textbox \"Password\" sensitive filled",
        "] textbox \"Code\" sensitive filled",
        "] textbox \"Card\" sensitive filled",
        "] textbox Labelled by span",
        "] button \"Disabled action\" disabled",
        "] button \"Menu\" collapsed",
        "] clickable Focusable card",
        "] clickable Pointer card inner",
        "] link Terms icon",
        "] button Save",
        "view: ",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    for secret in ["hunter2-canary", "991-canary", "4111-canary", "hidden-canary"] {
        assert!(!observation.to_string().contains(secret), "{secret} leaked");
    }
    for hidden in ["DISPLAY-NONE", "VISIBILITY-CANARY", "ARIA-HIDDEN", "OFFSCREEN-CANARY"] {
        assert!(!text.contains(hidden), "{hidden} shown:\n{text}");
    }
    assert_eq!(text.matches("Repeated line").count(), 1, "text is deduplicated:\n{text}");
    assert!(!text.lines().any(|l| l == "inner"), "a widget's own text is not repeated:\n{text}");
    assert_eq!(observation["engine"], "wasm");
}

fn frames_of_two_origins_are_merged_in_place_with_qualified_refs(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Frames: same-origin and cross-origin iframes merged in place, refs qualified by frame.
    let url = format!("{}?other={}", zoo.site.url("/frames.html"), zoo.other_port());
    let (_page, tab) = zoo.open_url(&url).expect("frames");
    let (text, _) = zoo.observe(tab).expect("observe frames");
    let top = must_ref(&text, "button", "Top button");
    assert!(top.is_u64(), "{top}");
    let inner = must_ref(&text, "button", "Inner button");
    let cross = must_ref(&text, "button", "Cross button");
    for r in [&inner, &cross] {
        assert!(r.as_str().is_some_and(|s| s.starts_with('f') && s.contains(':')), "{r}\n{text}");
    }
    let lines: Vec<&str> = text.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap_or(usize::MAX);
    assert!(at("Top button") < at("Same-origin frame text"), "{text}");
    assert!(at("Same-origin frame text") < at("[/frame"), "{text}");
    assert!(at("Cross-origin frame text") < at("After the frames"), "frames sit in place:\n{text}");
    assert!(text.contains(&format!("127.0.0.1:{}/frame-cross.html]", zoo.other_port())), "{text}");
}

fn open_shadow_roots_and_slotted_content_are_read(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Shadow DOM: open shadow roots and slotted content are read.
    let (_page, tab) = zoo.open("/shadow.html").expect("shadow");
    let (text, _) = zoo.observe(tab).expect("observe shadow");
    for line in [
        "## Slotted title",
        "Inside the shadow root",
        "] textbox Shadow query",
        "] button Shadow button",
    ] {
        assert!(text.contains(line), "missing {line:?}:\n{text}");
    }
}

fn a_custom_dropdown_an_editor_and_a_modal_are_read(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Custom dropdown, contenteditable, modal dialog.
    let (_page, tab) = zoo.open("/dropdown.html").expect("dropdown");
    let (text, _) = zoo.observe(tab).expect("observe dropdown");
    assert!(text.contains("] combobox \"Fruit\" collapsed"), "{text}");
    assert!(!text.contains("Banana"), "closed listbox is hidden:\n{text}");
    let (_page, tab) = zoo.open("/editor.html").expect("editor");
    let (text, _) = zoo.observe(tab).expect("observe editor");
    assert!(text.contains("] textbox \"Editor\" value=\"Draft text\""), "{text}");
}

fn the_token_budget_keeps_the_viewport_and_summarises_the_rest(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // The token budget keeps the viewport and summarises the rest of a long page.
    let (_page, tab) = zoo.open("/longlist.html").expect("long list");
    let (full, _) = zoo.observe(tab).expect("observe long list");
    assert!(full.contains("Result item 20"), "{full}");
    let (small, _) = zoo.observe_budget(tab, 120).expect("observe with budget");
    assert!(small.contains("Result item 1\n"), "{small}");
    assert!(!small.contains("Result item 20\n"), "{small}");
    let summary =
        small.lines().find(|l| l.contains("below: scroll down or use find")).expect("summary");
    assert!(summary.starts_with('(') && !summary.starts_with("(0 elements"), "{small}");
}

fn the_wasm2js_build_reads_a_page_under_a_strict_csp(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");

    // Strict CSP: the wasm2js build reads the page.
    let (_page, tab) = zoo.open("/strict.html").expect("strict");
    let (text, observation) = zoo.observe(tab).expect("observe strict");
    assert_eq!(observation["engine"], "wasm2js", "{observation}");
    assert!(text.contains("] textbox Strict name"), "{text}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, forms_are_read_with_roles_names_states_values_and_no_secrets),
        e2e!(test_hooks, frames_of_two_origins_are_merged_in_place_with_qualified_refs),
        e2e!(test_hooks, open_shadow_roots_and_slotted_content_are_read),
        e2e!(test_hooks, a_custom_dropdown_an_editor_and_a_modal_are_read),
        e2e!(test_hooks, the_token_budget_keeps_the_viewport_and_summarises_the_rest),
        e2e!(test_hooks, the_wasm2js_build_reads_a_page_under_a_strict_csp),
    ]
}
