//! The decisions of perception that need no DOM: roles, secrecy, option lists, key names.
//! The content script feeds them strings read from the page; native tests cover them.

use crate::act_error::KeysError;

/// ARIA roles that make an element something to act on.
pub const WIDGET_ROLES: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "combobox",
    "switch",
    "slider",
    "textbox",
    "searchbox",
    "spinbutton",
    "treeitem",
    "gridcell",
    "listbox",
];

/// What the content script knows about an element when choosing its role.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoleFacts<'a> {
    /// Lower-case tag name.
    pub tag: &'a str,
    /// Lower-case `type` of an input.
    pub input_type: &'a str,
    /// The `role` attribute, if any.
    pub role: Option<&'a str>,
    /// `<a>` with an `href`.
    pub has_href: bool,
    /// `contenteditable` is set and not `false`.
    pub editable: bool,
    /// A `multiple` or `size > 1` select.
    pub list_select: bool,
    /// Script-made clickable: an `onclick` attribute, `tabindex >= 0`, or `cursor: pointer`
    /// starting on this element.
    pub clickable: bool,
}

/// The role the model sees, or `None` for elements that are not interactive.
pub fn interactive_role(f: RoleFacts<'_>) -> Option<&'static str> {
    if let Some(role) = f.role.and_then(|r| r.split_whitespace().next()) {
        let role = role.to_ascii_lowercase();
        if let Some(known) = WIDGET_ROLES.iter().find(|r| **r == role) {
            return Some(known);
        }
        if matches!(role.as_str(), "presentation" | "none") && !f.clickable {
            return None;
        }
    }
    let role = match f.tag {
        "a" if f.has_href => "link",
        "button" | "summary" => "button",
        "textarea" => "textbox",
        "select" if f.list_select => "listbox",
        "select" => "combobox",
        "input" => match f.input_type {
            "hidden" => return None,
            "checkbox" => "checkbox",
            "radio" => "radio",
            "button" | "submit" | "reset" | "image" => "button",
            "file" => "file",
            "range" => "slider",
            "number" => "spinbutton",
            "search" => "searchbox",
            "color" | "date" | "datetime-local" | "month" | "time" | "week" => "textbox",
            _ => "textbox",
        },
        _ if f.editable => "textbox",
        "body" | "html" | "label" => return None,
        _ if f.clickable => "clickable",
        _ => return None,
    };
    Some(role)
}

/// Fields whose value never leaves the page: passwords, one-time codes, payment cards.
pub fn is_sensitive(input_type: &str, autocomplete: &str, name_or_id: &str) -> bool {
    let autocomplete = autocomplete.to_ascii_lowercase();
    let hint = name_or_id.to_ascii_lowercase();
    input_type == "password"
        || autocomplete.split_whitespace().any(|t| t == "one-time-code" || t.starts_with("cc-"))
        || [
            "cvv",
            "cvc",
            "cardnumber",
            "card-number",
            "card_number",
            "ccnum",
            "otp",
            "password",
            "passwd",
        ]
        .iter()
        .any(|needle| hint.contains(needle))
}

/// Option labels as shown: at most `max`, then `+N` for the rest.
pub fn cap_options(options: Vec<String>, max: usize) -> Vec<String> {
    if options.len() <= max {
        return options;
    }
    let rest = options.len() - max;
    let mut out: Vec<String> = options.into_iter().take(max).collect();
    out.push(format!("+{rest}"));
    out
}

/// Longest text line still read as one value (a number, a price, a date, a count).
pub const MAX_VALUE_LINE: usize = 24;

/// Whether a text line already written earlier on the page is written again where it stands
/// now. A short value with a digit (`3`, `$5.00`, `2 days ago`) says something new at each
/// place (the number of a row, the price of a card: dropping it shifts every later row's
/// facts onto the wrong neighbour), unless `previous`, the line just before, is the same (one
/// text drawn twice). Other repeats (a menu's words, a notice in the footer again) are not.
pub fn repeat_is_kept(text: &str, previous: Option<&str>) -> bool {
    previous != Some(text)
        && text.chars().count() <= MAX_VALUE_LINE
        && text.chars().any(char::is_numeric)
}

/// One key press: the key and its modifiers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyPress {
    /// `KeyboardEvent.key`, e.g. `Enter`, `a`, `ArrowDown`.
    pub key: String,
    /// `KeyboardEvent.code`, e.g. `Enter`, `KeyA`.
    pub code: String,
    /// Ctrl held.
    pub ctrl: bool,
    /// Shift held.
    pub shift: bool,
    /// Alt held.
    pub alt: bool,
    /// Meta (Cmd) held.
    pub meta: bool,
}

/// Parses `Enter`, `Control+a`, `Shift+Tab Enter` (spaces separate presses) into presses;
/// `Err` names the part it did not understand.
pub fn parse_keys(keys: &str) -> Result<Vec<KeyPress>, KeysError> {
    let mut presses = Vec::new();
    for combo in keys.split_whitespace() {
        let mut press = KeyPress::default();
        let parts: Vec<&str> = combo.split('+').filter(|p| !p.is_empty()).collect();
        let Some((key, modifiers)) = parts.split_last() else {
            return Err(KeysError::NoKey(combo.to_owned()));
        };
        for m in modifiers {
            match m.to_ascii_lowercase().as_str() {
                "control" | "ctrl" => press.ctrl = true,
                "shift" => press.shift = true,
                "alt" | "option" => press.alt = true,
                "meta" | "cmd" | "command" => press.meta = true,
                _ => {
                    let (modifier, combo) = ((*m).to_owned(), combo.to_owned());
                    return Err(KeysError::UnknownModifier { modifier, combo });
                }
            }
        }
        let named = [
            "Enter",
            "Tab",
            "Escape",
            "Backspace",
            "Delete",
            "ArrowUp",
            "ArrowDown",
            "ArrowLeft",
            "ArrowRight",
            "Home",
            "End",
            "PageUp",
            "PageDown",
            "Space",
        ];
        let alias = match key.to_ascii_lowercase().as_str() {
            "esc" => Some("Escape"),
            "return" => Some("Enter"),
            "up" => Some("ArrowUp"),
            "down" => Some("ArrowDown"),
            "left" => Some("ArrowLeft"),
            "right" => Some("ArrowRight"),
            _ => None,
        };
        if let Some(name) =
            alias.or_else(|| named.iter().copied().find(|n| n.eq_ignore_ascii_case(key)))
        {
            press.key = if name == "Space" { " ".to_owned() } else { name.to_owned() };
            press.code = name.to_owned();
        } else if key.chars().count() == 1 {
            let ch = key.chars().next().unwrap_or(' ');
            press.key = (*key).to_owned();
            press.code = if ch.is_ascii_alphabetic() {
                format!("Key{}", ch.to_ascii_uppercase())
            } else if ch.is_ascii_digit() {
                format!("Digit{ch}")
            } else {
                String::new()
            };
        } else if key.len() > 1
            && key.starts_with(['F', 'f'])
            && key.get(1..).is_some_and(|n| n.parse::<u8>().is_ok())
        {
            press.key = key.to_ascii_uppercase();
            press.code = press.key.clone();
        } else {
            return Err(KeysError::UnknownKey((*key).to_owned()));
        }
        presses.push(press);
    }
    if presses.is_empty() {
        return Err(KeysError::Empty);
    }
    Ok(presses)
}

/// The number in what the model wrote for a slider: `70`, `70%`, `$1,200`, `-3.5`.
pub fn number_in(text: &str) -> Option<f64> {
    let digits: String =
        text.trim().chars().filter(|c| c.is_ascii_digit() || matches!(c, '.' | '-')).collect();
    digits.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Every number written in `text`, in order (`Guests: 4 of 8` → 4, 8): runs of digits with
/// one decimal point between digits, negative after a minus sign that starts a word. What a
/// page shows beside a slider that does not tell its value is read this way, and the one
/// number a key press changes is the slider's.
pub fn numbers_in(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next_is_digit = chars.peek().is_some_and(char::is_ascii_digit);
        let starts_word = previous.is_none_or(|p| !p.is_alphanumeric());
        let point = c == '.' && !current.is_empty() && !current.contains('.') && next_is_digit;
        let minus = c == '-' && current.is_empty() && next_is_digit && starts_word;
        if c.is_ascii_digit() || point || minus {
            current.push(c);
        } else if !current.is_empty() {
            out.extend(current.parse::<f64>().ok().filter(|v| v.is_finite()));
            current.clear();
        }
        previous = Some(c);
    }
    out.extend(current.parse::<f64>().ok().filter(|v| v.is_finite()));
    out
}

/// Whether a slider that stopped moving before reaching `goal` (its keys moved it no further)
/// ended too far from it for `now` to be "the nearest value it takes": further than one
/// arrow step (`step`, 0 when no press moved it) or a twentieth of its range (`span`), the
/// grain a pointer drop lands on. Such a slider did not take the value (its range is wrong,
/// or its `aria-valuenow` is not the value), which must not read as done.
pub fn slider_fell_short(goal: f64, now: f64, step: f64, span: f64) -> bool {
    (now - goal).abs() > step.abs().max(span.abs() / 20.0) + f64::EPSILON
}

/// The key presses that type `text` on a keyboard: one per character, a line break as Enter
/// and a tab as Tab (what a terminal or an editor listening to keys receives).
pub fn text_presses(text: &str) -> Vec<KeyPress> {
    text.chars()
        .filter(|c| *c != '\r')
        .map(|c| match c {
            '\n' => KeyPress { key: "Enter".into(), code: "Enter".into(), ..KeyPress::default() },
            '\t' => KeyPress { key: "Tab".into(), code: "Tab".into(), ..KeyPress::default() },
            ' ' => KeyPress { key: " ".into(), code: "Space".into(), ..KeyPress::default() },
            c => KeyPress {
                key: c.to_string(),
                code: char_code_name(c),
                shift: c.is_ascii_uppercase(),
                ..KeyPress::default()
            },
        })
        .collect()
}

/// `KeyA`, `Digit7`, or empty for a character without its own key.
fn char_code_name(c: char) -> String {
    if c.is_ascii_alphabetic() {
        format!("Key{}", c.to_ascii_uppercase())
    } else if c.is_ascii_digit() {
        format!("Digit{c}")
    } else {
        String::new()
    }
}

/// Whether a press types a character (fires `keypress` and inserts text): one character and
/// no Ctrl, Alt or Meta, or Enter.
pub fn types_character(press: &KeyPress) -> bool {
    let plain = !press.ctrl && !press.alt && !press.meta;
    plain && (press.key.chars().count() == 1 || press.key == "Enter")
}

/// The legacy `keyCode` and `charCode` of a press, as Chrome reports them: on `keydown` and
/// `keyup` the key's code (an upper-case letter's, a digit's, Enter 13, the arrows 37–40…);
/// on `keypress` (`keypress = true`) both are the typed character's code point.
pub fn key_codes(press: &KeyPress, keypress: bool) -> (u32, u32) {
    let single = press.key.chars().next().filter(|_| press.key.chars().count() == 1);
    if keypress {
        let point = match (press.key.as_str(), single) {
            ("Enter", _) => 13,
            (_, Some(c)) => u32::from(c),
            _ => 0,
        };
        return (point, point);
    }
    let code = match press.key.as_str() {
        "Enter" => 13,
        "Tab" => 9,
        "Escape" => 27,
        "Backspace" => 8,
        "Delete" => 46,
        "ArrowLeft" => 37,
        "ArrowUp" => 38,
        "ArrowRight" => 39,
        "ArrowDown" => 40,
        "Home" => 36,
        "End" => 35,
        "PageUp" => 33,
        "PageDown" => 34,
        " " => 32,
        f if f.len() > 1 && f.starts_with('F') => {
            let n = f.get(1..).and_then(|n| n.parse::<u32>().ok());
            n.filter(|n| (1..=24).contains(n)).map_or(0, |n| 111 + n)
        }
        _ => match single {
            Some(c) if c.is_ascii_alphanumeric() => u32::from(c.to_ascii_uppercase()),
            _ => 0,
        },
    };
    (code, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_value_stays_where_it_stands_and_repeated_prose_goes() {
        // The numbers of three rows: the third repeats the first.
        assert!(repeat_is_kept("5", Some("8")));
        assert!(repeat_is_kept("$5.00", None), "after a button");
        assert!(repeat_is_kept("2 days ago", Some("Ann")));
        assert!(!repeat_is_kept("5", Some("5")), "the same text twice in a row");
        assert!(!repeat_is_kept("Advertisement", None), "words, not a value");
        assert!(!repeat_is_kept("Subscribe to our 2 newsletters today", None), "prose");
    }

    #[test]
    fn slider_values_are_read_from_what_the_model_wrote() {
        assert_eq!(number_in("70"), Some(70.0));
        assert_eq!(number_in(" 70% "), Some(70.0));
        assert_eq!(number_in("$1,200"), Some(1200.0));
        assert_eq!(number_in("-3.5"), Some(-3.5));
        assert_eq!(number_in("loud"), None);
        assert_eq!(numbers_in("Guests: 4 of 8"), [4.0, 8.0]);
        assert_eq!(numbers_in("from -3.5 to 2.25."), [-3.5, 2.25]);
        assert_eq!(numbers_in("2025-06-12 v1.2.3"), [2025.0, 6.0, 12.0, 1.2, 3.0]);
        assert!(numbers_in("“loud” —").is_empty());
    }

    #[test]
    fn a_slider_stopped_far_from_its_goal_fell_short() {
        // PrimeReact's handle reports its place in percent: stuck at 100 of a 0–500 range.
        assert!(slider_fell_short(300.0, 100.0, 2.0, 500.0));
        assert!(slider_fell_short(300.0, 60.0, 0.0, 500.0));
        // One step away, or within the grain of a pointer drop: the nearest value it takes.
        assert!(!slider_fell_short(305.0, 300.0, 10.0, 500.0));
        assert!(!slider_fell_short(71.0, 70.0, 0.0, 100.0));
        assert!(!slider_fell_short(70.0, 70.0, 1.0, 100.0));
    }

    #[test]
    fn text_becomes_key_presses_with_their_codes() {
        let presses = text_presses("Ls 7\n");
        let keys: Vec<&str> = presses.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["L", "s", " ", "7", "Enter"]);
        assert!(presses[0].shift && !presses[1].shift);
        assert_eq!((presses[0].code.as_str(), presses[2].code.as_str()), ("KeyL", "Space"));
        assert_eq!(key_codes(&presses[1], false), (83, 0), "keydown of s: the key S");
        assert_eq!(key_codes(&presses[1], true), (115, 115), "keypress of s: its character");
        assert_eq!(key_codes(&presses[4], false), (13, 0));
        assert_eq!(key_codes(&presses[4], true), (13, 13));
        let arrow = parse_keys("ArrowRight F5").expect("keys");
        assert_eq!(key_codes(&arrow[0], false), (39, 0));
        assert_eq!(key_codes(&arrow[1], false), (116, 0));
        assert!(types_character(&presses[1]) && types_character(&presses[4]));
        assert!(!types_character(&arrow[0]));
        assert!(!types_character(&parse_keys("Control+a").expect("keys")[0]));
        assert_eq!(text_presses("a\r\nb").len(), 3, "CRLF is one Enter");
    }

    fn role(f: RoleFacts<'_>) -> Option<&'static str> {
        interactive_role(f)
    }

    #[test]
    fn roles_from_tags_types_and_aria() {
        let f = RoleFacts::default();
        assert_eq!(role(RoleFacts { tag: "a", has_href: true, ..f }), Some("link"));
        assert_eq!(role(RoleFacts { tag: "a", ..f }), None);
        assert_eq!(role(RoleFacts { tag: "input", input_type: "checkbox", ..f }), Some("checkbox"));
        assert_eq!(role(RoleFacts { tag: "input", input_type: "hidden", ..f }), None);
        assert_eq!(role(RoleFacts { tag: "input", input_type: "email", ..f }), Some("textbox"));
        assert_eq!(role(RoleFacts { tag: "select", list_select: true, ..f }), Some("listbox"));
        assert_eq!(role(RoleFacts { tag: "div", role: Some("Switch extra"), ..f }), Some("switch"));
        assert_eq!(role(RoleFacts { tag: "div", editable: true, ..f }), Some("textbox"));
        assert_eq!(role(RoleFacts { tag: "div", clickable: true, ..f }), Some("clickable"));
        assert_eq!(role(RoleFacts { tag: "label", clickable: true, ..f }), None);
        assert_eq!(role(RoleFacts { tag: "button", role: Some("presentation"), ..f }), None);
        assert_eq!(role(RoleFacts { tag: "div", ..f }), None);
    }

    #[test]
    fn secrets_are_recognised() {
        assert!(is_sensitive("password", "", ""));
        assert!(is_sensitive("text", "one-time-code", ""));
        assert!(is_sensitive("text", "billing cc-number", ""));
        assert!(is_sensitive("tel", "", "card_cvc"));
        assert!(!is_sensitive("text", "name", "first-name"));
    }

    #[test]
    fn long_option_lists_are_capped() {
        let opts: Vec<String> = (0..5).map(|i| i.to_string()).collect();
        assert_eq!(cap_options(opts.clone(), 3), ["0", "1", "2", "+2"]);
        assert_eq!(cap_options(opts, 5).len(), 5);
    }

    #[test]
    fn keys_parse_into_presses() {
        let presses = parse_keys("Control+a Shift+Tab esc 7 F5 Space").expect("keys");
        assert_eq!(presses.len(), 6);
        assert_eq!(
            (presses[0].key.as_str(), presses[0].code.as_str(), presses[0].ctrl),
            ("a", "KeyA", true)
        );
        assert!(presses[1].shift && presses[1].key == "Tab");
        assert_eq!(presses[2].key, "Escape");
        assert_eq!(presses[3].code, "Digit7");
        assert_eq!(presses[4].key, "F5");
        assert_eq!(presses[5].key, " ");
        assert!(parse_keys("Hyper+x").is_err());
        assert!(parse_keys("Bogus").is_err());
        assert!(parse_keys("  ").is_err());
    }
}
