//! Dragging one element onto another, as a person's mouse would: HTML5 drag and drop when the
//! element is draggable (`dragstart`, `dragenter`/`dragover` along the way, `drop` where the
//! page accepts it, `dragend`), else the pointer pressed, moved in steps and released (sortable
//! lists, kanban boards and sliders built on pointer events). The moves are spaced by a frame's
//! time, as libraries that read positions on the next frame expect.

use super::act::{label, reachable_point};
use super::events::{drag_event, mouse_with};
use crate::act_error::{ActError, DragError};
use crate::action::ActionOutcome;
use crate::action::reorder::Place;
use crate::observation::{clean, shorten};
use wasm_bindgen_futures::JsFuture;
use web_sys::Element;

/// Moves between the press and the release.
const STEPS: u32 = 10;
/// Time between two moves, in ms: about a frame.
const STEP_MS: i32 = 16;
/// Frames the dragged element gets to settle into its place after the release.
const SETTLE_FRAMES: u32 = 30;

/// Resolves after `ms` milliseconds (a timer, which also runs in a background tab).
pub(super) async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            crate::js::best_effort(
                window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms),
                "start a timer",
            );
        }
    });
    crate::js::best_effort(JsFuture::from(promise).await, "wait for a timer");
}

/// The innermost element at viewport point (x, y) of the element's document.
fn hit(el: &Element, x: f64, y: f64) -> Option<Element> {
    el.owner_document().and_then(|d| d.element_from_point(x as f32, y as f32))
}

/// Drags `source` onto `target` (both already resolved and checked in this frame).
pub(super) async fn drag(source: &Element, target: &Element) -> Result<ActionOutcome, ActError> {
    if source == target || source.contains(Some(target)) {
        return Err(DragError::OntoItself.into());
    }
    let (from_x, from_y, grip) = reachable_point(source)?;
    // The drop target must be on screen with the source: scroll it in only as far as needed.
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
    target.scroll_into_view_with_scroll_into_view_options(&options);
    let (from_x, from_y) = {
        let moved = source.get_bounding_client_rect();
        let (x, y) = (moved.x() + moved.width() / 2.0, moved.y() + moved.height() / 2.0);
        if (x - from_x).abs() > 0.5 || (y - from_y).abs() > 0.5 { (x, y) } else { (from_x, from_y) }
    };
    let rect = target.get_bounding_client_rect();
    let (to_x, to_y) = (rect.x() + rect.width() / 2.0, rect.y() + rect.height() / 2.0);
    let window = web_sys::window().ok_or(ActError::NoWindow)?;
    let size = |v: Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>| {
        v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0)
    };
    let (vw, vh) = (size(window.inner_width()), size(window.inner_height()));
    let on_screen = |x: f64, y: f64| x >= 0.0 && y >= 0.0 && x < vw && y < vh;
    if !on_screen(from_x, from_y) || !on_screen(to_x, to_y) {
        return Err(DragError::NotTogether.into());
    }
    match hit(target, to_x, to_y) {
        Some(over) if target.contains(Some(&over)) || over.contains(Some(target)) => {}
        Some(over) if source.contains(Some(&over)) => {}
        Some(over) => {
            return Err(DragError::TargetCovered(label(&over)).into());
        }
        None => return Err(DragError::TargetOffScreen.into()),
    }
    let before = place_of(source, None);
    let (from, to) = ((from_x, from_y), (to_x, to_y));
    // Whether the page took the drop itself (HTML5: it cancelled `dragover` and got `drop`).
    let html5_drop = |r: Result<ActionOutcome, ActError>| {
        let taken = r.is_ok();
        (r, taken)
    };
    let (attempt, taken) = match draggable(&grip, source) {
        Some(dragged) => html5_drop(html5(&grip, &dragged, target, from, to, false).await),
        None => {
            press(&grip, from)?;
            match draggable(&grip, source) {
                // A library that arms HTML5 drag and drop on the press (SortableJS sets
                // `draggable` then): the browser would start a drag as the mouse moves.
                Some(dragged) => html5_drop(html5(&grip, &dragged, target, from, to, true).await),
                None => {
                    pointer_moves(&grip, from, to).await?;
                    (Ok(ActionOutcome::with_text("dragged with the pointer and released")), false)
                }
            }
        }
    };
    let Some(before) = before else { return attempt };
    // The outcome is where the element is now, read back once the list stops moving.
    let after = settled_place(source, &before).await;
    let verdict = crate::action::reorder::judge(&before.0, after.as_ref(), taken);
    match (attempt, verdict) {
        (Ok(_), Ok(note)) => Ok(ActionOutcome::with_text(note)),
        (Ok(_), Err(nothing)) => Err(nothing.into()),
        // The page reordered the list as the pointer went, without taking a drop event.
        (Err(_), Ok(note)) if after.as_ref() != Some(&before.0) => {
            Ok(ActionOutcome::with_text(note))
        }
        (Err(why), _) => Err(why),
    }
}

/// Where `el` is among its siblings in drawn order (top to bottom, then left to right), with
/// its container; `container_id` is 0 when the container is `same` (or when none is given).
fn place_of(el: &Element, same: Option<&Element>) -> Option<(Place, Element)> {
    let parent = el.parent_element()?;
    let children = parent.children();
    let mut shown: Vec<(f64, f64, Element)> = (0..children.length())
        .filter_map(|i| children.item(i))
        .filter_map(|c| {
            let r = c.get_bounding_client_rect();
            (r.width() > 0.0 && r.height() > 0.0).then(|| (r.y(), r.x(), c))
        })
        .collect();
    shown.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let position = shown.iter().position(|(_, _, c)| c == el)? + 1;
    let order = shown
        .iter()
        .map(|(_, _, c)| shorten(&clean(&c.text_content().unwrap_or_default()), 40))
        .collect::<Vec<_>>();
    let own = super::roles::own_label(&parent);
    let container = if own.is_empty() { format!("<{}>", parent.local_name()) } else { own };
    let container_id = u64::from(same.is_some_and(|s| s != &parent));
    let place = Place { container, container_id, position, count: shown.len(), order };
    Some((place, parent))
}

/// The element's place once it stops changing between frames (a list animates into its new
/// order), or `None` when it left the page.
async fn settled_place(el: &Element, before: &(Place, Element)) -> Option<Place> {
    let mut last: Option<Place> = None;
    for _ in 0..SETTLE_FRAMES {
        sleep(STEP_MS).await;
        if !el.is_connected() {
            return None;
        }
        let now = place_of(el, Some(&before.1)).map(|(p, _)| p);
        if now.is_some() && now == last {
            return now;
        }
        last = now;
    }
    last
}

/// The element HTML5 drag and drop would drag from `grip`: the nearest with `draggable="true"`,
/// from the pressed element up to a few levels above the source (a handle inside a card).
fn draggable(grip: &Element, source: &Element) -> Option<Element> {
    let mut node = Some(grip.clone());
    let mut past_source = 0;
    while let Some(el) = node {
        if el.get_attribute("draggable").as_deref() == Some("true") {
            return Some(el);
        }
        if &el == source || past_source > 0 {
            past_source += 1;
            if past_source > 3 {
                return None;
            }
        }
        node = el.parent_element();
    }
    None
}

/// The point `i` of `STEPS` on the way from `from` to `to`.
fn along(from: (f64, f64), to: (f64, f64), i: u32) -> (f64, f64) {
    let t = f64::from(i) / f64::from(STEPS);
    (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
}

/// HTML5 drag and drop from `grip` (inside `dragged`) onto `target`.
async fn html5(
    grip: &Element,
    dragged: &Element,
    target: &Element,
    from: (f64, f64),
    to: (f64, f64),
    pressed: bool,
) -> Result<ActionOutcome, ActError> {
    if !pressed {
        mouse_with(grip, "pointerdown", from.0, from.1, 1, 1)?;
        mouse_with(grip, "mousedown", from.0, from.1, 1, 1)?;
    }
    let data = web_sys::DataTransfer::new().map_err(super::events::js)?;
    if !drag_event(dragged, "dragstart", from.0, from.1, &data)? {
        return Err(DragError::StartRefused.into());
    }
    let mut over: Option<Element> = None;
    let mut accepted = false;
    for i in 1..=STEPS + 1 {
        sleep(STEP_MS).await;
        let (x, y) = along(from, to, i.min(STEPS));
        drag_event(dragged, "drag", x, y, &data)?;
        let Some(now) = hit(dragged, x, y) else { continue };
        if over.as_ref() != Some(&now) {
            if let Some(left) = &over {
                drag_event(left, "dragleave", x, y, &data)?;
            }
            drag_event(&now, "dragenter", x, y, &data)?;
            over = Some(now.clone());
        }
        // A page accepts a drop where it cancels `dragover`.
        accepted = !drag_event(&now, "dragover", x, y, &data)?;
    }
    let dropped_on = over.filter(|o| target.contains(Some(o)) || o.contains(Some(target)));
    let result = match (&dropped_on, accepted) {
        (Some(on), true) => {
            drag_event(on, "drop", to.0, to.1, &data)?;
            Ok(ActionOutcome::with_text("dropped: the page accepted the drop on the target"))
        }
        (on, _) => {
            if let Some(on) = on {
                drag_event(on, "dragleave", to.0, to.1, &data)?;
            }
            Err(DragError::DropRefused.into())
        }
    };
    drag_event(dragged, "dragend", to.0, to.1, &data)?;
    result
}

/// The pointer pressed on `grip` at `from`, moved in steps to `to` and released there. Moves
/// and the release go to the element that captured the pointer, if one did, else to the element
/// under the pointer (they bubble to the document, where most libraries listen).
pub(super) async fn pointer_drag(
    grip: &Element,
    from: (f64, f64),
    to: (f64, f64),
) -> Result<(), ActError> {
    press(grip, from)?;
    pointer_moves(grip, from, to).await
}

/// The pointer arriving over `grip` at `from` and pressing there.
fn press(grip: &Element, from: (f64, f64)) -> Result<(), ActError> {
    mouse_with(grip, "pointerover", from.0, from.1, 0, 0)?;
    mouse_with(grip, "pointermove", from.0, from.1, 0, 0)?;
    mouse_with(grip, "mousemove", from.0, from.1, 0, 0)?;
    mouse_with(grip, "pointerdown", from.0, from.1, 1, 1)?;
    mouse_with(grip, "mousedown", from.0, from.1, 1, 1)?;
    Ok(())
}

/// After the press: the moves in steps to `to` and the release there.
async fn pointer_moves(grip: &Element, from: (f64, f64), to: (f64, f64)) -> Result<(), ActError> {
    let captured = captor(grip);
    let receiver = |x: f64, y: f64| -> Option<Element> {
        captured.clone().or_else(|| hit(grip, x, y)).or_else(|| Some(grip.clone()))
    };
    // Two frames at the end: libraries settle what is under the pointer after a move.
    for i in 1..=STEPS + 2 {
        sleep(STEP_MS).await;
        let (x, y) = along(from, to, i.min(STEPS));
        if let Some(el) = receiver(x, y) {
            mouse_with(&el, "pointermove", x, y, 0, 1)?;
            mouse_with(&el, "mousemove", x, y, 0, 1)?;
        }
    }
    if let Some(el) = receiver(to.0, to.1) {
        mouse_with(&el, "pointerup", to.0, to.1, 1, 0)?;
        mouse_with(&el, "mouseup", to.0, to.1, 1, 0)?;
    }
    Ok(())
}

/// The element holding pointer capture of the mouse after the press, if the page took it
/// (`setPointerCapture` on the pressed element or one around it).
fn captor(grip: &Element) -> Option<Element> {
    let mut node = Some(grip.clone());
    while let Some(el) = node {
        if el.has_pointer_capture(1) {
            return Some(el);
        }
        node = el.parent_element();
    }
    None
}
