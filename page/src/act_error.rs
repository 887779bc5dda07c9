//! Why a page action failed in the content script, by kind: one enum per concern (the target,
//! fields, choices, text selection, typing through keys, dragging, sliders, scrolling), each
//! variant holding the facts and its `Display` the sentence the model and the user read.
//!
//! Why kinds: the content script's code says what went wrong without stitching sentences, and
//! the words live in one place. They cross to the worker as an [`ActionOutcome`]'s `error`
//! text (the wire shape is unchanged); nothing reads them back.

use crate::action::ActionOutcome;
use crate::action::richtext::PassageError;
use crate::error::ContentError;
use crate::formats::FormatError;
use crate::observation::{Ref, shorten};
use crate::visibility::Hidden;

/// Why a page action could not be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ActError {
    /// The ref names no element, or its element is gone or changed.
    #[error(transparent)]
    Content(#[from] ContentError),
    /// The element is there but no longer has the role and name the model saw.
    #[error(
        "element [{r}] is not what the model saw (its fingerprint no longer matches: now {role} \
         “{name}”); observe again"
    )]
    NotWhatModelSaw {
        /// The ref the model gave.
        r: Ref,
        /// The element's role now.
        role: String,
        /// The element's name now.
        name: String,
    },
    /// The action names no element.
    #[error("this action needs a ref")]
    NeedsRef,
    /// A drag without the element to drop on.
    #[error("drag needs the element to drop on (`to`)")]
    NeedsDropTarget,
    /// An action the worker performs, sent to the page.
    #[error("{0} is not performed in the page")]
    NotInPage(&'static str),
    /// The element is not an HTML element (an SVG or MathML one).
    #[error("the element is not an HTML element")]
    NotHtml,
    /// The element has no size on screen.
    #[error("the element has no size on screen (it is hidden)")]
    NoSize,
    /// Another element is on top of the element's centre (its short description).
    #[error("another element covers it: {0}")]
    Covered(String),
    /// The frame has no window.
    #[error("no window")]
    NoWindow,
    /// The frame has no document.
    #[error("no document")]
    NoDocument,
    /// Nothing has the keyboard focus, not even the body.
    #[error("nothing has focus")]
    NoFocus,
    /// The keys could not be read.
    #[error(transparent)]
    Keys(#[from] KeysError),
    /// The browser threw (its exception's message).
    #[error("{0}")]
    Js(String),
    /// The page cannot be scrolled, or the scroll reached its end.
    #[error(transparent)]
    Scroll(#[from] ScrollError),
    /// A field could not be filled.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// An option could not be chosen.
    #[error(transparent)]
    Choice(#[from] ChoiceError),
    /// Words could not be selected.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// Text could not be typed through the keyboard or into an editor.
    #[error(transparent)]
    Typing(#[from] TypingError),
    /// A drag could not be done.
    #[error(transparent)]
    Drag(#[from] DragError),
    /// A slider could not be set.
    #[error(transparent)]
    Slider(#[from] SliderError),
    /// A click did not change the clicked control's own state.
    #[error(transparent)]
    Click(#[from] ClickError),
    /// The page's script undid the action's change before the page settled.
    #[error(transparent)]
    Undone(#[from] Undone),
}

/// What the page's script undid after the action's own read-back, found once the page had
/// settled (a request's answer, a longer timer): the state the action left is gone.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Undone {
    /// A field no longer holds the text the action left in it.
    #[error(
        "the field took the text, but before the page settled its script changed it to \
         something else; observe the page again"
    )]
    Text,
    /// A box or switch was set back.
    #[error(
        "the box changed, but before the page settled its script set it back; observe the page \
         again"
    )]
    Checked,
    /// A list no longer has the chosen option selected.
    #[error(
        "the option was chosen, but before the page settled its script chose another; observe \
         the page again"
    )]
    Choice,
    /// A slider's value was set back.
    #[error(
        "the slider moved, but before the page settled its script set it back; observe the \
         page again"
    )]
    Value,
    /// A clicked control's state (a tab's selection, an expander) was set back.
    #[error(
        "the click changed the control, but before the page settled its script set it back; \
         observe the page again"
    )]
    Control,
}

impl From<ActError> for ActionOutcome {
    /// A failed outcome whose error is the sentence the model reads.
    fn from(error: ActError) -> Self {
        Self::failed(error.to_string())
    }
}

impl From<FormatError> for ActError {
    fn from(error: FormatError) -> Self {
        Self::Field(FieldError::Format(error))
    }
}

/// Why a field (a text field, a box, a file input) could not be filled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldError {
    /// The field is disabled.
    #[error("the field is disabled")]
    Disabled,
    /// The field is read-only.
    #[error(
        "the field is read-only: the page sets it through a picker or another control (click \
         the field, or a button beside it, and choose in what opens)"
    )]
    ReadOnly,
    /// The element takes no typing (a button, a link, a choice).
    #[error(
        "the element does not take text (it is not a field, an editor or a widget that listens \
         to keys)"
    )]
    TakesNoText,
    /// The text is not in the field's format.
    #[error(transparent)]
    Format(FormatError),
    /// The field holds something other than what was written to it.
    #[error("the field did not take “{wanted}”: it holds “{}”", shorten(holds, 80))]
    NotTaken {
        /// What was written.
        wanted: String,
        /// What the field holds.
        holds: String,
    },
    /// The field's prototype is not reachable.
    #[error("no prototype")]
    NoPrototype,
    /// The field's prototype has no `value` setter.
    #[error("no value setter")]
    NoValueSetter,
    /// The `value` setter threw (its message).
    #[error("setting the value failed: {0}")]
    SetValueFailed(String),
    /// A visually-hidden toggle without a visible label.
    #[error("the field is hidden (too small, and no visible label)")]
    HiddenToggle,
    /// A person could not see the field.
    #[error("the field cannot be seen on the page: {0}")]
    Unseen(Hidden),
    /// What was typed would not show; it was taken out again.
    #[error("what was typed would not be seen ({0}); it was taken out of the field again")]
    TypedUnseen(Hidden),
    /// Unchecking a radio button.
    #[error("a radio button is unchecked by checking another one")]
    RadioUncheck,
    /// The click did not toggle the box.
    #[error("clicking it did not change its state")]
    StateUnchanged,
    /// The click toggled the box, then the page's script set it back (its state now).
    #[error(
        "the click changed it, but the page set it back: it is {} now",
        if *.checked { "checked" } else { "unchecked" }
    )]
    ToggleUndone {
        /// Whether it is checked now.
        checked: bool,
    },
    /// The text is longer than the field's `maxlength`: it holds what a person's typing
    /// would have left.
    #[error("the field takes at most {max} characters: it holds “{}”", shorten(holds, 80))]
    TooLong {
        /// The field's `maxlength`.
        max: u32,
        /// What the field holds.
        holds: String,
    },
    /// The file input does not hold the file afterwards, and the page shows no sign of it.
    #[error(
        "the file input does not hold “{0}” afterwards and the page does not show its name (the \
         page refused or dropped it)"
    )]
    FileNotKept(String),
    /// `set_file` on another element.
    #[error("the element is not a file input")]
    NotFileInput,
    /// The file's data is not base64.
    #[error("the file data is not valid base64")]
    BadBase64,
    /// The browser cannot submit the form as its button would.
    #[error("this browser has no HTMLFormElement.requestSubmit")]
    NoRequestSubmit,
}

/// Why an option of a list (a `<select>`, a custom dropdown) could not be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    /// The option is there but disabled.
    #[error("the option “{0}” is disabled")]
    Disabled(String),
    /// No option has that label or value.
    #[error("no option “{wanted}”; the options are: {}", shorten(&offered.join(" | "), 300))]
    Missing {
        /// What the model asked for.
        wanted: String,
        /// The options' labels.
        offered: Vec<String>,
    },
    /// The dropdown opened no visible options.
    #[error("the list did not show any options; observe the page again")]
    NoneShown,
    /// The option was clicked but the control does not show it.
    #[error(
        "clicked the option “{label}”, but the control does not show it afterwards (it shows \
         “{}”); observe the page again",
        shorten(shows, 80)
    )]
    NotShown {
        /// The option clicked.
        label: String,
        /// What the control shows.
        shows: String,
    },
    /// The native list chose the option, then the page's script chose another.
    #[error(
        "chose “{wanted}”, but the page set the list back: it has “{}” selected",
        shorten(selected, 80)
    )]
    Undone {
        /// The option asked for.
        wanted: String,
        /// The label of what is selected now.
        selected: String,
    },
    /// The option was clicked but says it is not selected.
    #[error("clicked the option “{0}”, but it is not selected afterwards; observe the page again")]
    NotSelected(String),
}

/// Why a click did not do what clicking the control means (read back from its own state).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClickError {
    /// A tab that is not selected after the click.
    #[error(
        "the tab is not selected after the click (aria-selected stays false); observe the page again"
    )]
    TabNotSelected,
    /// A control whose `state` (checked, expanded, pressed) did not change.
    #[error(
        "clicking it did not change it: it is still {}{state}",
        if *.now { "" } else { "not " }
    )]
    Unchanged {
        /// The state read back (`checked`, `expanded`, `pressed`).
        state: &'static str,
        /// Its value, before and after.
        now: bool,
    },
}

/// Why words could not be selected in an editor or a field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    /// The element is neither an editor nor a text field.
    #[error(
        "the element is not an editor or a text field: select_text selects words inside an \
         editable region"
    )]
    NotEditable,
    /// The words are not (once) in the editor.
    #[error(transparent)]
    InEditor(PassageError),
    /// The words are not (once) in the field's value.
    #[error("{}", in_field(.0))]
    InField(PassageError),
    /// The editor's text nodes changed between reading and selecting.
    #[error("the editor changed while the words were looked up; try again")]
    EditorChanged,
    /// The document has no selection object.
    #[error("no selection")]
    NoSelection,
    /// Setting the selection threw (its message).
    #[error("selecting failed: {0}")]
    Failed(String),
    /// The field threw on `setSelectionRange` (its message).
    #[error("the field does not take a selection: {0}")]
    FieldRefused(String),
    /// The editor selected something else (what, as read back).
    #[error("the editor did not keep the selection: it has “{}” selected", shorten(.0, 120))]
    NotKept(String),
    /// A formatting command changed nothing (what the selection reads).
    #[error(
        "changed nothing: the editor's text and formatting are as before (the selection reads \
         “{}”); select the words first (select_text), then apply the format",
        shorten(.0, 160)
    )]
    Unformatted(String),
}

/// Why the keys of a `press_keys` could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysError {
    /// A combination of modifiers only (`Control+`).
    #[error("no key in “{0}”")]
    NoKey(String),
    /// A modifier that is not Control, Shift, Alt or Meta.
    #[error("unknown modifier “{modifier}” in “{combo}”")]
    UnknownModifier {
        /// The modifier written.
        modifier: String,
        /// The combination it is in.
        combo: String,
    },
    /// A key that is neither named, one character nor F1–F255.
    #[error("unknown key “{0}”")]
    UnknownKey(String),
    /// Nothing but spaces.
    #[error("no keys given")]
    Empty,
}

/// A [`PassageError`] said of a field rather than an editor.
fn in_field(error: &PassageError) -> String {
    match error {
        PassageError::Empty => error.to_string(),
        PassageError::NotFound { wanted, reads } => {
            format!("“{wanted}” is not in the field; it reads: “{reads}”")
        }
        PassageError::Ambiguous { wanted, count } => format!(
            "“{wanted}” occurs {count} times in the field; quote more of the words around the \
             one you mean"
        ),
    }
}

/// Why text could not be typed through the keyboard or into an editor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypingError {
    /// The click did not move the focus into the widget (where the focus is).
    #[error(
        "clicking it did not give it the keyboard focus (the focus is on {0}): it does not take \
         typing"
    )]
    NoFocus(String),
    /// The page moved the focus away part way.
    #[error("the page moved the focus out of the element after {after} of {of} keys (to {to})")]
    FocusLost {
        /// Keys typed before.
        after: usize,
        /// Keys in all.
        of: usize,
        /// Where the focus went.
        to: String,
    },
    /// The editor shows something else than the text (what it shows).
    #[error("the editor did not take the text: it shows “{}”", shorten(.0, 120))]
    EditorRefused(String),
}

/// Why a drag could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DragError {
    /// The drop target is the source or inside it.
    #[error("an element cannot be dropped on itself or inside itself")]
    OntoItself,
    /// Source and target do not fit in the viewport together.
    #[error(
        "the two elements do not fit on the screen together; scroll so that both show, or drag \
         in shorter steps"
    )]
    NotTogether,
    /// Another element is on top of the drop target (its short description).
    #[error("another element covers the drop target: {0}")]
    TargetCovered(String),
    /// The drop target is off screen.
    #[error("the drop target is not on the screen")]
    TargetOffScreen,
    /// The page cancelled `dragstart`.
    #[error("the page did not let the drag start")]
    StartRefused,
    /// The page did not accept the drop on the target.
    #[error("the page does not accept a drop on that element")]
    DropRefused,
    /// Nothing moved and the page took no drop: where the element still is.
    #[error(
        "nothing moved: the element is still {position} of {count} in {container} (the page did \
         not take the drag)"
    )]
    NothingMoved {
        /// Its place among the siblings shown (1-based).
        position: usize,
        /// How many siblings show.
        count: usize,
        /// Its container, described.
        container: String,
    },
}

/// Why a slider could not be set.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SliderError {
    /// The text holds no number.
    #[error("“{}” is not a number; a slider takes a number", shorten(.0, 40))]
    NotANumber(String),
    /// The slider has no `aria-valuenow`.
    #[error("the slider does not tell its value (no aria-valuenow), so it cannot be set")]
    NoValue,
    /// The goal is outside the slider's range.
    #[error("{goal} is outside the slider's range ({min}–{max})")]
    OutOfRange {
        /// The value asked for.
        goal: f64,
        /// The slider's minimum.
        min: f64,
        /// The slider's maximum.
        max: f64,
    },
    /// Neither keys nor the pointer moved it (where it is, in words).
    #[error("neither the arrow keys nor the pointer moved the slider; {0}")]
    Unmoved(String),
    /// A slider drawn without a role whose value the page shows nowhere near it: only where its
    /// thumb is can be told.
    #[error("{}", unshown(*moved, *at))]
    Unshown {
        /// Whether the arrow keys moved the thumb.
        moved: bool,
        /// Where the thumb sits along its bar, 0–100.
        at: f64,
    },
    /// It stopped moving far from the goal inside its stated range (where it is, in words).
    #[error("the slider stopped short of {goal} and did not take it; {note}")]
    Short {
        /// The value asked for.
        goal: f64,
        /// Where it is.
        note: String,
    },
}

fn unshown(moved: bool, at: f64) -> String {
    if moved {
        format!(
            "the page shows no number for this slider (its thumb is at {at}% of its bar); give \
             the value as a share of the bar, e.g. “70%”"
        )
    } else {
        format!(
            "the slider's thumb does not move with the arrow keys and the page shows no number \
             for it (it is at {at}% of its bar)"
        )
    }
}

/// Why the page (or a box) was not scrolled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScrollError {
    /// The document has no scrolling element.
    #[error("the page cannot scroll")]
    CannotScroll,
    /// Already at the top.
    #[error("already at the top")]
    AtTop,
    /// Already at the bottom.
    #[error("already at the bottom")]
    AtBottom,
    /// The text is not on the page.
    #[error(
        "the text “{0}” is not on the page (a long list may draw only the rows in view: scroll \
         the list itself with a ref inside it, then look again)"
    )]
    TextAbsent(String),
    /// The element was scrolled to but is still not in view (a box around it clips it).
    #[error("scrolled, but the element is still not in view (a box around it hides it)")]
    NotInView,
    /// `scroll_to` with neither a ref nor a text.
    #[error("scroll_to needs a ref or a text")]
    NeedsTarget,
}

#[cfg(test)]
#[path = "act_error_tests.rs"]
mod tests;
