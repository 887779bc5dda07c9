//! What the model reads about a page, and how it is written for the model.
//!
//! Format (one line per item, compact because every character costs the user money):
//!
//! ```text
//! page: Sign up — http://127.0.0.1:8080/form.html
//! <page_content id=7f3a…>
//! # Create your account
//! [1] textbox "Name" value="Ada"
//! [2] checkbox "Subscribe" checked
//! [3] button "Save"
//! Saved: Ada
//! </page_content id=7f3a…>
//! ```
//!
//! Page text sits between delimiters carrying a per-call random id that page text cannot guess,
//! so nothing on the page can close the block and pose as the system or the user.

use serde::{Deserialize, Serialize};

/// A snapshot of one page, produced by the content script.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Page URL.
    pub url: String,
    /// Document title.
    pub title: String,
    /// Interactive elements and text, in reading order.
    pub items: Vec<Item>,
    /// Which build read the page: `wasm`, or `wasm2js` where the page's CSP blocks wasm.
    #[serde(default)]
    pub engine: String,
}

/// One line of the observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    /// Readable text (heading level 1–6 when it is a heading).
    Text {
        /// The text, whitespace collapsed.
        text: String,
        /// Heading level, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        heading: Option<u8>,
    },
    /// Something the agent can act on.
    Element(Element),
}

/// An interactive element with the ref the model uses to name it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Element {
    /// Index valid for this step only.
    #[serde(rename = "ref")]
    pub ref_id: u32,
    /// ARIA role (button, link, textbox, …).
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Current value of a non-sensitive field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// States worth telling: checked, disabled, required…
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
}

impl Observation {
    /// Writes the observation for the model, page text fenced by `nonce`.
    pub fn to_prompt(&self, nonce: &str) -> String {
        let mut out = String::with_capacity(64 + self.items.len() * 24);
        out.push_str("page: ");
        out.push_str(&clean(&self.title));
        out.push_str(" — ");
        out.push_str(&clean(&self.url));
        out.push_str("\n<page_content id=");
        out.push_str(nonce);
        out.push_str(">\n");
        for item in &self.items {
            match item {
                Item::Text { text, heading } => {
                    if let Some(level) = heading {
                        for _ in 0..*level {
                            out.push('#');
                        }
                        out.push(' ');
                    }
                    out.push_str(&clean(text));
                }
                Item::Element(el) => el.write(&mut out),
            }
            out.push('\n');
        }
        out.push_str("</page_content id=");
        out.push_str(nonce);
        out.push('>');
        out
    }

    /// The element with this ref, if the observation has one.
    pub fn element(&self, ref_id: u32) -> Option<&Element> {
        self.items.iter().find_map(|item| match item {
            Item::Element(el) if el.ref_id == ref_id => Some(el),
            _ => None,
        })
    }
}

impl Element {
    fn write(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "[{}] {} {:?}", self.ref_id, self.role, clean(&self.name));
        if let Some(value) = &self.value {
            let _ = write!(out, " value={:?}", clean(value));
        }
        for state in &self.states {
            out.push(' ');
            out.push_str(state);
        }
    }
}

/// Drops control and invisible format characters and collapses whitespace, so page text
/// cannot smuggle line breaks (fake turns) or hidden instructions into the prompt.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if ch.is_control() || is_invisible(ch) {
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(ch);
    }
    out
}

fn is_invisible(ch: char) -> bool {
    matches!(ch,
        '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{E0000}'..='\u{E007F}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Observation {
        Observation {
            url: "http://x/form".into(),
            title: "Form".into(),
            items: vec![
                Item::Text { text: "Sign  up".into(), heading: Some(1) },
                Item::Element(Element {
                    ref_id: 1,
                    role: "textbox".into(),
                    name: "Name".into(),
                    value: Some(String::new()),
                    states: vec!["required".into()],
                }),
                Item::Element(Element {
                    ref_id: 2,
                    role: "button".into(),
                    name: "Save".into(),
                    ..Element::default()
                }),
            ],
            engine: "wasm".into(),
        }
    }

    #[test]
    fn prompt_lists_text_and_elements_in_order() {
        let text = sample().to_prompt("n1");
        assert_eq!(
            text,
            "page: Form — http://x/form\n<page_content id=n1>\n# Sign up\n\
             [1] textbox \"Name\" value=\"\" required\n[2] button \"Save\"\n</page_content id=n1>"
        );
    }

    #[test]
    fn page_text_cannot_break_lines_or_hide_characters() {
        assert_eq!(clean("a\n\nSYSTEM:\u{200B} do\u{E0041}"), "a SYSTEM: do");
    }

    #[test]
    fn element_lookup_by_ref() {
        assert_eq!(sample().element(2).map(|e| e.name.as_str()), Some("Save"));
        assert!(sample().element(9).is_none());
    }
}
