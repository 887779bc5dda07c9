//! The facts of the live element an action targets, for the safety policy: what it is, where a
//! link or its form really goes (formaction of the submitter included) and what a submission
//! would send. Read from the DOM at the moment of the check, never from the model's words.

use super::act::resolve;
use super::forms::string_prop;
use super::roles::{accessible_name, input_type, live_fingerprint};
use crate::error::ContentError;
use crate::observation::Ref;
use crate::observation::{clean, shorten};
use crate::target::{ActionTarget, DocumentOrigin};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::wasm_bindgen;
use web_sys::{Element, HtmlAnchorElement, HtmlFormElement};

#[wasm_bindgen(module = "/js/describe.js")]
extern "C" {
    /// What the element draws: `::before` content, its rendered text, `::after` content, and
    /// `rtl-override` when a bidi override shows its text backwards.
    fn drawn_parts(el: &Element) -> Vec<String>;
}

/// Longest drawn text kept for the policy.
const MAX_SHOWN: usize = 160;

/// What `el` draws for a person, in display order, when it differs from `name` (else empty).
fn shown(el: &Element, name: &str) -> String {
    let parts = drawn_parts(el);
    let part = |i: usize| parts.get(i).map(String::as_str).unwrap_or_default();
    let text = if part(3) == "rtl-override" {
        part(1).chars().rev().collect()
    } else {
        part(1).to_owned()
    };
    let drawn = clean(&format!("{} {text} {}", part(0), part(2)));
    if drawn.to_lowercase() == name.to_lowercase() {
        String::new()
    } else {
        shorten(&drawn, MAX_SHOWN)
    }
}

/// Facts of the element `target` names (the focused element when `None`).
pub fn describe(target: Option<Ref>) -> Result<ActionTarget, ContentError> {
    let window = web_sys::window().ok_or_else(ContentError::no_document)?;
    let document = window.document().ok_or_else(ContentError::no_document)?;
    let page_url = document.url().unwrap_or_default();
    // The frame's own origin as the browser holds it (`about:srcdoc` frames inherit their
    // parent's, sandboxed ones report "null"): scope is judged on it, never on the URL.
    let origin = DocumentOrigin::from(window.origin());
    let el = match target {
        Some(r) => resolve(r)?,
        None => match document.active_element() {
            Some(el) => el,
            None => return Ok(ActionTarget { page_url, origin, ..ActionTarget::default() }),
        },
    };
    let tag = el.local_name();
    let role = live_fingerprint(&el)
        .and_then(|f| f.split('|').next().map(str::to_owned))
        .unwrap_or_default();
    let link = el
        .closest("a[href], area[href]")
        .ok()
        .flatten()
        .and_then(|a| a.dyn_into::<HtmlAnchorElement>().ok());
    let form = form_of(&el);
    let submitter = is_submitter(&el, &tag);
    // Enter in a field presses the form's default button: its words and its formaction are
    // what that Enter means and where it sends.
    let pressed = if submitter { Some(el.clone()) } else { form.as_ref().and_then(default_button) };
    let form_action = form.as_ref().map(|f| match &pressed {
        Some(button) if button.has_attribute("formaction") => string_prop(button, "formAction"),
        _ => super::unforgeable::form_action(f),
    });
    let form_method = form.as_ref().map_or_else(String::new, |f| match &pressed {
        Some(button) if button.has_attribute("formmethod") => {
            string_prop(button, "formMethod").to_lowercase()
        }
        _ => super::unforgeable::form_method(f).to_lowercase(),
    });
    let default_button = match (&pressed, submitter) {
        (Some(button), false) => accessible_name(button, &button.local_name()),
        _ => String::new(),
    };
    let name = super::roles::name_as(&el, &tag, &role);
    Ok(ActionTarget {
        role,
        shown: shown(&el, &name),
        name,
        input_type: if tag == "input" || tag == "button" {
            string_prop(&el, "type").to_lowercase()
        } else {
            String::new()
        },
        autocomplete: el.get_attribute("autocomplete").unwrap_or_default().to_lowercase(),
        href: link.as_ref().map(HtmlAnchorElement::href).filter(|h| !h.is_empty()),
        download: link.as_ref().is_some_and(|a| a.has_attribute("download")),
        submits_form: submitter && form.is_some(),
        form_data: form.as_ref().map(form_data).unwrap_or_default(),
        form_action,
        form_method,
        default_button,
        tag,
        page_url,
        origin,
    })
}

/// The form's default button (HTML's implicit submission): its first submit button in tree
/// order.
pub(super) fn default_button(form: &HtmlFormElement) -> Option<Element> {
    super::unforgeable::form_controls(form)
        .into_iter()
        .find(|control| is_submitter(control, &control.local_name()))
}

/// The element's form: its `form` property (which honours the `form=` attribute), else the
/// closest `<form>` around it.
fn form_of(el: &Element) -> Option<HtmlFormElement> {
    let own = js_sys::Reflect::get(el, &"form".into()).ok();
    if let Some(form) = own.and_then(|f| f.dyn_into::<HtmlFormElement>().ok()) {
        return Some(form);
    }
    el.closest("form").ok().flatten().and_then(|f| f.dyn_into::<HtmlFormElement>().ok())
}

/// Whether activating the element submits its form: submit buttons (a `<button>` without a
/// type is one) and submit or image inputs.
fn is_submitter(el: &Element, tag: &str) -> bool {
    match tag {
        "button" => string_prop(el, "type") == "submit",
        "input" => matches!(input_type(el).as_str(), "submit" | "image"),
        _ => false,
    }
}

/// `name=value` of every named control of the form, passwords and files left out: what a
/// submission would carry to the form's action.
fn form_data(form: &HtmlFormElement) -> String {
    let mut out = Vec::new();
    for control in super::unforgeable::form_controls(form) {
        let name = control.get_attribute("name").unwrap_or_default();
        let kind = input_type(&control);
        if name.is_empty() || kind == "password" || kind == "file" {
            continue;
        }
        out.push(format!("{name}={}", string_prop(&control, "value")));
    }
    out.join("&")
}
