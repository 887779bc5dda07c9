//! Performs actions on the elements of the latest observation.

use super::dom::{REFS, live_fingerprint};
use crate::action::{Action, ActionOutcome};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlTextAreaElement};

/// Performs one action; never acts on an element other than the one the ref named.
pub fn perform(action: &Action) -> ActionOutcome {
    let Some(ref_id) = action.target_ref() else {
        return ActionOutcome::failed("this action is not performed in the page");
    };
    let element = match resolve(ref_id) {
        Ok(el) => el,
        Err(reason) => return ActionOutcome::failed(reason),
    };
    let result = match action {
        Action::Click { .. } => click(&element),
        Action::Type { text, .. } => type_text(&element, text),
        Action::Done { .. } => Err("done is not a page action".to_owned()),
    };
    result.unwrap_or_else(ActionOutcome::failed)
}

fn resolve(ref_id: u32) -> Result<Element, String> {
    let entry = REFS.with(|refs| {
        refs.borrow()
            .get(ref_id.wrapping_sub(1) as usize)
            .map(|e| (e.element.clone(), e.fingerprint.clone()))
    });
    let Some((element, fingerprint)) = entry else {
        return Err(format!("no element [{ref_id}] in the latest observation"));
    };
    if !element.is_connected() {
        return Err(format!("element [{ref_id}] is no longer on the page; observe again"));
    }
    if live_fingerprint(&element).as_deref() != Some(fingerprint.as_str()) {
        return Err(format!(
            "element [{ref_id}] changed since the page was read (its fingerprint no longer \
             matches); observe again"
        ));
    }
    Ok(element)
}

fn click(element: &Element) -> Result<ActionOutcome, String> {
    let html: &HtmlElement = element.dyn_ref().ok_or("the element cannot be clicked")?;
    element.scroll_into_view_with_bool(false);
    let rect = element.get_bounding_client_rect();
    let (x, y) = (rect.x() + rect.width() / 2.0, rect.y() + rect.height() / 2.0);
    if rect.width() > 0.0 && rect.height() > 0.0 {
        let document = element.owner_document().ok_or("no document")?;
        if let Some(hit) = document.element_from_point(x as f32, y as f32)
            && !element.contains(Some(&hit))
            && !hit.contains(Some(element))
        {
            return Err(format!(
                "another element covers it: <{}> “{}”",
                hit.tag_name().to_ascii_lowercase(),
                crate::observation::clean(&hit.text_content().unwrap_or_default())
                    .chars()
                    .take(60)
                    .collect::<String>()
            ));
        }
    }
    let _ = html.focus();
    html.click();
    Ok(ActionOutcome::done())
}

/// Sets the value through the prototype's setter (so React/Vue value trackers see a change),
/// then fires `input` and `change` like a user would.
fn type_text(element: &Element, text: &str) -> Result<ActionOutcome, String> {
    let html: &HtmlElement = element.dyn_ref().ok_or("the element cannot take text")?;
    let _ = html.focus();
    let proto = if element.is_instance_of::<HtmlInputElement>() {
        "HTMLInputElement"
    } else if element.is_instance_of::<HtmlTextAreaElement>() {
        "HTMLTextAreaElement"
    } else if html.is_content_editable() {
        html.set_text_content(Some(text));
        fire(element, "input")?;
        return Ok(ActionOutcome { value_changed: true, ..ActionOutcome::done() });
    } else {
        return Err("the element is not a text field".to_owned());
    };
    let global = js_sys::global();
    let class = js_sys::Reflect::get(&global, &proto.into()).map_err(|_| "no prototype")?;
    let prototype =
        js_sys::Reflect::get(&class, &"prototype".into()).map_err(|_| "no prototype")?;
    let descriptor =
        js_sys::Object::get_own_property_descriptor(&prototype.into(), &"value".into());
    let setter = js_sys::Reflect::get(&descriptor, &"set".into()).map_err(|_| "no value setter")?;
    let setter: js_sys::Function = setter.dyn_into().map_err(|_| "no value setter")?;
    setter
        .call1(element, &JsValue::from_str(text))
        .map_err(|e| format!("setting the value failed: {}", super::super::js_message(&e)))?;
    fire(element, "input")?;
    fire(element, "change")?;
    Ok(ActionOutcome { value_changed: true, ..ActionOutcome::done() })
}

fn fire(element: &Element, kind: &str) -> Result<(), String> {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict(kind, &init)
        .map_err(|e| super::super::js_message(&e))?;
    element.dispatch_event(&event).map_err(|e| super::super::js_message(&e))?;
    Ok(())
}
