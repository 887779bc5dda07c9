//! Fields the task left as the page's forms held them say nothing of what a write does
//! (issue 27): a preferences save that posts every setting, an untouched `plan` among them,
//! is a settings write the words "save the preferences" grant. A `plan` the task changed, one
//! the page's script changed after the baseline was read, an operation field, and a save with
//! no baseline are judged as before: a billing change the words did not grant asks first.

use super::*;
use crate::safety::target::ControlSnapshot;

const PREFS_PAGE: &str = "https://zoo.example/preferences";
const PREFS_API: &str = "https://zoo.example/api/preferences";
const TASK: &str = "Set the zoom to 150 and save the preferences.";

fn prefs_form(fields: &[(&str, &str)]) -> Vec<FormSnapshot> {
    vec![FormSnapshot {
        action: PREFS_API.into(),
        fields: fields.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect(),
    }]
}

/// The task's one click on "Save preferences", the page posting `json` (held, then sent when
/// done again): the cards it raised.
fn save(forms: Vec<FormSnapshot>, json: &str) -> (EffectsPage, Vec<Intervention>) {
    let request = post(PREFS_API, json);
    let page = EffectsPage::new(PREFS_PAGE)
        .with(1, button("Save preferences"))
        .with_forms(forms)
        .sending(vec![vec![request.clone()], vec![request]]);
    let (_, cards) = task(TASK, &page, &[CLICK1], vec![Reply::default()]);
    (page, cards)
}

fn billing_cards(cards: &[Intervention]) -> usize {
    cards.iter().filter(|c| c.message.contains("change billing, a plan or a payout")).count()
}

#[test]
fn an_untouched_plan_posted_with_every_save_needs_no_card() {
    let form = prefs_form(&[("plan", "Free"), ("zoom", "50")]);
    let (page, cards) = save(form, r#"{"plan":"Free","zoom":"150"}"#);
    assert!(cards.is_empty(), "{cards:?}");
    assert_eq!(page.went.borrow().len(), 1, "the save went");
    assert_eq!(*page.forms_read.borrow(), [0], "read once, before the first action");
}

#[test]
fn a_plan_the_task_changed_still_asks() {
    let form = prefs_form(&[("plan", "Free"), ("zoom", "50")]);
    let (page, cards) = save(form, r#"{"plan":"Team","zoom":"50"}"#);
    assert_eq!(billing_cards(&cards), 1, "{cards:?}");
    assert!(page.went.borrow().is_empty(), "denied: nothing went");
}

#[test]
fn a_hidden_plan_the_pages_script_changed_after_the_baseline_still_asks() {
    // The visible select may still show Starter: what counts is what the form held.
    let form = prefs_form(&[("plan", "starter"), ("zoom", "50")]);
    let (page, cards) = save(form, r#"{"plan":"pro","zoom":"150"}"#);
    assert_eq!(billing_cards(&cards), 1, "{cards:?}");
    assert!(page.went.borrow().is_empty());
}

#[test]
fn a_save_with_no_baseline_asks_as_before() {
    let (_, cards) = save(Vec::new(), r#"{"plan":"Free","zoom":"150"}"#);
    assert_eq!(billing_cards(&cards), 1, "{cards:?}");
    // A form at another address is no baseline for this one.
    let elsewhere = vec![FormSnapshot {
        action: "https://zoo.example/api/other".into(),
        fields: vec![("plan".into(), "Free".into())],
    }];
    let (_, cards) = save(elsewhere, r#"{"plan":"Free","zoom":"150"}"#);
    assert_eq!(billing_cards(&cards), 1, "{cards:?}");
}

#[test]
fn an_operation_field_counts_even_when_unchanged() {
    let form = prefs_form(&[("action", "delete"), ("zoom", "50")]);
    let (_, cards) = save(form, r#"{"action":"delete","zoom":"150"}"#);
    assert!(cards.iter().any(|c| c.message.contains("delete or cancel")), "{cards:?}");
}

/// A field the page showed before the task: its names and the values it held.
fn shown(keys: &[&str], values: &[&str]) -> ControlSnapshot {
    ControlSnapshot {
        keys: keys.iter().map(|k| (*k).to_owned()).collect(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
    }
}

/// The task's click on "Save preferences" on a page whose script saves with `fetch` (no
/// form): the cards it raised.
fn script_save(controls: Vec<ControlSnapshot>, json: &str) -> (EffectsPage, Vec<Intervention>) {
    let request = post(PREFS_API, json);
    let page = EffectsPage::new(PREFS_PAGE)
        .with(1, button("Save preferences"))
        .with_controls(controls)
        .sending(vec![vec![request.clone()], vec![request]]);
    let (_, cards) = task(TASK, &page, &[CLICK1], vec![Reply::default()]);
    (page, cards)
}

#[test]
fn a_script_s_save_of_fields_the_page_showed_unchanged_needs_no_card() {
    // A React settings page posts its whole state: the radio group labelled "Plan" still on
    // Starter, the "Seats" field still at 5. The task only changed the zoom.
    let controls = vec![
        shown(&["react-aria-7", "Starter", "Plan"], &["starter"]),
        shown(&["seat_count", "Seats"], &["5"]),
        shown(&["Zoom"], &["50"]),
    ];
    let json = r#"{"plan":"Starter","seats":5,"zoom":"150"}"#;
    let (_, cards) = script_save(controls, json);
    assert!(cards.is_empty(), "{cards:?}");
    // Keys in another case convention (`seatCount` for a field named `seat_count`).
    let json = r#"{"plan":"Starter","seatCount":"5","zoom":"150"}"#;
    let controls = vec![shown(&["Plan"], &["starter"]), shown(&["seat_count"], &["5"])];
    let (page, cards) = script_save(controls, json);
    assert!(cards.is_empty(), "{cards:?}");
    assert_eq!(page.went.borrow().len(), 1, "the save went");
}

#[test]
fn a_script_s_save_of_a_value_no_shown_field_held_still_asks() {
    // The plan the page showed was Starter; the save sends Enterprise (the task's click, or
    // the page's script, changed it): a billing change the words did not grant.
    let controls = vec![shown(&["Plan"], &["starter"]), shown(&["Seats"], &["5"])];
    let (page, cards) = script_save(controls.clone(), r#"{"plan":"enterprise","zoom":"150"}"#);
    assert_eq!(billing_cards(&cards), 1, "{cards:?}");
    assert!(page.went.borrow().is_empty(), "denied: nothing went");
    // The value some other field held is not this one's.
    let (_, cards) = script_save(controls.clone(), r#"{"plan":"5","zoom":"150"}"#);
    assert_eq!(billing_cards(&cards), 1, "{cards:?}");
    // A key no shown field is named by is judged.
    let (_, cards) = script_save(controls, r#"{"subscription":"starter","zoom":"150"}"#);
    assert_eq!(billing_cards(&cards), 1, "{cards:?}");
}

#[test]
fn a_yes_is_never_unchanged_by_a_shown_field() {
    // A box the page showed checked does not let a save send `close_account: true` unasked.
    let controls = vec![shown(&["close_account", "Close my account"], &["true", "on"])];
    let (_, cards) = script_save(controls, r#"{"close_account":true,"zoom":"150"}"#);
    assert!(cards.iter().any(|c| c.message.contains("delete or cancel")), "{cards:?}");
    // Nor an operation field.
    let controls = vec![shown(&["action"], &["delete"])];
    let (_, cards) = script_save(controls, r#"{"action":"delete","zoom":"150"}"#);
    assert!(cards.iter().any(|c| c.message.contains("delete or cancel")), "{cards:?}");
}
