//! Slider thumbs drawn without a role: a small box a person can focus, placed absolutely on a
//! bar many times longer than it is thick (jQuery UI's `<span tabindex=0>` handle, moved only
//! by `left: N%`). A person sees a slider; the observation lists one, with where its thumb sits
//! on the bar, and setting it reads the number the page shows for it (see `slider::set`).
//!
//! Only the geometry and the focus decide, never the page's class names: a handle a script
//! draws is the page's word exactly as `role=slider` would be, and it is acted on under the
//! same checks.

use super::keys::{Seen, press_one};
use crate::act_error::{ActError, SliderError};
use crate::observation::rules::{KeyPress, numbers_in};
use web_sys::{DomRect, Element};

/// A thumb is at most this long and thick (CSS px).
const MAX_THUMB_PX: f64 = 48.0;
/// A bar is at least this many times longer than it is thick, and than the thumb.
const BAR_RATIO: f64 = 4.0;
/// A bar is at most this many times thicker than its thumb.
const MAX_BAR_THICKNESS: f64 = 1.5;
/// Ancestors tried as the thumb's bar.
const MAX_BAR_DEPTH: u32 = 2;
/// A thumb shows at most this much text (a value bubble), never a label or a sentence.
const MAX_THUMB_TEXT: usize = 4;
/// Boxes around the bar whose text may show the slider's number (its row, its field).
const MAX_SHOWN_DEPTH: u32 = 3;

/// Which way the bar runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Axis {
    /// Left to right: further right is more.
    Across,
    /// Bottom to top: higher is more.
    Up,
}

/// A role-less thumb and the bar it moves on.
#[derive(Clone)]
pub(super) struct Thumb {
    /// The bar (the thumb's positioned ancestor that is long and thin).
    pub track: Element,
    /// Which way it runs.
    pub axis: Axis,
}

/// The thumb `el` is, if it is one: keyboard-focusable (`tabindex` ≥ 0, no role), small, empty
/// but for a few characters, absolutely placed, and lying along a bar around it.
pub(super) fn of(el: &Element) -> Option<Thumb> {
    if el.has_attribute("role") || matches!(el.local_name().as_str(), "input" | "button") {
        return None;
    }
    let focusable = el
        .get_attribute("tabindex")
        .and_then(|t| t.trim().parse::<i32>().ok())
        .is_some_and(|t| t >= 0);
    if !focusable {
        return None;
    }
    let own = el.get_bounding_client_rect();
    let small = |r: &DomRect| {
        r.width() >= 1.0
            && r.height() >= 1.0
            && r.width() <= MAX_THUMB_PX
            && r.height() <= MAX_THUMB_PX
    };
    if !small(&own) || el.child_element_count() > 1 {
        return None;
    }
    // Empty, or a value bubble (`4`, `30%`): a `×` or a word is a button placed on a banner.
    let text = el.text_content().unwrap_or_default();
    let text = text.trim();
    let bubble = text.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '%' | '-'));
    if text.chars().count() > MAX_THUMB_TEXT || !bubble {
        return None;
    }
    let style = web_sys::window()?.get_computed_style(el).ok()??;
    if style.get_property_value("position").ok()? != "absolute" {
        return None;
    }
    let mut node = el.parent_element();
    for _ in 0..MAX_BAR_DEPTH {
        let bar = node?;
        let r = bar.get_bounding_client_rect();
        if let Some(axis) = lies_along(&own, &r) {
            return Some(Thumb { track: bar, axis });
        }
        node = bar.parent_element();
    }
    None
}

/// Whether a thumb at `own` lies along the bar at `bar`, and which way the bar runs.
fn lies_along(own: &DomRect, bar: &DomRect) -> Option<Axis> {
    let (cx, cy) = (own.x() + own.width() / 2.0, own.y() + own.height() / 2.0);
    let within = |c: f64, from: f64, to: f64, slack: f64| c >= from - slack && c <= to + slack;
    // The thumb straddles the bar's middle line, and the bar is no thicker than the thumb
    // by much (a banner with a button at its end is thick).
    let across = bar.width() >= bar.height() * BAR_RATIO
        && bar.width() >= own.width() * BAR_RATIO
        && bar.height() <= own.height() * MAX_BAR_THICKNESS
        && within(cx, bar.left(), bar.right(), own.width() / 2.0 + 1.0)
        && (cy - (bar.top() + bar.height() / 2.0)).abs() <= own.height() / 2.0;
    let up = bar.height() >= bar.width() * BAR_RATIO
        && bar.height() >= own.height() * BAR_RATIO
        && bar.width() <= own.width() * MAX_BAR_THICKNESS
        && within(cy, bar.top(), bar.bottom(), own.height() / 2.0 + 1.0)
        && (cx - (bar.left() + bar.width() / 2.0)).abs() <= own.width() / 2.0;
    if across {
        Some(Axis::Across)
    } else if up {
        Some(Axis::Up)
    } else {
        None
    }
}

/// Where the thumb `el` sits along its bar, 0–100 (a whole number: what a person can tell).
pub(super) fn position(el: &Element, thumb: &Thumb) -> f64 {
    let own = el.get_bounding_client_rect();
    let bar = thumb.track.get_bounding_client_rect();
    let share = match thumb.axis {
        Axis::Across if bar.width() > 0.0 => {
            (own.x() + own.width() / 2.0 - bar.left()) / bar.width()
        }
        Axis::Up if bar.height() > 0.0 => {
            (bar.bottom() - (own.y() + own.height() / 2.0)) / bar.height()
        }
        _ => 0.0,
    };
    (share.clamp(0.0, 1.0) * 100.0).round()
}

/// How a role-less slider's value is read: a number the page shows near it (the one a key
/// press changed), else — when the goal was given as a share — where the thumb sits.
#[derive(Clone)]
pub(super) enum Reading {
    /// The `index`th number of `shown`'s text.
    Shown {
        /// The box whose text shows it.
        shown: Element,
        /// Which of its numbers.
        index: usize,
    },
    /// The thumb's place along its bar, 0–100.
    Position(Thumb),
}

impl Reading {
    /// The value now.
    pub(super) fn read(&self, el: &Element) -> Option<f64> {
        match self {
            Self::Shown { shown, index } => {
                numbers_in(&shown.text_content().unwrap_or_default()).get(*index).copied()
            }
            Self::Position(thumb) => Some(position(el, thumb)),
        }
    }
}

/// The boxes whose text may show a slider's number, nearest first: the thumb `el`, its bar
/// and the boxes around the bar.
pub(super) fn boxes_around(el: &Element, track: &Element) -> Vec<Element> {
    let mut boxes = vec![el.clone()];
    if !track.is_same_node(Some(el)) {
        boxes.push(track.clone());
    }
    let mut node = track.parent_element();
    for _ in 0..MAX_SHOWN_DEPTH {
        let Some(b) = node else { break };
        node = b.parent_element();
        boxes.push(b);
    }
    boxes
}

fn numbers_of(boxes: &[Element]) -> Vec<Vec<f64>> {
    boxes.iter().map(|b| numbers_in(&b.text_content().unwrap_or_default())).collect()
}

/// The first number that differs between two readings of the same boxes (same count of
/// numbers in that box, so a number that appeared is not taken for one that changed).
fn changed(boxes: &[Element], before: &[Vec<f64>], after: &[Vec<f64>]) -> Option<Reading> {
    boxes.iter().zip(before.iter().zip(after)).find_map(|(shown, (was, now))| {
        if was.len() != now.len() {
            return None;
        }
        let index = was.iter().zip(now).position(|(a, b)| a != b)?;
        Some(Reading::Shown { shown: shown.clone(), index })
    })
}

/// Finds the number in `boxes` that shows the value of the slider `el` by pressing an arrow
/// key once (and the other way when the first changed nothing, at the end of its bar) and
/// seeing which number changed; `None` when none did.
pub(super) async fn shown(el: &Element, boxes: &[Element]) -> Result<Option<Reading>, ActError> {
    Ok(probe(el, boxes, None).await?.0)
}

/// [`shown`], and whether either press moved `thumb` (judged after each press: the second
/// one brings it back to where it began).
async fn probe(
    el: &Element,
    boxes: &[Element],
    thumb: Option<&Thumb>,
) -> Result<(Option<Reading>, bool), ActError> {
    let document = el.owner_document().ok_or(ActError::NoDocument)?;
    let mut seen = Seen::default();
    let mut moved = false;
    for key in ["ArrowRight", "ArrowLeft"] {
        let (before, at) = (numbers_of(boxes), thumb.map(|t| position(el, t)));
        let press = KeyPress { key: key.into(), code: key.into(), ..KeyPress::default() };
        press_one(&document, el, &press, &mut seen)?;
        super::drag::sleep(0).await;
        if let Some(found) = changed(boxes, &before, &numbers_of(boxes)) {
            return Ok((Some(found), true));
        }
        moved |= thumb.zip(at).is_some_and(|(t, at)| (position(el, t) - at).abs() >= 1.0);
    }
    Ok((None, moved))
}

/// How the role-less slider `el` is read: the number the page shows for it (see [`shown`]);
/// else, when the goal was a share of the bar (`share`: `70%`), where its thumb sits.
pub(super) async fn reading(el: &Element, thumb: &Thumb, share: bool) -> Result<Reading, ActError> {
    let (found, moved) = probe(el, &boxes_around(el, &thumb.track), Some(thumb)).await?;
    match found {
        Some(found) => Ok(found),
        None if share => Ok(Reading::Position(thumb.clone())),
        None => Err(SliderError::Unshown { moved, at: position(el, thumb) }.into()),
    }
}
