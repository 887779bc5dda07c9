//! What the page's forms would have sent before the task touched the page: the baseline a
//! state-changing request is compared with, so that only the fields the task's actions changed
//! say what the request does. A preferences form that posts every setting with each save
//! (`plan` among them, unchanged) is a settings write, not a plan change; the same save with
//! `plan` changed — by the task, or by the page's script after the baseline was read — is
//! judged on `plan` as before.
//!
//! The baseline is read once, before the task's first action, from the forms' own entry lists
//! (hidden inputs included: what a submission carries, never what a control displays), and it
//! counts only for a request to exactly a form's action URL. A request with no baseline, a
//! field the baseline does not name, and an address two forms share with different entries are
//! judged on every field. Fields that name the operation (`action=delete`) always count: their
//! value is what the request does, whether or not it changed.

use super::network::body::Field;
use super::target::FormSnapshot;
use std::collections::{BTreeMap, BTreeSet};

/// Per action URL (without its fragment): each field name's values as the form held them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    forms: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

fn bare(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

impl Baseline {
    /// The baseline of the forms read before the task's first action. Forms that share an
    /// action URL but would send different entries give that address no baseline.
    pub fn of_forms(forms: &[FormSnapshot]) -> Self {
        let mut out: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        let mut ambiguous: BTreeSet<String> = BTreeSet::new();
        for form in forms {
            let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (name, value) in &form.fields {
                fields.entry(name.clone()).or_default().push(value.clone());
            }
            let url = bare(&form.action).to_owned();
            match out.get(&url) {
                Some(seen) if *seen != fields => {
                    ambiguous.insert(url);
                }
                _ => {
                    out.insert(url, fields);
                }
            }
        }
        for url in ambiguous {
            out.remove(&url);
        }
        Self { forms: out }
    }

    /// The names of the fields of a request to `url` that carry exactly what the baseline held
    /// for that address (all their values, in any order): the fields the task did not change.
    pub fn unchanged(&self, url: &str, fields: &[Field]) -> BTreeSet<String> {
        let Some(before) = self.forms.get(bare(url)) else { return BTreeSet::new() };
        let mut now: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for field in fields {
            now.entry(field.name.as_str()).or_default().push(field.value.as_str());
        }
        now.into_iter()
            .filter(|(name, values)| {
                before.get(*name).is_some_and(|held| {
                    let mut held: Vec<&str> = held.iter().map(String::as_str).collect();
                    let mut values = values.clone();
                    held.sort_unstable();
                    values.sort_unstable();
                    held == values
                })
            })
            .map(|(name, _)| name.to_owned())
            .collect()
    }
}

/// Whether the task's context may still read a baseline: only before its first action (a
/// resumed task that already acted, or an external agent's second call, has none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum BaselineState {
    /// Not read yet.
    #[default]
    Unread,
    /// Read before the first action.
    Read(Baseline),
    /// Never to be read (the task acted before it could be).
    None,
}

impl BaselineState {
    /// The baseline, where one was read.
    pub fn baseline(&self) -> Option<&Baseline> {
        match self {
            Self::Read(b) => Some(b),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(action: &str, fields: &[(&str, &str)]) -> FormSnapshot {
        FormSnapshot {
            action: action.into(),
            fields: fields.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect(),
        }
    }

    fn fields(pairs: &[(&str, &str)]) -> Vec<Field> {
        pairs.iter().map(|(n, v)| Field { name: (*n).into(), value: (*v).into() }).collect()
    }

    #[test]
    fn only_fields_that_carry_what_the_form_held_are_unchanged() {
        let b = Baseline::of_forms(&[form(
            "https://z.example/api/prefs#x",
            &[("plan", "Free"), ("zoom", "50"), ("tag", "a"), ("tag", "b")],
        )]);
        let sent = fields(&[("plan", "Free"), ("zoom", "150"), ("tag", "b"), ("tag", "a")]);
        let same = b.unchanged("https://z.example/api/prefs", &sent);
        assert_eq!(same.into_iter().collect::<Vec<_>>(), ["plan", "tag"]);
        // Another address, or a value changed: nothing is unchanged.
        assert!(b.unchanged("https://z.example/api/other", &sent).is_empty());
        let changed = fields(&[("plan", "Pro"), ("tag", "a")]);
        assert!(b.unchanged("https://z.example/api/prefs", &changed).is_empty());
    }

    #[test]
    fn an_address_two_forms_share_with_different_entries_has_no_baseline() {
        let b = Baseline::of_forms(&[
            form("https://z.example/save", &[("plan", "Free")]),
            form("https://z.example/save", &[("plan", "Pro")]),
        ]);
        assert!(b.unchanged("https://z.example/save", &fields(&[("plan", "Pro")])).is_empty());
        let twins = Baseline::of_forms(&[
            form("https://z.example/save", &[("plan", "Free")]),
            form("https://z.example/save", &[("plan", "Free")]),
        ]);
        assert_eq!(
            twins.unchanged("https://z.example/save", &fields(&[("plan", "Free")])).len(),
            1
        );
    }
}
