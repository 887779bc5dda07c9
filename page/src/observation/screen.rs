//! Text confirmed by the screen: what CSS cannot tell, the pixels can.
//!
//! The walk keeps text that every style rule calls visible, yet a page can still keep its
//! words off the screen with paint the rules do not model: a pass-through overlay
//! (`pointer-events: none`), a colour filter (`brightness(0)`), a blend mode that cancels the
//! glyphs, a background image painted over or under them, an image mask, a pseudo-element on
//! top. Rather than list such tricks, the worker captures the visible tab once and asks, for
//! each text node's lines of glyphs in view, whether anything is drawn there at all: glyphs leave sharp
//! steps between neighbouring pixels (a stroke's edges); a uniform fill, a smooth gradient or
//! a blank box leaves none. A text line of the observation with a node that shows no ink is
//! dropped like other hidden text. The content script only asks (see [`TextCheck`]) when the page paints with
//! layers, effects or overlays, so a plain page pays nothing; text out of view is judged in
//! the observation after it is scrolled in.
//!
//! The judge errs towards keeping text: a busy background (a photo, a pattern) has edges of
//! its own, so text over it counts as drawn whatever covers it.

use super::{Item, Observation};
use serde::{Deserialize, Serialize};

/// Where one line of a text node's glyphs lies, in CSS pixels of the viewport (a
/// `Range.getClientRects()` entry).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LineBox {
    /// Left edge.
    pub left: f64,
    /// Top edge.
    pub top: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// A text line of the observation whose glyphs the screen must show before the model reads
/// it: the line's text (unique among the frame's text items) and the boxes of its glyphs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TextCheck {
    /// The text item, as written in [`Item::Text`].
    pub text: String,
    /// For every text node in it that lies in view, the line boxes of its glyphs.
    pub nodes: Vec<Vec<LineBox>>,
}

/// What the screen said about the observation's text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScreenCheck {
    /// The page paints plainly: the style rules decide alone.
    #[default]
    NotNeeded,
    /// Compared with a capture of the tab; `dropped` lines showed no ink.
    Confirmed {
        /// Text lines dropped.
        dropped: u32,
    },
    /// Needed, but the tab could not be captured (not the active tab of its window, a
    /// minimised window, a capture error): the style rules decided, and the prompt says so.
    Unavailable {
        /// Text lines that stayed unconfirmed.
        lines: u32,
    },
}

impl ScreenCheck {
    /// Whether it is the default (left out of the wire format).
    pub fn is_not_needed(&self) -> bool {
        *self == ScreenCheck::NotNeeded
    }
}

/// A capture of the visible tab: RGBA rows, `scale` device pixels per CSS pixel.
#[derive(Debug, Clone, Copy)]
pub struct Shot<'a> {
    /// Width in device pixels.
    pub width: u32,
    /// Height in device pixels.
    pub height: u32,
    /// `width × height × 4` bytes, row by row.
    pub rgba: &'a [u8],
    /// Device pixels per CSS pixel (the capture's width over the viewport's).
    pub scale: f64,
}

/// What a line box shows on the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ink {
    /// Sharp steps between neighbouring pixels, as glyph strokes leave.
    Drawn,
    /// Nothing: a uniform fill, a smooth gradient, a blank.
    Blank,
    /// Not judged: the box lies mostly outside the capture, or is too small to hold a glyph.
    Unseen,
}

/// The smallest step between neighbouring pixels (largest channel difference, 0–255) that
/// counts as an edge. Text a person can read is at least 1.25:1 against its background
/// (`visibility::MIN_CONTRAST`), about 25 levels on white; an anti-aliased stroke keeps most of
/// that at its core. Smooth gradients step by a level or two.
pub const EDGE_STEP: u8 = 20;

/// Whether anything is drawn in `line` on `shot` (see the module doc).
pub fn ink(shot: &Shot<'_>, line: &LineBox) -> Ink {
    let scale = if shot.scale.is_finite() && shot.scale > 0.0 { shot.scale } else { 1.0 };
    let (w, h) = (f64::from(shot.width), f64::from(shot.height));
    if shot.rgba.len() < (shot.width as usize) * (shot.height as usize) * 4 {
        return Ink::Unseen;
    }
    let (x0, y0) = (line.left * scale, line.top * scale);
    let (x1, y1) = (x0 + line.width * scale, y0 + line.height * scale);
    let area = (x1 - x0) * (y1 - y0);
    // One device pixel in from every side: what touches the box (a border, the next line)
    // is not the box's ink.
    let (cx0, cy0) = ((x0.max(0.0)).floor() + 1.0, (y0.max(0.0)).floor() + 1.0);
    let (cx1, cy1) = ((x1.min(w)).ceil() - 1.0, (y1.min(h)).ceil() - 1.0);
    if line.height * scale < 4.0 || cx1 - cx0 < 2.0 || cy1 - cy0 < 2.0 {
        return Ink::Unseen;
    }
    // Mostly off the capture (scrolled half out): judged when it is in.
    if (cx1 - cx0 + 2.0) * (cy1 - cy0 + 2.0) < area * 0.6 {
        return Ink::Unseen;
    }
    let (cx0, cy0, cx1, cy1) = (cx0 as usize, cy0 as usize, cx1 as usize, cy1 as usize);
    let stride = shot.width as usize * 4;
    let at = |x: usize, y: usize| -> &[u8] {
        let i = y * stride + x * 4;
        shot.rgba.get(i..i + 3).unwrap_or(&[0, 0, 0])
    };
    let step = |a: &[u8], b: &[u8]| a.iter().zip(b).map(|(p, q)| p.abs_diff(*q)).max().unwrap_or(0);
    let mut edges = 0usize;
    for y in cy0..cy1 {
        for x in cx0..cx1 {
            let here = at(x, y);
            let right = if x + 1 < cx1 { step(here, at(x + 1, y)) } else { 0 };
            let below = if y + 1 < cy1 { step(here, at(x, y + 1)) } else { 0 };
            if right.max(below) >= EDGE_STEP {
                edges += 1;
            }
        }
    }
    // Glyphs leave a dozen or more edge pixels each (a lone full stop at 10 px, about four);
    // a line of about `width / (0.55 × height)` characters must show at least half an edge
    // pixel per character, and two in all.
    let chars = (line.width / (line.height * 0.55)).max(1.0);
    let needed = (chars / 2.0).max(2.0) * scale.max(1.0);
    if (edges as f64) >= needed { Ink::Drawn } else { Ink::Blank }
}

/// Whether the text of one item shows on `shot`: `false` when one of its text nodes shows no
/// ink on any line judged (a page that hides one node of a paragraph hides the paragraph's
/// words). A node is judged as a whole: a line of only spaces (preformatted text) is blank
/// while its neighbours are not.
pub fn shows(shot: &Shot<'_>, check: &TextCheck) -> bool {
    !check.nodes.iter().any(|lines| node_blank(shot, lines))
}

/// Every line of a node that could be judged is blank (and at least one could).
fn node_blank(shot: &Shot<'_>, lines: &[LineBox]) -> bool {
    let mut judged = lines.iter().map(|line| ink(shot, line)).filter(|i| *i != Ink::Unseen);
    let first = judged.next();
    first == Some(Ink::Blank) && judged.all(|i| i == Ink::Blank)
}

impl Observation {
    /// Settles [`Observation::checks`] against `shot` (the visible tab), or records that it
    /// could not be (`None`: the tab is not on screen): text items whose glyphs show no ink
    /// are dropped, as the walk drops other hidden text.
    pub fn confirm_on_screen(&mut self, shot: Option<&Shot<'_>>) {
        let checks = std::mem::take(&mut self.checks);
        if checks.is_empty() {
            return;
        }
        let Some(shot) = shot else {
            self.screen = ScreenCheck::Unavailable { lines: checks.len() as u32 };
            return;
        };
        let blank: Vec<&str> =
            checks.iter().filter(|c| !shows(shot, c)).map(|c| c.text.as_str()).collect();
        let before = self.items.len();
        self.items.retain(
            |item| !matches!(item, Item::Text { text, .. } if blank.contains(&text.as_str())),
        );
        let dropped = (before - self.items.len()) as u32;
        if dropped > 0 {
            tracing::debug!(dropped, "text with no ink on the screen left out");
        }
        self.screen = ScreenCheck::Confirmed { dropped };
    }
}

#[cfg(test)]
#[path = "screen_tests.rs"]
mod tests;
