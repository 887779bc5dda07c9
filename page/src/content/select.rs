//! Custom dropdowns (a combobox or button that opens a list of `role=option` elements, as
//! component libraries draw them, often over a hidden native `<select>`): opened with a click,
//! the option clicked once the library has drawn the list, and the outcome read back — the
//! control must show the chosen option afterwards, or the action says it did not take.

use super::act::{click, matches_option};
use super::drag::sleep;
use crate::act_error::{ActError, ChoiceError, Undone};
use crate::action::ActionOutcome;
use crate::observation::clean;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlElement, HtmlInputElement};

/// Waits between looks at the list or the control, in ms (a frame or so).
const POLL_MS: i32 = 25;
/// Looks before giving up on the list appearing or the control showing the choice (~1 s).
const POLLS: u32 = 40;
/// Ancestors of the control whose text may show the choice (the wrapper a library draws).
const SHOWN_DEPTH: u32 = 3;

/// Opens the dropdown `el` and clicks its option named `option`.
pub(super) async fn custom(el: &Element, option: &str) -> Result<ActionOutcome, ActError> {
    if super::facts::aria(el, "role").as_deref() == Some("option") {
        return option_clicked(el).await;
    }
    let before = shown(el);
    let name = |c: &Element| super::roles::accessible_name(c, &c.local_name());
    let value = |c: &Element| {
        c.get_attribute("data-value").or_else(|| c.get_attribute("value")).unwrap_or_default()
    };
    let offers =
        |list: &[Element]| list.iter().any(|c| matches_option(&name(c), &value(c), option));
    let mut visible = options(el);
    // A collapsed control may show its chosen item as an option beside the closed list
    // (Choices.js): that is not the list, so it is opened all the same.
    let collapsed = super::facts::aria(el, "aria-expanded").as_deref() == Some("false");
    let opened = visible.is_empty() || (collapsed && !offers(&visible));
    if opened {
        click(el, 1)?;
    }
    // The library draws its list after the click (a render, a transition).
    for _ in 0..POLLS {
        visible = options(el);
        if offers(&visible) || (!opened && !visible.is_empty()) {
            break;
        }
        sleep(POLL_MS).await;
    }
    let Some(choice) = visible.iter().find(|c| matches_option(&name(c), &value(c), option)) else {
        let names: Vec<String> = visible.iter().map(name).collect();
        return Err(if names.is_empty() {
            ChoiceError::NoneShown
        } else {
            ChoiceError::Missing { wanted: option.to_owned(), offered: names }
        }
        .into());
    };
    let (label, choice_value) = (name(choice), value(choice));
    // The list's own text always names the option: the read-back stops short of it.
    let list = choice.closest("[role=listbox], [role=menu]").ok().flatten();
    let shown_in = [Some(choice.clone()), list].into_iter().flatten().collect::<Vec<_>>();
    // A listbox shown open is its own control: its option says whether it is selected.
    let own_list = super::facts::aria(el, "role").as_deref() == Some("listbox");
    // A list still opening (growing, sliding in) draws the option before the pointer can
    // reach it: the click would land on what lies beneath.
    for _ in 0..POLLS {
        if super::act::pointer_lands_on(choice) {
            break;
        }
        sleep(POLL_MS).await;
    }
    click(choice, 1)?;
    for _ in 0..POLLS {
        let marked =
            own_list && super::facts::aria_now(choice, "aria-selected").as_deref() == Some("true");
        if marked || selected(el, &shown_in, &[label.as_str(), choice_value.as_str()]) {
            let changed = marked || before != shown(el);
            let note = format!("“{}” is selected", clean(&label));
            let (names, chosen) = ([label.clone(), choice_value.clone()], choice.clone());
            super::readback::keep(Undone::Choice, el, move |el| {
                let marked =
                    super::facts::aria_now(&chosen, "aria-selected").as_deref() == Some("true");
                (own_list && marked) || selected(el, &shown_in, &[names[0].as_str(), &names[1]])
            });
            return Ok(ActionOutcome { value_changed: changed, ..ActionOutcome::with_text(note) });
        }
        sleep(POLL_MS).await;
    }
    Err(ChoiceError::NotShown { label, shows: shown(el) }.into())
}

/// Clicks the option `el` itself and reads back whether it says it is selected (a list that
/// closes on the choice takes the option away: then there is nothing left to read).
async fn option_clicked(el: &Element) -> Result<ActionOutcome, ActError> {
    let selected = || super::facts::aria_now(el, "aria-selected").map(|s| s == "true");
    let before = selected();
    let mut outcome = click(el, 1)?;
    outcome.value_changed = true;
    let after = super::readback::read_back(selected, |s| *s != Some(false)).await;
    let label = clean(&super::roles::accessible_name(el, &el.local_name()));
    match (el.is_connected(), before, after) {
        (true, _, Some(false)) => Err(ChoiceError::NotSelected(label).into()),
        (true, Some(true), Some(true)) => Ok(ActionOutcome {
            text: Some(format!("“{label}” was already selected")),
            ..outcome
        }),
        (true, _, Some(true)) => {
            Ok(ActionOutcome { text: Some(format!("“{label}” is selected")), ..outcome })
        }
        _ => Ok(outcome),
    }
}

/// The visible options of the list `el` opens: the element its `aria-controls`/`aria-owns`
/// names, else its shadow root's, else the document's (across open shadow roots, for
/// slotted options).
fn options(el: &Element) -> Vec<Element> {
    let Some(document) = el.owner_document() else { return Vec::new() };
    let root = el.get_root_node();
    // The first element named that lies outside the control: what the control shows inside
    // itself is not its list (Select2's box "controls" its own value line and owns the list).
    let named = [el.get_attribute("aria-controls"), el.get_attribute("aria-owns")];
    let scope: Option<Element> = named
        .iter()
        .flatten()
        .flat_map(|ids| ids.split_whitespace())
        .filter_map(|id| match root.dyn_ref::<web_sys::ShadowRoot>() {
            Some(shadow) => shadow.get_element_by_id(id),
            None => document.get_element_by_id(id),
        })
        .find(|named| !el.contains(Some(named)));
    let mut roots: Vec<JsValue> = Vec::new();
    match (&scope, root.dyn_ref::<web_sys::ShadowRoot>()) {
        (Some(scope), _) => roots.push(scope.clone().into()),
        (None, Some(shadow)) => {
            roots.push(shadow.clone().into());
            // Slotted options live in the host's light DOM.
            roots.push(shadow.host().into());
        }
        (None, None) => roots.push(document.clone().into()),
    }
    // The component the control belongs to (`<fluent-dropdown>` around the button it draws)
    // holds its list in its light DOM.
    let component = (scope.is_none())
        .then(|| {
            std::iter::successors(el.parent_element(), |a| a.parent_element())
                .take(3)
                .find(|a| a.local_name().contains('-'))
        })
        .flatten();
    if let Some(component) = &component {
        roots.push(component.clone().into());
    }
    let selector = "[role=option], [role=menuitem], [role=listbox] li";
    let mut found: Vec<Element> = roots.iter().flat_map(|root| query(root, selector)).collect();
    // Options slotted into the list (`<sl-option>` in `<sl-select>`) are not its descendants.
    for root in &roots {
        for slot in query(root, "slot") {
            for item in assigned_elements(&slot) {
                if item.matches(selector).unwrap_or(false) || is_option_host(&item) {
                    found.push(item.clone());
                }
                found.extend(query(&item.into(), selector));
            }
        }
    }
    // Options whose role only their ElementInternals carry (`<fluent-option>`), in the list
    // the control names or its component (never the whole document, element by element).
    let scanned = roots.iter().filter(|r| !r.is_instance_of::<web_sys::Document>());
    for root in scanned {
        found.extend(query(root, "*").into_iter().filter(is_option_host));
    }
    found.dedup();
    found.into_iter().filter(|c| c.get_bounding_client_rect().height() > 0.0).collect()
}

/// Whether a slotted item is an option by its component's own means: its ElementInternals
/// give it the role, or its shadow root draws the option (`<md-select-option>` renders an
/// `<li role=option>`). The item itself is the option: its light DOM holds the label and value.
fn is_option_host(item: &Element) -> bool {
    let by_internals = super::facts::aria_now(item, "role")
        .is_some_and(|r| matches!(r.split_whitespace().next(), Some("option" | "menuitem")));
    by_internals
        || item.shadow_root().is_some_and(|shadow| {
            shadow.query_selector("[role=option], [role=menuitem]").ok().flatten().is_some()
        })
}

/// The elements assigned to `slot` (flattened through nested slots).
fn assigned_elements(slot: &Element) -> Vec<Element> {
    let Some(slot) = slot.dyn_ref::<web_sys::HtmlSlotElement>() else { return Vec::new() };
    let options = web_sys::AssignedNodesOptions::new();
    options.set_flatten(true);
    slot.assigned_nodes_with_options(&options)
        .iter()
        .filter_map(|e| e.dyn_into::<Element>().ok())
        .collect()
}

fn query(root: &JsValue, selector: &str) -> Vec<Element> {
    let list = js_sys::Reflect::get(root, &"querySelectorAll".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call1(root, &selector.into()).ok())
        .and_then(|l| l.dyn_into::<web_sys::NodeList>().ok());
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<Element>().ok()).collect()
}

/// Whether the choice took: the option says it is selected, or the control (or the wrapper
/// drawn around it, short of the list itself) shows its label or holds it as its value.
fn selected(el: &Element, list: &[Element], names: &[&str]) -> bool {
    let texts: Vec<String> =
        shown_texts(el, list).iter().map(|t| clean(t).to_lowercase()).collect();
    names
        .iter()
        .map(|n| clean(n).to_lowercase())
        .filter(|n| !n.is_empty())
        .any(|n| texts.iter().any(|t| t.contains(&n)))
}

/// What the control shows: its value or value attribute, then the visible text of it and of
/// its wrappers up to [`SHOWN_DEPTH`] levels (none that holds the option itself).
fn shown_texts(el: &Element, list: &[Element]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        out.push(input.value());
    }
    if let Some(v) = el.get_attribute("value") {
        out.push(v);
    }
    // A web component holds its value on its host (`<sl-select value=…>`).
    if let Some(shadow) = el.get_root_node().dyn_ref::<web_sys::ShadowRoot>() {
        let host = shadow.host();
        if let Some(v) =
            js_sys::Reflect::get(&host, &"displayLabel".into()).ok().and_then(|v| v.as_string())
        {
            out.push(v);
        }
        if let Some(v) =
            js_sys::Reflect::get(&host, &"value".into()).ok().and_then(|v| v.as_string())
        {
            out.push(v);
        }
    }
    let mut node = Some(el.clone());
    for _ in 0..=SHOWN_DEPTH {
        let Some(n) = node else { break };
        // A list the choice closed is drawn no more: its text is not what the control shows.
        let drawn = |l: &Element| {
            let r = l.get_bounding_client_rect();
            r.width() > 0.0 || r.height() > 0.0
        };
        if list.iter().any(|l| composed_contains(&n, l) && drawn(l)) {
            break;
        }
        if let Some(html) = n.dyn_ref::<HtmlElement>() {
            out.push(html.inner_text());
        }
        node = n.parent_element();
    }
    out
}

/// The control's shown text, to tell whether the choice changed it.
fn shown(el: &Element) -> String {
    let texts: Vec<String> =
        shown_texts(el, &[]).into_iter().filter(|t| !t.trim().is_empty()).collect();
    texts.join(" ")
}

/// Whether `outer` holds `inner` in the flat tree: through shadow roots and slots (a web
/// component's list holds its slotted options).
fn composed_contains(outer: &Element, inner: &Element) -> bool {
    let mut node = Some(inner.clone());
    for _ in 0..256 {
        let Some(n) = node else { return false };
        if outer == &n {
            return true;
        }
        let slot = js_sys::Reflect::get(&n, &"assignedSlot".into())
            .ok()
            .and_then(|s| s.dyn_into::<Element>().ok());
        node = slot.or_else(|| n.parent_element()).or_else(|| {
            n.parent_node().and_then(|p| p.dyn_into::<web_sys::ShadowRoot>().ok()).map(|s| s.host())
        });
    }
    false
}
