//! What a routine tells the user about: its findings compared with the previous run's — any
//! change, or a number crossing a limit ("tell me when the price drops below 40"). Findings are
//! page data; here they are only compared, never obeyed.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// When a run is worth a notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "when", rename_all = "snake_case")]
pub enum NotifyWhen {
    /// Any finding changed, appeared or went (not on the first run: nothing to compare).
    Changes,
    /// The number in finding `key` went below `limit` (it was not before).
    Below {
        /// The finding's key.
        key: String,
        /// The limit.
        limit: f64,
    },
    /// The number in finding `key` went above `limit` (it was not before).
    Above {
        /// The finding's key.
        key: String,
        /// The limit.
        limit: f64,
    },
    /// After every run.
    EveryRun,
}

/// One finding that differs from the previous run's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingChange {
    /// The finding's key.
    pub key: String,
    /// Its value before (none: new).
    pub before: Option<String>,
    /// Its value now (none: gone).
    pub after: Option<String>,
}

impl FindingChange {
    /// "price: 45.00 → 39.99".
    pub fn describe(&self) -> String {
        match (self.before.as_deref().map(str::trim), self.after.as_deref().map(str::trim)) {
            (Some(b), Some(a)) => format!("{}: {b} → {a}", self.key),
            (None, Some(a)) => format!("{}: {a} (new)", self.key),
            (Some(b), None) => format!("{}: {b} (gone)", self.key),
            (None, None) => self.key.clone(),
        }
    }
}

/// Findings that differ between two runs, in key order.
pub fn changes(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) -> Vec<FindingChange> {
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter(|k| before.get(*k).map(|v| v.trim()) != after.get(*k).map(|v| v.trim()))
        .map(|k| FindingChange {
            key: k.clone(),
            before: before.get(k).cloned(),
            after: after.get(k).cloned(),
        })
        .collect()
}

impl NotifyWhen {
    /// Whether this run (`after`, with `before` the previous successful run's findings, if
    /// any) is worth telling the user.
    pub fn fires(
        &self,
        before: Option<&BTreeMap<String, String>>,
        after: &BTreeMap<String, String>,
    ) -> bool {
        let crossed = |key: &str, past: &dyn Fn(f64) -> bool| {
            let now = after.get(key).and_then(|v| number_in(v)).is_some_and(past);
            let was = before.and_then(|b| b.get(key)).and_then(|v| number_in(v)).is_some_and(past);
            now && !was
        };
        match self {
            Self::EveryRun => true,
            Self::Changes => before.is_some_and(|b| !changes(b, after).is_empty()),
            Self::Below { key, limit } => crossed(key, &|n| n < *limit),
            Self::Above { key, limit } => crossed(key, &|n| n > *limit),
        }
    }

    /// The condition in words: "when price drops below 40".
    pub fn describe(&self) -> String {
        match self {
            Self::Changes => "when a finding changes".into(),
            Self::EveryRun => "after every run".into(),
            Self::Below { key, limit } => format!("when {key} drops below {limit}"),
            Self::Above { key, limit } => format!("when {key} rises above {limit}"),
        }
    }
}

/// The first number written in `text` ("€1,299.00" → 1299.0, "39,99 €" → 39.99, "-3" → -3):
/// a comma or point followed by exactly three digits and then no other digit separates
/// thousands unless it is the last separator after another kind; the last separator of the
/// other kind is the decimal one.
pub fn number_in(text: &str) -> Option<f64> {
    let chars: Vec<char> = text.chars().collect();
    let start = chars.iter().position(|c| c.is_ascii_digit())?;
    let negative = start > 0 && matches!(chars[start - 1], '-' | '−');
    let mut end = start;
    while end < chars.len()
        && (chars[end].is_ascii_digit()
            || (matches!(chars[end], ',' | '.' | '\'' | '\u{a0}' | '\u{202f}')
                && chars.get(end + 1).is_some_and(char::is_ascii_digit)))
    {
        end += 1;
    }
    let run: Vec<char> = chars[start..end].to_vec();
    let separators: Vec<(usize, char)> =
        run.iter().enumerate().filter(|(_, c)| !c.is_ascii_digit()).map(|(i, c)| (i, *c)).collect();
    let decimal = match separators.last() {
        None => None,
        Some(&(i, last)) => {
            let digits_after = run.len() - i - 1;
            let mixed = separators.iter().any(|(_, c)| *c != last);
            let repeated = separators.iter().filter(|(_, c)| *c == last).count() > 1;
            let is_decimal = matches!(last, ',' | '.')
                && (mixed || (!repeated && digits_after != 3) || (last == '.' && !repeated));
            is_decimal.then_some(i)
        }
    };
    let mut number = String::with_capacity(run.len() + 1);
    if negative {
        number.push('-');
    }
    for (i, c) in run.iter().enumerate() {
        if c.is_ascii_digit() {
            number.push(*c);
        } else if Some(i) == decimal {
            number.push('.');
        }
    }
    number.parse().ok()
}
