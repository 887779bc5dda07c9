//! Synthetic DOM events, fired the way a user's input would fire them.

use wasm_bindgen::JsCast;
use web_sys::Element;

fn js(e: wasm_bindgen::JsValue) -> String {
    crate::js::js_message(&e)
}

/// Fires a bubbling event of `kind` (`change`, `input`, …).
pub(super) fn fire(el: &Element, kind: &str) -> Result<(), String> {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict(kind, &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)?;
    Ok(())
}

/// Fires an `input` event carrying `inputType` and `data`, as editors and frameworks expect.
pub(super) fn fire_input(el: &Element, input_type: &str, data: &str) -> Result<(), String> {
    let init = web_sys::InputEventInit::new();
    init.set_bubbles(true);
    init.set_input_type(input_type);
    init.set_data(Some(data));
    let event = web_sys::InputEvent::new_with_event_init_dict("input", &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)?;
    Ok(())
}

/// Fires a mouse (or pointer) event at viewport point `(x, y)`.
pub(super) fn mouse(el: &Element, kind: &str, x: f64, y: f64, detail: u32) -> Result<(), String> {
    let bubbles = !matches!(kind, "mouseenter" | "pointerenter");
    if kind.starts_with("pointer") {
        let init = web_sys::PointerEventInit::new();
        init.set_bubbles(bubbles);
        init.set_cancelable(true);
        init.set_composed(true);
        init.set_client_x(x as i32);
        init.set_client_y(y as i32);
        init.set_pointer_type("mouse");
        init.set_is_primary(true);
        init.set_buttons(u16::from(kind == "pointerdown"));
        let event = web_sys::PointerEvent::new_with_event_init_dict(kind, &init).map_err(js)?;
        el.dispatch_event(&event).map_err(js)?;
        return Ok(());
    }
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(bubbles);
    init.set_cancelable(true);
    init.set_composed(true);
    init.set_client_x(x as i32);
    init.set_client_y(y as i32);
    init.set_detail(detail as i32);
    init.set_buttons(u16::from(kind == "mousedown"));
    if let Some(view) = web_sys::window() {
        init.set_view(Some(&view));
    }
    let event = web_sys::MouseEvent::new_with_mouse_event_init_dict(kind, &init).map_err(js)?;
    el.dispatch_event(&event).map_err(js)?;
    Ok(())
}

/// The element's centre in viewport coordinates.
pub(super) fn point_of(el: &Element) -> (f64, f64) {
    let rect = el.get_bounding_client_rect();
    (rect.x() + rect.width() / 2.0, rect.y() + rect.height() / 2.0)
}

/// Fires a keyboard event; returns false when a listener cancelled it.
pub(super) fn key(
    el: &Element,
    kind: &str,
    press: &crate::observation::rules::KeyPress,
) -> Result<bool, String> {
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
    if press.key == "Enter" {
        // Old code reads keyCode/which; they are not settable through the init dictionary.
        js_sys::Reflect::set(&init, &"keyCode".into(), &13.into()).map_err(js)?;
        js_sys::Reflect::set(&init, &"which".into(), &13.into()).map_err(js)?;
    }
    let event =
        web_sys::KeyboardEvent::new_with_keyboard_event_init_dict(kind, &init).map_err(js)?;
    let _ = event.dyn_ref::<web_sys::Event>();
    el.dispatch_event(&event).map_err(js)
}
