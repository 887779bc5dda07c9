//! A library's widget drawn in place of a native `<select>` or `<textarea>` it hides, inserted
//! right after the field rather than around it (Select2 and jQuery UI's selectmenu put their
//! box after the select they hide, TinyMCE its editor after the textarea). The page labels the
//! native field (`<label for>`); the widget names itself after what it shows (its chosen
//! value, a placeholder, a generic "Search" or "Rich Text Area"). A person reads the page's
//! label beside the box, so that label names the widget's controls.

use web_sys::Element;

/// Levels climbed from a control to the box drawn beside the select it stands for.
const MAX_LEVELS: u32 = 4;

/// The native fields a box may hold: the stand-in holds only its own.
const FIELDS: &str = "input:not([type=hidden]), select, textarea";

/// The label of the hidden native `<select>` or `<textarea>` that `el` (or the box around it,
/// within [`MAX_LEVELS`], holding no other field) is drawn right after; `None` when there is
/// none, the field is shown (then it is a control of its own) or has no label.
pub(super) fn replaced_label(el: &Element) -> Option<String> {
    let own = fields(el) + u32::from(is_field(el));
    let mut node = el.clone();
    for _ in 0..=MAX_LEVELS {
        if let Some(before) = node.previous_element_sibling()
            && matches!(before.local_name().as_str(), "select" | "textarea")
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

/// The name of a document's editable body (a rich-text editor drawn in a frame of its own):
/// the label of the hidden field the frame stands in for, else the frame's own label (a
/// person reads the frame's place in the page, not the generic name the editor gives its
/// body); `None` outside a frame or when neither names it.
pub(super) fn frame_label(body: &Element) -> Option<String> {
    let frame = body.owner_document()?.default_view()?.frame_element().ok()??;
    replaced_label(&frame).or_else(|| {
        let own = super::roles::own_label(&frame);
        (!own.is_empty()).then_some(own)
    })
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
