//! Reads an element's role, accessible name and states from the DOM; the rules themselves are
//! in [`crate::observation::rules`].

use super::facts::{Attrs, NodeFacts};
use crate::observation::rules::{self, RoleFacts};
use crate::observation::{Element as Info, Ref, clean, shorten};
use wasm_bindgen::JsCast;
use web_sys::{
    Element, HtmlElement, HtmlInputElement, HtmlOptionElement, HtmlSelectElement,
    HtmlTextAreaElement,
};

/// Longest accessible name kept.
const MAX_NAME: usize = 60;

/// Longest text-area value shown on the element's line.
const MAX_AREA: usize = 1500;
/// Options of a select listed before `+N`.
const MAX_OPTIONS: usize = 12;
/// The state of a text field that holds several lines (a `<textarea>`, `aria-multiline`).
const MULTILINE: &str = "multiline";

/// An element's description and the fingerprint that later proves a ref still names it.
pub(super) struct Described {
    pub info: Info,
    pub fingerprint: String,
}

/// Lower-case `type` of an input.
pub(super) fn input_type(el: &Element) -> String {
    el.get_attribute("type").unwrap_or_default().to_ascii_lowercase()
}

/// A `tabindex` of 0 or more puts an element in the tab order: script made it a control.
fn focusable_by_tabindex(el: &Element) -> bool {
    el.get_attribute("tabindex").and_then(|t| t.trim().parse::<i32>().ok()).is_some_and(|t| t >= 0)
}

/// A `select` shown as a list (`multiple`, or `size` above 1) rather than a drop-down.
fn is_list_select(el: &Element, tag: &str) -> bool {
    tag == "select"
        && (el.has_attribute("multiple")
            || el.get_attribute("size").and_then(|s| s.parse::<u32>().ok()).is_some_and(|s| s > 1))
}

/// The role the model sees; `pointer` = `cursor: pointer` starts on this element.
/// A label standing for a checkbox or radio that is not rendered (the styled-label pattern)
/// takes its control's role: the label is what a person clicks.
fn label_toggle_role(el: &Element, tag: &str) -> Option<&'static str> {
    if tag != "label" || !super::usable::toggle_unrendered(el) {
        return None;
    }
    let control = js_sys::Reflect::get(el, &"control".into()).ok()?;
    let input = control.dyn_into::<HtmlInputElement>().ok()?;
    Some(if input.type_() == "radio" { "radio" } else { "checkbox" })
}

/// The control a label stands for, when it stands for an unrendered toggle.
pub(super) fn toggle_of_label(el: &Element) -> Option<HtmlInputElement> {
    label_toggle_role(el, &el.local_name())?;
    js_sys::Reflect::get(el, &"control".into()).ok()?.dyn_into::<HtmlInputElement>().ok()
}

pub(super) fn interactive_role(el: &Element, tag: &str, pointer: bool) -> Option<&'static str> {
    if let Some(role) = label_toggle_role(el, tag) {
        return Some(role);
    }
    let role = super::facts::aria(el, "role");
    let input_type = if tag == "input" { input_type(el) } else { String::new() };
    let editable = el.get_attribute("contenteditable").is_some_and(|v| v != "false");
    let clickable = pointer
        || el.has_attribute("onclick")
        || focusable_by_tabindex(el)
        || super::facts::has_listener(el);
    let list_select = is_list_select(el, tag);
    let base = rules::interactive_role(RoleFacts {
        tag,
        input_type: &input_type,
        role: role.as_deref(),
        has_href: tag == "a" && el.has_attribute("href"),
        editable,
        list_select,
        clickable,
    });
    // As the walk decides it (drop zones, terminals, scrolling boxes, delegating roots).
    let height = web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    let signals = super::widgets::live_signals(el, pointer);
    super::widgets::refine(el, tag, base, signals, height)
}

/// The role from the walk's batched reads ([`NodeFacts`]): attribute values are read only
/// where the facts say the attribute exists. `tag` is `""` for tags the walk does not know.
pub(super) fn interactive_role_of(
    el: &Element,
    facts: NodeFacts,
    pointer: bool,
) -> Option<&'static str> {
    let tag = facts.tag();
    if let Some(role) = label_toggle_role(el, tag) {
        return Some(role);
    }
    let role = if facts.has_role() { super::facts::aria(el, "role") } else { None };
    let input_type = if tag == "input" { input_type(el) } else { String::new() };
    let clickable = pointer
        || facts.onclick()
        || facts.listener()
        || (facts.has_tabindex() && focusable_by_tabindex(el));
    let list_select = is_list_select(el, tag);
    rules::interactive_role(RoleFacts {
        tag,
        input_type: &input_type,
        role: role.as_deref(),
        has_href: tag == "a" && facts.has_href(),
        editable: facts.editable(),
        list_select,
        clickable,
    })
}

/// Heading level of `h1`–`h6` or `role=heading` (`has_role`: the element has a role attribute).
pub(super) fn heading_level(el: &Element, tag: &str, has_role: bool) -> Option<u8> {
    let bytes = tag.as_bytes();
    if bytes.len() == 2 && bytes[0] == b'h' && (b'1'..=b'6').contains(&bytes[1]) {
        return Some(bytes[1] - b'0');
    }
    if has_role && super::facts::aria(el, "role").as_deref() == Some("heading") {
        return Some(
            super::facts::aria(el, "aria-level").and_then(|l| l.parse().ok()).unwrap_or(2),
        );
    }
    None
}

pub(super) fn sensitive(attrs: &Attrs) -> bool {
    let hint = format!(
        "{} {}",
        attrs.get("name").unwrap_or_default(),
        attrs.get("id").unwrap_or_default()
    );
    rules::is_sensitive(
        &attrs.get("type").unwrap_or_default().to_ascii_lowercase(),
        attrs.get("autocomplete").unwrap_or_default(),
        &hint,
    )
}

/// Role, name, value and states of an interactive element.
pub(super) fn describe(el: &Element, tag: &str, role: &'static str, index: u32) -> Described {
    let mut states: Vec<String> = Vec::new();
    let mut value = None;
    let mut options = Vec::new();
    let attrs = Attrs::of(el);
    let aria = |name: &str| attrs.owned(name);
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        match attrs.get("type").unwrap_or_default().to_ascii_lowercase().as_str() {
            "checkbox" | "radio" => {
                if input.checked() {
                    states.push("checked".into());
                }
            }
            "button" | "submit" | "reset" | "image" => {}
            "file" => {
                let count = input.files().map(|f| f.length()).unwrap_or(0);
                if count > 0 {
                    value = Some(format!("{count} file(s)"));
                }
            }
            _ if sensitive(&attrs) => {
                states.push("sensitive".into());
                if !input.value().is_empty() {
                    states.push("filled".into());
                }
            }
            kind => {
                value = Some(shorten(&input.value(), 200));
                if let Some(format) = crate::formats::FieldKind::of(kind) {
                    states.push(format.state().into());
                    for bound in ["min", "max", "step"] {
                        if let Some(v) = el.get_attribute(bound).filter(|v| !v.is_empty()) {
                            states.push(format!("{bound}={}", clean(&v)));
                        }
                    }
                }
            }
        }
        if input.disabled() {
            states.push("disabled".into());
        }
        if input.required() {
            states.push("required".into());
        }
        if input.matches(":user-invalid").unwrap_or(false) {
            states.push("invalid".into());
        }
    } else if let Some(area) = el.dyn_ref::<HtmlTextAreaElement>() {
        // What a line break does differs from a one-line box (Enter submits there): said as
        // ARIA says it.
        states.push(MULTILINE.into());
        if sensitive(&attrs) {
            states.push("sensitive".into());
        } else {
            // Long enough for a message or a review being written; `extract` gives all.
            value = Some(shorten(&area.value(), MAX_AREA));
        }
        if area.disabled() {
            states.push("disabled".into());
        }
        if area.required() {
            states.push("required".into());
        }
    } else if let Some(select) = el.dyn_ref::<HtmlSelectElement>() {
        let all = select.options();
        let mut labels = Vec::with_capacity(all.length() as usize);
        let mut chosen = Vec::new();
        for i in 0..all.length() {
            if let Some(option) = all.item(i).and_then(|o| o.dyn_into::<HtmlOptionElement>().ok()) {
                let label = clean(&option.label());
                if option.selected() {
                    chosen.push(label.clone());
                }
                labels.push(label);
            }
        }
        value = Some(chosen.join(", "));
        options = rules::cap_options(labels, MAX_OPTIONS);
        if select.disabled() {
            states.push("disabled".into());
        }
        if select.required() {
            states.push("required".into());
        }
    } else if role == "textbox" {
        if let Some(html) = el.dyn_ref::<HtmlElement>() {
            value = Some(shorten(&clean(&html.inner_text()), 300));
        }
        if aria("aria-multiline").as_deref() == Some("true") {
            states.push(MULTILINE.into());
        }
    } else if tag == "button" && attrs.get("disabled").is_some() {
        states.push("disabled".into());
    }
    if let Some(control) = toggle_of_label(el) {
        if control.checked() {
            states.push("checked".into());
        }
        if control.disabled() {
            states.push("disabled".into());
        }
    }
    if tag == "summary"
        && let Some(details) = el.parent_element()
    {
        states.push(if details.has_attribute("open") { "expanded" } else { "collapsed" }.into());
    }
    for (attr, yes, no) in [
        ("aria-checked", "checked", ""),
        ("aria-selected", "selected", ""),
        ("aria-expanded", "expanded", "collapsed"),
        ("aria-pressed", "pressed", ""),
        ("aria-disabled", "disabled", ""),
        ("aria-required", "required", ""),
        ("aria-invalid", "invalid", ""),
    ] {
        match aria(attr).as_deref() {
            Some("true") if !states.iter().any(|s| s == yes) => states.push(yes.into()),
            Some("mixed") => states.push("mixed".into()),
            Some("false") if !no.is_empty() => states.push(no.into()),
            _ => {}
        }
    }
    if let Some(current) = aria("aria-current").filter(|c| c != "false") {
        states.push(if current == "true" {
            "current".into()
        } else {
            format!("current={current}")
        });
    }
    if value.is_none()
        && let Some(now) = aria("aria-valuenow")
    {
        value = Some(aria("aria-valuetext").filter(|t| !t.trim().is_empty()).unwrap_or(now));
    }
    // A thumb drawn without a role tells no value: where it sits is what a person sees.
    if value.is_none()
        && role == "slider"
        && let Some(thumb) = super::thumb::of(el)
    {
        value = Some(format!("thumb at {}% of its bar", super::thumb::position(el, &thumb)));
    }
    if role == super::widgets::SCROLLABLE {
        states.extend(scroll_states(el));
    }
    let name = super::widgets::special_name(el, tag, role)
        .unwrap_or_else(|| shorten(&raw_name(el, tag, &attrs, Fallback::Icon), MAX_NAME));
    let fingerprint = fingerprint(role, &name, tag);
    let info = Info {
        ref_id: Ref::top(index),
        role: role.into(),
        name,
        value,
        states,
        options,
        ..Info::default()
    };
    Described { info, fingerprint }
}

/// How far a scrolling box's content goes beyond its view: `1200px below`, `300px above`.
fn scroll_states(el: &Element) -> Vec<String> {
    let above = el.scroll_top();
    let below = el.scroll_height() - el.client_height() - above;
    let mut out = Vec::new();
    if above > 0 {
        out.push(format!("{above}px above"));
    }
    if below > 0 {
        out.push(format!("{below}px below"));
    }
    out
}

/// The name a page gives an element itself (aria-labelledby, aria-label, title), without its
/// content: for a scrolling box or a canvas, whose content is read apart (or cannot be).
pub(super) fn own_label(el: &Element) -> String {
    let attrs = Attrs::of(el);
    if let Some(ids) = attrs.get("aria-labelledby") {
        let document = el.owner_document();
        let text: Vec<String> = ids
            .split_whitespace()
            .filter_map(|id| referenced_text(&document.as_ref()?.get_element_by_id(id)?))
            .collect();
        if let Some(text) = non_empty(Some(text.join(" "))) {
            return shorten(&text, MAX_NAME);
        }
    }
    let label = non_empty(attrs.owned("aria-label")).or_else(|| non_empty(attrs.owned("title")));
    shorten(&label.unwrap_or_default(), MAX_NAME)
}

/// The accessible name: aria-labelledby, aria-label, labels, button values, alt, title,
/// placeholder, text content (then the alt or label of an image or icon inside).
pub(super) fn accessible_name(el: &Element, tag: &str) -> String {
    let name = raw_name(el, tag, &Attrs::of(el), Fallback::Icon);
    shorten(&name, MAX_NAME)
}

/// What names an element when nothing the page ties to it does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fallback {
    /// What its classes or picture say it shows ("trash icon").
    Icon,
    /// Nothing: the caller looks beside it first (a control drawn with divs).
    Nothing,
}

/// The element's name from what the page ties to it or its own text, without falling back on
/// its classes or other hints (empty when nothing names it).
pub(super) fn own_name(el: &Element, tag: &str) -> String {
    raw_name(el, tag, &Attrs::of(el), Fallback::Nothing)
}

/// The name of a control drawn without a native element (`role=slider|switch|combobox…` on a
/// `div`): what the page ties to it, else a native control it wraps, else the label a person
/// reads beside it — before its classes ("slider handle icon") — and, for one of a set drawn
/// only as pictures (a rating's stars), its place in the set: `star (4 of 5)`.
pub(super) fn control_name(el: &Element, tag: &str) -> String {
    let attrs = Attrs::of(el);
    let own = non_empty(Some(raw_name(el, tag, &attrs, Fallback::Nothing)));
    // A thumb that draws its value on itself (a value bubble) is not named by that value.
    let value = |attr: &str| attrs.get(attr).map(clean);
    let own = own
        .filter(|o| Some(o) != value("aria-valuenow").as_ref())
        .filter(|o| Some(o) != value("aria-valuetext").as_ref());
    let wrapped = || {
        let inner = el.query_selector("select, input:not([type=hidden]), textarea").ok()??;
        labels_text(&inner)
    };
    // A custom select over a hidden native one: the native one's label, never its options.
    let own = match own {
        Some(text) if !wrapped_options(el, &text) => Some(text),
        _ => wrapped().or(own),
    };
    // Drawn beside the hidden native select it stands for: that select's label; a `<label
    // for>` the page points at the control itself names it too (HTML ties it only to native
    // fields, but a person reads it as the control's label, not the value the control shows).
    let own = super::replaced::replaced_label(el)
        .or_else(|| attrs.get("id").and_then(|id| label_for(el, id)))
        .or(own);
    let name = own
        .or_else(|| {
            let nearby = super::read::nearby_texts(el);
            crate::observation::names::nearby_label(nearby.iter().map(String::as_str))
        })
        .or_else(|| {
            let sources = super::read::icon_sources(el);
            crate::observation::names::icon_name(sources.iter().map(String::as_str))
        })
        .unwrap_or_default();
    let place = |attr: &str| el.get_attribute(attr).and_then(|v| v.trim().parse::<usize>().ok());
    let name = match (place("aria-posinset"), place("aria-setsize")) {
        (Some(at), Some(count)) if at >= 1 && at <= count && content_text(el).trim().is_empty() => {
            crate::observation::order::thumb_name(&name, at - 1, count)
        }
        _ => name,
    };
    shorten(&name, MAX_NAME)
}

/// Whether `text` is what the element's own native `<select>` lists (its options run
/// together), not a name.
fn wrapped_options(el: &Element, text: &str) -> bool {
    let Ok(Some(select)) = el.query_selector("select") else { return false };
    let options = content_text(&select);
    let options = options.trim();
    !options.is_empty() && clean(text).contains(&clean(options))
}

fn non_empty(v: Option<String>) -> Option<String> {
    v.map(|v| clean(&v)).filter(|v| !v.is_empty())
}

fn raw_name(el: &Element, tag: &str, attrs: &Attrs, fallback: Fallback) -> String {
    if let Some(text) = attrs.get("aria-labelledby").and_then(|ids| labelled_by(el, ids)) {
        return text;
    }
    if let Some(label) = non_empty(attrs.owned("aria-label")) {
        return label;
    }
    let field = matches!(tag, "input" | "textarea" | "select");
    // A button is labelable too (`<label for>` naming a switch drawn as a button).
    if (field || tag == "button")
        && let Some(labels) = labels_text(el)
    {
        return labels;
    }
    if tag == "input" {
        let kind = attrs.get("type").unwrap_or_default().to_ascii_lowercase();
        match kind.as_str() {
            "button" | "submit" | "reset" => {
                if let Some(v) = non_empty(el.dyn_ref::<HtmlInputElement>().map(|i| i.value())) {
                    return v;
                }
                let default = if kind == "reset" { "Reset" } else { "Submit" };
                return default.into();
            }
            "image" => {
                if let Some(alt) = non_empty(attrs.owned("alt")) {
                    return alt;
                }
            }
            _ => {}
        }
    }
    // A combobox shows its value, not its name (`<button role=combobox>UTC</button>`): the
    // label of the component it belongs to names it before its text does.
    if attrs.get("role") == Some("combobox")
        && let Some(label) = component_label(el).or_else(|| inner_label(el))
    {
        return label;
    }
    if !field {
        if let Some(text) = non_empty(Some(content_text(el))) {
            return text;
        }
        if let Ok(Some(inner)) = el.query_selector("img[alt], [aria-label], svg title, [title]") {
            let label = non_empty(inner.get_attribute("alt"))
                .or_else(|| non_empty(super::facts::aria(&inner, "aria-label")))
                .or_else(|| non_empty(inner.text_content()))
                .or_else(|| non_empty(inner.get_attribute("title")));
            if let Some(label) = label {
                return label;
            }
        }
    }
    // A control inside a web component is named by what names the component (a `<label>`
    // around `<md-switch>`, its `aria-label`), as a person reads the component.
    if let Some(label) = component_label(el) {
        return label;
    }
    // A control drawn inside a `<label>` that names nothing native (`<label><md-radio>
    // Dark</label>`, a styled box beside its words): the label's words are its name.
    if !field && let Some(label) = label_around(el) {
        return label;
    }
    for attr in ["title", "placeholder", "aria-placeholder", "alt"] {
        if let Some(v) = non_empty(attrs.owned(attr)) {
            return v;
        }
    }
    // Last resort for an icon-only control: what its classes or picture say it shows, with
    // its place among look-alike siblings (a rating's stars: `rating icon (4 of 5)`), so
    // controls that do different things never read the same.
    if !field
        && fallback == Fallback::Icon
        && let Some(name) = icon_named(el)
    {
        return match twin_place(el, &name) {
            Some((at, count)) => crate::observation::order::thumb_name(&name, at, count),
            None => name,
        };
    }
    // A toggle with no label of its own is called what is written beside it.
    if tag == "input"
        && matches!(attrs.get("type"), Some("checkbox" | "radio"))
        && let Some(beside) = super::usable::stand_in(el).and_then(|s| non_empty(s.text_content()))
    {
        return beside;
    }
    if field {
        // No label is tied to it: what a person reads beside it (a `<label>` without `for=`
        // before it, `Name: <input>`, the previous table cell), else the page's own field name.
        let nearby = super::read::nearby_texts(el);
        let nearby = crate::observation::names::nearby_label(nearby.iter().map(String::as_str));
        return nearby.or_else(|| non_empty(attrs.owned("name"))).unwrap_or_default();
    }
    String::new()
}

/// The element's text, but without reading all of a huge subtree: script-made clickable
/// containers can hold a whole feed, and `textContent` of each would make the walk quadratic.
/// List items and options are spaced apart ("Bahamas Bahrain", not "BahamasBahrain").
fn content_text(el: &Element) -> String {
    super::read::spaced_text(el, (MAX_NAME * 3) as u32)
}

/// The words of the `<label>` around `el` (without `el`'s own), unless the label names
/// another control than `el` or one inside it (then they are that control's name).
fn label_around(el: &Element) -> Option<String> {
    let label = el.closest("label").ok().flatten()?;
    let control = js_sys::Reflect::get(&label, &"control".into()).ok();
    let control = control.and_then(|c| c.dyn_into::<web_sys::Node>().ok());
    if control.is_some_and(|c| !el.contains(Some(&c))) {
        return None;
    }
    label_words(&label, el)
}

/// The words of the first shown `<label>` inside the box `el` that names a field in it (a
/// combobox drawn as a box around its label, its chosen value and a bare input): a person
/// reads that label as the box's name, not the box's whole text. A label hidden from
/// assistive tech (a second copy drawn for the floating animation) is not read.
fn inner_label(el: &Element) -> Option<String> {
    let labels = el.query_selector_all("label").ok()?;
    (0..labels.length())
        .filter_map(|i| labels.item(i)?.dyn_into::<web_sys::HtmlLabelElement>().ok())
        .filter(|l| l.get_attribute("aria-hidden").as_deref() != Some("true"))
        .find_map(|label| {
            let control = label.control()?;
            if !el.contains(Some(control.as_ref())) {
                return None;
            }
            label_words(&label, &control)
        })
}

/// The words of `label` without those of the control inside it (a wrapping label's text
/// includes the control's own).
fn label_words(label: &Element, control: &Element) -> Option<String> {
    let own = content_text(control);
    let text = content_text(label);
    non_empty(Some(if own.trim().is_empty() { text } else { text.replace(own.as_str(), " ") }))
}

/// What an icon-only element's classes or picture say it shows.
fn icon_named(el: &Element) -> Option<String> {
    let sources = super::read::icon_sources(el);
    crate::observation::names::icon_name(sources.iter().map(String::as_str))
}

/// Siblings looked at for look-alike icon-only controls.
const MAX_TWINS: u32 = 12;

/// `el`'s place (from 0) and the count of its siblings of the same tag, with no text, that
/// its icon hints name alike (`name`), when there are several.
fn twin_place(el: &Element, name: &str) -> Option<(usize, usize)> {
    let siblings = el.parent_element()?.children();
    if siblings.length() > MAX_TWINS {
        return None;
    }
    let tag = el.local_name();
    let twins: Vec<Element> = (0..siblings.length())
        .filter_map(|i| siblings.item(i))
        .filter(|s| s.local_name() == tag && content_text(s).trim().is_empty())
        .filter(|s| s == el || icon_named(s).as_deref() == Some(name))
        .collect();
    let at = twins.iter().position(|s| s == el)?;
    (twins.len() > 1).then_some((at, twins.len()))
}

/// The text of the elements `ids` (an `aria-labelledby` value) names in `el`'s own tree (the
/// document, or the shadow root `el` sits in).
fn labelled_by(el: &Element, ids: &str) -> Option<String> {
    let root = el.get_root_node();
    let find = |id: &str| match root.dyn_ref::<web_sys::Document>() {
        Some(doc) => doc.get_element_by_id(id),
        None => root.dyn_ref::<web_sys::ShadowRoot>()?.get_element_by_id(id),
    };
    // A label that wraps the control it names (Ionic's range points its knob at the label
    // around the knob and its value pin) names it without the control's own text; another
    // element by its own `aria-label` first, else its text.
    let words = |e: Element| {
        let wraps = !e.is_same_node(Some(el.as_ref())) && e.contains(Some(el.as_ref()));
        if wraps { label_words(&e, el) } else { referenced_text(&e) }
    };
    let text: Vec<String> = ids.split_whitespace().filter_map(find).filter_map(words).collect();
    non_empty(Some(text.join(" ")))
}

/// What an element an `aria-labelledby` names contributes: its own `aria-label` when it has
/// one (as accessible-name computation reads it: a date segment that names itself with
/// "month, " and its field's label reads "month, Renewal date", not its placeholder "mm"),
/// else its text.
fn referenced_text(el: &Element) -> Option<String> {
    non_empty(el.get_attribute("aria-label")).or_else(|| el.text_content())
}

/// The words of a `<label for>` naming `el` by its id, in `el`'s own tree.
fn label_for(el: &Element, id: &str) -> Option<String> {
    if id.is_empty() || id.contains('"') {
        return None;
    }
    let query = format!("label[for=\"{id}\"]");
    let root = el.get_root_node();
    let label = match root.dyn_ref::<web_sys::Document>() {
        Some(doc) => doc.query_selector(&query).ok().flatten(),
        None => root.dyn_ref::<web_sys::ShadowRoot>()?.query_selector(&query).ok()?,
    }?;
    label_words(&label, el)
}

/// Shadow roots climbed to find a component's label.
const MAX_HOSTS: u32 = 3;

/// The label of the web component(s) around `el`, when `el` sits in a shadow root: the host's
/// `aria-labelledby`, `aria-label`, a `<label for>` naming it, or a `<label>` around it
/// (without the host's own text).
fn host_label(el: &Element) -> Option<String> {
    let mut node = el.clone();
    for _ in 0..MAX_HOSTS {
        let host = node.get_root_node().dyn_into::<web_sys::ShadowRoot>().ok()?.host();
        let label = tied_label(&host, true).or_else(|| label_around(&host));
        if label.is_some() {
            return label;
        }
        node = host;
    }
    None
}

/// The label the page ties to a component `host`: its `aria-labelledby`, its `aria-label` (when
/// `own_label` counts), or a `<label for>` naming it.
fn tied_label(host: &Element, own_label: bool) -> Option<String> {
    let attrs = Attrs::of(host);
    attrs
        .get("aria-labelledby")
        .and_then(|ids| labelled_by(host, ids))
        .or_else(|| if own_label { non_empty(attrs.owned("aria-label")) } else { None })
        .or_else(|| attrs.get("id").and_then(|id| label_for(host, id)))
}

/// The label of the component `el` belongs to: the web component whose shadow root holds it
/// ([`host_label`]), else a custom element around it in the light DOM that a `<label for>` or
/// an `aria-labelledby` names (`<fluent-dropdown>` labelled by its field, with the
/// `<button role=combobox>` it draws as its child). An `aria-label` on such an ancestor is not
/// taken: a toolbar's name is not its buttons'.
fn component_label(el: &Element) -> Option<String> {
    host_label(el).or_else(|| {
        let mut node = el.parent_element();
        for _ in 0..MAX_HOSTS {
            let n = node?;
            if n.local_name().contains('-')
                && let Some(label) = tied_label(&n, false)
            {
                return Some(label);
            }
            node = n.parent_element();
        }
        None
    })
}

pub(super) fn labels_text(el: &Element) -> Option<String> {
    let labels = js_sys::Reflect::get(el, &"labels".into()).ok()?;
    let labels: web_sys::NodeList = labels.dyn_into().ok()?;
    let mut parts = Vec::new();
    // The control's own text as the label's text reads it (spaced, like its options), and raw.
    let own = [content_text(el), el.text_content().unwrap_or_default()];
    for i in 0..labels.length() {
        // Spaced text follows slots: a label inside a web component shows the host's text.
        let label = labels.item(i).and_then(|l| l.dyn_into::<Element>().ok());
        // A copy hidden from assistive tech (drawn for a floating-label animation) is not read.
        let label = label.filter(|l| l.get_attribute("aria-hidden").as_deref() != Some("true"));
        if let Some(mut text) = label.map(|l| content_text(&l)) {
            // A wrapping label's text includes the control's own (a textarea's content, a
            // select's options): the label names it without them.
            for own in own.iter().filter(|o| !o.trim().is_empty()) {
                text = text.replace(own.as_str(), " ");
            }
            parts.push(text);
        }
    }
    non_empty(Some(parts.join(" ")))
}

/// What must still match when an action names a ref: role, name and tag.
fn fingerprint(role: &str, name: &str, tag: &str) -> String {
    format!("{role}|{name}|{tag}")
}

/// Recomputes the fingerprint of a live element, to check a ref still means the same thing.
pub(super) fn live_fingerprint(el: &Element) -> Option<String> {
    let tag = el.local_name();
    let pointer = web_sys::window()
        .and_then(|w| w.get_computed_style(el).ok().flatten())
        .and_then(|s| s.get_property_value("cursor").ok())
        .is_some_and(|c| c == "pointer");
    let role = interactive_role(el, &tag, pointer)?;
    Some(fingerprint(role, &name_as(el, &tag, role), &tag))
}

/// The name the observation gives an element of `role` (a scrolling box: only its own label;
/// see [`super::widgets::special_name`]).
pub(super) fn name_as(el: &Element, tag: &str, role: &str) -> String {
    super::widgets::special_name(el, tag, role).unwrap_or_else(|| accessible_name(el, tag))
}
