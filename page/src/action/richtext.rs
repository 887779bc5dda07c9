//! Rich text, target-independent: finding a quoted passage in an editor's text nodes (across
//! its elements), the formatting of a passage as markdown-ish marks (`**bold**`, `_italic_`,
//! links, headings, list items), and whether a formatting command changed anything — so a
//! Ctrl+B or a click on Bold that left the text as it was says so instead of "ok".
//!
//! The content script reads the DOM into [`Piece`]s and [`Marks`]; everything decided about
//! them is here, tested natively.

use crate::act_error::SelectionError;
use crate::observation::rules::KeyPress;

/// The text of one text node of an editor, in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Piece {
    /// The node's text as the DOM holds it.
    pub text: String,
    /// A block (a paragraph, a list item, a line break) starts before it: the passage reads a
    /// space there even though no character is in the DOM.
    pub breaks_before: bool,
}

/// A place in the pieces: the piece and the UTF-16 offset inside its node (what a DOM `Range`
/// takes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    /// Index into the pieces.
    pub piece: usize,
    /// UTF-16 code units from the node's start.
    pub offset: u32,
}

/// Where a passage lies: from `start` to `end` (exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The passage's first character.
    pub start: Point,
    /// Just after its last character.
    pub end: Point,
}

/// Why a passage could not be selected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassageError {
    /// Nothing to look for.
    #[error("give the words to select (the text is empty)")]
    Empty,
    /// The words are not in the editor.
    #[error("“{wanted}” is not in the editor; it reads: “{reads}”")]
    NotFound {
        /// What was asked for.
        wanted: String,
        /// The beginning of what the editor holds.
        reads: String,
    },
    /// The words occur more than once.
    #[error(
        "“{wanted}” occurs {count} times in the editor; quote more of the words around the one \
         you mean"
    )]
    Ambiguous {
        /// What was asked for.
        wanted: String,
        /// How often it occurs.
        count: usize,
    },
}

/// One character of the text as read: whitespace runs collapsed to one space.
#[derive(Debug, Clone, Copy)]
struct Read {
    ch: char,
    at: Point,
    width: u32,
}

/// The text of the pieces as a person reads it, each character with where it lies.
fn read(pieces: &[Piece]) -> Vec<Read> {
    let mut out: Vec<Read> = Vec::new();
    let space_last = |out: &Vec<Read>| out.last().is_none_or(|r| r.ch == ' ');
    for (i, piece) in pieces.iter().enumerate() {
        if piece.breaks_before && !space_last(&out) {
            out.push(Read { ch: ' ', at: Point { piece: i, offset: 0 }, width: 0 });
        }
        let mut offset = 0u32;
        for ch in piece.text.chars() {
            let width = ch.len_utf16() as u32;
            let at = Point { piece: i, offset };
            if ch.is_whitespace() {
                if !space_last(&out) {
                    out.push(Read { ch: ' ', at, width });
                }
            } else {
                out.push(Read { ch, at, width });
            }
            offset += width;
        }
    }
    while out.last().is_some_and(|r| r.ch == ' ') {
        out.pop();
    }
    out
}

/// `text` with whitespace runs collapsed and trimmed, as characters.
fn collapsed(text: &str) -> Vec<char> {
    let mut out: Vec<char> = Vec::new();
    for ch in text.trim().chars() {
        if ch.is_whitespace() {
            if out.last() != Some(&' ') {
                out.push(' ');
            }
        } else {
            out.push(ch);
        }
    }
    out
}

fn same_ignoring_case(a: char, b: char) -> bool {
    a == b || a.to_lowercase().eq(b.to_lowercase())
}

/// Where `wanted` occurs in the pieces: exactly once as written, else exactly once ignoring
/// case; never a guess between several.
pub fn locate(pieces: &[Piece], wanted: &str) -> Result<Span, PassageError> {
    let needle = collapsed(wanted);
    if needle.is_empty() {
        return Err(PassageError::Empty);
    }
    let text = read(pieces);
    let starts = |eq: fn(char, char) -> bool| -> Vec<usize> {
        if text.len() < needle.len() {
            return Vec::new();
        }
        (0..=text.len() - needle.len())
            .filter(|&s| needle.iter().zip(&text[s..]).all(|(n, r)| eq(*n, r.ch)))
            .collect()
    };
    let mut found = starts(|a, b| a == b);
    if found.is_empty() {
        found = starts(same_ignoring_case);
    }
    let wanted: String = needle.iter().collect();
    match found.as_slice() {
        [] => {
            let reads: String = text.iter().map(|r| r.ch).collect();
            Err(PassageError::NotFound { wanted, reads: crate::observation::shorten(&reads, 200) })
        }
        [s] => {
            let first = text[*s];
            let last = text[*s + needle.len() - 1];
            Ok(Span {
                start: first.at,
                end: Point { piece: last.at.piece, offset: last.at.offset + last.width },
            })
        }
        many => Err(PassageError::Ambiguous { wanted, count: many.len() }),
    }
}

/// The inline formatting of a run of text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// `<strong>`, `<b>`, or a bold `font-weight` the editor set inline.
    pub bold: bool,
    /// `<em>`, `<i>`, or `font-style: italic` set inline.
    pub italic: bool,
    /// `<u>` or an underline set inline.
    pub underline: bool,
    /// `<s>`, `<del>`, `<strike>` or a line-through set inline.
    pub strike: bool,
    /// `<code>`.
    pub code: bool,
    /// Inside a link to this address.
    pub link: Option<String>,
}

impl Marks {
    /// Adds what the element `tag` with inline `style` (its `style` attribute) says.
    pub fn add_element(&mut self, tag: &str, style: &str) {
        let style = style.to_ascii_lowercase().replace(' ', "");
        match tag {
            "strong" | "b" => self.bold = true,
            "em" | "i" => self.italic = true,
            "u" | "ins" => self.underline = true,
            "s" | "del" | "strike" => self.strike = true,
            "code" => self.code = true,
            _ => {}
        }
        let weight = style.split(';').find_map(|d| d.strip_prefix("font-weight:"));
        if let Some(w) = weight
            && (w.starts_with("bold") || w.parse::<u32>().is_ok_and(|n| n >= 600))
        {
            self.bold = true;
        }
        if style.contains("font-style:italic") {
            self.italic = true;
        }
        if style.contains("underline") {
            self.underline = true;
        }
        if style.contains("line-through") {
            self.strike = true;
        }
    }

    /// `text` with these marks: `**bold**`, `_italic_`, `<u>…</u>`, `~~struck~~`, `` `code` ``,
    /// `[text](url)`; the whitespace around the text stays outside the marks.
    pub fn wrap(&self, text: &str) -> String {
        let inner = text.trim();
        if inner.is_empty() {
            return text.to_owned();
        }
        let lead = text.get(..text.len() - text.trim_start().len()).unwrap_or_default();
        let trail = text.get(text.trim_end().len()..).unwrap_or_default();
        let mut out = inner.to_owned();
        if self.code {
            out = format!("`{out}`");
        }
        if self.strike {
            out = format!("~~{out}~~");
        }
        if self.underline {
            out = format!("<u>{out}</u>");
        }
        if self.italic {
            out = format!("_{out}_");
        }
        if self.bold {
            out = format!("**{out}**");
        }
        if let Some(url) = &self.link {
            out = format!("[{out}]({url})");
        }
        format!("{lead}{out}{trail}")
    }
}

/// Runs of text with their marks, as markdown: neighbouring runs with the same marks are
/// joined first (`**a****b**` reads `**ab**`).
pub fn markdown(runs: &[(String, Marks)]) -> String {
    let mut joined: Vec<(String, &Marks)> = Vec::new();
    for (text, marks) in runs {
        match joined.last_mut() {
            Some((t, m)) if *m == marks => t.push_str(text),
            _ => joined.push((text.clone(), marks)),
        }
    }
    joined.iter().map(|(t, m)| m.wrap(t)).collect()
}

/// The browser's own command for a formatting shortcut (what Chrome does for a real Ctrl+B in
/// an editable region): `bold`, `italic`, `underline`.
pub fn format_command(press: &KeyPress) -> Option<&'static str> {
    if !(press.ctrl || press.meta) || press.alt || press.shift {
        return None;
    }
    match press.key.to_ascii_lowercase().as_str() {
        "b" => Some("bold"),
        "i" => Some("italic"),
        "u" => Some("underline"),
        _ => None,
    }
}

/// Whether a control named `name` (its accessible name, title or class words) is a formatting
/// command of an editor's toolbar: Bold, Italic, a link, a heading, a list.
pub fn is_format_control(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "bold",
        "italic",
        "underline",
        "strike",
        "strikethrough",
        "code",
        "link",
        "heading",
        "header",
        "h1",
        "h2",
        "h3",
        "bullet",
        "bulleted",
        "numbered",
        "ordered",
        "list",
        "quote",
        "blockquote",
    ];
    name.to_lowercase().split(|c: char| !c.is_alphanumeric()).any(|word| WORDS.contains(&word))
}

/// The outcome of a formatting command from the editor's formatted text before and after
/// it: `Err` says it changed nothing (never "ok" for a command that did nothing), `Ok` says
/// how the selection reads now.
pub fn judge_format(
    before: &str,
    after: &str,
    selected_now: &str,
) -> Result<String, SelectionError> {
    if before == after {
        return Err(SelectionError::Unformatted(selected_now.to_owned()));
    }
    Ok(format!(
        "the formatting changed; the selection now reads “{}”",
        crate::observation::shorten(selected_now, 160)
    ))
}

#[cfg(test)]
#[path = "richtext_tests.rs"]
mod tests;
