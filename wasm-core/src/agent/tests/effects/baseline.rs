//! Fields the task left as the page's forms held them say nothing of what a write does
//! (issue 27): a preferences save that posts every setting, an untouched `plan` among them,
//! is a settings write the words "save the preferences" grant. A `plan` the task changed, one
//! the page's script changed after the baseline was read, an operation field, and a save with
//! no baseline are judged as before: a billing change the words did not grant asks first.

use super::*;

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
