//! Widgets of the zoo's second and third rounds (issue 27): libraries no earlier fix was written
//! against — Ant Design 6, Material Web, Choices.js and Fluent UI web components — in real Chromium. Each assertion failed before
//! the fix of its class (named per assertion); the `libs` evaluation drives the same pages
//! through the agent and checks what each library holds.

use crate::perception_support;
use perception_support::{Zoo, must_ref, ok, posted, ref_of};
use serde_json::json;
use std::path::Path;
use waymark_tests::trial::{Data, E2e};

fn controls_drawn_with_divs_read_what_a_person_reads(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/antd.html", ".ant-rate-star");
    let obs = zoo.prompt(tab);
    // Ant Design's slider handle has no label of its own: it read as its classes ("slider
    // handle icon"); the title a person reads above it names it.
    must_ref(&obs, "slider", "Storage limit (GB)");
    // A rating's five stars all read "radio star": their place in the set tells them apart.
    for place in 1..=5 {
        must_ref(&obs, "radio", &format!("star ({place} of 5)"));
    }
    // The search box of a Select is typed into (its `autocomplete="new-password"` made it a
    // credential field), and the list it opens, fading in, is in the next observation.
    let zone = must_ref(&obs, "combobox", "Time zone");
    ok(&zoo.act(tab, json!({"action": "type", "ref": zone, "text": "Tok"})).expect("type"));
    let obs = zoo.prompt(tab);
    let shown = ["option", "clickable"].iter().any(|role| ref_of(&obs, role, "Tokyo").is_some());
    assert!(shown, "the list opened by typing is not in the observation:\n{obs}");
}

fn web_components_are_named_by_what_names_the_component(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/material.html", "md-slider");
    let obs = zoo.prompt(tab);
    // The native control inside the component's shadow root has no label; the `<label>`
    // around the component names it.
    must_ref(&obs, "switch", "Show my status");
    must_ref(&obs, "checkbox", "Weekly digest by email");
    // A radio whose role only the component's internals carry: named by its label.
    must_ref(&obs, "radio", "Dark");
    // The slider's range input is transparent over the track it draws: listed, with its value.
    let volume = must_ref(&obs, "slider", "Sound volume");
    ok(&zoo.act(tab, json!({"action": "type", "ref": volume, "text": "60"})).expect("type"));
    let save = must_ref(&zoo.prompt(tab), "button", "Save profile");
    ok(&zoo.act(tab, json!({"action": "click", "ref": save})).expect("click"));
    let body = posted(&zoo, "/api/material");
    assert_eq!(body["volume"], "60", "{body}");
}

fn a_select_library_over_a_native_select_is_named_by_its_label(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/choices.html", ".choices");
    let obs = zoo.prompt(tab);
    // Named by the label of the native select it draws over, never by its options run together
    // ("Choose a department Design Engineering …").
    must_ref(&obs, "combobox", "Department");
    must_ref(&obs, "combobox", "Skills");
    // The box a tag input types into is one character wide beside the original input, which
    // the library keeps transparent in the same wrapper: the wrapper is what a person sees.
    let typed =
        ["searchbox", "textbox"].iter().any(|role| ref_of(&obs, role, "Keywords").is_some());
    assert!(typed, "no field to type keywords into:\n{obs}");
    // Collapsed, it shows its chosen item as an option beside the closed list: that was taken
    // for the list ("no option “Engineering”"); the list is opened and the choice read back.
    let department = must_ref(&obs, "combobox", "Department");
    let choose = json!({"action": "select_option", "ref": department, "option": "Engineering"});
    ok(&zoo.act(tab, choose).expect("select"));
    let save = must_ref(&zoo.prompt(tab), "button", "Save draft");
    ok(&zoo.act(tab, json!({"action": "click", "ref": save})).expect("click"));
    assert_eq!(posted(&zoo, "/api/choices")["department"], "engineering");
}

fn web_components_say_what_their_internals_say(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/fluent.html", "fluent-slider");
    let obs = zoo.prompt(tab);
    // Fluent's controls carry their role and state only in their ElementInternals: they read
    // as "clickable" with no state, and a click's read-back saw no change.
    let record = must_ref(&obs, "switch", "Record the meeting");
    must_ref(&obs, "radio", "30 minutes (2 of 3)");
    // The slider's empty `ariaValueText` hid the value its `ariaValueNow` says.
    assert!(obs.contains(r#"slider "Reminder volume" value="30""#), "{obs}");
    // The dropdown's combobox shows its value ("UTC"); the field's label names the component.
    let zone = must_ref(&obs, "combobox", "Time zone");
    // A component wrapped around the control it draws is not a second control.
    for wrapper in ["Time zone", "Length", "Meeting title"] {
        assert!(ref_of(&obs, "clickable", wrapper).is_none(), "{wrapper} listed twice:\n{obs}");
    }
    let told = zoo.act(tab, json!({"action": "click", "ref": record})).expect("click");
    ok(&told);
    assert!(told.to_string().contains("checked now"), "{told}");
    let choose = json!({"action": "select_option", "ref": zone, "option": "Tokyo"});
    ok(&zoo.act(tab, choose).expect("select"));
    let save = must_ref(&zoo.prompt(tab), "button", "Save meeting");
    ok(&zoo.act(tab, json!({"action": "click", "ref": save})).expect("click"));
    let body = posted(&zoo, "/api/fluent");
    assert_eq!((body["record"].as_str(), body["zone"].as_str()), (Some("true"), Some("tokyo")));
}

fn a_slotted_option_is_chosen_where_it_listens(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/material.html", "md-slider");
    // `<md-select-option>` is an option only by the `<li role=option>` in its shadow root, and
    // listens for clicks there: it was not found, then the click went to its host.
    let language = must_ref(&zoo.prompt(tab), "combobox", "Language");
    let choose = json!({"action": "select_option", "ref": language, "option": "Dutch"});
    ok(&zoo.act(tab, choose).expect("select"));
    let save = must_ref(&zoo.prompt(tab), "button", "Save profile");
    ok(&zoo.act(tab, json!({"action": "click", "ref": save})).expect("click"));
    assert_eq!(posted(&zoo, "/api/material")["language"], "nl");
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, web_components_say_what_their_internals_say).with_data(Data::EvalTools),
        e2e!(test_hooks, a_slotted_option_is_chosen_where_it_listens).with_data(Data::EvalTools),
        e2e!(test_hooks, a_library_s_roots_and_tracks_are_not_controls).with_data(Data::EvalTools),
        e2e!(test_hooks, controls_drawn_with_divs_read_what_a_person_reads)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, web_components_are_named_by_what_names_the_component)
            .with_data(Data::EvalTools),
        e2e!(test_hooks, a_select_library_over_a_native_select_is_named_by_its_label)
            .with_data(Data::EvalTools),
    ]
}

fn a_library_s_roots_and_tracks_are_not_controls(extension: &Path) {
    let zoo = Zoo::launch_libzoo(extension);
    let tab = zoo.open_drawn("/mantine.html", ".mantine-Slider-root");
    let obs = zoo.prompt(tab);
    // React listens for every event, `drop` among them, on its root and on each portal a
    // library keeps for its popups: seven "dropzone (no name)" and three empty clickables.
    assert!(!obs.contains("dropzone"), "{obs}");
    assert!(!obs.contains("(no name)"), "{obs}");
    // A slider's track and a field's group, named only by their classes ("mantine track
    // icon"), are the wrappers of the slider and the field listed inside them.
    assert!(!obs.contains(" icon\n"), "{obs}");
    must_ref(&obs, "slider", "Notification volume");
    must_ref(&obs, "textbox", "Interests");
}
