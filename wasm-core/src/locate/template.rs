//! Text with named inputs: `Order a teapot for {{name}}`. A workflow stores what the user typed
//! as templates, so a run fills in the values given for that run.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Longest parameter name.
pub const MAX_PARAM_NAME: usize = 40;

/// A text that may name parameters as `{{name}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct Template(pub String);

impl Template {
    /// A text without parameters (a literal).
    pub fn literal(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The template as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The parameter names it uses, in order of appearance (repeats kept).
    pub fn params(&self) -> Vec<&str> {
        pieces(&self.0)
            .into_iter()
            .filter_map(|p| match p {
                Piece::Param(name) => Some(name),
                Piece::Text(_) => None,
            })
            .collect()
    }

    /// The text with each `{{name}}` replaced by its value; names without a value stay as
    /// they are (validation makes sure every name is declared, binding that each has a value).
    pub fn fill(&self, values: &BTreeMap<String, String>) -> String {
        pieces(&self.0)
            .into_iter()
            .map(|p| match p {
                Piece::Param(name) => match values.get(name) {
                    Some(v) => v.as_str(),
                    None => whole(&self.0, name),
                },
                Piece::Text(t) => t,
            })
            .collect()
    }

    /// The template with parameter `from` renamed to `to`.
    pub fn rename(&self, from: &str, to: &str) -> Self {
        let text = pieces(&self.0)
            .into_iter()
            .map(|p| match p {
                Piece::Param(name) if name == from => format!("{{{{{to}}}}}"),
                Piece::Param(name) => format!("{{{{{name}}}}}"),
                Piece::Text(t) => t.to_owned(),
            })
            .collect();
        Self(text)
    }

    /// `text` with each occurrence of a parameter's value (the longest first) replaced by its
    /// `{{name}}`; values shorter than `min_len` characters are left alone (a one-letter value
    /// would match everywhere).
    pub fn from_text(text: &str, values: &[(String, String)], min_len: usize) -> Self {
        let mut by_length: Vec<&(String, String)> =
            values.iter().filter(|(_, v)| v.chars().count() >= min_len).collect();
        by_length.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        let mut out = text.to_owned();
        for (name, value) in by_length {
            out = replace_outside_params(&out, value, &format!("{{{{{name}}}}}"));
        }
        Self(out)
    }
}

/// Whether `name` may be a parameter's name: lower-case letters, digits and `_`, starting with
/// a letter, at most [`MAX_PARAM_NAME`] characters.
pub fn is_param_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z'))
        && name.len() <= MAX_PARAM_NAME
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_'))
}

/// A parameter name made of a label's words: `Full name` → `full_name`, `E-mail` → `e_mail`;
/// `fallback` when the label has no letters.
pub fn param_name_from(label: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in label.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        if out.len() >= MAX_PARAM_NAME {
            break;
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if is_param_name(&out) { out } else { fallback.to_owned() }
}

/// `base`, or `base_2`, `base_3`… when `taken` already has it; `base` is shortened to leave
/// room for the number, so the name stays a parameter name.
pub fn unique_param_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_owned();
    }
    (2u32..)
        .map(|i| {
            let suffix = format!("_{i}");
            // `base` is ASCII (a parameter name), so any byte index is a char boundary.
            let keep = base.len().min(MAX_PARAM_NAME.saturating_sub(suffix.len()));
            let stem = base.get(..keep).unwrap_or("p").trim_end_matches('_');
            format!("{stem}{suffix}")
        })
        .find(|n| !taken(n))
        .unwrap_or_else(|| base.to_owned())
}

enum Piece<'a> {
    Text(&'a str),
    Param(&'a str),
}

/// The template split into literal text and `{{name}}` references (only well-formed names
/// count: anything else between braces is text).
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some((before, after)) = rest.split_once("{{") {
        if !before.is_empty() {
            out.push(Piece::Text(before));
        }
        match after.split_once("}}") {
            Some((name, tail)) if is_param_name(name) => {
                out.push(Piece::Param(name));
                rest = tail;
            }
            _ => {
                out.push(Piece::Text("{{"));
                rest = after;
            }
        }
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

/// The `{{name}}` reference itself, as it appears in `text`.
fn whole<'a>(text: &'a str, name: &str) -> &'a str {
    let wanted = format!("{{{{{name}}}}}");
    text.match_indices(&wanted).next().map_or("", |(_, found)| found)
}

/// Replaces `value` (case-insensitively, on word boundaries) by `with`, never inside a
/// reference written earlier.
fn replace_outside_params(text: &str, value: &str, with: &str) -> String {
    pieces(text)
        .into_iter()
        .map(|p| match p {
            Piece::Param(name) => format!("{{{{{name}}}}}"),
            Piece::Text(t) => replace_words(t, value, with),
        })
        .collect()
}

/// A character compared without case: its lower case when that is one character (`İ`, whose
/// lower case is two, stays itself), so matching works char by char and never needs a byte
/// offset into a lower-cased copy whose lengths differ from the text's.
fn folded(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

fn replace_words(text: &str, value: &str, with: &str) -> String {
    let needle: Vec<char> = value.chars().map(folded).collect();
    let chars: Vec<char> = text.chars().collect();
    if needle.is_empty() {
        return text.to_owned();
    }
    let is_word = |i: Option<&char>| i.is_some_and(|c| c.is_alphanumeric());
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let end = i + needle.len();
        let matches = chars
            .get(i..end)
            .is_some_and(|window| window.iter().zip(&needle).all(|(&c, &n)| folded(c) == n));
        let bounded = matches
            && !is_word(i.checked_sub(1).and_then(|b| chars.get(b)))
            && !is_word(chars.get(end));
        if bounded {
            out.push_str(with);
            i = end;
        } else if matches {
            out.extend(chars.get(i..end).into_iter().flatten());
            i = end;
        } else {
            out.extend(chars.get(i));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn templates_fill_rename_and_list_their_parameters() {
        let t = Template::literal("Order for {{name}} on {{date}}, {{name}} again {{Not a name}}");
        assert_eq!(t.params(), ["name", "date", "name"]);
        assert_eq!(
            t.fill(&values(&[("name", "Ada"), ("date", "3 March")])),
            "Order for Ada on 3 March, Ada again {{Not a name}}"
        );
        assert_eq!(
            t.fill(&values(&[("name", "Ada")])),
            "Order for Ada on {{date}}, Ada again {{Not a name}}"
        );
        assert_eq!(
            t.rename("name", "customer").as_str(),
            "Order for {{customer}} on {{date}}, {{customer}} again {{Not a name}}"
        );
        assert_eq!(Template::literal("{{").fill(&BTreeMap::new()), "{{");
    }

    #[test]
    fn values_become_references_on_word_boundaries_only() {
        let vals =
            vec![("name".to_owned(), "Ada".to_owned()), ("city".to_owned(), "Paris".to_owned())];
        let t = Template::from_text("Ship Ada's order to paris, not to Adana", &vals, 3);
        assert_eq!(t.as_str(), "Ship {{name}}'s order to {{city}}, not to Adana");
        let short = vec![("n".to_owned(), "a".to_owned())];
        assert_eq!(Template::from_text("a cat", &short, 3).as_str(), "a cat");
    }

    #[test]
    fn parameter_names_come_from_labels() {
        assert_eq!(param_name_from("Full name", "x"), "full_name");
        assert_eq!(param_name_from("E-mail *", "x"), "e_mail");
        assert_eq!(param_name_from("  ", "value_1"), "value_1");
        assert_eq!(param_name_from("2024", "value_1"), "value_1");
        assert!(
            is_param_name("a_1")
                && !is_param_name("1a")
                && !is_param_name("A")
                && !is_param_name("")
        );
    }

    #[test]
    fn values_match_without_case_in_any_script() {
        // `İ` lower-cases to two characters and `ẞ` to a shorter one: byte offsets into a
        // lower-cased copy once landed inside a character.
        let vals = vec![("city".to_owned(), "İstanbul".to_owned())];
        let t = Template::from_text("ẞ to İSTANBUL and istanbulx, “İstanbul”", &vals, 3);
        assert_eq!(t.as_str(), "ẞ to {{city}} and istanbulx, “{{city}}”");
        let vals = vec![("who".to_owned(), "Ада".to_owned())];
        assert_eq!(Template::from_text("для АДА: {{x}}", &vals, 3).as_str(), "для {{who}}: {{x}}");
    }

    #[test]
    fn a_second_input_of_a_long_label_still_gets_a_valid_name() {
        let long = "a".repeat(MAX_PARAM_NAME);
        let taken = [long.clone(), "x".to_owned()];
        let name = unique_param_name(&long, |n| taken.iter().any(|t| t == n));
        assert!(is_param_name(&name), "{name}");
        assert!(name.ends_with("_2"), "{name}");
        assert_eq!(unique_param_name("x", |n| n == "x"), "x_2");
        assert_eq!(unique_param_name("y", |n| n == "x"), "y");
    }
}
