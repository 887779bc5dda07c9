//! Widgets of published component libraries (issue 27), in real Chromium on the library zoo
//! (`waymark_tests::libzoo`: pages bundled from the npm packages `cargo xtask setup --eval`
//! installs). Each test acts as the agent would, through the observation's refs, and reads
//! the outcome back through the widget's own state: the page posts what the library holds.
//! Every assertion failed before the fix of its class (the class is named per test).

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, posted};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use waymark_tests::chromium::Page;
use waymark_tests::libzoo;
use waymark_tests::trial::{Data, E2e};

fn launch(extension: &Path) -> Zoo {
    libzoo::require();
    Zoo::launch_serving(extension, libzoo::serve().expect("libzoo")).expect("launch")
}

/// Opens a zoo page once its library has drawn `ready` (a CSS selector).
fn open_page(zoo: &Zoo, path: &str, ready: &str) -> (Page, i32) {
    let (page, tab) = zoo.open(path).expect("open");
    page.wait_for(&format!("document.querySelector({ready:?}) !== null"), Duration::from_secs(30))
        .expect("the library drew its widgets");
    (page, tab)
}

fn open(zoo: &Zoo, path: &str, ready: &str) -> i32 {
    open_page(zoo, path, ready).1
}

fn act(zoo: &Zoo, tab: i32, action: Value) {
    ok(&zoo.act(tab, action.clone()).unwrap_or_else(|e| panic!("{action}: {e}")));
}

fn observe(zoo: &Zoo, tab: i32) -> String {
    zoo.observe(tab).expect("observe").0
}

fn react_widgets_are_listed_named_and_set_through_their_state(extension: &Path) {
    let zoo = launch(extension);
    let tab = open(&zoo, "/react.html", "[role=slider]");
    let obs = observe(&zoo, tab);
    // Class 2: react-select's search input is 2 px wide until typed into.
    must_ref(&obs, "combobox", "Ticket tags");
    // Class 5: MUI's range input is clipped to nothing inside the thumb a person drags.
    must_ref(&obs, "slider", "Brightness");
    // Class 1: icon-only buttons read what their pictures show, never the same.
    must_ref(&obs, "button", "arrow back icon");
    let city = must_ref(&obs, "combobox", "Delivery city");
    act(&zoo, tab, json!({"action": "type", "ref": city, "text": "Lis"}));
    // Refs are renewed by each observation: every step looks again, as the agent does.
    let fresh = |role: &str, name: &str| must_ref(&observe(&zoo, tab), role, name);
    act(&zoo, tab, json!({"action": "click", "ref": fresh("option", "Lisbon")}));
    act(&zoo, tab, json!({"action": "type", "ref": fresh("slider", "Brightness"), "text": "70"}));
    // A `<label for>` names the switch Radix draws as a button.
    act(&zoo, tab, json!({"action": "click", "ref": fresh("switch", "Airplane mode")}));
    act(&zoo, tab, json!({"action": "click", "ref": fresh("button", "send icon")}));
    act(&zoo, tab, json!({"action": "click", "ref": fresh("button", "Save preferences")}));
    let saved = posted(&zoo, "/api/react");
    assert_eq!(saved["city"], "lisbon", "{saved}");
    assert_eq!(saved["brightness"], "70", "{saved}");
    assert_eq!(saved["airplane"], "true", "{saved}");
    assert_eq!(saved["last"], "send", "{saved}");
}

fn shadow_dom_controls_are_listed_through_what_a_person_sees(extension: &Path) {
    let zoo = launch(extension);
    let (page, tab) = open_page(&zoo, "/shoelace.html", "sl-switch[id=push]:defined");
    let obs = observe(&zoo, tab);
    // Class 5: the switch's and the checkbox's inputs are `opacity: 0` in their shadow roots,
    // their labels slotted from the host.
    must_ref(&obs, "switch", "Push notifications");
    must_ref(&obs, "checkbox", "I accept the terms");
    let fresh = |role: &str, name: &str| must_ref(&observe(&zoo, tab), role, name);
    act(&zoo, tab, json!({"action": "click", "ref": fresh("switch", "Push notifications")}));
    act(&zoo, tab, json!({"action": "check", "ref": fresh("checkbox", "I accept the terms")}));
    // The options are slotted into the list; the hit test stops at their `<slot>`.
    let digest = fresh("combobox", "Digest frequency");
    act(&zoo, tab, json!({"action": "select_option", "ref": digest, "option": "Weekly"}));
    // Its list covers the fields below it until its closing animation ends.
    let closed =
        "document.getElementById('digest').shadowRoot.querySelector('[part~=listbox]').hidden";
    page.wait_for(closed, Duration::from_secs(10)).expect("the list closes");
    act(&zoo, tab, json!({"action": "type", "ref": fresh("slider", "Alert volume"), "text": "60"}));
    let obs = observe(&zoo, tab);
    assert!(obs.contains("] switch \"Push notifications\" checked"), "{obs}");
    // The button's label is slotted text: the point over it hits the host.
    act(&zoo, tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Save settings")}));
    let saved = posted(&zoo, "/api/shoelace");
    assert_eq!(saved["push"], "true", "{saved}");
    assert_eq!(saved["terms"], "true", "{saved}");
    assert_eq!(saved["digest"], "weekly", "{saved}");
    assert_eq!(saved["volume"], "60", "{saved}");
}

fn custom_selects_over_hidden_inputs_are_listed_once_by_their_label(extension: &Path) {
    let zoo = launch(extension);
    let tab = open(&zoo, "/vue.html", ".el-select");
    let obs = observe(&zoo, tab);
    // Class 6: Element Plus keeps the select's read-only input at opacity 0 over the box
    // that shows the choice.
    let cabin = must_ref(&obs, "combobox", "Cabin class");
    act(&zoo, tab, json!({"action": "select_option", "ref": cabin, "option": "Business"}));
    let obs = observe(&zoo, tab);
    act(&zoo, tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Book trip")}));
    assert_eq!(posted(&zoo, "/api/vue")["cabin"], "business");
    // Tom Select over a native select: one combobox named by the label, chosen through it.
    let tab = open(&zoo, "/vanilla.html", ".ts-control");
    let obs = observe(&zoo, tab);
    assert_eq!(obs.matches("Resort").count(), 1, "{obs}");
    let fresh = |role: &str, name: &str| must_ref(&observe(&zoo, tab), role, name);
    let resort = fresh("combobox", "Resort");
    act(&zoo, tab, json!({"action": "select_option", "ref": resort, "option": "Zermatt"}));
    // Class 8 (naming): a range's two thumbs are named by the labelled track, apart.
    let low = fresh("slider", "Price per night (1 of 2)");
    act(&zoo, tab, json!({"action": "type", "ref": low, "text": "200"}));
    let high = fresh("slider", "Price per night (2 of 2)");
    act(&zoo, tab, json!({"action": "type", "ref": high, "text": "300"}));
    act(&zoo, tab, json!({"action": "click", "ref": fresh("button", "Search holidays")}));
    let saved = posted(&zoo, "/api/vanilla");
    assert_eq!(saved["resort"], "zermatt", "{saved}");
    assert_eq!((saved["low"].as_str(), saved["high"].as_str()), (Some("200"), Some("300")));
}

fn a_grid_sorted_by_transforms_reads_in_drawn_order(extension: &Path) {
    let zoo = launch(extension);
    let tab = open(&zoo, "/grid.html", ".ag-row");
    let obs = observe(&zoo, tab);
    let first = |obs: &str| {
        let line = obs.lines().find(|l| l.contains("] gridcell ")).expect("a grid cell");
        line[line.find("] gridcell ").unwrap_or(0) + 11..].to_owned()
    };
    assert_eq!(first(&obs), "Falcon 14", "{obs}");
    act(&zoo, tab, json!({"action": "click", "ref": must_ref(&obs, "clickable", "Price")}));
    // Class 7: AG Grid moves its rows with transforms; the DOM keeps their old order.
    let obs = observe(&zoo, tab);
    assert_eq!(first(&obs), "Osprey 15", "{obs}");
    let cells: Vec<&str> = obs.lines().filter(|l| l.contains("] gridcell ")).collect();
    let prices: Vec<u32> = cells
        .iter()
        .skip(1)
        .step_by(2)
        .filter_map(|l| l.rsplit(' ').next().and_then(|p| p.parse().ok()))
        .collect();
    let mut sorted = prices.clone();
    sorted.sort_unstable();
    assert_eq!(prices, sorted, "{obs}");
}

fn enter_in_a_field_of_a_form_without_a_submit_button_submits_nothing(extension: &Path) {
    let zoo = launch(extension);
    let (page, tab) = open_page(&zoo, "/vue.html", ".el-date-editor");
    page.eval("window.stillHere = true").expect("mark the document");
    let obs = observe(&zoo, tab);
    // Element Plus's date picker takes a typed date on Enter. Its el-form has many fields and
    // no submit button (a browser submits nothing there); Waymark's Enter submitted the form,
    // which reloaded the page and left the picker's model empty while every step said ok.
    let date = must_ref(&obs, "textbox", "Departure date");
    act(&zoo, tab, json!({"action": "type", "ref": date, "text": "2025-05-20"}));
    let date = must_ref(&observe(&zoo, tab), "textbox", "Departure date");
    act(&zoo, tab, json!({"action": "press_keys", "ref": date, "keys": "Enter"}));
    assert_eq!(page.eval("window.stillHere === true").expect("eval"), json!(true), "reloaded");
    let book = must_ref(&observe(&zoo, tab), "button", "Book trip");
    act(&zoo, tab, json!({"action": "click", "ref": book}));
    assert_eq!(posted(&zoo, "/api/vue")["date"], "2025-05-20");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, react_widgets_are_listed_named_and_set_through_their_state)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, shadow_dom_controls_are_listed_through_what_a_person_sees)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, custom_selects_over_hidden_inputs_are_listed_once_by_their_label)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, a_grid_sorted_by_transforms_reads_in_drawn_order)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, enter_in_a_field_of_a_form_without_a_submit_button_submits_nothing)
            .with_data(Data::EvalTools),
    ]
}
