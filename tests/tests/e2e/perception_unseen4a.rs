//! Widgets of the zoo's fourth round (issue 27): React libraries no earlier fix was written
//! against — React Aria Components and PrimeReact — in real Chromium. Each assertion failed
//! before the fix of its class (named per assertion); the `libs` evaluation drives the same
//! pages through the agent and checks what each library holds.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, posted};
use serde_json::json;
use std::path::Path;
use waymark_tests::trial::{Data, E2e};

fn click(zoo: &Zoo, tab: i32, role: &str, name: &str) {
    let target = must_ref(&zoo.prompt(tab), role, name);
    ok(&zoo.act(tab, json!({"action": "click", "ref": target})).expect("click"));
}

fn controls_in_a_visually_hidden_box_are_used_through_what_is_drawn(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/aria.html", ".react-aria-Switch");
    let obs = zoo.prompt(tab);
    // React Aria wraps its native switch, checkboxes, radios and range in a 1×1 clipped box
    // (the input itself is not clipped): the walk stopped at the box, and none was listed.
    let sso = must_ref(&obs, "switch", "Require single sign-on");
    let mentions = must_ref(&obs, "checkbox", "Mentions");
    let growth = must_ref(&obs, "radio", "Growth");
    let storage = must_ref(&obs, "slider", "Storage quota (GB)");
    ok(&zoo.act(tab, json!({"action": "click", "ref": sso})).expect("switch"));
    ok(&zoo.act(tab, json!({"action": "click", "ref": mentions})).expect("checkbox"));
    ok(&zoo.act(tab, json!({"action": "click", "ref": growth})).expect("radio"));
    let slide = json!({"action": "type", "ref": storage, "text": "120"});
    ok(&zoo.act(tab, slide).expect("slider"));
    click(&zoo, tab, "button", "Save workspace");
    let sent = posted(&zoo, "/api/aria");
    assert_eq!(
        (&sent["sso"], &sent["notify"], &sent["plan"], &sent["storage"]),
        (&json!("true"), &json!("mentions"), &json!("growth"), &json!("120")),
        "{sent}"
    );
    // PrimeReact keeps its dropdown's and multiselect's read-only inputs in the same kind of
    // box: the dropdown's was not listed, then clicked on the input itself (scrolled inside
    // its box), a click PrimeReact ignores; the multiselect's was "covered" by its own label.
    let tab = zoo.open_drawn("/prime.html", ".p-dropdown");
    click(&zoo, tab, "textbox", "Workshop city");
    click(&zoo, tab, "option", "Lisbon");
    click(&zoo, tab, "combobox", "Sessions");
    let obs = zoo.prompt(tab);
    assert!(obs.contains("Rust workshop"), "the sessions list did not open:\n{obs}");
    click(&zoo, tab, "option", "Rust workshop");
    click(&zoo, tab, "button", "Register");
    let sent = posted(&zoo, "/api/prime");
    assert_eq!((&sent["city"], &sent["sessions"]), (&json!("Lisbon"), &json!("rust")), "{sent}");
}

fn a_part_named_by_itself_and_its_field_reads_its_own_label(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/aria.html", ".react-aria-DateSegment");
    let obs = zoo.prompt(tab);
    // A date segment's `aria-labelledby` names itself (its `aria-label`, "month, ") and the
    // field's label: it read as its placeholder, "mm Renewal date".
    must_ref(&obs, "spinbutton", "month, Renewal date");
    must_ref(&obs, "spinbutton", "year, Renewal date");
}

fn a_slider_whose_own_value_is_a_share_is_set_by_the_number_shown(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/prime.html", ".p-slider-handle");
    // Its label shows the value ("Travel budget (EUR): 100"): named without it, so that the
    // ref holds as it moves.
    let budget = must_ref(&zoo.prompt(tab), "slider", "Travel budget (EUR)");
    // PrimeReact's handle reports its place in percent as `aria-valuenow` (20 for 100 of
    // 0–500): the keys stopped it at 100 and the step said ok, "the nearest value it takes"
    // (a false success). The number the page shows, which the keys change, is its value.
    let outcome = zoo.act(tab, json!({"action": "type", "ref": budget, "text": "300"}));
    let outcome = outcome.expect("type");
    ok(&outcome);
    assert!(
        outcome["text"].as_str().unwrap_or_default().contains("the page shows 300"),
        "{outcome}"
    );
    click(&zoo, tab, "button", "Register");
    assert_eq!(posted(&zoo, "/api/prime")["budget"], "300");
}

fn look_alike_icon_only_siblings_are_named_by_their_place(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/prime.html", ".p-rating-item");
    // PrimeReact's stars are focusable divs holding only an SVG: all five read "clickable
    // rating icon", and nothing told the fourth from the first.
    click(&zoo, tab, "clickable", "rating icon (4 of 5)");
    click(&zoo, tab, "button", "Register");
    assert_eq!(posted(&zoo, "/api/prime")["stars"], "4");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, controls_in_a_visually_hidden_box_are_used_through_what_is_drawn)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, a_part_named_by_itself_and_its_field_reads_its_own_label)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, a_slider_whose_own_value_is_a_share_is_set_by_the_number_shown)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, look_alike_icon_only_siblings_are_named_by_their_place)
            .with_data(Data::EvalTools),
    ]
}
