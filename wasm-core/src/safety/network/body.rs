//! What a state-changing request carries, decoded into fields a person can read on a card:
//! the URL's query and the body (form fields as the browser parsed them, JSON, or URL-encoded
//! text). The names and values are the page's words, shown as data, never judged.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A request body as the browser reported it (`webRequest` `requestBody`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RequestBody {
    /// Form fields the browser parsed (URL-encoded or multipart bodies).
    Form {
        /// Field name → values, as sent.
        fields: BTreeMap<String, Vec<String>>,
    },
    /// The bytes of any other body (JSON, text); files are left out.
    Raw {
        /// As sent.
        bytes: Vec<u8>,
    },
}

/// One field of a request, in plain words.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Field {
    /// The field's name (dotted for nested JSON: `item.quantity`).
    pub name: String,
    /// Its value as text.
    pub value: String,
}

/// At most this many fields are listed on a card (the rest are counted).
const SHOWN_FIELDS: usize = 14;
/// Values longer than this many characters are cut on a card.
const SHOWN_CHARS: usize = 80;

/// Every field a request to `url` with `body` carries: the query's, then the body's.
pub fn fields(url: &str, body: Option<&RequestBody>) -> Vec<Field> {
    let mut out: Vec<Field> = url::Url::parse(url)
        .map(|u| {
            u.query_pairs()
                .map(|(n, v)| Field { name: n.into_owned(), value: v.into_owned() })
                .collect()
        })
        .unwrap_or_default();
    match body {
        None => {}
        Some(RequestBody::Form { fields }) => {
            for (name, values) in fields {
                out.extend(values.iter().map(|v| Field { name: name.clone(), value: v.clone() }));
            }
        }
        Some(RequestBody::Raw { bytes }) => out.extend(raw_fields(bytes)),
    }
    out
}

/// A raw body's fields: JSON (nested names dotted), URL-encoded pairs, else the text itself.
fn raw_fields(bytes: &[u8]) -> Vec<Field> {
    let text = String::from_utf8_lossy(bytes);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Vec::new();
    }
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(trimmed) {
        let mut out = Vec::new();
        flatten("", &json, &mut out);
        return out;
    }
    let looks_encoded = trimmed.contains('=') && !trimmed.contains(char::is_whitespace);
    if looks_encoded {
        return url::form_urlencoded::parse(trimmed.as_bytes())
            .map(|(n, v)| Field { name: n.into_owned(), value: v.into_owned() })
            .collect();
    }
    vec![Field { name: "body".into(), value: trimmed.to_owned() }]
}

fn flatten(prefix: &str, value: &serde_json::Value, out: &mut Vec<Field>) {
    let join = |name: &str| {
        if prefix.is_empty() { name.to_owned() } else { format!("{prefix}.{name}") }
    };
    match value {
        serde_json::Value::Object(map) => {
            for (name, v) in map {
                flatten(&join(name), v, out);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&join(&i.to_string()), v, out);
            }
        }
        serde_json::Value::String(s) => out.push(Field { name: prefix.into(), value: s.clone() }),
        other => out.push(Field { name: prefix.into(), value: other.to_string() }),
    }
}

/// The fields as lines for a card ("  quantity: 3"), cut to a readable size at character
/// boundaries, line breaks and control characters shown as spaces.
pub fn describe_fields(fields: &[Field]) -> String {
    if fields.is_empty() {
        return "  (no fields)".into();
    }
    let mut lines: Vec<String> = fields
        .iter()
        .take(SHOWN_FIELDS)
        .map(|f| format!("  {}: {}", plain(&f.name), plain(&f.value)))
        .collect();
    if fields.len() > SHOWN_FIELDS {
        lines.push(format!("  … and {} more field(s)", fields.len() - SHOWN_FIELDS));
    }
    lines.join("\n")
}

/// One line of at most [`SHOWN_CHARS`] characters.
fn plain(text: &str) -> String {
    let one_line: String =
        text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect::<String>();
    match one_line.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", one_line.get(..cut).unwrap_or_default()),
        None => one_line,
    }
}

/// Whether two requests carry the same fields (order of form fields aside): what the user
/// approved on a card against what was then sent.
pub fn same_fields(
    url_a: &str,
    a: Option<&RequestBody>,
    url_b: &str,
    b: Option<&RequestBody>,
) -> bool {
    let mut left = fields(url_a, a);
    let mut right = fields(url_b, b);
    left.sort();
    right.sort();
    left == right
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_form_and_query_fields_are_decoded() {
        let json = RequestBody::Raw {
            bytes: br#"{"item":{"sku":"TEA-1","quantity":2},"gift":true}"#.to_vec(),
        };
        let got = fields("https://shop.example/api/order?oneclick=1", Some(&json));
        let names: Vec<&str> = got.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["oneclick", "gift", "item.quantity", "item.sku"]);
        let form = RequestBody::Form {
            fields: BTreeMap::from([("role".to_owned(), vec!["owner".to_owned()])]),
        };
        let text = describe_fields(&fields("https://dash.example/members", Some(&form)));
        assert_eq!(text, "  role: owner");
        let encoded = RequestBody::Raw { bytes: b"to=bob%40x.example&amount=5".to_vec() };
        assert_eq!(fields("https://bank.example/t", Some(&encoded))[0].value, "bob@x.example");
    }

    #[test]
    fn long_and_multibyte_values_are_cut_at_characters() {
        let long = "“".repeat(200);
        let shown = describe_fields(&[Field { name: "n\nx".into(), value: long }]);
        assert!(shown.starts_with("  n x: “"));
        assert_eq!(shown.chars().filter(|c| *c == '“').count(), SHOWN_CHARS);
    }

    #[test]
    fn a_changed_quantity_is_a_different_body() {
        let body = |q: &str| RequestBody::Form {
            fields: BTreeMap::from([
                ("item".to_owned(), vec!["teapot".to_owned()]),
                ("qty".to_owned(), vec![q.to_owned()]),
            ]),
        };
        let url = "https://shop.example/order";
        assert!(same_fields(url, Some(&body("1")), url, Some(&body("1"))));
        assert!(!same_fields(url, Some(&body("1")), url, Some(&body("40"))));
    }
}
