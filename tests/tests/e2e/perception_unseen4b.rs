//! Widgets of the zoo's fourth round (issue 27): Vuetify 3, Ionic 8's core web components and
//! TinyMCE 7 — libraries no earlier fix was written against — in real Chromium. Each assertion
//! failed before the fix of its class (named per assertion); the `libs` evaluation drives the
//! same pages through the agent and checks what each library holds.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, posted};
use serde_json::json;
use std::path::Path;
use waymark_tests::trial::{Data, E2e};

fn click(zoo: &Zoo, tab: i32, role: &str, name: &str) {
    let target = must_ref(&zoo.prompt(tab), role, name);
    ok(&zoo.act(tab, json!({"action": "click", "ref": target})).expect("click"));
}

fn an_editor_drawn_in_a_frame_is_one_textbox_named_by_the_field_it_replaces(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/editors.html", ".tox-edit-area iframe");
    // TinyMCE's body is the editable document of a srcdoc frame: its paragraphs read as text
    // and no textbox was listed to select in or type into. It stands in for the hidden
    // textarea the page labels, so that label names it (not "Rich Text Area").
    let notes = must_ref(&zoo.prompt(tab), "textbox", "Release notes");
    let select =
        json!({"action": "select_text", "ref": notes, "text": "Ship the release on Friday."});
    ok(&zoo.act(tab, select).expect("select_text"));
    click(&zoo, tab, "button", "Bold");
    // Its link button says whether the caret is in a link (`aria-pressed`) and opens the link
    // dialog: the click failed as "it is still not pressed" though the dialog opened.
    let select = json!({"action": "select_text", "ref": notes, "text": "our guide"});
    ok(&zoo.act(tab, select).expect("select_text"));
    click(&zoo, tab, "button", "Insert/edit link");
    let url = must_ref(&zoo.prompt(tab), "combobox", "URL");
    let typed = json!({"action": "type", "ref": url, "text": "https://example.com/guide"});
    ok(&zoo.act(tab, typed).expect("type"));
    click(&zoo, tab, "button", "Save");
    click(&zoo, tab, "button", "Save document");
    let sent = posted(&zoo, "/api/editors");
    assert_eq!(sent["bold"], "Ship the release on Friday.");
    assert_eq!(sent["links"], "our guide->https://example.com/guide");
}

fn a_component_whose_text_is_drawn_on_its_own_fill_is_listed(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/ionic.html", "ion-button.hydrated");
    // `<ion-button>` holds its words in the light DOM, white (the host's colour) on the page's
    // white, slotted onto the blue button its shadow root draws: the host was judged
    // unreadable and left out with its button.
    // `<ion-range>`'s knob names the `<label>` around the knob and its value pin by
    // `aria-labelledby`: it read as "Font size14".
    must_ref(&zoo.prompt(tab), "slider", "Font size");
    click(&zoo, tab, "button", "Save settings");
    assert_eq!(posted(&zoo, "/api/ionic")["language"], "en");
}

fn a_combobox_box_and_a_slider_thumb_are_named_by_their_labels(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/vuetify.html", ".v-slider-thumb");
    let obs = zoo.prompt(tab);
    // Vuetify's `role=combobox` box holds its label twice (one copy `aria-hidden`, for the
    // floating animation) and its value: it read as "Shirt size Shirt size Medium".
    must_ref(&obs, "combobox", "Shirt size");
    // Its thumbs carry their value bubble and no name, the label beside the track tied to no
    // field: "20", then "slider thumb icon", the range's second thumb "30 (2 of 2)".
    must_ref(&obs, "slider", "Weekly hours");
    must_ref(&obs, "slider", "Salary range (k) (1 of 2)");
    let top = must_ref(&obs, "slider", "Salary range (k) (2 of 2)");
    ok(&zoo.act(tab, json!({"action": "type", "ref": top, "text": "80"})).expect("type"));
    click(&zoo, tab, "button", "Save profile");
    assert_eq!(posted(&zoo, "/api/vuetify")["salary"], "30-80");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, an_editor_drawn_in_a_frame_is_one_textbox_named_by_the_field_it_replaces)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, a_component_whose_text_is_drawn_on_its_own_fill_is_listed)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, a_combobox_box_and_a_slider_thumb_are_named_by_their_labels)
            .with_data(Data::EvalTools),
    ]
}
