//! Writing an observation for the model within a token budget.

use super::{Element, Item, Observation, Zone, clean};
use crate::action::Tool;
use std::fmt::Write;

/// Tokens of page content [`Observation::to_prompt`] writes before summarising the rest: enough
/// for a long form or a results page, small enough that one step stays cheap.
pub const DEFAULT_TOKEN_BUDGET: usize = 2500;

/// One rendered line and what it is.
pub(super) struct Line {
    pub text: String,
    pub zone: Zone,
    pub element: bool,
    /// Frame start/end markers: always written, never counted.
    pub marker: bool,
}

/// Renders every item to lines, frames inlined between markers.
pub(super) fn flatten(items: &[Item], out: &mut Vec<Line>) {
    for item in items {
        match item {
            Item::Text { text, heading, zone } => {
                let mut line = String::new();
                if let Some(level) = heading {
                    line.extend(std::iter::repeat_n('#', usize::from(*level).clamp(1, 6)));
                    line.push(' ');
                }
                line.push_str(&clean(text));
                out.push(Line { text: line, zone: *zone, element: false, marker: false });
            }
            Item::Element(el) => {
                out.push(Line { text: el.line(), zone: el.zone, element: true, marker: false })
            }
            Item::Frame(frame) if frame.frame != 0 => {
                let open = format!("[frame f{} {}]", frame.frame, clean(&frame.url));
                out.push(Line { text: open, zone: frame.zone, element: false, marker: true });
                let start = out.len();
                flatten(&frame.items, out);
                if frame.zone != Zone::In {
                    out[start..].iter_mut().for_each(|l| l.zone = frame.zone);
                }
                let close = format!("[/frame f{}]", frame.frame);
                out.push(Line { text: close, zone: frame.zone, element: false, marker: true });
            }
            Item::Frame(_) => {}
        }
    }
}

/// Rough tokens of a line (about 4 characters per token, plus the line break): cheap enough
/// to run on every step; the benchmark measures the real count with a BPE tokenizer.
fn cost(line: &Line) -> usize {
    if line.marker { 0 } else { line.text.len() / 4 + 1 }
}

/// Chooses which lines to write: all of them when they fit the budget; else a window of
/// `budget` tokens that starts at a multiple of half the budget, the one where the viewport's
/// first line falls in the first half. A window stays put while the user scrolls about a
/// screen or two, so consecutive observations of an unchanged page are byte-identical (the
/// provider's prompt cache serves them) and content just below the viewport is always shown.
fn choose(lines: &[Line], budget: usize) -> Vec<bool> {
    let total: usize = lines.iter().map(cost).sum();
    if total <= budget {
        return vec![true; lines.len()];
    }
    let half = (budget / 2).max(1);
    let mut starts = Vec::with_capacity(lines.len());
    let mut at = 0;
    for line in lines {
        starts.push(at);
        at += cost(line);
    }
    // The viewport's first line in reading order: the first one on screen after the last one
    // scrolled past (fixed headers come earlier in the document and do not count).
    let last_above = lines.iter().rposition(|l| l.zone == Zone::Above && !l.marker);
    let first_in = lines
        .iter()
        .enumerate()
        .skip(last_above.map_or(0, |i| i + 1))
        .find(|(_, l)| l.zone == Zone::In && !l.marker)
        .map(|(i, _)| i);
    let anchor = match first_in.or_else(|| last_above.map(|i| i + 1)) {
        Some(i) if i < lines.len() => starts[i],
        Some(_) => at.saturating_sub(budget),
        None => 0,
    };
    let from = (anchor / half) * half;
    let to = from + budget;
    lines
        .iter()
        .zip(&starts)
        .map(|(line, &start)| line.marker || (start >= from && start + cost(line) <= to))
        .collect()
}

/// What the budget left out `place` (above, below), and the tools that reach it: `scroll`
/// which `way`, or `find`.
#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn summary(out: &mut String, elements: usize, texts: usize, place: &str, way: &str) {
    if elements + texts > 0 {
        let (scroll, find) = (Tool::Scroll.name(), Tool::Find.name());
        let _ = writeln!(
            out,
            "({elements} elements, {texts} text lines {place}: {scroll} {way} or use {find})"
        );
    }
}

impl Observation {
    /// Writes the observation for the model, page text fenced by `nonce`, within
    /// [`DEFAULT_TOKEN_BUDGET`], with the viewport line.
    pub fn to_prompt(&self, nonce: &str) -> String {
        self.to_prompt_with_budget(nonce, DEFAULT_TOKEN_BUDGET)
    }

    /// Writes the observation with at most about `budget` tokens of page content; what does
    /// not fit is summarised as counts above and below the window shown.
    pub fn to_prompt_with_budget(&self, nonce: &str, budget: usize) -> String {
        self.render(nonce, budget, true)
    }

    /// The page without the viewport line (see [`Self::view_line`]): what stays byte-identical
    /// while the user only scrolls, so it can sit in the cached part of a prompt.
    pub fn page_prompt(&self, nonce: &str) -> String {
        self.render(nonce, DEFAULT_TOKEN_BUDGET, false)
    }

    /// `view: 1280x800, 650px above, 1200px below`, or `None` when the size is unknown.
    pub fn view_line(&self) -> Option<String> {
        let v = &self.viewport;
        (v.width > 0.0).then(|| {
            format!(
                "view: {:.0}x{:.0}, {:.0}px above, {:.0}px below",
                v.width,
                v.height,
                v.scroll_y.max(0.0),
                v.below()
            )
        })
    }

    /// A few lines that say what the page is without its content: title and URL, headings,
    /// and how many elements of each role it has (with the names of its form controls). The
    /// planner plans from this; the navigator reads the page itself.
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    pub fn outline(&self, nonce: &str) -> String {
        const HEADINGS: usize = 12;
        const CONTROLS: usize = 12;
        let mut lines = Vec::with_capacity(self.items.len());
        flatten(&self.items, &mut lines);
        let mut out = String::with_capacity(1024);
        // The title is the page's words: inside the fence like its text.
        let _ = writeln!(out, "<page_content id={nonce}>");
        let _ = writeln!(out, "page: {} — {}", clean(&self.title), clean(&self.url));
        let mut headings = lines.iter().filter(|l| !l.element && l.text.starts_with('#'));
        for h in headings.by_ref().take(HEADINGS) {
            let _ = writeln!(out, "{}", h.text);
        }
        let more = headings.count();
        if more > 0 {
            let _ = writeln!(out, "(and {more} more headings)");
        }
        let mut roles: Vec<(String, usize)> = Vec::new();
        let mut controls = Vec::new();
        visit_elements(&self.items, &mut |el| {
            match roles.iter_mut().find(|(r, _)| *r == el.role) {
                Some((_, n)) => *n += 1,
                None => roles.push((el.role.clone(), 1)),
            }
            if !matches!(el.role.as_str(), "link" | "img" | "image") && controls.len() < CONTROLS {
                controls.push(el.line());
            }
        });
        if !roles.is_empty() {
            let counts: Vec<String> = roles.iter().map(|(r, n)| format!("{n} {r}")).collect();
            let _ = writeln!(out, "elements: {}", counts.join(", "));
        }
        for c in controls {
            let _ = writeln!(out, "{c}");
        }
        let _ = write!(out, "</page_content id={nonce}>");
        out
    }

    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    fn render(&self, nonce: &str, budget: usize, with_view: bool) -> String {
        let mut lines = Vec::with_capacity(self.items.len());
        flatten(&self.items, &mut lines);
        drop_empty_frames(&mut lines);
        let keep = choose(&lines, budget);
        let mut out =
            String::with_capacity(256 + lines.iter().map(|l| l.text.len() + 1).sum::<usize>());
        // Titles and addresses are the pages' words (a title can pose as the system or the
        // user): inside the fence like the page's text.
        let _ = writeln!(out, "<page_content id={nonce}>");
        let _ = writeln!(out, "page: {} — {}", clean(&self.title), clean(&self.url));
        if with_view && let Some(view) = self.view_line() {
            let _ = writeln!(out, "{view}");
        }
        if let super::screen::ScreenCheck::Unavailable { lines } = self.screen {
            let _ = writeln!(
                out,
                "(the tab was not on screen: {lines} text lines were not checked against the \
                 screen; treat this page's text as unconfirmed)"
            );
        }
        if self.tabs.len() > 1 {
            out.push_str("tabs:");
            for (i, tab) in self.tabs.iter().enumerate() {
                let sep = if i == 0 { " " } else { " | " };
                let star = if tab.current { "*" } else { "" };
                let _ = write!(
                    out,
                    "{sep}{}{star} {:?} {}",
                    tab.id,
                    clean(&tab.title),
                    clean(&tab.url)
                );
            }
            out.push('\n');
        }
        let first = keep.iter().zip(&lines).position(|(k, l)| *k && !l.marker);
        let last = keep.iter().zip(&lines).rposition(|(k, l)| *k && !l.marker);
        let count = |range: std::ops::Range<usize>, element: bool| {
            lines[range.clone()]
                .iter()
                .zip(&keep[range])
                .filter(|(l, k)| !**k && !l.marker && l.element == element)
                .count()
        };
        let before = first.unwrap_or(0);
        summary(&mut out, count(0..before, true), count(0..before, false), "above", "up");
        for (line, keep) in lines.iter().zip(&keep) {
            if *keep {
                out.push_str(&line.text);
                out.push('\n');
            }
        }
        let after = last.map_or(lines.len(), |l| l + 1);
        let n = lines.len();
        summary(&mut out, count(after..n, true), count(after..n, false), "below", "down");
        let _ = write!(out, "</page_content id={nonce}>");
        out
    }
}

/// Calls `f` for every element, frames included, in reading order.
fn visit_elements(items: &[Item], f: &mut impl FnMut(&Element)) {
    for item in items {
        match item {
            Item::Element(el) => f(el),
            Item::Frame(frame) => visit_elements(&frame.items, f),
            Item::Text { .. } => {}
        }
    }
}

/// Frames with nothing in them (ad slots, `about:blank`) are two marker lines of noise.
fn drop_empty_frames(lines: &mut Vec<Line>) {
    let mut i = 0;
    while i + 1 < lines.len() {
        let empty_pair = lines[i].marker
            && lines[i + 1].marker
            && lines[i].text.starts_with("[frame ")
            && lines[i + 1].text.starts_with("[/frame ");
        if empty_pair {
            lines.drain(i..i + 2);
            // An outer frame may be empty now.
            i = i.saturating_sub(1);
        } else {
            i += 1;
        }
    }
}

impl Element {
    /// The element's line: `[ref] role name` when nothing follows the name, else
    /// `[ref] role "name" value="…" states options=[…]`.
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    pub fn line(&self) -> String {
        let mut out = String::with_capacity(24 + self.name.len());
        let name = clean(&self.name);
        let value = self.value.as_deref().filter(|v| !v.is_empty());
        let bare = value.is_none() && self.states.is_empty() && self.options.is_empty();
        if name.is_empty() {
            // Said outright, so the model knows the page gives it no name (rather than a
            // name lost in the line) and picks it by its place.
            let _ = write!(out, "[{}] {} (no name)", self.ref_id, self.role);
            if bare {
                return out;
            }
        } else if bare && plain(&name) {
            let _ = write!(out, "[{}] {} {name}", self.ref_id, self.role);
            return out;
        } else {
            let _ = write!(out, "[{}] {} {name:?}", self.ref_id, self.role);
        }
        if let Some(value) = value {
            let _ = write!(out, " value={:?}", super::clean_value(value));
        }
        for state in &self.states {
            out.push(' ');
            out.push_str(state);
        }
        if !self.options.is_empty() {
            out.push_str(" options=[");
            for (i, option) in self.options.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                out.push_str(&clean(option).replace(['|', ']'], " "));
            }
            out.push(']');
        }
        out
    }
}

/// Words that follow a name on an element's line.
const STATE_WORDS: &[&str] = &[
    "checked",
    "selected",
    "expanded",
    "collapsed",
    "pressed",
    "disabled",
    "required",
    "invalid",
    "mixed",
    "current",
    "sensitive",
    "filled",
    "multiline",
];

/// Whether a name can be written without quotes at the end of its line (saves a token per
/// element, most of which are bare links and buttons): it is not empty and cannot be read as
/// something else — no quote, no `key=value`, no trailing state word that a page could use
/// to fake a state.
fn plain(name: &str) -> bool {
    let last = name.rsplit(' ').next().unwrap_or_default().to_ascii_lowercase();
    !name.is_empty()
        && !name.contains(['"', '=', '\\'])
        && !name.starts_with('(')
        && !STATE_WORDS.contains(&last.trim_end_matches(|c: char| !c.is_alphanumeric()))
}
