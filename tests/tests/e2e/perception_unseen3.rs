//! Widgets of the zoo's third round (issue 27): libraries no earlier fix was written against —
//! Mantine 7, Bootstrap 5, jQuery UI 1.14 and Select2 4.1 — in real Chromium. Each assertion
//! failed before the fix of its class (named per assertion); the `libs` evaluation drives the
//! same pages through the agent and checks what each library holds.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, posted, ref_of, text};
use serde_json::json;
use std::path::Path;
use waymark_tests::trial::{Data, E2e};

/// Presses `key` on the element `reference` names.
fn press(zoo: &Zoo, tab: i32, reference: &serde_json::Value, key: &str) {
    ok(&zoo
        .act(tab, json!({"action": "press_keys", "ref": reference, "keys": key}))
        .expect("press"));
}

fn click(zoo: &Zoo, tab: i32, role: &str, name: &str) {
    let target = must_ref(&zoo.prompt(tab), role, name);
    ok(&zoo.act(tab, json!({"action": "click", "ref": target})).expect("click"));
}

fn a_select_drawn_beside_the_native_one_it_hides_is_named_by_its_label(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/select2.html", ".select2-container");
    let obs = zoo.prompt(tab);
    // Select2 inserts its box after the select it hides: the box read as its placeholder
    // ("Choose a country") and both multiple selects as "Search", indistinguishable.
    let country = must_ref(&obs, "combobox", "Country");
    must_ref(&obs, "combobox", "Languages spoken");
    let typed = ["searchbox", "textbox"].iter().any(|r| ref_of(&obs, r, "Features").is_some());
    assert!(typed, "no field to type features into:\n{obs}");
    // Its box names its own value line in `aria-controls` and the list in `aria-owns`: the
    // list was looked for in the value line ("the list did not show any options").
    let choose = json!({"action": "select_option", "ref": country, "option": "Portugal"});
    ok(&zoo.act(tab, choose).expect("select"));
    click(&zoo, tab, "button", "Save listing");
    assert_eq!(posted(&zoo, "/api/select2")["country"], "pt");
    // jQuery UI's selectmenu points the select's `<label for>` at its own box (a span): it
    // read as its value, "Double".
    let tab = zoo.open_drawn("/jqueryui.html", ".ui-selectmenu-button");
    must_ref(&zoo.prompt(tab), "combobox", "Room type");
}

fn a_clipped_away_toggle_is_used_through_its_label(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    // Bootstrap's `btn-check` radios are clipped to nothing where they lie, under the first
    // label of the group: all four were left out as covered.
    let tab = zoo.open_drawn("/bootstrap.html", ".btn-check");
    let obs = zoo.prompt(tab);
    let large = must_ref(&obs, "radio", "L");
    ok(&zoo.act(tab, json!({"action": "click", "ref": large})).expect("click"));
    click(&zoo, tab, "button", "Save delivery options");
    assert_eq!(posted(&zoo, "/api/delivery")["size"], "L");
    // Mantine's rating sets its value when the star (the label) is clicked; a click sent to
    // the 0×0 radio itself only hovered it ("it is still not checked").
    let tab = zoo.open_drawn("/mantine.html", ".mantine-Rating-root");
    let four = must_ref(&zoo.prompt(tab), "radio", "4");
    ok(&zoo.act(tab, json!({"action": "click", "ref": four})).expect("click"));
    click(&zoo, tab, "button", "Save account");
    assert_eq!(posted(&zoo, "/api/mantine")["rating"], "4");
}

fn typed_text_reaches_a_widget_that_reads_it_on_key_up(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/jqueryui.html", "#arrival");
    let arrival = must_ref(&zoo.prompt(tab), "textbox", "Arrival date");
    // jQuery UI's datepicker parses its field on `keyup`; without one, Enter picked the day
    // it had highlighted before (2025-06-01) over the typed one, and every step said ok.
    let typed = json!({"action": "type", "ref": arrival, "text": "2025-06-12"});
    ok(&zoo.act(tab, typed).expect("type"));
    press(&zoo, tab, &arrival, "Enter");
    click(&zoo, tab, "button", "Book room");
    assert_eq!(posted(&zoo, "/api/jqueryui")["arrival"], "2025-06-12");
}

fn a_thumb_without_a_role_is_a_slider_set_by_the_number_it_shows(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (_page, tab) = zoo.open("/thumbs.html").expect("page");
    let (obs, _) = zoo.observe(tab).expect("observe");
    // A focusable span placed along a bar by `left: N%` (jQuery UI's handle) read as a
    // "clickable" with no value, and no slider action could set it.
    assert!(obs.contains("] slider \"Guests\" value=\"thumb at 0% of its bar\""), "{obs}");
    let guests = must_ref(&obs, "slider", "Guests");
    let brightness = must_ref(&obs, "slider", "Brightness");
    // A button placed at the end of a banner is no thumb: the banner is thicker than it.
    must_ref(&obs, "clickable", "Dismiss");
    must_ref(&obs, "clickable", "×");
    // Set by the number the page shows beside it.
    let set = zoo.act(tab, json!({"action": "type", "ref": guests, "text": "4"})).expect("guests");
    ok(&set);
    assert!(set["text"].as_str().unwrap_or_default().contains("the page shows 4"), "{set}");
    // One that shows no number: said so, and set by its place on the bar when asked for a share.
    let bare = zoo.act(tab, json!({"action": "type", "ref": brightness, "text": "5"})).expect("5");
    assert_eq!(bare["ok"], json!(false), "{bare}");
    assert!(bare["error"].to_string().contains("shows no number"), "{bare}");
    let share = json!({"action": "type", "ref": brightness, "text": "70%"});
    ok(&zoo.act(tab, share).expect("70%"));
    // A slider whose own value is its place in percent and whose value nothing shows: the
    // keys stop it short, and the step says so rather than "the nearest value it takes".
    let spend = must_ref(&obs, "slider", "Monthly spend");
    let short = zoo.act(tab, json!({"action": "type", "ref": spend, "text": "300"})).expect("300");
    assert_eq!(short["ok"], json!(false), "{short}");
    assert!(short["error"].to_string().contains("stopped short of 300"), "{short}");
    click(&zoo, tab, "button", "Save booking");
    let saved = posted(&zoo, "/api/thumbs");
    assert_eq!((saved["guests"].as_str(), saved["brightness"].as_str()), (Some("4"), Some("70")));
}

fn a_toast_a_timer_fades_in_after_load_is_waited_for(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/toast.html").expect("page");
    // The page is loaded, the toast still transparent: the first observation used to read it
    // then and leave it out (Bootstrap's toast is at opacity 0 for 150 ms after `show()`).
    // What the loading armed is waited for, and the fade it starts.
    let obs = zoo.prompt(tab);
    let accept = must_ref(&obs, "button", "Accept cookies");
    ok(&zoo.act(tab, json!({"action": "click", "ref": accept})).expect("click"));
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Cookies accepted.");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, a_select_drawn_beside_the_native_one_it_hides_is_named_by_its_label)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, a_clipped_away_toggle_is_used_through_its_label)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, typed_text_reaches_a_widget_that_reads_it_on_key_up)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, a_thumb_without_a_role_is_a_slider_set_by_the_number_it_shows),
        e2e!(test_hooks, a_toast_a_timer_fades_in_after_load_is_waited_for),
    ]
}
