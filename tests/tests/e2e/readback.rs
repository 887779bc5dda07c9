//! No false success: every action's outcome is read back from the state it was meant to change.
//! On `readback.html` each control's page script undoes or refuses the change (a field that
//! keeps digits only, a mask, a name emptied a moment later, a `maxlength`, a box and a switch
//! set back, a sold-out option, a locked slider, a broken tab, an expander that closes again, a
//! file input emptied), and the outcome must say so; the controls that take the change say what
//! was read back.

use crate::perception_support;
use perception_support::{Zoo, must_ref, text};
use serde_json::{Value, json};
use std::path::Path;
use waymark_tests::trial::E2e;

/// The outcomes that did not say what they should, each with what it said: every case is
/// checked before the test fails, so a failure lists all of them.
#[derive(Default)]
struct Misses(std::cell::RefCell<Vec<String>>);

impl Misses {
    /// The outcome failed, and its error says `words`.
    fn refused(&self, outcome: &Value, words: &str) {
        let error = outcome["error"].as_str().unwrap_or_default();
        if outcome["ok"] != json!(false) || !error.contains(words) {
            self.0.borrow_mut().push(format!("should fail saying “{words}”: {outcome}"));
        }
    }

    /// The outcome succeeded, and its text says `words`.
    fn said(&self, outcome: &Value, words: &str) {
        let note = outcome["text"].as_str().unwrap_or_default();
        if outcome["ok"] != json!(true) || !note.contains(words) {
            self.0.borrow_mut().push(format!("should succeed saying “{words}”: {outcome}"));
        }
    }

    /// A fact about the page that must hold.
    fn fact(&self, holds: bool, what: &str) {
        if !holds {
            self.0.borrow_mut().push(format!("the page should show {what}"));
        }
    }

    /// Fails the test with every miss.
    fn none(self) {
        let misses = self.0.into_inner();
        assert!(misses.is_empty(), "{} miss(es):\n{}", misses.len(), misses.join("\n"));
    }
}

fn fields_say_what_they_hold_after_the_page_rewrote_or_refused_the_text(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/readback.html").expect("readback");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let act = |action: Value| zoo.act(tab, action).expect("act");
    let misses = Misses::default();
    let (refused, said) =
        (|o: &Value, w: &str| misses.refused(o, w), |o: &Value, w: &str| misses.said(o, w));

    let digits = must_ref(&obs, "textbox", "Digits only");
    refused(&act(json!({"action": "type", "ref": digits, "text": "ab12"})), "it holds “12”");
    let phone = must_ref(&obs, "textbox", "Phone");
    let masked = act(json!({"action": "type", "ref": phone, "text": "5551234567"}));
    said(&masked, "reformatted it: the field holds “(555) 123-4567”");
    let nick = must_ref(&obs, "textbox", "Nickname");
    refused(&act(json!({"action": "type", "ref": nick, "text": "Bob"})), "it holds “”");
    let code = must_ref(&obs, "textbox", "Code");
    refused(
        &act(json!({"action": "type", "ref": code, "text": "123456"})),
        "at most 4 characters: it holds “1234”",
    );
    let code_now = text(&page, "document.getElementById('code').value");
    misses.fact(code_now == "1234", &format!("the code cut at 4 characters, not “{code_now}”"));
    let city = must_ref(&obs, "textbox", "City");
    said(&act(json!({"action": "type", "ref": city, "text": "Oslo"})), "as typed");
    said(&act(json!({"action": "clear", "ref": city})), "the field is empty");

    let volume = must_ref(&obs, "slider", "Volume");
    said(
        &act(json!({"action": "type", "ref": volume, "text": "7"})),
        "the slider is at 5: the nearest value it takes to 7",
    );
    let balance = must_ref(&obs, "slider", "Balance");
    refused(&act(json!({"action": "type", "ref": balance, "text": "80"})), "it holds “50”");
    misses.none();
}

fn boxes_choices_tabs_expanders_and_files_are_read_back(extension: &Path) {
    let zoo = Zoo::launch(extension).expect("launch");
    let (page, tab) = zoo.open("/readback.html").expect("readback");
    let (obs, _) = zoo.observe(tab).expect("observe");
    let act = |action: Value| zoo.act(tab, action).expect("act");
    let misses = Misses::default();
    let (refused, said) =
        (|o: &Value, w: &str| misses.refused(o, w), |o: &Value, w: &str| misses.said(o, w));

    let terms = must_ref(&obs, "checkbox", "Accept terms");
    refused(
        &act(json!({"action": "check", "ref": terms})),
        "the page set it back: it is unchecked",
    );
    let news = must_ref(&obs, "checkbox", "Newsletter");
    said(&act(json!({"action": "check", "ref": news})), "it is checked now");
    // Set back later, while the page settles: the read-back as it settles finds it.
    let offers = must_ref(&obs, "checkbox", "Offers");
    refused(
        &act(json!({"action": "check", "ref": offers})),
        "before the page settled its script set it back",
    );
    assert_eq!(text(&page, "String(document.getElementById('offers').checked)"), "false");
    let promo = must_ref(&obs, "textbox", "Promo code");
    refused(
        &act(json!({"action": "type", "ref": promo, "text": "SPRING"})),
        "changed it to something else",
    );
    let dark = must_ref(&obs, "switch", "Dark mode");
    refused(&act(json!({"action": "check", "ref": dark})), "the page set it back");

    let size = must_ref(&obs, "combobox", "Size");
    refused(
        &act(json!({"action": "select_option", "ref": size, "option": "Large"})),
        "the page set the list back: it has “Medium” selected",
    );
    said(
        &act(json!({"action": "select_option", "ref": size, "option": "Small"})),
        "“Small” is selected",
    );
    let color = must_ref(&obs, "listbox", "Color");
    said(
        &act(json!({"action": "select_option", "ref": color, "option": "Green"})),
        "“Green” is selected",
    );

    said(
        &act(json!({"action": "click", "ref": must_ref(&obs, "tab", "Payment")})),
        "the tab is selected now",
    );
    refused(
        &act(json!({"action": "click", "ref": must_ref(&obs, "tab", "Billing")})),
        "the tab is not selected",
    );
    assert_eq!(text(&page, "document.getElementById('status').textContent"), "Billing clicked");
    said(
        &act(json!({"action": "click", "ref": must_ref(&obs, "button", "Details")})),
        "it is expanded now",
    );
    refused(
        &act(json!({"action": "click", "ref": must_ref(&obs, "button", "More options")})),
        "it is still not expanded",
    );

    let avatar = must_ref(&obs, "file", "Avatar");
    let set = zoo
        .content(tab, 0, json!({"op": "set_file", "ref": avatar, "name": "me.png", "mime": "image/png", "base64": "aGk="}))
        .expect("set file");
    refused(&set, "does not hold “me.png”");
    misses.none();
}

/// This file's tests, for the harness (`main.rs`).
pub fn trials() -> Vec<E2e> {
    vec![
        e2e!(test_hooks, fields_say_what_they_hold_after_the_page_rewrote_or_refused_the_text),
        e2e!(test_hooks, boxes_choices_tabs_expanders_and_files_are_read_back),
    ]
}
