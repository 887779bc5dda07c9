//! Perception and action defects found on real widgets (issue 18), one class per test, in real
//! Chromium on widget-zoo pages: controls nested in clickable rows and icon-only controls,
//! clicks that must land on what is under the pointer, elements whose only affordance is a
//! script listener. Each assertion names what the model reads or what the page's own scripts
//! saw, and failed before the fix of its class.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, text};
use serde_json::json;
use std::path::Path;
use waymark_tests::trial::E2e;

fn nested_clickables_and_icons_are_controls_of_their_own(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/nested.html").expect("nested");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert_eq!(obs.matches("] clickable star icon\n").count(), 2, "{obs}");
    for line in [
        "] clickable Delete Meeting notes\n",
        "] clickable Delete Lunch plans\n",
        "] clickable Reply\n",
        "] clickable Forward\n",
        "] button Bold\n",
        "] button heart icon\n",
        "] link print icon\n",
        "] button (no name)\n",
    ] {
        assert!(obs.contains(line), "missing {line:?} in:\n{obs}");
    }
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "clickable", "star icon")}))
        .expect("star"));
    assert_eq!(
        text(&page, "document.getElementById('status').textContent"),
        "Starred: Meeting notes"
    );
    let delete = must_ref(&obs, "clickable", "Delete Lunch plans");
    ok(&zoo.act(tab, json!({"action": "click", "ref": delete})).expect("delete"));
    assert_eq!(
        text(&page, "document.getElementById('status').textContent"),
        "Deleted: Lunch plans"
    );
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "clickable", "Forward")}))
        .expect("forward"));
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Forwarding");
    // The row itself is still one control.
    let (obs, _) = zoo.observe(tab).expect("observe again");
    let row = obs
        .lines()
        .find(|l| {
            l.contains("] clickable \"Meeting notes") || l.contains("] clickable Meeting notes")
        })
        .unwrap_or_else(|| panic!("no row in:\n{obs}"));
    assert!(!obs.contains("Lunch plans"), "the deleted row is gone:\n{obs}");
    let r = &row[1..row.find(']').unwrap_or(1)];
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": r.parse::<u64>().expect("ref")}))
        .expect("row"));
    assert_eq!(
        text(&page, "document.getElementById('status').textContent"),
        "Opened: Meeting notes"
    );
}

fn clicks_land_on_what_is_under_the_pointer(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/nested.html").expect("nested");
    let (obs, _) = zoo.observe(tab).expect("observe");
    // The handler is on the tab's label, which fills the tab.
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "tab", "Details")}))
        .expect("tab"));
    assert_eq!(text(&page, "document.getElementById('panel').textContent"), "Panel: Details");
    assert!(zoo.observe(tab).expect("observe").0.contains("] tab \"Details\" selected"));
    // The handler is on the icon drawn over the whole button.
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Bold")}))
        .expect("bold"));
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Bold on");
}

fn elements_with_only_a_script_listener_are_listed(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/listeners.html").expect("listeners");
    let (obs, _) = zoo.observe(tab).expect("observe");
    // Calendar days (addEventListener) and board cells (an onclick property).
    let day = must_ref(&obs, "clickable", "3");
    ok(&zoo.act(tab, json!({"action": "click", "ref": day})).expect("day"));
    assert_eq!(text(&page, "document.getElementById('picked').textContent"), "Picked: March 3");
    let cell = must_ref(&obs, "clickable", "Cell 5");
    ok(&zoo.act(tab, json!({"action": "click", "ref": cell})).expect("cell"));
    assert_eq!(text(&page, "document.getElementById('moves').textContent"), "Moves: X at 5");
    // The app root delegates events: it has a listener but is not a control.
    assert!(!obs.contains("] clickable \"March"), "{obs}");
    assert!(!obs.lines().any(|l| l.contains("] clickable") && l.contains("Picked")), "{obs}");
}

fn custom_checkboxes_and_radios_are_their_visible_box(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/widgets.html").expect("widgets");
    let (obs, _) = zoo.observe(tab).expect("observe");
    // A transparent input over a styled label (TodoMVC), a label whose input is not rendered,
    // and transparent radios filling their labels.
    let milk = must_ref(&obs, "checkbox", "Buy milk");
    ok(&zoo.act(tab, json!({"action": "check", "ref": milk})).expect("check todo"));
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Completed: Buy milk");
    let notify = must_ref(&obs, "checkbox", "Notifications");
    ok(&zoo.act(tab, json!({"action": "check", "ref": notify})).expect("check switch"));
    assert_eq!(text(&page, "String(document.getElementById('notify').checked)"), "true");
    ok(&zoo
        .act(tab, json!({"action": "check", "ref": must_ref(&obs, "radio", "Large")}))
        .expect("radio"));
    assert_eq!(text(&page, "document.querySelector('[name=size]:checked').value"), "l");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("] checkbox \"Buy milk\" checked"), "{obs}");
    assert!(obs.contains("] checkbox \"Notifications\" checked"), "{obs}");
}

fn outcomes_are_true_and_typed_fields_take_their_format(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/widgets.html").expect("widgets");
    let (obs, _) = zoo.observe(tab).expect("observe");
    for line in [
        "] textbox Birthday format=YYYY-MM-DD",
        "] textbox Alarm format=HH:MM",
        "] spinbutton Guests type=number min=1 max=20",
        "] slider \"Volume\" value=\"50\" type=range min=0 max=100 step=10",
        "] textbox \"Paint\" value=\"#000000\" format=#rrggbb",
    ] {
        let bare = line.replace(" format", "\" format").replace(" type=", "\" type=");
        let quoted = bare.replacen("] textbox ", "] textbox \"", 1).replacen(
            "] spinbutton ",
            "] spinbutton \"",
            1,
        );
        assert!(obs.contains(line) || obs.contains(&quoted), "missing {line:?} in:\n{obs}");
    }
    let birthday = must_ref(&obs, "textbox", "Birthday");
    ok(&zoo
        .act(tab, json!({"action": "type", "ref": birthday, "text": "15/03/2024"}))
        .expect("date"));
    assert_eq!(text(&page, "document.getElementById('birthday').value"), "2024-03-15");
    let ambiguous = zoo
        .act(tab, json!({"action": "type", "ref": birthday, "text": "03/04/2024"}))
        .expect("ambiguous");
    assert_eq!(ambiguous["ok"], json!(false), "{ambiguous}");
    ok(&zoo
        .act(
            tab,
            json!({"action": "type", "ref": must_ref(&obs, "textbox", "Alarm"), "text": "7:30 pm"}),
        )
        .expect("time"));
    assert_eq!(text(&page, "document.getElementById('alarm').value"), "19:30");
    ok(&zoo
        .act(
            tab,
            json!({"action": "type", "ref": must_ref(&obs, "textbox", "Paint"), "text": "red"}),
        )
        .expect("color"));
    assert_eq!(text(&page, "document.getElementById('paint').value"), "#ff0000");
    let volume = zoo
        .act(
            tab,
            json!({"action": "type", "ref": must_ref(&obs, "slider", "Volume"), "text": "73"}),
        )
        .expect("range");
    assert!(
        volume["text"].as_str().unwrap_or_default().contains("70"),
        "the slider says where it went: {volume}"
    );
    let words = zoo.act(tab, json!({"action": "type", "ref": must_ref(&obs, "spinbutton", "Guests"), "text": "a dozen"})).expect("number");
    assert_eq!(words["ok"], json!(false), "{words}");
    // A click that changes nothing says so; one whose effect comes 250 ms later does not.
    let dead = zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Does nothing")}))
        .expect("dead");
    assert_eq!(dead["no_effect"], json!(true), "{dead}");
    let alive = zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "button", "Say hello")}))
        .expect("alive");
    ok(&alive);
    assert!(alive.get("no_effect").is_none(), "{alive}");
}

fn the_page_settles_before_it_is_read_and_long_values_are_kept(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/widgets.html").expect("widgets");
    let (obs, _) = zoo.observe(tab).expect("observe");
    // The suggestions appear 300 ms after typing: the next observation has them.
    ok(&zoo.act(tab, json!({"action": "type", "ref": must_ref(&obs, "textbox", "Country search"), "text": "ba"})).expect("type"));
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("] option Bahamas") && obs.contains("] option Barbados"), "{obs}");
    assert!(obs.contains("] listbox Bahamas Bahrain Bangladesh Barbados\n"), "spaced:\n{obs}");
    // The page's own XHR and fetch work under the MAIN-world hooks, and settling waits for them.
    ok(&zoo
        .act(tab, json!({"action": "click", "ref": must_ref(&obs, "clickable", "Load status")}))
        .expect("xhr"));
    assert_eq!(text(&page, "document.getElementById('slow').textContent"), "XHR 200");
    let settled = zoo.act(tab, json!({"action": "wait", "seconds": 5})).expect("wait");
    assert_eq!(text(&page, "document.getElementById('slow').dataset.fetch"), "200");
    assert!(settled["text"].as_str().unwrap_or_default().contains("settled"), "{settled}");
    // A long text area is shown beyond 300 characters, and extract gives form values.
    assert!(obs.contains("Long note. Long note.") && obs.contains("THE END"), "{obs}");
    let md = zoo.act(tab, json!({"action": "extract"})).expect("extract");
    let md = md["text"].as_str().unwrap_or_default();
    assert!(md.contains("[Notes: Long note.") && md.contains("THE END]"), "{md}");
    assert!(md.contains("[Country search: ba"), "{md}");
}

fn a_combobox_under_its_own_placeholder_is_typed_into_and_unseen_text_is_taken_out(
    extension: &Path,
) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/placeholder.html").expect("placeholder");
    let (obs, _) = zoo.observe(tab).expect("observe");
    // Element Plus's filterable select draws its "Select" placeholder over the empty search
    // input: the combobox was left out as covered, and could not be typed into.
    let fruit = must_ref(&obs, "combobox", "Fruit");
    ok(&zoo.act(tab, json!({"action": "type", "ref": fruit, "text": "app"})).expect("type"));
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Filter: app");
    // A cover that stays over the typed text: the text is taken out again, and said so.
    let code = must_ref(&obs, "combobox", "Code");
    let hidden =
        zoo.act(tab, json!({"action": "type", "ref": code, "text": "s3cret"})).expect("type");
    assert_eq!(hidden["ok"], json!(false), "{hidden}");
    assert!(hidden["error"].as_str().unwrap_or_default().contains("would not be seen"), "{hidden}");
    assert_eq!(text(&page, "document.getElementById('code').value"), "");
    let (obs, _) = zoo.observe(tab).expect("observe");
    assert!(obs.contains("] combobox \"Fruit\" value=\"app\""), "{obs}");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, nested_clickables_and_icons_are_controls_of_their_own),
        e2e!(test_hooks, clicks_land_on_what_is_under_the_pointer),
        e2e!(test_hooks, elements_with_only_a_script_listener_are_listed),
        e2e!(test_hooks, custom_checkboxes_and_radios_are_their_visible_box),
        e2e!(test_hooks, outcomes_are_true_and_typed_fields_take_their_format),
        e2e!(test_hooks, the_page_settles_before_it_is_read_and_long_values_are_kept),
        e2e!(
            test_hooks,
            a_combobox_under_its_own_placeholder_is_typed_into_and_unseen_text_is_taken_out
        ),
    ]
}
