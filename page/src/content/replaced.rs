//! A library's widget drawn in place of a native `<select>` it hides, inserted right after
//! the select rather than around it (Select2 and jQuery UI's selectmenu put their box after
//! the select they hide). The page labels the native select (`<label for>`); the widget
//! names itself after what it shows (its chosen value, a placeholder, a generic "Search").
//! A person reads the page's label beside the box, so that label names the widget's controls.

use web_sys::Element;

/// Levels climbed from a control to the box drawn beside the select it stands for.
const MAX_LEVELS: u32 = 4;

/// The native fields a box may hold: the stand-in holds only its own.
const FIELDS: &str = "input:not([type=hidden]), select, textarea";

/// The label of the hidden native `<select>` that `el` (or the box around it, within
/// [`MAX_LEVELS`], holding no other field) is drawn right after; `None` when there is none,
/// the select is shown (then it is a control of its own) or has no label.
pub(super) fn select_label(el: &Element) -> Option<String> {
    let own = fields(el) + u32::from(is_field(el));
    let mut node = el.clone();
    for _ in 0..=MAX_LEVELS {
        if let Some(before) = node.previous_element_sibling()
            && before.local_name() == "select"
        {
            return if hidden(&before) { super::roles::labels_text(&before) } else { None };
        }
        let parent = node.parent_element()?;
        if fields(&parent) > own {
            return None;
        }
        node = parent;
    }
    None
}

fn is_field(el: &Element) -> bool {
    el.matches(FIELDS).unwrap_or(false)
}

fn fields(el: &Element) -> u32 {
    el.query_selector_all(FIELDS).map_or(0, |l| l.length())
}

/// Whether the select is out of sight: not rendered, or drawn at most 1 px wide or high (the
/// "visually hidden" clip), so the widget after it is what a person uses.
fn hidden(select: &Element) -> bool {
    let rect = select.get_bounding_client_rect();
    rect.width() <= 1.0 || rect.height() <= 1.0
}
