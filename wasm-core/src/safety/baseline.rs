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
//!
//! A script that saves with `fetch` sends its fields under its own keys, to any address: there
//! a field is unchanged when its key is one of the names of a field the page showed before the
//! task (its `name`, `id` or label: `plan` for a radio group labelled "Plan") and it carries
//! the value that field held (`starter`). A yes (`true`, `1`, `on`, `yes`) is never taken as
//! unchanged that way: a `close_account: true` is a command as much as a state, and a box the
//! page showed checked does not make it one the task may send.

use super::network::body::Field;
use super::target::{ControlSnapshot, FormSnapshot, PageBaseline};
use super::writes::words_of;
use std::collections::{BTreeMap, BTreeSet};

/// Per action URL (without its fragment): each field name's values as the form held them;
/// and the page's fields, by the words of their names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    forms: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Each shown field: the words of each of its names (`["seats"]`, `["plan"]`) and the
    /// values it held, trimmed and lower case.
    fields: Vec<(BTreeSet<Vec<String>>, BTreeSet<String>)>,
}

/// Values that say yes: never unchanged by a shown field (see the module's doc).
const YES: &[&str] = &["true", "1", "on", "yes", "y"];

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
        Self { forms: out, fields: Vec::new() }
    }

    /// The baseline of what the page held before the task's first action: its forms (see
    /// [`Baseline::of_forms`]) and its shown fields.
    pub fn of_page(page: &PageBaseline) -> Self {
        let mut baseline = Self::of_forms(&page.forms);
        baseline.fields = page.controls.iter().map(shown_field).collect();
        baseline
    }

    /// The names of the fields of a request to `url` that carry exactly what the baseline held
    /// for that address (all their values, in any order): the fields the task did not change.
    pub fn unchanged(&self, url: &str, fields: &[Field]) -> BTreeSet<String> {
        let mut same = self.unchanged_in_form(url, fields);
        same.extend(self.unchanged_as_shown(fields));
        same
    }

    /// The fields of a request to `url` that carry what the form at that address held.
    fn unchanged_in_form(&self, url: &str, fields: &[Field]) -> BTreeSet<String> {
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

impl Baseline {
    /// The fields (every value of a name) that carry what a shown field of that name held,
    /// none of them a yes.
    fn unchanged_as_shown(&self, fields: &[Field]) -> BTreeSet<String> {
        if self.fields.is_empty() {
            return BTreeSet::new();
        }
        let mut values: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for field in fields {
            values.entry(field.name.as_str()).or_default().push(normal(&field.value));
        }
        values
            .into_iter()
            .filter(|(name, values)| {
                let key = key_words(name);
                !key.is_empty()
                    && values.iter().all(|v| !YES.contains(&v.as_str()))
                    && values.iter().all(|v| {
                        self.fields
                            .iter()
                            .any(|(names, held)| names.contains(&key) && held.contains(v))
                    })
            })
            .map(|(name, _)| name.to_owned())
            .collect()
    }
}

/// A shown field's names as words, and its values as compared.
fn shown_field(control: &ControlSnapshot) -> (BTreeSet<Vec<String>>, BTreeSet<String>) {
    let names = control.keys.iter().map(|k| words_of(k)).filter(|w| !w.is_empty()).collect();
    (names, control.values.iter().map(|v| normal(v)).collect())
}

/// The words of a request field's key: its last dotted part that is not an index
/// (`account.plan` → plan; `topics.1` → topics).
fn key_words(name: &str) -> Vec<String> {
    let part = name.rsplit('.').find(|p| !p.is_empty() && !p.chars().all(|c| c.is_ascii_digit()));
    words_of(part.unwrap_or_default())
}

fn normal(value: &str) -> String {
    value.trim().to_lowercase()
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
