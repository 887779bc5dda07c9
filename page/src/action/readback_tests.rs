use super::*;

#[test]
fn a_field_that_holds_the_text_is_as_typed_and_a_mask_is_a_reformatting() {
    assert_eq!(judge_text("Ada", "Ada"), TextReadback::AsTyped);
    assert_eq!(judge_text("5551234567", "(555) 123-4567"), TextReadback::Reformatted);
    assert_eq!(judge_text("1234", "$1,234.00"), TextReadback::Reformatted);
    assert_eq!(judge_text("ab12", "AB-12"), TextReadback::Reformatted);
    assert_eq!(judge_text(" Ada ", "Ada"), TextReadback::Reformatted);
    assert_eq!(judge_text("", "__/__/____"), TextReadback::Reformatted);
}

#[test]
fn a_refused_or_cut_or_replaced_text_is_not_taken() {
    assert_eq!(judge_text("abc123", "123"), TextReadback::NotTaken);
    assert_eq!(judge_text("abcdefgh", "abcde"), TextReadback::NotTaken);
    assert_eq!(judge_text("Ada", ""), TextReadback::NotTaken);
    assert_eq!(judge_text("Ada", "Grace"), TextReadback::NotTaken);
    assert_eq!(judge_text("", "Grace"), TextReadback::NotTaken);
    // Letters of other scripts are letters: a rewrite that drops them is a refusal.
    assert_eq!(judge_text("東京 12", "12"), TextReadback::NotTaken);
    assert_eq!(judge_text("東京：12", "東京 12"), TextReadback::Reformatted);
}

#[test]
fn max_length_counts_utf16_units_and_never_splits_a_character() {
    assert_eq!(over_max_length("abcdef", Some(4)), Some("abcd"));
    assert_eq!(over_max_length("abcd", Some(4)), None);
    assert_eq!(over_max_length("abc", None), None);
    // “ is one unit, 😀 two: a limit inside the emoji keeps it out whole.
    assert_eq!(over_max_length("“a”", Some(2)), Some("“a"));
    assert_eq!(over_max_length("a😀b", Some(2)), Some("a"));
    assert_eq!(over_max_length("a😀b", Some(3)), Some("a😀"));
    assert_eq!(over_max_length("x", Some(0)), Some(""));
}

#[test]
fn a_box_set_back_by_the_page_is_undone_and_one_that_never_moved_is_unchanged() {
    assert_eq!(judge_toggle(true, true, true), Ok(()));
    assert_eq!(judge_toggle(true, false, true), Ok(()));
    assert_eq!(judge_toggle(true, true, false), Err(FieldError::ToggleUndone { checked: false }));
    assert_eq!(judge_toggle(false, false, true), Err(FieldError::ToggleUndone { checked: true }));
    assert_eq!(judge_toggle(true, false, false), Err(FieldError::StateUnchanged));
}

fn state(selected: Option<bool>, expanded: Option<bool>, checked: Option<bool>) -> ControlState {
    ControlState { selected, expanded, pressed: None, checked }
}

#[test]
fn a_tab_must_end_selected() {
    let (off, on) = (state(Some(false), None, None), state(Some(true), None, None));
    assert_eq!(judge_click(Clicked::Tab, &off, &on), Ok(Some("the tab is selected now".into())));
    assert_eq!(judge_click(Clicked::Tab, &off, &off), Err(ClickError::TabNotSelected));
    assert!(judge_click(Clicked::Tab, &on, &on).is_ok_and(|n| n.is_some()));
    assert_eq!(
        judge_click(Clicked::Tab, &ControlState::default(), &ControlState::default()),
        Ok(None)
    );
}

#[test]
fn an_expander_and_a_box_must_flip_and_say_how() {
    let (shut, open) = (state(None, Some(false), None), state(None, Some(true), None));
    assert_eq!(judge_click(Clicked::Button, &shut, &open), Ok(Some("it is expanded now".into())));
    assert_eq!(judge_click(Clicked::Button, &open, &shut), Ok(Some("it is collapsed now".into())));
    let still = judge_click(Clicked::Button, &shut, &shut);
    assert_eq!(still, Err(ClickError::Unchanged { state: "expanded", now: false }));
    assert_eq!(
        still.map_err(|e| e.to_string()),
        Err("clicking it did not change it: it is still not expanded".into())
    );
    let (off, on) = (state(None, None, Some(false)), state(None, None, Some(true)));
    assert_eq!(judge_click(Clicked::Toggle, &off, &on), Ok(Some("it is checked now".into())));
    assert!(judge_click(Clicked::Toggle, &on, &on).is_err());
    assert!(judge_click(Clicked::Radio, &off, &off).is_err());
    assert!(judge_click(Clicked::Radio, &on, &on).is_ok());
    // A combobox that does not open on a click is not a failed click.
    assert_eq!(judge_click(Clicked::Other, &shut, &shut), Ok(None));
    assert!(click_settled(Clicked::Button, &shut, &open));
    assert!(!click_settled(Clicked::Button, &shut, &shut));
}

#[test]
fn a_menu_item_that_opens_the_next_column_is_not_a_failed_click() {
    // Ant Design's Cascader: a `menuitemcheckbox` parent opens its column and stays unchecked.
    let off = state(None, None, Some(false));
    assert_eq!(judge_click(Clicked::of_role("menuitemcheckbox"), &off, &off), Ok(None));
    assert_eq!(judge_click(Clicked::of_role("menuitemradio"), &off, &off), Ok(None));
    assert!(judge_click(Clicked::of_role("checkbox"), &off, &off).is_err());
}

#[test]
fn a_pressed_button_that_opened_a_dialog_did_its_work_there() {
    let before = ControlState { pressed: Some(false), ..ControlState::default() };
    let judged = judge_click(Clicked::Button, &before, &before);
    assert_eq!(
        dialog_instead(&judged, Some("Insert/Edit Link")).as_deref(),
        Some("it opened the dialog “Insert/Edit Link”")
    );
    // No dialog took the focus: the unchanged state stays a failure.
    assert_eq!(dialog_instead(&judged, None), None);
    // A click that did change its state is judged by it, dialog or not.
    let after = ControlState { pressed: Some(true), ..ControlState::default() };
    assert_eq!(dialog_instead(&judge_click(Clicked::Button, &before, &after), Some("x")), None);
}
