//! DOM reads a page cannot shadow. A form's named controls shadow the form's own properties
//! (`<input name="action">` makes `form.action` that input, `name="elements"` hides the
//! control list) and a document's named images and forms shadow `document.forms`. web-sys's
//! getters trust the declared type: a string getter handed an element corrupts the wasm
//! memory (`memory access out of bounds`), and a shadowed collection reads as empty, so a form
//! could hide what it sends. These reads go through the interface's own getter on its
//! prototype instead, which named properties never shadow (and which the content script's
//! isolated world owns: the page cannot replace it).

use crate::act_error::{ActError, FieldError};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlCollection};

/// The prototype of `interface` (`"HTMLFormElement"`) in this world.
fn prototype(interface: &str) -> Option<js_sys::Object> {
    let class = js_sys::Reflect::get(&js_sys::global(), &interface.into()).ok()?;
    js_sys::Reflect::get(&class, &"prototype".into()).ok()?.dyn_into().ok()
}

/// The value of `property` of `object` as `interface` defines it, or `None` when the
/// interface has no such getter.
fn own(object: &JsValue, interface: &str, property: &str) -> Option<JsValue> {
    let descriptor =
        js_sys::Object::get_own_property_descriptor(&prototype(interface)?, &property.into());
    let getter = js_sys::Reflect::get(&descriptor, &"get".into()).ok()?;
    getter.dyn_ref::<js_sys::Function>()?.call0(object).ok()
}

/// A form's `action` (its absolute action URL), whatever its controls are named.
pub(super) fn form_action(form: &Element) -> String {
    own(form, "HTMLFormElement", "action").and_then(|v| v.as_string()).unwrap_or_default()
}

/// A form's `method` (`get`, `post` or `dialog`), whatever its controls are named.
pub(super) fn form_method(form: &Element) -> String {
    own(form, "HTMLFormElement", "method").and_then(|v| v.as_string()).unwrap_or_default()
}

/// A form's controls (`form.elements`, in tree order), whatever they are named.
pub(super) fn form_controls(form: &Element) -> Vec<Element> {
    own(form, "HTMLFormElement", "elements")
        .and_then(|v| v.dyn_into::<HtmlCollection>().ok())
        .map(|c| (0..c.length()).filter_map(|i| c.item(i)).collect())
        .unwrap_or_default()
}

/// The document's forms (`document.forms`), whatever its images and forms are named.
pub(super) fn document_forms(document: &web_sys::Document) -> Vec<Element> {
    own(document, "Document", "forms")
        .and_then(|v| v.dyn_into::<HtmlCollection>().ok())
        .map(|c| (0..c.length()).filter_map(|i| c.item(i)).collect())
        .unwrap_or_default()
}

/// Submits the form as its submit button would (`requestSubmit`: validation and the submit
/// event), whatever its controls are named.
pub(super) fn request_submit(form: &Element) -> Result<(), ActError> {
    let submit = prototype("HTMLFormElement")
        .and_then(|p| js_sys::Reflect::get(&p, &"requestSubmit".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or(FieldError::NoRequestSubmit)?;
    submit.call0(form).map(|_| ()).map_err(super::events::js)
}
