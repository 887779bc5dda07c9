//! Synthetic DOM events, fired the way a user's input would fire them.

use crate::act_error::ActError;
use web_sys::Element;

/// A browser exception, as the error the action fails with.
pub(super) fn js(e: wasm_bindgen::JsValue) -> ActError {
    ActError::Js(crate::js::js_message(&e))
}

/// Fires a bubbling event of `kind` (`change`, `input`, …).
pub(super) fn fire(el: &Element, kind: &str) -> Result<(), ActError> {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict(kind, &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)?;
    Ok(())
}

/// Fires an `input` event carrying `inputType` and `data`, as editors and frameworks expect.
pub(super) fn fire_input(el: &Element, input_type: &str, data: &str) -> Result<(), ActError> {
    let init = web_sys::InputEventInit::new();
    init.set_bubbles(true);
    init.set_input_type(input_type);
    init.set_data(Some(data));
    let event = web_sys::InputEvent::new_with_event_init_dict("input", &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)?;
    Ok(())
}

/// The mouse's pointer id in Chrome: a page that captures the pointer on `pointerdown`
/// (`setPointerCapture(e.pointerId)`, sliders and drag handles) throws for an id no pointer has.
const MOUSE_POINTER_ID: i32 = 1;

/// Fires a mouse (or pointer) event at viewport point `(x, y)`, the primary button held only
/// while pressing.
pub(super) fn mouse(el: &Element, kind: &str, x: f64, y: f64, detail: u32) -> Result<(), ActError> {
    let pressing = kind == "pointerdown" || kind == "mousedown";
    mouse_with(el, kind, x, y, detail, u16::from(pressing)).map(|_| ())
}

/// Fires a mouse (or pointer) event at viewport point `(x, y)` with the `buttons` held (1 while
/// dragging); returns false when a listener cancelled it.
pub(super) fn mouse_with(
    el: &Element,
    kind: &str,
    x: f64,
    y: f64,
    detail: u32,
    buttons: u16,
) -> Result<bool, ActError> {
    let bubbles = !matches!(kind, "mouseenter" | "pointerenter" | "mouseleave" | "pointerleave");
    if kind.starts_with("pointer") {
        let init = web_sys::PointerEventInit::new();
        init.set_bubbles(bubbles);
        init.set_cancelable(true);
        init.set_composed(true);
        init.set_client_x(x as i32);
        init.set_client_y(y as i32);
        init.set_pointer_id(MOUSE_POINTER_ID);
        init.set_pointer_type("mouse");
        init.set_is_primary(true);
        init.set_buttons(buttons);
        init.set_pressure(if buttons > 0 { 0.5 } else { 0.0 });
        let event = web_sys::PointerEvent::new_with_event_init_dict(kind, &init).map_err(js)?;
        return el.dispatch_event(&event).map_err(js);
    }
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(bubbles);
    init.set_cancelable(true);
    init.set_composed(true);
    init.set_client_x(x as i32);
    init.set_client_y(y as i32);
    init.set_detail(detail as i32);
    init.set_buttons(buttons);
    if let Some(view) = web_sys::window() {
        init.set_view(Some(&view));
    }
    let event = web_sys::MouseEvent::new_with_mouse_event_init_dict(kind, &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)
}

/// Fires an HTML5 drag-and-drop event (`dragstart`, `dragover`, `drop`, …) carrying `data`,
/// the one `DataTransfer` of the whole drag; returns false when a listener cancelled it (for
/// `dragover`: the page accepts a drop there).
pub(super) fn drag_event(
    el: &Element,
    kind: &str,
    x: f64,
    y: f64,
    data: &web_sys::DataTransfer,
) -> Result<bool, ActError> {
    let init = web_sys::DragEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(!matches!(kind, "dragleave" | "dragend"));
    init.set_composed(true);
    init.set_client_x(x as i32);
    init.set_client_y(y as i32);
    init.set_buttons(u16::from(kind != "drop" && kind != "dragend"));
    init.set_data_transfer(Some(data));
    if let Some(view) = web_sys::window() {
        init.set_view(Some(&view));
    }
    let event = web_sys::DragEvent::new_with_event_init_dict(kind, &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)
}

/// Fires a cancelable `beforeinput` carrying `inputType` and `data`; returns false when the
/// page cancelled it (an editor that applies the edit to its own model, then redraws).
pub(super) fn before_input(el: &Element, input_type: &str, data: &str) -> Result<bool, ActError> {
    let init = web_sys::InputEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_composed(true);
    init.set_input_type(input_type);
    init.set_data(Some(data));
    let event = web_sys::InputEvent::new_with_event_init_dict("beforeinput", &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)
}

/// The element's centre in viewport coordinates.
pub(super) fn point_of(el: &Element) -> (f64, f64) {
    let rect = el.get_bounding_client_rect();
    (rect.x() + rect.width() / 2.0, rect.y() + rect.height() / 2.0)
}

/// Fires a keyboard event (`keydown`, `keypress`, `keyup`); returns false when a listener
/// cancelled it.
pub(super) fn key(
    el: &Element,
    kind: &str,
    press: &crate::observation::rules::KeyPress,
) -> Result<bool, ActError> {
    let init = web_sys::KeyboardEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_composed(true);
    init.set_key(&press.key);
    init.set_code(&press.code);
    init.set_ctrl_key(press.ctrl);
    init.set_shift_key(press.shift);
    init.set_alt_key(press.alt);
    init.set_meta_key(press.meta);
    // Old code (and terminal emulators) read keyCode/which/charCode; the init dictionary of
    // the DOM has no such members, so they are set the way Chrome still reads them.
    let (code, char_code) = crate::observation::rules::key_codes(press, kind == "keypress");
    if code > 0 {
        js_sys::Reflect::set(&init, &"keyCode".into(), &code.into()).map_err(js)?;
        js_sys::Reflect::set(&init, &"which".into(), &code.into()).map_err(js)?;
    }
    if char_code > 0 {
        js_sys::Reflect::set(&init, &"charCode".into(), &char_code.into()).map_err(js)?;
    }
    let event =
        web_sys::KeyboardEvent::new_with_keyboard_event_init_dict(kind, &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)
}
