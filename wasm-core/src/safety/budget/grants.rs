//! How much of each kind the user's words grant, and to whom: counts from numerals and number
//! words ("add **one** teapot", "buy **5** gift cards", "delete **all** my mail"), the
//! recipient a message is for ("reply **to Ann**"), and the domains a change may touch ("change
//! my **plan**" may change billing; "rename my project" may not change roles).

use super::WriteKind;
use crate::safety::writes::EffectKind;
use serde::{Deserialize, Serialize};

/// How many writes of a kind the user's words allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    /// Exactly up to this many.
    Up(u32),
    /// "all", "every", a plural object ("delete my spam mails"), or a change of settings.
    Many,
}

impl Count {
    /// Two grants of kinds that cover the same effect add up.
    pub fn plus(self, other: Self) -> Self {
        match (self, other) {
            (Self::Up(a), Self::Up(b)) => Self::Up(a.saturating_add(b)),
            _ => Self::Many,
        }
    }

    /// Whether `n` writes fit.
    pub fn allows(self, n: u32) -> bool {
        match self {
            Self::Up(limit) => n <= limit,
            Self::Many => true,
        }
    }

    /// In words ("1", "any number of").
    pub fn words(self) -> String {
        match self {
            Self::Up(n) => n.to_string(),
            Self::Many => "any number".into(),
        }
    }
}

/// One write the user's words ask for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// What kind.
    pub kind: WriteKind,
    /// How many.
    pub count: Count,
    /// For a message: who it is for, as the user wrote them (lower case words or addresses);
    /// empty when the words name nobody.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recipients: Vec<String>,
}

/// Words skipped before an object's first word ("the", "my").
pub(super) const DETERMINERS: &[&str] =
    &["the", "my", "our", "this", "that", "these", "those", "his", "her", "their", "your", "me"];
/// Words that end an object ("add one teapot **to** the cart").
const OBJECT_ENDS: &[&str] = &[
    "to", "from", "on", "in", "into", "at", "for", "with", "and", "then", "saying", "that",
    "about", "of", "as", "by", "via", "using", "but", "so", "if",
];
/// Number words and what they count.
const NUMBERS: &[(&str, u32)] = &[
    ("a", 1),
    ("an", 1),
    ("one", 1),
    ("single", 1),
    ("another", 1),
    ("both", 2),
    ("two", 2),
    ("pair", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("dozen", 12),
];
/// Words that lift any count.
const ALL_WORDS: &[&str] = &["all", "every", "each", "any", "everything"];
/// The largest count read from a numeral (above it the number is an item's, not a count).
const MAX_COUNT: u32 = 99;
/// Message verbs whose object is the recipient ("email Bob", "message the landlord").
const ADDRESSED_VERBS: &[&str] = &["message", "email", "dm", "text", "invite"];

/// The grant for the verb at `at` in a clause's `words` (lower case).
pub(super) fn grant_at(words: &[&str], at: usize, kind: WriteKind) -> Grant {
    let object: Vec<&str> =
        words.iter().skip(at + 1).copied().take_while(|w| !OBJECT_ENDS.contains(w)).collect();
    let first = object.iter().copied().find(|w| !DETERMINERS.contains(w));
    let number = |w: &str| {
        NUMBERS
            .iter()
            .find(|(n, _)| *n == w)
            .map(|(_, c)| *c)
            .or_else(|| w.parse::<u32>().ok().filter(|n| (1..=MAX_COUNT).contains(n)))
    };
    let plural = |w: &&str| {
        w.chars().count() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us")
    };
    // "one teapot and two cups": each further counted object after "and" adds to the count.
    let more: u32 = words
        .iter()
        .skip(at + 1 + object.len())
        .copied()
        .collect::<Vec<_>>()
        .windows(2)
        .take_while(|w| matches!(w[0], "and" | "plus") || !OBJECT_ENDS.contains(&w[0]))
        .filter(|w| matches!(w[0], "and" | "plus"))
        .filter_map(|w| number(w[1]))
        .sum();
    let count = if object.iter().any(|w| ALL_WORDS.contains(w)) {
        Count::Many
    } else if let Some(n) = first.and_then(number) {
        Count::Up(n.saturating_add(more))
    } else if kind == WriteKind::Change || object.iter().any(plural) {
        // Settings are edits, not things handed out: a count rarely matters.
        Count::Many
    } else {
        Count::Up(1)
    };
    let mut recipients = Vec::new();
    if kind == WriteKind::Message {
        if ADDRESSED_VERBS.contains(&words[at])
            && let Some(who) = first
        {
            recipients.push(who.to_owned());
        }
        let after = words.iter().skip(at + 1).copied().skip_while(|w| *w != "to").nth(1);
        if let Some(who) = after.filter(|w| !DETERMINERS.contains(w) && !ALL_WORDS.contains(w)) {
            recipients.push(who.to_owned());
        }
    }
    Grant { kind, count, recipients }
}

/// The user's words that let a change touch billing, accounts or integrations.
const TOPICS: &[(EffectKind, &[&str])] = &[
    (
        EffectKind::Billing,
        &[
            "plan",
            "subscription",
            "billing",
            "payout",
            "payouts",
            "bank",
            "iban",
            "card",
            "payment",
            "renew",
            "auto-renew",
            "autorenew",
            "premium",
            "seats",
            "upgrade",
            "downgrade",
            "tier",
        ],
    ),
    (
        EffectKind::Account,
        &[
            "role",
            "roles",
            "owner",
            "ownership",
            "member",
            "members",
            "admin",
            "permission",
            "permissions",
            "access",
            "password",
            "invite",
            "team",
            "collaborator",
        ],
    ),
    (
        EffectKind::Integration,
        &["webhook", "webhooks", "integration", "integrations", "api", "key", "token", "app"],
    ),
];

/// The domains the user's `words` name.
pub(super) fn topics_in(words: &[&str]) -> Vec<EffectKind> {
    TOPICS
        .iter()
        .filter(|(_, names)| words.iter().any(|w| names.contains(w)))
        .map(|(kind, _)| *kind)
        .collect()
}

/// The effects a kind of write asked for may have.
pub fn covers(kind: WriteKind, effect: EffectKind, topics: &[EffectKind]) -> bool {
    use EffectKind as E;
    match kind {
        WriteKind::Search => effect == E::Lookup,
        WriteKind::Submit => matches!(effect, E::Submit | E::Unknown | E::Lookup),
        WriteKind::Cart => matches!(effect, E::Cart | E::Lookup),
        // The steps of a checkout post to addresses that say little (`/place`, `/shipping`).
        WriteKind::Purchase => matches!(effect, E::Order | E::Cart | E::Unknown | E::Lookup),
        WriteKind::Message => matches!(effect, E::Message | E::Submit | E::Lookup),
        WriteKind::Delete => matches!(effect, E::Delete | E::Cart | E::Lookup),
        WriteKind::Change => {
            matches!(effect, E::Settings | E::Unknown | E::Lookup) || topics.contains(&effect)
        }
    }
}
