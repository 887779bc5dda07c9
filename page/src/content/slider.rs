//! Custom sliders (`role=slider` with `aria-valuenow`, as component libraries draw them, and
//! thumbs drawn without a role — see `thumb`): set to a value with the arrow keys every
//! accessible slider takes, and with the pointer on its track when the keys do not move it. The
//! value the slider reports afterwards (or the page shows for it) is the outcome.

use super::keys::{Seen, press_one};
use super::thumb::{self, Reading};
use crate::act_error::{ActError, SliderError, Undone};
use crate::action::ActionOutcome;
use crate::observation::clean;
use crate::observation::rules::{KeyPress, slider_fell_short};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

/// Most arrow presses spent reaching a value (a 0–100 slider in steps of 1 needs 100).
const MAX_PRESSES: u32 = 400;

/// Whether `el` is a custom slider this module sets (native ranges are typed into).
pub(super) fn is_custom(el: &Element) -> bool {
    el.local_name() != "input"
        && (super::facts::aria(el, "role")
            .is_some_and(|r| r.split_whitespace().next() == Some("slider"))
            || thumb::of(el).is_some())
}

fn number(el: &Element, attr: &str) -> Option<f64> {
    super::facts::aria_now(el, attr)?.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Moves the slider `el` to the value in `text`.
pub(super) async fn set(el: &Element, text: &str) -> Result<ActionOutcome, ActError> {
    let goal = crate::observation::rules::number_in(text)
        .ok_or_else(|| SliderError::NotANumber(text.to_owned()))?;
    if number(el, "aria-valuenow").is_none()
        && let Some(thumb) = thumb::of(el)
    {
        return set_thumb(el, &thumb, goal, text.contains('%')).await;
    }
    let start = number(el, "aria-valuenow").ok_or(SliderError::NoValue)?;
    let (min, max) =
        (number(el, "aria-valuemin").unwrap_or(0.0), number(el, "aria-valuemax").unwrap_or(100.0));
    if goal < min || goal > max {
        return Err(SliderError::OutOfRange { goal, min, max }.into());
    }
    if let Some(h) = el.dyn_ref::<HtmlElement>() {
        crate::js::best_effort(h.focus(), "focus the slider");
    }
    let keyed = by_keys(el, goal, || number(el, "aria-valuenow")).await?;
    let stuck = keyed.stuck && (keyed.now - goal).abs() > f64::EPSILON;
    if stuck {
        by_pointer(el, goal, min, max).await?;
    }
    let now = number(el, "aria-valuenow").unwrap_or(start);
    let shown = match super::facts::aria(el, "aria-valuetext").map(|t| clean(&t)) {
        Some(t) if !t.is_empty() && t != format!("{now}") => format!("{now} ({t})"),
        _ => format!("{now}"),
    };
    let note = if (now - goal).abs() > f64::EPSILON {
        format!("the slider is at {shown}: the nearest value it takes to {goal}")
    } else {
        format!("the slider is at {shown}")
    };
    if (now - start).abs() <= f64::EPSILON && (goal - start).abs() > f64::EPSILON {
        return Err(SliderError::Unmoved(note).into());
    }
    if stuck && slider_fell_short(goal, now, keyed.step, max - min) {
        // Its `aria-valuenow` is not the value (a share of the bar): the number the page shows
        // for it, if one changes with the keys, is.
        return match thumb::shown(el, &thumb::boxes_around(el, &track(el))).await? {
            Some(reading) => by_shown(el, goal, reading).await,
            None => Err(SliderError::Short { goal, note }.into()),
        };
    }
    super::readback::keep(Undone::Value, el, move |el| number(el, "aria-valuenow") == Some(now));
    Ok(ActionOutcome { value_changed: now != start, ..ActionOutcome::with_text(note) })
}

/// Moves a thumb drawn without a role to `goal`: the value is what the page shows for it (or,
/// for a goal given as a share, `share`, where the thumb sits along its bar), found by the
/// first key press; then arrow presses as for any slider.
async fn set_thumb(
    el: &Element,
    found: &thumb::Thumb,
    goal: f64,
    share: bool,
) -> Result<ActionOutcome, ActError> {
    if let Some(h) = el.dyn_ref::<HtmlElement>() {
        crate::js::best_effort(h.focus(), "focus the slider");
    }
    let start = thumb::position(el, found);
    let reading = thumb::reading(el, found, share).await?;
    let now = by_keys(el, goal, || reading.read(el)).await?.now;
    let (unit, what) = match reading {
        Reading::Position(_) => ("%", "its thumb is at"),
        Reading::Shown { .. } => ("", "the page shows"),
    };
    let note = if (now - goal).abs() > f64::EPSILON {
        format!("{what} {now}{unit}: the nearest value the slider takes to {goal}{unit}")
    } else {
        format!("{what} {now}{unit}")
    };
    if (thumb::position(el, found) - start).abs() < 1.0 && (now - goal).abs() > f64::EPSILON {
        return Err(SliderError::Unmoved(note).into());
    }
    super::readback::keep(Undone::Value, el, move |el| reading.read(el) == Some(now));
    let value_changed = (thumb::position(el, found) - start).abs() >= 1.0;
    Ok(ActionOutcome { value_changed, ..ActionOutcome::with_text(note) })
}

/// Moves a slider whose own value is not what it sets by the number the page shows for it
/// (`reading`), with the arrow keys.
async fn by_shown(el: &Element, goal: f64, reading: Reading) -> Result<ActionOutcome, ActError> {
    let now = by_keys(el, goal, || reading.read(el)).await?.now;
    let note = if (now - goal).abs() > f64::EPSILON {
        format!("the page shows {now}: the nearest value the slider takes to {goal}")
    } else {
        format!("the page shows {now}")
    };
    super::readback::keep(Undone::Value, el, move |el| reading.read(el) == Some(now));
    Ok(ActionOutcome { value_changed: true, ..ActionOutcome::with_text(note) })
}

/// Where the arrow keys left a slider.
struct Keyed {
    /// Its value.
    now: f64,
    /// A press stopped moving it before it reached or passed the goal.
    stuck: bool,
    /// The largest move one press made (0 when none did).
    step: f64,
}

/// Arrow presses toward `goal` until the slider reaches it, passes it (then the nearer of the
/// two values is kept) or stops moving; where it ends. Each press is read back after a
/// timer tick: Vue and React redraw `aria-valuenow` after the key's handler has returned.
async fn by_keys(
    el: &Element,
    goal: f64,
    read: impl Fn() -> Option<f64>,
) -> Result<Keyed, ActError> {
    let document = el.owner_document().ok_or(ActError::NoDocument)?;
    let press = |key: &str| KeyPress { key: key.into(), code: key.into(), ..KeyPress::default() };
    let mut seen = Seen::default();
    let mut now = read().unwrap_or(goal);
    let mut step: f64 = 0.0;
    for _ in 0..MAX_PRESSES {
        if (now - goal).abs() <= f64::EPSILON {
            break;
        }
        let (up, back) =
            if now < goal { ("ArrowRight", "ArrowLeft") } else { ("ArrowLeft", "ArrowRight") };
        press_one(&document, el, &press(up), &mut seen)?;
        super::drag::sleep(0).await;
        let next = read().unwrap_or(now);
        if next == now {
            return Ok(Keyed { now, stuck: true, step });
        }
        step = step.max((next - now).abs());
        let passed = (now < goal) != (next < goal) && next != goal;
        if passed {
            let mut end = next;
            if (now - goal).abs() < (next - goal).abs() {
                press_one(&document, el, &press(back), &mut seen)?;
                super::drag::sleep(0).await;
                end = read().unwrap_or(next);
            }
            return Ok(Keyed { now: end, stuck: false, step });
        }
        now = next;
    }
    Ok(Keyed { now: read().unwrap_or(now), stuck: false, step })
}

/// The slider's track: the slider itself when it is wide, else the nearest element around it
/// that is (the slider is often only the thumb).
fn track(el: &Element) -> Element {
    let own = el.get_bounding_client_rect();
    let mut node = el.parent_element();
    let mut depth = 0;
    while let Some(parent) = node {
        let rect = parent.get_bounding_client_rect();
        if rect.width() >= own.width() * 3.0 || rect.height() >= own.height() * 3.0 {
            return parent;
        }
        depth += 1;
        if depth > 3 {
            break;
        }
        node = parent.parent_element();
    }
    el.clone()
}

/// Presses the thumb and drags it to where `goal` lies on the track.
async fn by_pointer(el: &Element, goal: f64, min: f64, max: f64) -> Result<(), ActError> {
    let (x, y, grip) = super::act::reachable_point(el)?;
    let bar = if own_track(el) { el.clone() } else { track(el) };
    let rect = bar.get_bounding_client_rect();
    let share = if max > min { (goal - min) / (max - min) } else { 0.0 };
    let vertical = el.get_attribute("aria-orientation").as_deref() == Some("vertical");
    let to = if vertical {
        (x, rect.bottom() - share * rect.height())
    } else {
        (rect.left() + share * rect.width(), y)
    };
    super::drag::pointer_drag(&grip, (x, y), to).await
}

/// Whether the slider element is the whole track (wider than tall, a bar) rather than a thumb.
fn own_track(el: &Element) -> bool {
    let rect = el.get_bounding_client_rect();
    rect.width() > rect.height() * 3.0 || rect.height() > rect.width() * 3.0
}
