//! Writing an observation for the model within a token budget.

use super::{Element, Item, Observation, Zone, clean};
use std::fmt::Write;

/// Tokens of page content [`Observation::to_prompt`] writes before summarising the rest: enough
/// for a long form or a results page, small enough that one step stays cheap.
pub const DEFAULT_TOKEN_BUDGET: usize = 4000;

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

/// Chooses which lines to write: the viewport first, then what follows it, then what precedes
/// it, while the budget lasts; returns the choice per line.
fn choose(lines: &[Line], budget: usize) -> Vec<bool> {
    let total: usize = lines.iter().map(cost).sum();
    if total <= budget {
        return vec![true; lines.len()];
    }
    let mut keep: Vec<bool> = lines.iter().map(|l| l.marker).collect();
    let mut left = budget;
    let mut take = |i: usize, keep: &mut Vec<bool>| -> bool {
        let c = cost(&lines[i]);
        if c > left {
            return false;
        }
        left -= c;
        keep[i] = true;
        true
    };
    for zone in [Zone::In, Zone::Below] {
        for (i, line) in lines.iter().enumerate() {
            if line.zone == zone && !line.marker && !take(i, &mut keep) {
                break;
            }
        }
    }
    for i in (0..lines.len()).rev() {
        if lines[i].zone == Zone::Above && !lines[i].marker && !take(i, &mut keep) {
            break;
        }
    }
    keep
}

#[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
fn summary(out: &mut String, elements: usize, texts: usize, place: &str, how: &str) {
    if elements + texts > 0 {
        let _ =
            writeln!(out, "({elements} elements, {texts} text lines {place}: {how} or use find)");
    }
}

impl Observation {
    /// Writes the observation for the model, page text fenced by `nonce`, within
    /// [`DEFAULT_TOKEN_BUDGET`].
    pub fn to_prompt(&self, nonce: &str) -> String {
        self.to_prompt_with_budget(nonce, DEFAULT_TOKEN_BUDGET)
    }

    /// Writes the observation with at most about `budget` tokens of page content; what does
    /// not fit is summarised as counts above and below the viewport.
    #[expect(clippy::let_underscore_must_use, reason = "writing to a String cannot fail")]
    pub fn to_prompt_with_budget(&self, nonce: &str, budget: usize) -> String {
        let mut lines = Vec::with_capacity(self.items.len());
        flatten(&self.items, &mut lines);
        let keep = choose(&lines, budget);
        let mut out =
            String::with_capacity(256 + lines.iter().map(|l| l.text.len() + 1).sum::<usize>());
        let _ = writeln!(out, "page: {} — {}", clean(&self.title), clean(&self.url));
        let v = &self.viewport;
        if v.width > 0.0 {
            let _ = writeln!(
                out,
                "view: {:.0}x{:.0}, {:.0}px above, {:.0}px below",
                v.width,
                v.height,
                v.scroll_y.max(0.0),
                v.below()
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
        let _ = writeln!(out, "<page_content id={nonce}>");
        let count = |zone: Zone, element: bool| {
            lines
                .iter()
                .zip(&keep)
                .filter(|(l, k)| !**k && l.zone == zone && l.element == element)
                .count()
        };
        summary(
            &mut out,
            count(Zone::Above, true),
            count(Zone::Above, false),
            "above",
            "scroll up",
        );
        for (line, keep) in lines.iter().zip(&keep) {
            if *keep {
                out.push_str(&line.text);
                out.push('\n');
            }
        }
        let (below_el, below_text) = (
            count(Zone::Below, true) + count(Zone::In, true),
            count(Zone::Below, false) + count(Zone::In, false),
        );
        summary(&mut out, below_el, below_text, "below", "scroll down");
        let _ = write!(out, "</page_content id={nonce}>");
        out
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
            let _ = write!(out, " value={:?}", clean(value));
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
