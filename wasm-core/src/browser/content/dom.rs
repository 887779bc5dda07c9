//! DOM → [`Observation`]: interactive elements with refs and the readable text between them.
//!
//! Written by hand (no crate walks a live DOM): visibility, roles and accessible names follow
//! the parts of HTML-AAM and accname that matter for acting on a page.

use crate::observation::{Element as ElementInfo, Item, Observation};
use std::cell::RefCell;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Document, Element, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement, Node,
};

/// An element the model can name, and what it looked like when it got its ref.
pub(super) struct RefEntry {
    pub element: Element,
    pub fingerprint: String,
}

thread_local! {
    /// Refs of the latest observation; replaced by the next one.
    pub(super) static REFS: RefCell<Vec<RefEntry>> = const { RefCell::new(Vec::new()) };
}

/// Reads the whole document.
pub fn observe(engine: String) -> Result<Observation, JsValue> {
    let window = web_sys::window().ok_or_else(|| super::super::js_error("no window"))?;
    let document = window.document().ok_or_else(|| super::super::js_error("no document"))?;
    let mut walker = Walker {
        document: document.clone(),
        items: Vec::new(),
        text: String::new(),
        refs: Vec::new(),
    };
    if let Some(body) = document.body() {
        walker.walk(&body);
    }
    walker.flush(None);
    REFS.with(|r| *r.borrow_mut() = walker.refs);
    Ok(Observation {
        url: window.location().href().unwrap_or_default(),
        title: document.title(),
        items: walker.items,
        engine,
    })
}

struct Walker {
    document: Document,
    items: Vec<Item>,
    text: String,
    refs: Vec<RefEntry>,
}

const SKIPPED: &[&str] =
    &["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "SVG", "IFRAME"];
const BLOCKS: &[&str] = &[
    "ADDRESS",
    "ARTICLE",
    "ASIDE",
    "BLOCKQUOTE",
    "BR",
    "DD",
    "DIV",
    "DL",
    "DT",
    "FIELDSET",
    "FIGCAPTION",
    "FIGURE",
    "FOOTER",
    "FORM",
    "HEADER",
    "HR",
    "LI",
    "MAIN",
    "NAV",
    "OL",
    "P",
    "PRE",
    "SECTION",
    "TABLE",
    "TD",
    "TH",
    "TR",
    "UL",
    "LABEL",
];

impl Walker {
    fn walk(&mut self, parent: &Element) {
        let children = parent.child_nodes();
        for i in 0..children.length() {
            let Some(node) = children.item(i) else { continue };
            match node.node_type() {
                Node::TEXT_NODE => {
                    if let Some(t) = node.text_content() {
                        self.text.push(' ');
                        self.text.push_str(&t);
                    }
                }
                Node::ELEMENT_NODE => {
                    if let Ok(el) = node.dyn_into::<Element>() {
                        self.element(&el);
                    }
                }
                _ => {}
            }
        }
    }

    fn element(&mut self, el: &Element) {
        let tag = el.tag_name().to_ascii_uppercase();
        if SKIPPED.contains(&tag.as_str()) || is_hidden(el) {
            return;
        }
        if let Some(role) = interactive_role(el, &tag) {
            self.flush(None);
            let info = describe(&self.document, el, &tag, role, self.refs.len() as u32 + 1);
            self.refs.push(RefEntry { element: el.clone(), fingerprint: fingerprint(&info) });
            self.items.push(Item::Element(info));
            if tag == "SELECT" || tag == "BUTTON" || tag == "A" || tag == "TEXTAREA" {
                return;
            }
            return self.walk(el);
        }
        let heading = heading_level(&tag);
        let block = heading.is_some() || BLOCKS.contains(&tag.as_str());
        if block {
            self.flush(None);
        }
        self.walk(el);
        if block {
            self.flush(heading);
        }
    }

    fn flush(&mut self, heading: Option<u8>) {
        let text = crate::observation::clean(&self.text);
        self.text.clear();
        if text.is_empty() {
            return;
        }
        if let Some(Item::Text { text: last, .. }) = self.items.last()
            && *last == text
        {
            return;
        }
        self.items.push(Item::Text { text, heading });
    }
}

fn heading_level(tag: &str) -> Option<u8> {
    match tag {
        "H1" => Some(1),
        "H2" => Some(2),
        "H3" => Some(3),
        "H4" => Some(4),
        "H5" => Some(5),
        "H6" => Some(6),
        _ => None,
    }
}

fn is_hidden(el: &Element) -> bool {
    if el.has_attribute("hidden") || el.get_attribute("aria-hidden").as_deref() == Some("true") {
        return true;
    }
    let Some(window) = web_sys::window() else { return false };
    match window.get_computed_style(el) {
        Ok(Some(style)) => {
            let display = style.get_property_value("display").unwrap_or_default();
            let visibility = style.get_property_value("visibility").unwrap_or_default();
            display == "none" || visibility == "hidden" || visibility == "collapse"
        }
        _ => false,
    }
}

const WIDGET_ROLES: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "combobox",
    "switch",
    "slider",
    "textbox",
    "searchbox",
    "spinbutton",
    "treeitem",
];

fn interactive_role(el: &Element, tag: &str) -> Option<String> {
    if let Some(role) = el.get_attribute("role") {
        let role = role.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        if WIDGET_ROLES.contains(&role.as_str()) {
            return Some(role);
        }
    }
    let role = match tag {
        "A" if el.has_attribute("href") => "link",
        "BUTTON" | "SUMMARY" => "button",
        "TEXTAREA" => "textbox",
        "SELECT" => "combobox",
        "INPUT" => match input_type(el).as_str() {
            "hidden" => return None,
            "checkbox" => "checkbox",
            "radio" => "radio",
            "button" | "submit" | "reset" | "image" => "button",
            "range" => "slider",
            "number" => "spinbutton",
            "search" => "searchbox",
            "file" => "button",
            _ => "textbox",
        },
        _ if el.get_attribute("contenteditable").is_some_and(|v| v != "false") => "textbox",
        _ if el.has_attribute("onclick") => "button",
        _ => return None,
    };
    Some(role.to_owned())
}

fn input_type(el: &Element) -> String {
    el.get_attribute("type").unwrap_or_default().to_ascii_lowercase()
}

/// Fields whose value never leaves the page: passwords, one-time codes, payment cards.
pub(super) fn is_sensitive(el: &Element) -> bool {
    let autocomplete = el.get_attribute("autocomplete").unwrap_or_default().to_ascii_lowercase();
    input_type(el) == "password"
        || autocomplete.contains("one-time-code")
        || autocomplete.split_whitespace().any(|t| t.starts_with("cc-"))
}

fn describe(
    document: &Document,
    el: &Element,
    tag: &str,
    role: String,
    ref_id: u32,
) -> ElementInfo {
    let mut states = Vec::new();
    let mut value = None;
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        match input_type(el).as_str() {
            "checkbox" | "radio" => {
                if input.checked() {
                    states.push("checked".to_owned());
                }
            }
            "button" | "submit" | "reset" | "image" | "file" => {}
            _ if is_sensitive(el) => states.push("sensitive".to_owned()),
            _ => value = Some(input.value()),
        }
        if input.disabled() {
            states.push("disabled".to_owned());
        }
        if input.required() {
            states.push("required".to_owned());
        }
    } else if let Some(area) = el.dyn_ref::<HtmlTextAreaElement>() {
        value = Some(area.value());
    } else if let Some(select) = el.dyn_ref::<HtmlSelectElement>() {
        let index = select.selected_index();
        if index >= 0 {
            value = select.item(index as u32).and_then(|o| o.text_content());
        }
    }
    if tag == "BUTTON" && el.has_attribute("disabled") {
        states.push("disabled".to_owned());
    }
    ElementInfo { ref_id, role, name: accessible_name(document, el, tag), value, states }
}

/// The accessible name: aria-labelledby, aria-label, labels, alt, title, placeholder, text.
pub(super) fn accessible_name(document: &Document, el: &Element, tag: &str) -> String {
    if let Some(ids) = el.get_attribute("aria-labelledby") {
        let text: Vec<String> = ids
            .split_whitespace()
            .filter_map(|id| document.get_element_by_id(id))
            .filter_map(|e| e.text_content())
            .collect();
        let text = crate::observation::clean(&text.join(" "));
        if !text.is_empty() {
            return text;
        }
    }
    for attr in ["aria-label"] {
        if let Some(v) = el.get_attribute(attr).map(|v| crate::observation::clean(&v))
            && !v.is_empty()
        {
            return v;
        }
    }
    if let Some(labels) = labels_text(el) {
        return labels;
    }
    if tag == "INPUT" && matches!(input_type(el).as_str(), "button" | "submit" | "reset") {
        let v = el.dyn_ref::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
        if !v.is_empty() {
            return v;
        }
    }
    for attr in ["alt", "title", "placeholder"] {
        if let Some(v) = el.get_attribute(attr).map(|v| crate::observation::clean(&v))
            && !v.is_empty()
        {
            return v;
        }
    }
    if !matches!(tag, "INPUT" | "TEXTAREA" | "SELECT") {
        let text =
            el.dyn_ref::<HtmlElement>().map(|h| h.inner_text()).or_else(|| el.text_content());
        return crate::observation::clean(&text.unwrap_or_default()).chars().take(80).collect();
    }
    String::new()
}

fn labels_text(el: &Element) -> Option<String> {
    let labels = js_sys::Reflect::get(el, &JsValue::from_str("labels")).ok()?;
    let labels: web_sys::NodeList = labels.dyn_into().ok()?;
    let mut parts = Vec::new();
    for i in 0..labels.length() {
        if let Some(text) = labels.item(i).and_then(|l| l.text_content()) {
            parts.push(text);
        }
    }
    let text = crate::observation::clean(&parts.join(" "));
    (!text.is_empty()).then_some(text)
}

/// What must still match when an action names this ref.
pub(super) fn fingerprint(info: &ElementInfo) -> String {
    format!("{}|{}", info.role, info.name)
}

/// Recomputes the fingerprint of a live element, to check a ref still means the same thing.
pub(super) fn live_fingerprint(el: &Element) -> Option<String> {
    let window = web_sys::window()?;
    let document = window.document()?;
    let tag = el.tag_name().to_ascii_uppercase();
    let role = interactive_role(el, &tag)?;
    Some(format!("{role}|{}", accessible_name(&document, el, &tag)))
}
