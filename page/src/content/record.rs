//! Teach by showing, in the page: while armed, the user's own trusted clicks, committed
//! values (an editor's text when focus leaves it), choices and Enter presses in this frame are
//! reported to the worker, each with the frame read right before it took effect
//! ([`Demonstrated`]).
//!
//! Listeners sit on the window in the capture phase, so they run before the page's own
//! handlers change anything, and they ignore every event a script made (`isTrusted`). A
//! password field's value is never read.

use super::dom::{self, REFS};
use crate::demonstration::{DEMONSTRATED, Demonstrated, DemonstratedAct, RecordingArmed};
use crate::observation::Ref;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use web_sys::{Element, Event, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

#[wasm_bindgen]
extern "C" {
    /// `chrome.runtime.sendMessage` of the content script's world (the page cannot reach it).
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = sendMessage, catch)]
    fn send_message(message: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// A listener on the window, by event type.
type Listener = (&'static str, Closure<dyn FnMut(Event)>);

/// The listeners while armed (dropping them would free the closures the window still calls).
struct Armed {
    engine: String,
    listeners: Vec<Listener>,
}

thread_local! {
    static ARMED: RefCell<Option<Armed>> = const { RefCell::new(None) };
    /// The value last reported for each field, so a change after an Enter that already
    /// reported it is not reported twice.
    static REPORTED: RefCell<Vec<(Element, String)>> = const { RefCell::new(Vec::new()) };
    /// Editors the user typed into since focus came (a focus or blur is trusted even when a
    /// script caused it, so an editor's text counts only after the user's own input).
    static TYPED_IN: RefCell<Vec<Element>> = const { RefCell::new(Vec::new()) };
}

/// Starts or stops reporting. Arming twice keeps one set of listeners.
pub(super) fn arm(on: bool, engine: String) -> RecordingArmed {
    let Some(window) = web_sys::window() else { return RecordingArmed { recording: false } };
    let previous = ARMED.with(|a| a.borrow_mut().take());
    if let Some(previous) = previous {
        for (kind, listener) in &previous.listeners {
            let _ignored = window.remove_event_listener_with_callback_and_bool(
                kind,
                listener.as_ref().unchecked_ref(),
                true,
            );
        }
    }
    REPORTED.with(|r| r.borrow_mut().clear());
    TYPED_IN.with(|t| t.borrow_mut().clear());
    if !on {
        return RecordingArmed { recording: false };
    }
    let mut listeners: Vec<Listener> = Vec::new();
    for kind in ["click", "change", "keydown", "input", "focusin", "focusout"] {
        let listener = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            if event.is_trusted() {
                on_event(kind, &event);
            }
        });
        if window
            .add_event_listener_with_callback_and_bool(
                kind,
                listener.as_ref().unchecked_ref(),
                true,
            )
            .is_ok()
        {
            listeners.push((kind, listener));
        }
    }
    let recording = listeners.len() == 6;
    ARMED.with(|a| *a.borrow_mut() = Some(Armed { engine, listeners }));
    RecordingArmed { recording }
}

/// The element the event happened on, inside open shadow roots too.
fn target_of(event: &Event) -> Option<Element> {
    let path = event.composed_path();
    path.iter().find_map(|node| node.dyn_into::<Element>().ok())
}

fn on_event(kind: &str, event: &Event) {
    let Some(element) = target_of(event) else { return };
    let tag = element.tag_name().to_ascii_lowercase();
    let act = match kind {
        "click" => click_act(&element, &tag),
        "change" => committed_value(&element),
        // An editor (`contenteditable`) has no change event: its text when focus leaves it,
        // if it changed since focus came.
        "input" => {
            if let Some(editor) = editor_of(&element) {
                TYPED_IN.with(|t| {
                    let mut typed = t.borrow_mut();
                    if !typed.contains(&editor) {
                        typed.push(editor);
                    }
                });
            }
            None
        }
        "focusin" => {
            if let Some(editor) = editor_of(&element) {
                let text = editor_text(&editor);
                remember(&editor, text);
                TYPED_IN.with(|t| t.borrow_mut().retain(|el| *el != editor));
            }
            None
        }
        "focusout" => editor_of(&element).and_then(|editor| {
            let typed = TYPED_IN.with(|t| {
                let mut typed = t.borrow_mut();
                let was = typed.contains(&editor);
                typed.retain(|el| *el != editor);
                was
            });
            if !typed {
                return None;
            }
            let text = editor_text(&editor);
            let changed =
                REPORTED.with(|r| !r.borrow().iter().any(|(el, v)| *el == editor && *v == text));
            if !changed {
                return None;
            }
            remember(&editor, text.clone());
            report(&editor, DemonstratedAct::Type { text });
            None
        }),
        "keydown" => {
            let key = js_sys::Reflect::get(event, &JsValue::from_str("key"))
                .ok()
                .and_then(|k| k.as_string());
            if key.as_deref() != Some("Enter") || !is_text_input(&element) {
                return;
            }
            // The value goes first, then the key that submits it.
            if let Some(typed) = committed_value(&element) {
                report(&element, typed);
            }
            Some(DemonstratedAct::Press { keys: "Enter".into() })
        }
        _ => None,
    };
    if let Some(act) = act {
        report(&element, act);
    }
}

/// What a click on `element` teaches, if anything: a click into a text field only focuses it
/// (its value is reported when committed), and a `<select>` reports its choice.
fn click_act(element: &Element, tag: &str) -> Option<DemonstratedAct> {
    if is_text_input(element) || tag == "textarea" || tag == "select" || tag == "option" {
        return None;
    }
    // A click on a label is followed by the browser's click on its control: that one counts.
    if let Ok(Some(label)) = element.closest("label")
        && label.dyn_ref::<web_sys::HtmlLabelElement>().and_then(|l| l.control()).is_some()
        && element.dyn_ref::<HtmlInputElement>().is_none()
    {
        return None;
    }
    if let Some(input) = element.dyn_ref::<HtmlInputElement>() {
        // During a click's dispatch the box already shows its new state.
        match input.type_().to_ascii_lowercase().as_str() {
            "checkbox" => {
                return Some(if input.checked() {
                    DemonstratedAct::Check
                } else {
                    DemonstratedAct::Uncheck
                });
            }
            "radio" => return Some(DemonstratedAct::Check),
            "file" => return None,
            _ => {}
        }
    }
    if is_editable(element) {
        return None;
    }
    Some(DemonstratedAct::Click)
}

/// The value a field committed (on its change event, or before Enter), when it differs from
/// what was last reported for it.
fn committed_value(element: &Element) -> Option<DemonstratedAct> {
    if let Some(select) = element.dyn_ref::<HtmlSelectElement>() {
        let option = select.selected_options().item(0)?;
        let label = option.text_content().unwrap_or_default().trim().to_owned();
        return Some(DemonstratedAct::Choose { option: label });
    }
    let (value, secret) = if let Some(input) = element.dyn_ref::<HtmlInputElement>() {
        if !is_text_input(element) {
            return None;
        }
        let secret = input.type_().eq_ignore_ascii_case("password");
        (if secret { String::new() } else { input.value() }, secret)
    } else if let Some(area) = element.dyn_ref::<HtmlTextAreaElement>() {
        (area.value(), false)
    } else {
        return None;
    };
    let seen = if secret { format!("secret:{}", value.len()) } else { value.clone() };
    let again = REPORTED.with(|r| r.borrow().iter().any(|(el, v)| el == element && *v == seen));
    if again {
        return None;
    }
    remember(element, seen);
    Some(if secret { DemonstratedAct::TypeSecret } else { DemonstratedAct::Type { text: value } })
}

/// Remembers `value` as what `element` last reported (or held when focus came).
fn remember(element: &Element, value: String) {
    REPORTED.with(|r| {
        let mut reported = r.borrow_mut();
        reported.retain(|(el, _)| el != element);
        reported.push((element.clone(), value));
    });
}

/// The editing host (`contenteditable` root) `element` is in, if any.
fn editor_of(element: &Element) -> Option<Element> {
    if !is_editable(element) {
        return None;
    }
    let mut host = element.clone();
    while let Some(parent) = host.parent_element() {
        if !is_editable(&parent) {
            break;
        }
        host = parent;
    }
    Some(host)
}

/// An editor's text as a person reads it (line breaks kept).
fn editor_text(editor: &Element) -> String {
    editor.dyn_ref::<web_sys::HtmlElement>().map(|el| el.inner_text()).unwrap_or_default()
}

/// Inputs a person types text into.
fn is_text_input(element: &Element) -> bool {
    element.dyn_ref::<HtmlInputElement>().is_some_and(super::keys::is_text_field)
}

fn is_editable(element: &Element) -> bool {
    element.dyn_ref::<web_sys::HtmlElement>().is_some_and(|el| el.is_content_editable())
}

/// Reads the frame, finds the element's ref and sends the step to the worker.
fn report(element: &Element, act: DemonstratedAct) {
    let engine = ARMED.with(|a| a.borrow().as_ref().map(|a| a.engine.clone()));
    let Some(engine) = engine else { return };
    let observation = match dom::observe(engine) {
        Ok(observation) => observation,
        Err(e) => return tracing::warn!(error = %e, "could not read the page for a recorded step"),
    };
    let Some(target) = ref_of(element) else {
        return tracing::debug!("a recorded step's element is not one Waymark lists");
    };
    let destination = super::describe::describe(Some(target)).ok().and_then(|facts| {
        facts.href.or_else(|| facts.submits_form.then_some(facts.form_action).flatten())
    });
    let step = Demonstrated { observation, target, act, destination };
    let json = match serde_json::to_string(&step) {
        Ok(json) => json,
        Err(e) => return tracing::warn!(error = %e, "could not encode a recorded step"),
    };
    let message = js_sys::Object::new();
    let set = |key: &str, value: &str| {
        // Setting a property of a new plain object does not throw.
        let _ignored =
            js_sys::Reflect::set(&message, &JsValue::from_str(key), &JsValue::from_str(value));
    };
    set("waymark", DEMONSTRATED);
    set("step", &json);
    match send_message(&message) {
        // No listener (the worker is restarting) rejects: the step is lost, and said so.
        Ok(sent) => wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = wasm_bindgen_futures::JsFuture::from(sent).await {
                tracing::warn!(error = ?e, "a recorded step did not reach Waymark");
            }
        }),
        Err(e) => tracing::warn!(error = ?e, "a recorded step could not be sent"),
    }
}

/// The ref of the element or of its nearest listed ancestor (a click lands on an icon inside
/// a button); a label stands for the control it names.
fn ref_of(element: &Element) -> Option<Ref> {
    let listed = |el: &Element| {
        REFS.with(|refs| {
            refs.borrow()
                .iter()
                .position(|entry| entry.element == *el)
                .map(|i| Ref::top(i as u32 + 1))
        })
    };
    let mut at = Some(element.clone());
    while let Some(el) = at {
        if let Some(found) = listed(&el) {
            return Some(found);
        }
        if let Some(label) = el.dyn_ref::<web_sys::HtmlLabelElement>()
            && let Some(control) = label.control()
            && let Some(found) = listed(&control)
        {
            return Some(found);
        }
        at = match el.parent_element() {
            Some(parent) => Some(parent),
            None => el
                .parent_node()
                .and_then(|n| n.dyn_into::<web_sys::ShadowRoot>().ok())
                .map(|root| root.host()),
        };
    }
    None
}
