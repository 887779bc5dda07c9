//! The facts of the element an action targets, as the content script reads them from the live
//! DOM. Plain data, so the content-script build compiles this file alone (no URL parser, no
//! policy); the policy that judges these facts lives in the core.

use serde::{Deserialize, Serialize};

/// The origin of the document an element lives in, as the browser itself reports it
/// (`window.origin` in that frame): a frame's own origin, never the top page's, never the model's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum DocumentOrigin {
    /// Not reported (an older content script, or a fake page in tests): the page URL decides.
    #[default]
    Unknown,
    /// `"null"`: a sandboxed frame or another opaque origin — never part of a task's scope.
    Opaque,
    /// A tuple origin such as `https://ads.example` (`about:srcdoc` and `about:blank` frames
    /// report their parent's origin this way).
    Web(String),
}

impl From<String> for DocumentOrigin {
    fn from(origin: String) -> Self {
        match origin.as_str() {
            "" => Self::Unknown,
            "null" => Self::Opaque,
            _ => Self::Web(origin),
        }
    }
}

impl From<DocumentOrigin> for String {
    fn from(origin: DocumentOrigin) -> Self {
        match origin {
            DocumentOrigin::Unknown => String::new(),
            DocumentOrigin::Opaque => "null".to_owned(),
            DocumentOrigin::Web(origin) => origin,
        }
    }
}

/// The element an action targets and where it sits, as the content script reports it from the
/// live element (never from the model's words).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ActionTarget {
    /// ARIA role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// What the element draws for a person, when that is not its name: its rendered text,
    /// CSS generated content (`::before`, `::after`) and text a bidi override shows backwards,
    /// in display order. An `aria-label="Search"` on a button drawn "Place order" is judged by
    /// both.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub shown: String,
    /// Tag name, lower case.
    pub tag: String,
    /// `type` attribute of inputs and buttons, lower case.
    pub input_type: String,
    /// `autocomplete` attribute, lower case.
    pub autocomplete: String,
    /// `href` of links (absolute).
    pub href: Option<String>,
    /// Whether the link has a `download` attribute.
    pub download: bool,
    /// The final action URL of the element's form (absolute), when it is in one.
    pub form_action: Option<String>,
    /// The method the element's form is submitted with (`get`, `post`, `dialog`; the
    /// submitter's `formmethod` counted), lower case; empty outside a form.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub form_method: String,
    /// Whether activating the element submits its form.
    pub submits_form: bool,
    /// For a field in a form: the accessible name of the form's default button, which Enter in
    /// the field presses (an Enter in the coupon field of an order page places the order).
    pub default_button: String,
    /// URL of the element's document (a frame's own URL inside a frame; `about:srcdoc` for a
    /// srcdoc frame).
    pub page_url: String,
    /// The origin of the element's document as the browser reports it: what scope is judged on
    /// for actions inside a frame.
    pub origin: DocumentOrigin,
    /// The values of the element's form (`name=value` pairs, password fields left out): what a
    /// submission would send, for the outbound check.
    pub form_data: String,
}

/// What one form of the page would submit, read before the task touched the page: the
/// baseline a later request to the same address is compared with, so a field the task left as
/// it was (a plan select nobody touched, posted with every save) is not read as a change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FormSnapshot {
    /// The form's action URL (absolute, as the browser resolves it).
    pub action: String,
    /// `name`, `value` of every entry a submission would carry (hidden inputs included;
    /// unchecked boxes, disabled controls, buttons and files left out), in tree order.
    pub fields: Vec<(String, String)>,
}

/// A control of the page as it stood before the task touched the page, outside any form's
/// entry list: the words that name it and the values it held. A script's JSON save carries
/// such controls' state under its own keys (`{"plan": "starter", "seats": "5"}`); a field
/// whose key is one of a control's names and whose value that control already held is one
/// the task did not change (the write budget's baseline).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ControlSnapshot {
    /// Its `name` and `id`, and the text of its labels and of the group around it, as written.
    pub keys: Vec<String>,
    /// What it held: its value (a checked radio's or box's `value`, every selected option's
    /// value and label), as written.
    pub values: Vec<String>,
}

/// What the page held before the task touched it: its forms' entry lists and its controls.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageBaseline {
    /// Each form's entries, by action URL.
    pub forms: Vec<FormSnapshot>,
    /// Each control a person can see, with its names and values.
    pub controls: Vec<ControlSnapshot>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reported_origin_keeps_opaque_and_unknown_apart() {
        let parse = |s: &str| serde_json::from_value::<DocumentOrigin>(s.into()).expect("origin");
        assert_eq!(parse(""), DocumentOrigin::Unknown);
        assert_eq!(parse("null"), DocumentOrigin::Opaque);
        assert_eq!(parse("https://ads.example"), DocumentOrigin::Web("https://ads.example".into()));
        let t: ActionTarget = serde_json::from_str(r#"{"origin":"null"}"#).expect("target");
        assert_eq!(t.origin, DocumentOrigin::Opaque);
        let missing: ActionTarget = serde_json::from_str("{}").expect("target");
        assert_eq!(missing.origin, DocumentOrigin::Unknown);
        assert_eq!(serde_json::to_value(&t).expect("json")["origin"], "null");
    }
}
