//! What the model reads about a page, and how it is written for the model.
//!
//! The content script of every frame produces an [`Observation`]; the service worker merges the
//! frames (`waymark_core::frames`), adds the open tabs and writes it with [`Observation::to_prompt`].
//! Format (one line per item, compact because every character costs the user money), one example
//! per kind of line. An element's name is quoted only when something follows it on its line
//! (a value, states, options) or when it could be misread (quotes, `=`, a trailing state word):
//!
//! ```text
//! <page_content id=7f3a…>
//! page: Sign up — http://127.0.0.1:8080/form.html        title — URL
//! view: 1280x720, 0px above, 2400px below                 viewport and scroll position
//! tabs: 12* "Sign up" http://127.0.0.1:8080/form.html | 13 "Docs" https://docs.example/
//! (4 elements, 9 text lines above: scroll up or use find)  summary of what the budget left out
//! # Create your account                                   heading (one # per level)
//! Fields marked * are required.                           text, in reading order, deduplicated
//! [1] textbox "Name" value="Ada" required                 text field with its current value
//! [2] textbox "Password" sensitive filled                 secret field: never its value
//! [8] textbox "Note" value="Call Ann " multiline          several lines; a value keeps its edges
//! [3] checkbox "Subscribe" checked                        checkbox / radio / switch state
//! [4] combobox "Country" value="France" options=[France|Spain|+3]   native select
//! [5] button "Menu" collapsed                             aria-expanded=false
//! [6] link Terms                                          link (nothing follows: no quotes)
//! [7] clickable Card 3                                    made clickable by script only
//! [frame f5 http://127.0.0.1:9090/pay.html]               an iframe's content begins
//! [f5:1] textbox Card holder                              element in frame 5 (ref `f5:1`), empty
//! [/frame f5]                                             and ends
//! (23 elements, 40 text lines below: scroll down or use find)
//! </page_content id=7f3a…>
//! ```
//!
//! Page text — titles and addresses of the page and the tabs too — sits between delimiters
//! carrying a per-call random id that page text cannot guess, so nothing on the page can close
//! the block and pose as the system or the user; [`clean`]
//! removes line breaks and invisible characters from every page string.

pub mod names;
pub mod order;
mod refs;
mod render;
pub mod rules;
pub mod screen;

pub use refs::Ref;
pub use render::DEFAULT_TOKEN_BUDGET;

use serde::{Deserialize, Serialize};

/// A snapshot of one page (or, before merging, one frame), produced by the content script.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Page URL.
    pub url: String,
    /// Document title.
    pub title: String,
    /// Interactive elements, text and frames, in reading order.
    pub items: Vec<Item>,
    /// Which build read the page: `wasm`, or `wasm2js` where the page's CSP blocks wasm.
    #[serde(default)]
    pub engine: String,
    /// Viewport size and scroll position, so the model knows how much is above and below.
    #[serde(default)]
    pub viewport: Viewport,
    /// The window's open tabs (filled in by the service worker).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tabs: Vec<TabSummary>,
    /// Time the content script took to read the frame, in ms (for benchmarks and the timeline).
    #[serde(default)]
    pub elapsed_ms: f64,
    /// DOM elements the walker visited (for benchmarks: time per element).
    #[serde(default)]
    pub visited: u32,
    /// Text lines in view whose glyphs the screen must confirm (the content script asks; the
    /// worker settles them with [`Observation::confirm_on_screen`] before anyone reads them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<screen::TextCheck>,
    /// What the screen said about the text (see [`screen`]).
    #[serde(default, skip_serializing_if = "screen::ScreenCheck::is_not_needed")]
    pub screen: screen::ScreenCheck,
}

/// Viewport and document size in CSS pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Viewport {
    /// Viewport width.
    pub width: f64,
    /// Viewport height.
    pub height: f64,
    /// Horizontal scroll offset.
    pub scroll_x: f64,
    /// Vertical scroll offset (pixels above the viewport).
    pub scroll_y: f64,
    /// Full document height.
    pub page_height: f64,
}

impl Viewport {
    /// Pixels of document below the viewport.
    pub fn below(&self) -> f64 {
        (self.page_height - self.scroll_y - self.height).max(0.0)
    }
}

/// One open tab, as the model sees it (it can switch to or close it by id).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TabSummary {
    /// Chrome's tab id.
    pub id: i32,
    /// Title.
    pub title: String,
    /// URL.
    pub url: String,
    /// Whether the agent works on this tab.
    #[serde(default)]
    pub current: bool,
}

/// Where an item lies relative to the viewport when the page was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Zone {
    /// Visible in the viewport (or fixed on screen).
    #[default]
    In,
    /// Scrolled past.
    Above,
    /// Further down.
    Below,
}

impl Zone {
    /// Whether the item is in the viewport (the default, left out of the wire format).
    pub fn is_in(&self) -> bool {
        *self == Zone::In
    }
}

/// One line (or, for a frame, a block) of the observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    /// Readable text (heading level 1–6 when it is a heading).
    Text {
        /// The text, whitespace collapsed.
        text: String,
        /// Heading level, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        heading: Option<u8>,
        /// Where it lies.
        #[serde(default, skip_serializing_if = "Zone::is_in")]
        zone: Zone,
    },
    /// Something the agent can act on.
    Element(Element),
    /// An iframe: a placeholder from the walker, filled with the frame's items when merged.
    Frame(Frame),
}

/// An iframe and, once merged, its content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The iframe's `src` as the parent saw it (absolute), used to match it with its frame.
    pub src: String,
    /// Chrome's frame id once merged; 0 while it is only a placeholder.
    #[serde(default)]
    pub frame: u32,
    /// The frame's own URL once merged.
    #[serde(default)]
    pub url: String,
    /// The frame's items once merged.
    #[serde(default)]
    pub items: Vec<Item>,
    /// Where the iframe lies in its parent.
    #[serde(default, skip_serializing_if = "Zone::is_in")]
    pub zone: Zone,
}

/// An interactive element with the ref the model uses to name it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Element {
    /// Handle valid for this step only.
    #[serde(rename = "ref")]
    pub ref_id: Ref,
    /// ARIA role (button, link, textbox, …; `clickable` when only script makes it so).
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Current value of a non-sensitive field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// States worth telling: checked, disabled, required…
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    /// A select's option labels (capped; the last entry may be `+N`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// Where it lies.
    #[serde(default, skip_serializing_if = "Zone::is_in")]
    pub zone: Zone,
}

impl Element {
    /// What must still be true of the live element for an action on this ref: `role|name`.
    pub fn expectation(&self) -> String {
        format!("{}|{}", self.role, self.name)
    }
}

impl Observation {
    /// The element with this ref, if the observation (any frame) has one.
    pub fn element(&self, ref_id: Ref) -> Option<&Element> {
        find_element(&self.items, ref_id)
    }

    /// Every element, frames included, in reading order.
    pub fn elements(&self) -> Vec<&Element> {
        let mut out = Vec::new();
        collect_elements(&self.items, &mut out);
        out
    }

    /// Lines of this observation matching `query` (all its words, case-insensitively), best
    /// first: how the model finds what the token budget left out without scrolling.
    pub fn find(&self, query: &str, limit: usize) -> Vec<String> {
        self.find_read(query, limit).into_iter().map(|found| found.text).collect()
    }

    /// [`Self::find`] with the URL of the document each line was read in (a frame's own URL
    /// inside a frame): what a frame of another site shows is that site's text.
    pub fn find_read(&self, query: &str, limit: usize) -> Vec<crate::action::ReadText> {
        let words: Vec<String> =
            query.split_whitespace().map(|w| w.to_lowercase()).filter(|w| w.len() > 1).collect();
        if words.is_empty() {
            return Vec::new();
        }
        let mut lines = Vec::new();
        lines_by_document(&self.items, &self.url, &mut lines);
        let mut scored: Vec<(usize, usize, &str, render::Line)> = lines
            .into_iter()
            .enumerate()
            .filter_map(|(i, (url, line))| {
                let lower = line.text.to_lowercase();
                let hits = words.iter().filter(|w| lower.contains(w.as_str())).count();
                (hits * 2 >= words.len() && hits > 0 && !line.marker)
                    .then(|| (usize::MAX - hits - usize::from(line.element), i, url, line))
            })
            .collect();
        scored.sort_by_key(|(rank, i, _, _)| (*rank, *i));
        scored
            .into_iter()
            .take(limit)
            .map(|(_, _, url, line)| crate::action::ReadText {
                url: url.to_owned(),
                text: line.text,
            })
            .collect()
    }
}

/// The rendered lines of `items` with the URL of the document each was read in (`url` for
/// the items' own; a merged frame's own URL for its content).
fn lines_by_document<'a>(items: &'a [Item], url: &'a str, out: &mut Vec<(&'a str, render::Line)>) {
    for item in items {
        match item {
            Item::Frame(frame) if frame.frame != 0 => {
                lines_by_document(&frame.items, &frame.url, out);
            }
            other => {
                let mut lines = Vec::new();
                render::flatten(std::slice::from_ref(other), &mut lines);
                out.extend(lines.into_iter().map(|line| (url, line)));
            }
        }
    }
}

fn find_element(items: &[Item], ref_id: Ref) -> Option<&Element> {
    items.iter().find_map(|item| match item {
        Item::Element(el) if el.ref_id == ref_id => Some(el),
        Item::Frame(frame) => find_element(&frame.items, ref_id),
        _ => None,
    })
}

fn collect_elements<'a>(items: &'a [Item], out: &mut Vec<&'a Element>) {
    for item in items {
        match item {
            Item::Element(el) => out.push(el),
            Item::Frame(frame) => collect_elements(&frame.items, out),
            Item::Text { .. } => {}
        }
    }
}

/// Drops control and invisible format characters and collapses whitespace, so page text
/// cannot smuggle line breaks (fake turns) or hidden instructions into the prompt.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            pending = !out.is_empty();
            continue;
        }
        if ch.is_control() || is_invisible(ch) {
            continue;
        }
        if pending {
            out.push(' ');
            pending = false;
        }
        out.push(ch);
    }
    out
}

/// [`clean`] for a field's value, whose edges are part of it: a space (any whitespace) at
/// either end is kept as one space, so text copied from a box is copied exactly ("Lorem
/// ipsum " ends with its space); inside, whitespace collapses as in [`clean`].
pub fn clean_value(value: &str) -> String {
    let inner = clean(value);
    let lead = value.starts_with(char::is_whitespace);
    let trail = value.ends_with(char::is_whitespace);
    if inner.is_empty() {
        return if lead { " ".to_owned() } else { inner };
    }
    let mut out = String::with_capacity(inner.len() + 2);
    if lead {
        out.push(' ');
    }
    out.push_str(&inner);
    if trail {
        out.push(' ');
    }
    out
}

/// Shortens `text` to at most `max` characters, marking the cut with `…`.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or(text)),
    }
}

fn is_invisible(ch: char) -> bool {
    matches!(ch,
        '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{E0000}'..='\u{E007F}'
        // Arabic letter mark, Mongolian vowel separator, blank Hangul fillers, variation
        // selectors: all invisible, all usable to smuggle text past a reader.
        | '\u{061C}' | '\u{180E}' | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}'
        | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod tests;
