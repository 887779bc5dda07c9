//! Actions the agent performs on a page, and what became of them.
//!
//! What is known about each kind of action — its name, where it runs, the offered tool that
//! reaches it, whether it may navigate, its settle window — is one table ([`table`]); the
//! tools offered to the model, their argument schemas and the reading of their calls are
//! [`offered`].

use crate::observation::Ref;
use serde::{Deserialize, Serialize};

pub mod offered;
pub mod readback;
pub mod reorder;
pub mod richtext;
pub mod table;

pub use offered::{CallError, Tool, action_of_call};
pub use table::{ActionKind, ActionSpec, Runs};

/// The longest a `wait` may last, in seconds: waits are always bounded.
pub const MAX_WAIT_SECONDS: f64 = 15.0;

/// One action, as validated from the model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Click an element (scrolled into view; refused when something covers it).
    Click {
        /// Element ref from the latest observation.
        #[serde(rename = "ref")]
        ref_id: Ref,
    },
    /// Double-click an element.
    DoubleClick {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: Ref,
    },
    /// Move the pointer over an element (menus that open on hover).
    Hover {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: Ref,
    },
    /// Type into a field: replaces its text, or appends with `append`.
    Type {
        /// Element ref from the latest observation.
        #[serde(rename = "ref")]
        ref_id: Ref,
        /// Text to enter.
        text: String,
        /// Keep the current text and add to it.
        #[serde(default, skip_serializing_if = "is_false")]
        append: bool,
    },
    /// Empty a field.
    Clear {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: Ref,
    },
    /// Press keys, e.g. `Enter`, `Tab`, `Escape`, `ArrowDown`, `Control+a`; on the element
    /// if given, else on the focused one.
    PressKeys {
        /// Keys, `+` for combinations, spaces between presses.
        keys: String,
        /// Element to focus first.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_id: Option<Ref>,
    },
    /// Select a passage inside an editable region (a rich-text editor, a field) by its words, as
    /// a person drags over it; what comes next (Bold, a link, typing) applies to it. The words
    /// may cross the editor's elements (a bold word, two paragraphs) and must occur once.
    SelectText {
        /// The editor's (or field's) ref.
        #[serde(rename = "ref")]
        ref_id: Ref,
        /// The words to select, as they read on the page.
        text: String,
    },
    /// Choose an option of a select or a custom listbox, by its label or value.
    SelectOption {
        /// The select / combobox ref.
        #[serde(rename = "ref")]
        ref_id: Ref,
        /// Option label or value.
        option: String,
    },
    /// Make a checkbox, radio or switch checked (does nothing when it already is).
    Check {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: Ref,
    },
    /// Make a checkbox or switch unchecked.
    Uncheck {
        /// Element ref.
        #[serde(rename = "ref")]
        ref_id: Ref,
    },
    /// Drag an element onto another one (a card onto a column, a row onto a row of a sortable
    /// list): HTML5 drag and drop for draggable elements, the pointer's press, moves and release
    /// otherwise. Both elements are in the same frame.
    Drag {
        /// The element to drag.
        #[serde(rename = "ref")]
        ref_id: Ref,
        /// The element to drop it on.
        to: Ref,
    },
    /// Scroll the page, or the element with `ref` (or the scrollable box around it), by most of
    /// a screen or to an end.
    Scroll {
        /// `down` (default), `up`, `top` or `bottom`.
        #[serde(default)]
        direction: ScrollDirection,
        /// Scrollable element; the page when absent.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_id: Option<Ref>,
    },
    /// Scroll until an element, or the first occurrence of a text, is in view.
    ScrollTo {
        /// Element ref.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_id: Option<Ref>,
        /// Text to bring into view.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// Put a file into a file input (the file's bytes come from the user's machine through
    /// the host).
    Upload {
        /// The file input's ref.
        #[serde(rename = "ref")]
        ref_id: Ref,
        /// The file's path or name as the user gave it.
        file: String,
    },
    /// Load a URL in the current tab.
    Navigate {
        /// Absolute http(s) URL.
        url: String,
    },
    /// History back.
    Back,
    /// History forward.
    Forward,
    /// Reload the page.
    Reload,
    /// Open a URL in a new tab and work there.
    OpenTab {
        /// Absolute http(s) URL.
        url: String,
    },
    /// Work on another open tab (ids from the `tabs:` line).
    SwitchTab {
        /// Tab id.
        tab: i32,
    },
    /// Close a tab (the current one when absent).
    CloseTab {
        /// Tab id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab: Option<i32>,
    },
    /// Wait until a text appears (or with `gone`, until it disappears: a "Loading…" line), or
    /// without one until the page settles (loaded, the DOM quiet, no request in flight), at most
    /// `seconds`.
    Wait {
        /// Text to wait for; absent = wait for the page to settle.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Upper bound (default 5, at most 15).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seconds: Option<f64>,
        /// Wait until `text` is no longer on the page instead.
        #[serde(default, skip_serializing_if = "is_false")]
        gone: bool,
    },
    /// The readable text of the page, or of one element, as markdown (tables kept).
    Extract {
        /// Element to extract; the whole page when absent.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_id: Option<Ref>,
    },
    /// Refs and text lines of the whole page matching a text or description.
    Find {
        /// Words to look for.
        query: String,
    },
    /// Read every record of a repeated list or table (rows, cards, items) into a table
    /// finding, following the listing's pages within a budget, without the model
    /// ([`crate::collect`]).
    Collect(Box<crate::collect::CollectSpec>),
    /// A picture of the visible part of the tab (for models that see images).
    Screenshot,
    /// The task is finished (or cannot be): the answer for the user.
    Done {
        /// What the user should read.
        answer: String,
        /// Whether the task succeeded.
        success: bool,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Which way `scroll` goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ScrollDirection {
    /// Most of a screen down.
    #[default]
    Down,
    /// Most of a screen up.
    Up,
    /// To the top.
    Top,
    /// To the bottom.
    Bottom,
}

impl Action {
    /// The tool name of this action (its serde tag).
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// One action of every kind, in [`ActionKind::ALL`] order: what the tests of every place
    /// that spells the vocabulary (the tools offered, the JSON fallback, workflows, the MCP
    /// bridge) walk, so a new action missing from one of them fails there.
    pub fn examples() -> Vec<Action> {
        let r = Ref::top(1);
        vec![
            Self::Click { ref_id: r },
            Self::DoubleClick { ref_id: r },
            Self::Hover { ref_id: r },
            Self::Type { ref_id: r, text: "x".into(), append: false },
            Self::Clear { ref_id: r },
            Self::PressKeys { keys: "Enter".into(), ref_id: None },
            Self::SelectText { ref_id: r, text: "second line".into() },
            Self::SelectOption { ref_id: r, option: "x".into() },
            Self::Check { ref_id: r },
            Self::Uncheck { ref_id: r },
            Self::Drag { ref_id: r, to: Ref::top(2) },
            Self::Scroll { direction: ScrollDirection::Down, ref_id: None },
            Self::ScrollTo { ref_id: None, text: Some("x".into()) },
            Self::Upload { ref_id: r, file: "a.txt".into() },
            Self::Navigate { url: "https://example.com/".into() },
            Self::Back,
            Self::Forward,
            Self::Reload,
            Self::OpenTab { url: "https://example.com/".into() },
            Self::SwitchTab { tab: 3 },
            Self::CloseTab { tab: None },
            Self::Wait { text: Some("x".into()), seconds: None, gone: false },
            Self::Extract { ref_id: None },
            Self::Find { query: "x".into() },
            Self::Collect(Box::new(crate::collect::CollectSpec {
                record: Some(r),
                columns: vec![crate::collect::ColumnSpec {
                    name: "name".into(),
                    example: "Teapot".into(),
                }],
                pages: Some(2),
                name: None,
                shape: None,
            })),
            Self::Screenshot,
            Self::Done { answer: "a".into(), success: true },
        ]
    }

    /// The action in plain words for the side panel, naming its target when known.
    pub fn describe(&self, target: Option<&str>) -> String {
        let t = target.map(|t| format!(" “{t}”")).unwrap_or_default();
        match self {
            Self::Click { ref_id } => format!("Click{t} [{ref_id}]"),
            Self::DoubleClick { ref_id } => format!("Double-click{t} [{ref_id}]"),
            Self::Hover { ref_id } => format!("Hover over{t} [{ref_id}]"),
            Self::Type { ref_id, text, append: false } => {
                format!("Type “{text}” into{t} [{ref_id}]")
            }
            Self::Type { ref_id, text, append: true } => {
                format!("Append “{text}” to{t} [{ref_id}]")
            }
            Self::Clear { ref_id } => format!("Clear{t} [{ref_id}]"),
            Self::PressKeys { keys, ref_id: None } => format!("Press {keys}"),
            Self::PressKeys { keys, ref_id: Some(r) } => format!("Press {keys} on{t} [{r}]"),
            Self::SelectText { ref_id, text } => format!("Select “{text}” in{t} [{ref_id}]"),
            Self::SelectOption { ref_id, option } => format!("Choose “{option}” in{t} [{ref_id}]"),
            Self::Check { ref_id } => format!("Check{t} [{ref_id}]"),
            Self::Uncheck { ref_id } => format!("Uncheck{t} [{ref_id}]"),
            Self::Drag { ref_id, to } => format!("Drag{t} [{ref_id}] onto [{to}]"),
            Self::Scroll { direction, ref_id } => {
                let way = match direction {
                    ScrollDirection::Down => "down",
                    ScrollDirection::Up => "up",
                    ScrollDirection::Top => "to the top",
                    ScrollDirection::Bottom => "to the bottom",
                };
                let inside = ref_id.map(|r| format!(" in{t} [{r}]")).unwrap_or_default();
                format!("Scroll {way}{inside}")
            }
            Self::ScrollTo { ref_id: Some(r), .. } => format!("Scroll to{t} [{r}]"),
            Self::ScrollTo { text, .. } => format!("Scroll to “{}”", text.as_deref().unwrap_or("")),
            Self::Upload { ref_id, file } => format!("Upload {file} to{t} [{ref_id}]"),
            Self::Navigate { url } => format!("Go to {url}"),
            Self::Back => "Go back".to_owned(),
            Self::Forward => "Go forward".to_owned(),
            Self::Reload => "Reload the page".to_owned(),
            Self::OpenTab { url } => format!("Open {url} in a new tab"),
            Self::SwitchTab { tab } => format!("Switch to tab {tab}"),
            Self::CloseTab { tab: Some(tab) } => format!("Close tab {tab}"),
            Self::CloseTab { tab: None } => "Close this tab".to_owned(),
            Self::Wait { text: Some(text), gone: true, .. } => {
                format!("Wait until “{text}” disappears")
            }
            Self::Wait { text: Some(text), .. } => format!("Wait for “{text}”"),
            Self::Wait { text: None, .. } => "Wait for the page to settle".to_owned(),
            Self::Extract { ref_id: None } => "Extract the page's text".to_owned(),
            Self::Extract { ref_id: Some(r) } => format!("Extract the text of{t} [{r}]"),
            Self::Find { query } => format!("Find “{query}”"),
            Self::Collect(spec) => {
                let columns = spec.column_names().join(", ");
                match &spec.record {
                    Some(r) if spec.shape.is_none() => {
                        format!("Collect the records like{t} [{r}] ({columns})")
                    }
                    _ => format!("Collect the records ({columns})"),
                }
            }
            Self::Screenshot => "Take a screenshot".to_owned(),
            Self::Done { success: true, .. } => "Finish".to_owned(),
            Self::Done { success: false, .. } => "Give up".to_owned(),
        }
    }

    /// The element this action targets.
    pub fn target_ref(&self) -> Option<Ref> {
        match self {
            Self::Click { ref_id }
            | Self::DoubleClick { ref_id }
            | Self::Hover { ref_id }
            | Self::Type { ref_id, .. }
            | Self::Clear { ref_id }
            | Self::SelectText { ref_id, .. }
            | Self::SelectOption { ref_id, .. }
            | Self::Check { ref_id }
            | Self::Uncheck { ref_id }
            | Self::Drag { ref_id, .. }
            | Self::Upload { ref_id, .. } => Some(*ref_id),
            Self::PressKeys { ref_id, .. }
            | Self::Scroll { ref_id, .. }
            | Self::ScrollTo { ref_id, .. }
            | Self::Extract { ref_id } => *ref_id,
            Self::Collect(spec) => spec.record,
            _ => None,
        }
    }

    /// The second element an action names: where a drag drops (same frame as
    /// [`Action::target_ref`]).
    pub fn drop_ref(&self) -> Option<Ref> {
        match self {
            Self::Drag { to, .. } => Some(*to),
            _ => None,
        }
    }

    /// Whether the content script performs it (else the service worker does).
    pub fn runs_in_page(&self) -> bool {
        self.spec().runs == Runs::Page
    }

    /// How long the page must stay quiet after this action before it is read again;
    /// `None`: it cannot start anything worth waiting for.
    ///
    /// Settling follows the page's own events, not a fixed timer: what the action started
    /// is waited for whatever it takes (a request, and the debounce timer a search box arms
    /// on a keystroke, then the request and the DOM change that timer's callback causes; see
    /// [`Settled::waiting`]), and the windows here are only the quiet beat after the last
    /// thing that happened. When nothing started at all, the short grace is how long the page
    /// gets to begin (a framework's render a frame later); a click or a choice gets a little
    /// more before "no visible effect" is concluded. Every action pays this, so each kind
    /// waits no longer than it needs.
    pub fn settle_window(&self) -> Option<SettleWindow> {
        self.spec().settle
    }

    /// The settle window of this action in a workflow replay: only a short quiet (and nothing
    /// in flight) before going on. The live windows give the model a page to look at after
    /// the effect (a search box's suggestions after its debounce); a replay asks no model, and
    /// its next step waits for its own element when it is not there yet.
    pub fn replay_settle_window(&self) -> Option<SettleWindow> {
        self.settle_window().map(|live| SettleWindow {
            after_change_ms: live.after_change_ms.min(40.0),
            without_change_ms: live.without_change_ms.min(40.0),
        })
    }

    /// Whether a page action commonly makes the page navigate or open a tab (a link, a
    /// submit button, Enter, a select that jumps): after these the tab adapter gives the page
    /// a moment before looking for the effect. Typing, hovering, scrolling and reading do
    /// not, and waiting after them only slowed every step; a rare navigation after them is
    /// still seen by the next observation.
    pub fn may_navigate(&self) -> bool {
        self.spec().may_navigate
    }
}

/// What happened when an action was performed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ActionOutcome {
    /// Whether the action was performed.
    pub ok: bool,
    /// Why it failed, in words the model and the user understand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The page navigated (the rest of the batch is dropped).
    #[serde(default)]
    pub navigated: bool,
    /// A field's value changed.
    #[serde(default)]
    pub value_changed: bool,
    /// A new tab was opened (its id); the agent now works on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opened_tab: Option<i32>,
    /// What the action produced for the model: extracted markdown, found refs, notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A screenshot as a `data:image/jpeg;base64,…` URL (not stored with the session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Who refused the action, when it did not run because it was not allowed (rather than
    /// because the page failed): a task that ends after one is headed "Refused".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused_by: Option<Refuser>,
    /// The worker restarted while the action ran, so whether it took effect is unknown: a
    /// resumed task must not repeat it blindly.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The action ran but nothing a person could notice changed once the page settled (no
    /// DOM change, value, focus, navigation or new tab): reported so the model does not take
    /// a dead click for progress. Not a failure: the page may still react later.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_effect: bool,
    /// Where `text` was read, part by part, when `find` read it across frames: what a frame of
    /// another site shows is that site's, never the page's around it. The taint ledger records
    /// each part with its own document's origin. Never stored or sent (it repeats `text`,
    /// which storage and exports redact): it lives only until the ledger has read it.
    #[serde(skip)]
    pub read: Vec<ReadText>,
    /// What a `collect` produced: one page's read (the content script's answer, which the
    /// agent gathers) or, in the step's record, the whole table, kept with the step (so it
    /// outlives a worker restart) until the task's record takes it. Boxed: rare and large.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collected: Option<Box<crate::collect::Collected>>,
    /// The dialogs the page opened during the action, and how each was answered (boxed:
    /// rare, and outcomes travel in `Result`s; read them with [`ActionOutcome::dialogs`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialogs_met: Option<Box<crate::dialog::Dialogs>>,
}

/// Page text an action read, with the document it was read in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadText {
    /// The URL of the document (a frame's own URL for text inside a frame).
    pub url: String,
    /// What was read there.
    pub text: String,
}

/// Who said no to an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Refuser {
    /// Waymark's safety policy (a destination, a hidden field, a secret leaving).
    Policy,
    /// The user, at a confirmation card.
    User,
}

impl ActionOutcome {
    /// The dialogs the page opened during the action.
    pub fn dialogs(&self) -> &[crate::dialog::PageDialog] {
        self.dialogs_met.as_deref().map_or(&[], |d| d.0.as_slice())
    }

    /// Records the dialogs the page opened during the action.
    pub fn set_dialogs(&mut self, dialogs: Vec<crate::dialog::PageDialog>) {
        self.dialogs_met = (!dialogs.is_empty()).then(|| Box::new(crate::dialog::Dialogs(dialogs)));
    }

    /// The table a `collect` step found.
    pub fn table(&self) -> Option<&waymark_protocol::Table> {
        match self.collected.as_deref() {
            Some(crate::collect::Collected::Table(t)) => Some(t),
            _ => None,
        }
    }

    /// The same, to change (redaction).
    pub fn table_mut(&mut self) -> Option<&mut waymark_protocol::Table> {
        match self.collected.as_deref_mut() {
            Some(crate::collect::Collected::Table(t)) => Some(t),
            _ => None,
        }
    }

    /// Takes the page a `collect` read out of the content script's answer.
    pub fn take_page(&mut self) -> Option<crate::collect::CollectedPage> {
        match self.collected.take().map(|c| *c) {
            Some(crate::collect::Collected::Page(page)) => Some(page),
            other => {
                self.collected = other.map(Box::new);
                None
            }
        }
    }

    /// A successful outcome.
    pub fn done() -> Self {
        Self { ok: true, ..Self::default() }
    }

    /// A successful outcome carrying text for the model.
    pub fn with_text(text: impl Into<String>) -> Self {
        Self { text: Some(text.into()), ..Self::done() }
    }

    /// A successful outcome carrying page text read in `parts` (each with its document), for
    /// the model as one text, one part a line.
    pub fn read_in(parts: Vec<ReadText>) -> Self {
        let text = parts.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n");
        Self { read: parts, ..Self::with_text(text) }
    }

    /// A failed outcome with its reason.
    pub fn failed(reason: impl Into<String>) -> Self {
        Self { ok: false, error: Some(reason.into()), ..Self::default() }
    }

    /// An action whose outcome was lost when the worker restarted; `reason` says so in words.
    pub fn interrupted(reason: impl Into<String>) -> Self {
        Self { interrupted: true, ..Self::failed(reason) }
    }

    /// An action that did not run because `by` did not allow it.
    pub fn refused(by: Refuser, reason: impl Into<String>) -> Self {
        Self { refused_by: Some(by), ..Self::failed(reason) }
    }

    /// After a page action and settling: marks [`ActionOutcome::no_effect`] when the action
    /// is one meant to change the page (a click, keys, a choice) and nothing changed.
    /// A change the action's read-back saw and the page undid while settling fails it.
    pub fn judge_effect(&mut self, action: &Action, settled: &Settled) {
        if self.ok
            && let Some(undone) = settled.undone
        {
            self.ok = false;
            self.error = Some(crate::act_error::ActError::from(undone).to_string());
            self.text = None;
            self.no_effect = false;
            return;
        }
        let meant_to_change = action.spec().expects_change;
        // A drag says how it went (dropped, released) and still may have changed nothing.
        let said_what_changed = self.text.is_some() && action.kind() != ActionKind::Drag;
        self.no_effect = meant_to_change
            && self.ok
            && !said_what_changed
            && !self.navigated
            && self.opened_tab.is_none()
            && !self.value_changed
            && !settled.changed();
    }

    /// One line for the step history: `ok`, `failed: why`, plus what changed and any text.
    pub fn summary(&self) -> String {
        let mut out = match &self.error {
            None => "ok".to_owned(),
            Some(e) => format!("failed: {e}"),
        };
        if self.navigated {
            out.push_str(" (page changed)");
        }
        if let Some(tab) = self.opened_tab {
            out.push_str(&format!(" (opened tab {tab})"));
        }
        if self.no_effect {
            out.push_str(" (no visible effect: the page did not change; observe before retrying)");
        }
        for dialog in self.dialogs() {
            out.push_str(&format!(" ({})", dialog.describe()));
        }
        if let Some(text) = &self.text {
            out.push_str(":\n");
            out.push_str(text);
        }
        out
    }
}

/// A request from the service worker to the content script of one frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ContentRequest {
    /// Read the frame; renews its refs.
    Observe,
    /// Panic inside the content script, after an await as inside an action (test builds only:
    /// the crash-recovery tests).
    #[cfg(feature = "test-hooks")]
    Panic,
    /// Perform one page action on the latest refs (the ref's frame is already chosen).
    Act {
        /// The action.
        action: Action,
        /// `role|name` of the target as the model saw it: the live element must still match,
        /// even if the frame was observed again since (refs renewed under the model's feet).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect: Option<String>,
        /// The same for the element a drag drops on ([`Action::drop_ref`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_to: Option<String>,
        /// How Waymark answers the dialogs the action opens; the user answers them when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dialog: Option<crate::dialog::DialogAnswer>,
    },
    /// Set a file on a file input through `DataTransfer` (input and change events follow).
    SetFile {
        /// The file input's ref (index in this frame).
        #[serde(rename = "ref")]
        ref_id: Ref,
        /// File name.
        name: String,
        /// MIME type.
        mime: String,
        /// The bytes, base64.
        base64: String,
    },
    /// What the frame's page wrote to its console ([`crate::console::ConsoleEntry`]s, oldest
    /// first).
    Console,
    /// Whether loading finished and whether `text` is on the page (for bounded waits).
    Probe {
        /// Text to look for.
        #[serde(default)]
        text: Option<String>,
    },
    /// Answers ([`Probe`]) once `text` is on the page (`gone`: once the loaded page no longer
    /// shows it, [`Probe::ready`]), or after `within_ms`, or when the document is left:
    /// woken by the DOM's mutations in the page, one round trip instead of one per poll.
    WaitFor {
        /// Text to look for.
        text: String,
        /// Wait for the text to go instead.
        #[serde(default)]
        gone: bool,
        /// Longest wait in the page.
        within_ms: f64,
    },
    /// Answers ([`Settled`]) once the page has been quiet for `quiet_ms` with no request in
    /// flight ([`Settled::is_quiet`], quiet counted by [`Settled::quiet_for_wait`]), or after
    /// `within_ms`, or when the document is left: `wait` without a text.
    WaitQuiet {
        /// How long the page must stay quiet.
        quiet_ms: f64,
        /// Longest wait in the page.
        within_ms: f64,
    },
    /// Benchmark: observe and serialise `runs` times, reporting each run's time.
    Measure {
        /// Number of runs.
        runs: u32,
    },
    /// What changed since the latest action in the frame and how quiet the page is now
    /// ([`Settled`]), for settling after an action and for `wait`. With a `window`, the
    /// content script answers once the page has settled for it, or after at most
    /// [`SETTLE_POLL_MS`] (one round trip instead of one per poll).
    Settle {
        /// The window to wait for; absent = report at once.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<SettleWindow>,
    },
    /// Goes back one entry of the tab's history from inside the top frame (`history.back()`):
    /// Chrome skips, on the browser's own Back (`chrome.tabs.goBack`), the entries that
    /// navigated away without a user gesture — every page the agent's synthetic clicks left —
    /// but never on a move the page makes itself.
    GoBack,
    /// Starts (`on`) or stops reporting the user's own actions in this frame
    /// ([`crate::demonstration`]): teach by showing.
    Record {
        /// Report from now on; `false` stops.
        on: bool,
    },
    /// The live facts of a ref's element (or the focused element) for the safety policy
    /// ([`crate::target::ActionTarget`]).
    Describe {
        /// The element's ref (index in this frame); the focused element when absent.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        ref_id: Option<Ref>,
    },
    /// What each form of the frame would have submitted, and what its fields held, before
    /// Waymark's first action in the document (as it is now, until then)
    /// ([`crate::target::PageBaseline`]), for the write budget's baseline.
    Forms,
}

/// The content script's answer to [`ContentRequest::Probe`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    /// `document.readyState === "complete"`.
    pub loaded: bool,
    /// The text was found in the page's visible text.
    pub found: bool,
    /// The frame's URL.
    pub url: String,
}

impl Probe {
    /// What a `wait` for a text waits for: the text is shown, or (`gone`) the page that is
    /// shown has loaded and no longer shows it.
    pub fn ready(&self, gone: bool) -> bool {
        if gone { self.loaded && !self.found } else { self.found }
    }
}

/// The content script's answer to [`ContentRequest::GoBack`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WentBack {
    /// The frame's URL when it asked to go back (the move itself happens after the reply).
    pub from: String,
}

/// Longest a [`ContentRequest::Settle`] with a window waits in the page before it answers
/// (the service worker asks again until its own cap).
pub const SETTLE_POLL_MS: f64 = 400.0;

/// The content script's answer to [`ContentRequest::Settle`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Settled {
    /// The document saw an action (else it is a new document: the action navigated).
    pub acted: bool,
    /// DOM mutations since the action started.
    pub mutations: u32,
    /// Milliseconds since the last thing that happened: a mutation, the end of a request or
    /// the firing of a timer the action started (or since the action, when none).
    pub quiet_ms: f64,
    /// The focus or the URL moved since the action started.
    pub moved: bool,
    /// All of the page's fetch/XHR requests in flight, as the page's own world reports them
    /// (page-controlled: it only makes settling wait, up to a cap); what `wait` waits for.
    pub pending: u32,
    /// What the action started and the page has not finished: requests sent since the action
    /// and still in flight, and short timers (a debounce, ≤ 1 s) armed by the action's own
    /// events, or by the callbacks of such timers, that have not fired yet. Page-controlled
    /// like `pending`: it only makes settling wait, up to the cap.
    #[serde(default)]
    pub waiting: u32,
    /// The action started a navigation to another document (which the page did not cancel):
    /// the page is being left, so settling ends at once and the tab's load is waited for.
    #[serde(default)]
    pub navigating: bool,
    /// Milliseconds left of the finite animations and transitions the action started (a list
    /// fading in), at most a second: what they show is not yet what a person sees.
    #[serde(default)]
    pub animating_ms: f64,
    /// The state the action's read-back found, read again now, is gone: the page's script
    /// undid it while settling ([`ActionOutcome::judge_effect`] fails the action).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone: Option<crate::act_error::Undone>,
}

/// How long the page must stay quiet after an action ([`Action::settle_window`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SettleWindow {
    /// Once something changed: quiet this long after the last change.
    pub after_change_ms: f64,
    /// While nothing changed: this long after the action (or after what it started ended).
    pub without_change_ms: f64,
}

impl Settled {
    /// Quiet for `quiet_ms` with nothing in flight.
    pub fn is_quiet(&self, quiet_ms: f64) -> bool {
        self.quiet_ms >= quiet_ms && self.pending == 0
    }

    /// Settled for `window`: nothing the action started is still running, and the page has
    /// been quiet long enough for what has (or has not yet) changed. Requests that were in
    /// flight before the action (a long poll, a tracker) do not hold it.
    pub fn is_settled(&self, window: SettleWindow) -> bool {
        let changed = self.mutations > 0 || self.moved;
        let quiet = if changed { window.after_change_ms } else { window.without_change_ms };
        self.waiting == 0 && self.animating_ms <= 0.0 && self.quiet_ms >= quiet
    }

    /// The quiet that counts for `wait` without a text, `waited_ms` into it: a document that
    /// saw no action (its mutations are not counted) counts its quiet from the wait's start.
    pub fn quiet_for_wait(&self, waited_ms: f64) -> f64 {
        if self.acted { self.quiet_ms } else { waited_ms }
    }

    /// Anything a person could notice changed: the DOM, the focus or the URL.
    pub fn changed(&self) -> bool {
        !self.acted || self.mutations > 0 || self.moved
    }
}

/// The content script's answer to [`ContentRequest::Measure`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Milliseconds per run, request to serialised observation.
    pub runs_ms: Vec<f64>,
    /// DOM elements visited.
    pub visited: u32,
    /// Interactive elements found.
    pub elements: u32,
    /// The serialised observation (whole page, no budget).
    pub text: String,
}

#[cfg(test)]
mod tests;
