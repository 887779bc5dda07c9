//! Each kind reads as the sentence the model has always been given.

use super::*;
use crate::formats::{FieldKind, Problem};

fn says(error: impl Into<ActError>, sentence: &str) {
    assert_eq!(error.into().to_string(), sentence);
}

#[test]
fn act_errors_read_as_before() {
    let r = Ref { frame: 0, index: 7 };
    says(ContentError::no_such_element(r), "no element [7] in the latest observation");
    says(
        ActError::NotWhatModelSaw { r, role: "button".into(), name: "Pay".into() },
        "element [7] is not what the model saw (its fingerprint no longer matches: now button \
         “Pay”); observe again",
    );
    says(ActError::NeedsRef, "this action needs a ref");
    says(ActError::NeedsDropTarget, "drag needs the element to drop on (`to`)");
    says(ActError::NotInPage("navigate"), "navigate is not performed in the page");
    says(ActError::NotHtml, "the element is not an HTML element");
    says(ActError::NoSize, "the element has no size on screen (it is hidden)");
    says(ActError::Covered("<div id=x>".into()), "another element covers it: <div id=x>");
    says(ActError::NoWindow, "no window");
    says(ActError::NoDocument, "no document");
    says(ActError::NoFocus, "nothing has focus");
    says(KeysError::NoKey("Control+".into()), "no key in “Control+”");
    says(
        KeysError::UnknownModifier { modifier: "Hyper".into(), combo: "Hyper+x".into() },
        "unknown modifier “Hyper” in “Hyper+x”",
    );
    says(KeysError::UnknownKey("Bogus".into()), "unknown key “Bogus”");
    says(KeysError::Empty, "no keys given");
    assert_eq!(
        crate::observation::rules::parse_keys("Hyper+x"),
        Err(KeysError::UnknownModifier { modifier: "Hyper".into(), combo: "Hyper+x".into() })
    );
    assert_eq!(crate::observation::rules::parse_keys("  "), Err(KeysError::Empty));
    says(ActError::Js("boom".into()), "boom");
}

#[test]
fn field_errors_read_as_before() {
    says(FieldError::Disabled, "the field is disabled");
    says(
        FieldError::ReadOnly,
        "the field is read-only: the page sets it through a picker or another control (click \
         the field, or a button beside it, and choose in what opens)",
    );
    says(
        FieldError::TakesNoText,
        "the element does not take text (it is not a field, an editor or a widget that listens \
         to keys)",
    );
    let format = FieldKind::Date.normalise("31/31/2024").expect_err("no month 31");
    says(format.clone(), "“31/31/2024” is not a date YYYY-MM-DD (there is no month 31)");
    assert_eq!(
        ActError::from(format),
        ActError::Field(FieldError::Format(crate::formats::FormatError::Unreadable {
            text: "31/31/2024".into(),
            kind: FieldKind::Date,
            problem: Problem::NoSuchMonth(31),
        }))
    );
    says(
        FieldError::NotTaken { wanted: "42".into(), holds: "4".into() },
        "the field did not take “42”: it holds “4”",
    );
    let long = "x".repeat(100);
    let said = ActError::from(FieldError::NotTaken { wanted: "y".into(), holds: long }).to_string();
    assert!(!said.contains(&"x".repeat(100)), "what it holds is shortened: {said}");
    says(FieldError::NoPrototype, "no prototype");
    says(FieldError::NoValueSetter, "no value setter");
    says(FieldError::SetValueFailed("denied".into()), "setting the value failed: denied");
    says(FieldError::HiddenToggle, "the field is hidden (too small, and no visible label)");
    says(
        FieldError::Unseen(Hidden::OutOfView),
        &format!("the field cannot be seen on the page: {}", Hidden::OutOfView),
    );
    says(
        FieldError::TypedUnseen(Hidden::TextInvisible),
        &format!(
            "what was typed would not be seen ({}); it was taken out of the field again",
            Hidden::TextInvisible
        ),
    );
    says(FieldError::RadioUncheck, "a radio button is unchecked by checking another one");
    says(FieldError::StateUnchanged, "clicking it did not change its state");
    says(FieldError::NotFileInput, "the element is not a file input");
    says(FieldError::BadBase64, "the file data is not valid base64");
    says(FieldError::NoRequestSubmit, "this browser has no HTMLFormElement.requestSubmit");
}

#[test]
fn choice_errors_read_as_before() {
    says(ChoiceError::Disabled("Mars".into()), "the option “Mars” is disabled");
    says(
        ChoiceError::Missing {
            wanted: "Mars".into(),
            offered: vec!["Earth".into(), "Venus".into()],
        },
        "no option “Mars”; the options are: Earth | Venus",
    );
    says(ChoiceError::NoneShown, "the list did not show any options; observe the page again");
    says(
        ChoiceError::NotShown { label: "Large".into(), shows: "Small".into() },
        "clicked the option “Large”, but the control does not show it afterwards (it shows \
         “Small”); observe the page again",
    );
}

#[test]
fn selection_errors_read_as_before() {
    says(
        SelectionError::NotEditable,
        "the element is not an editor or a text field: select_text selects words inside an \
         editable region",
    );
    let missing = PassageError::NotFound { wanted: "editor".into(), reads: "an editor".into() };
    says(
        SelectionError::InEditor(missing.clone()),
        "“editor” is not in the editor; it reads: “an editor”",
    );
    // The field's wording changes the sentence's words, never the quoted text.
    says(SelectionError::InField(missing), "“editor” is not in the field; it reads: “an editor”");
    says(
        SelectionError::InField(PassageError::Ambiguous { wanted: "Old".into(), count: 2 }),
        "“Old” occurs 2 times in the field; quote more of the words around the one you mean",
    );
    says(SelectionError::InField(PassageError::Empty), &PassageError::Empty.to_string());
    says(
        SelectionError::EditorChanged,
        "the editor changed while the words were looked up; try again",
    );
    says(SelectionError::NoSelection, "no selection");
    says(SelectionError::Failed("bad range".into()), "selecting failed: bad range");
    says(
        SelectionError::FieldRefused("not text".into()),
        "the field does not take a selection: not text",
    );
    says(
        SelectionError::NotKept("other words".into()),
        "the editor did not keep the selection: it has “other words” selected",
    );
    says(
        SelectionError::Unformatted("draft".into()),
        "changed nothing: the editor's text and formatting are as before (the selection reads \
         “draft”); select the words first (select_text), then apply the format",
    );
}

#[test]
fn typing_errors_read_as_before() {
    says(
        TypingError::NoFocus("<body>".into()),
        "clicking it did not give it the keyboard focus (the focus is on <body>): it does not \
         take typing",
    );
    says(
        TypingError::FocusLost { after: 3, of: 5, to: "<input id=q>".into() },
        "the page moved the focus out of the element after 3 of 5 keys (to <input id=q>)",
    );
    says(
        TypingError::EditorRefused("old".into()),
        "the editor did not take the text: it shows “old”",
    );
}

#[test]
fn drag_errors_read_as_before() {
    says(DragError::OntoItself, "an element cannot be dropped on itself or inside itself");
    says(
        DragError::NotTogether,
        "the two elements do not fit on the screen together; scroll so that both show, or drag \
         in shorter steps",
    );
    says(DragError::TargetCovered("<div>".into()), "another element covers the drop target: <div>");
    says(DragError::TargetOffScreen, "the drop target is not on the screen");
    says(DragError::StartRefused, "the page did not let the drag start");
    says(DragError::DropRefused, "the page does not accept a drop on that element");
    says(
        DragError::NothingMoved { position: 3, count: 5, container: "<ul>".into() },
        "nothing moved: the element is still 3 of 5 in <ul> (the page did not take the drag)",
    );
}

#[test]
fn slider_errors_read_as_before() {
    says(SliderError::NotANumber("loud".into()), "“loud” is not a number; a slider takes a number");
    says(
        SliderError::NoValue,
        "the slider does not tell its value (no aria-valuenow), so it cannot be set",
    );
    says(
        SliderError::OutOfRange { goal: 150.0, min: 0.0, max: 100.0 },
        "150 is outside the slider's range (0–100)",
    );
    says(
        SliderError::OutOfRange { goal: 2.5, min: 0.5, max: 2.0 },
        "2.5 is outside the slider's range (0.5–2)",
    );
    says(
        SliderError::Unmoved("the slider is at 3".into()),
        "neither the arrow keys nor the pointer moved the slider; the slider is at 3",
    );
    says(
        SliderError::Unshown { moved: true, at: 30.0 },
        "the page shows no number for this slider (its thumb is at 30% of its bar); give the \
         value as a share of the bar, e.g. “70%”",
    );
    says(
        SliderError::Unshown { moved: false, at: 0.0 },
        "the slider's thumb does not move with the arrow keys and the page shows no number for \
         it (it is at 0% of its bar)",
    );
    says(
        SliderError::Short { goal: 300.0, note: "the slider is at 100".into() },
        "the slider stopped short of 300 and did not take it; the slider is at 100",
    );
}

#[test]
fn scroll_errors_read_as_before() {
    says(ScrollError::CannotScroll, "the page cannot scroll");
    says(ScrollError::AtTop, "already at the top");
    says(ScrollError::AtBottom, "already at the bottom");
    says(
        ScrollError::TextAbsent("Zoë".into()),
        "the text “Zoë” is not on the page (a long list may draw only the rows in view: scroll \
         the list itself with a ref inside it, then look again)",
    );
    says(ScrollError::NeedsTarget, "scroll_to needs a ref or a text");
}

#[test]
fn a_failure_becomes_an_outcome_with_its_sentence() {
    let outcome = ActionOutcome::from(ActError::from(ScrollError::AtTop));
    assert!(!outcome.ok);
    assert_eq!(outcome.error.as_deref(), Some("already at the top"));
}

#[test]
fn read_back_errors_say_what_the_page_holds() {
    says(
        FieldError::ToggleUndone { checked: false },
        "the click changed it, but the page set it back: it is unchecked now",
    );
    says(
        FieldError::TooLong { max: 4, holds: "1234".into() },
        "the field takes at most 4 characters: it holds “1234”",
    );
    says(
        ChoiceError::Undone { wanted: "Large".into(), selected: "Medium".into() },
        "chose “Large”, but the page set the list back: it has “Medium” selected",
    );
    says(
        ChoiceError::NotSelected("Green".into()),
        "clicked the option “Green”, but it is not selected afterwards; observe the page again",
    );
    says(
        ClickError::TabNotSelected,
        "the tab is not selected after the click (aria-selected stays false); observe the page \
         again",
    );
    says(
        ClickError::Unchanged { state: "pressed", now: true },
        "clicking it did not change it: it is still pressed",
    );
    says(
        ScrollError::NotInView,
        "scrolled, but the element is still not in view (a box around it hides it)",
    );
    for undone in [Undone::Text, Undone::Checked, Undone::Choice, Undone::Value, Undone::Control] {
        let sentence = ActError::from(undone).to_string();
        assert!(sentence.contains("before the page settled"), "{sentence}");
    }
}
