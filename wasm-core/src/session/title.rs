//! Session titles that follow the newest topic: kept while the recent turns continue it,
//! replaced when they moved on; every change is remembered with the turn that caused it.

use super::Session;

/// A title is at most this many characters (it must fit the session list).
pub const MAX_TITLE_CHARS: usize = 60;

/// The title history keeps this many entries, newest first.
pub const MAX_TITLE_HISTORY: usize = 20;

/// The last this-many turns are the "recent" topic the title should describe.
pub const RECENT_TURNS: usize = 3;

/// Words too common to say anything about a topic.
const STOP_WORDS: &[&str] = &[
    "about", "after", "again", "also", "and", "back", "been", "before", "both", "does", "each",
    "find", "from", "have", "into", "just", "look", "more", "most", "much", "need", "only",
    "other", "over", "page", "please", "same", "show", "some", "such", "tell", "than", "that",
    "their", "them", "then", "there", "these", "they", "this", "those", "what", "when", "where",
    "which", "while", "with", "would", "your",
];

/// The title the session should get after its latest turn, or `None` to keep the current one.
///
/// `proposed` is the summariser's suggestion (it saw the TOC newest first with the recent turns
/// marked); without one (no model, or a failed call) the extractive rule decides: a session
/// without a title takes its newest task's first line; a titled one keeps its title while any
/// recent turn shares a topic word with it, and takes the newest task's first line once none
/// does. A title the user chose is never replaced automatically.
pub fn title_change(session: &Session, proposed: Option<&str>) -> Option<String> {
    if session.title_locked {
        return None;
    }
    let next = match proposed.map(|p| clip(&one_line(p), MAX_TITLE_CHARS)) {
        Some(p) if !p.is_empty() => p,
        _ => extractive_title(session)?,
    };
    (!next.eq_ignore_ascii_case(&session.title)).then_some(next)
}

/// The extractive title rule (see [`title_change`]); `None` keeps the current title.
pub fn extractive_title(session: &Session) -> Option<String> {
    let newest = session.records.last()?;
    let fresh = clip(&one_line(newest.task_line()), MAX_TITLE_CHARS);
    // A task without words gives no title (an empty one would blank the session's).
    if fresh.is_empty() {
        return None;
    }
    if session.title.is_empty() {
        return Some(fresh);
    }
    let title_words = topic_words(&session.title);
    let recent = session.records.iter().rev().take(RECENT_TURNS);
    let continues = recent.into_iter().any(|r| {
        let words = topic_words(&format!("{} {}", r.task, r.toc_line));
        words.iter().any(|w| title_words.contains(w))
    });
    (!continues).then_some(fresh)
}

/// Lower-case words of at least 4 letters that are not stop words (plural "s" dropped).
fn topic_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(|w| {
            let w = w.to_lowercase();
            w.strip_suffix('s').filter(|s| s.len() >= 4).map(str::to_owned).unwrap_or(w)
        })
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect()
}

pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to at most `max` characters on a character boundary, with "…" when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let end = text.char_indices().nth(max.saturating_sub(1)).map_or(text.len(), |(i, _)| i);
            format!("{}…", text.get(..end).unwrap_or(text).trim_end())
        }
    }
}
