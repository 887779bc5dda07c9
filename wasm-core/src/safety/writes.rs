//! What a state-changing request does, read where the server reads it: its method, the
//! segments of its path and the names (and operation values) of its decoded fields — never
//! the words of the control that caused it. Each request an action causes is put into one
//! [`EffectKind`], which the task's write budget ([`super::budget`]) grants or not.
//!
//! The path and field names are the site's own API words; a hostile page can choose which
//! endpoint its script calls, but not what the server does there. Where a request names
//! several kinds (`/api/projects/7/members` with a `role` field) the most dangerous one
//! counts ([`EffectKind`] is ordered from most to least dangerous).

use super::baseline::Baseline;
use super::network::body::{self, Field, RequestBody};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What a state-changing request does, from most to least dangerous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectKind {
    /// Members, roles, owners, permissions, passwords, access.
    Account,
    /// Webhooks, integrations, API keys, OAuth grants.
    Integration,
    /// Payouts, bank accounts, billing, plans and subscriptions.
    Billing,
    /// Deleting, closing, cancelling, archiving (and any `DELETE`).
    Delete,
    /// Orders, checkout, payment.
    Order,
    /// Sending or publishing: messages, replies, comments, posts, reviews, votes.
    Message,
    /// Putting something into (or taking it out of) a cart or list.
    Cart,
    /// A form of the kind people fill in: sign-up, newsletter, contact, feedback, upload.
    Submit,
    /// Settings and records: names, titles, preferences, profile.
    Settings,
    /// A read sent by POST: search, suggestions, lookups.
    Lookup,
    /// Analytics and telemetry (`/collect`, `/events`, `/metrics`).
    Telemetry,
    /// Nothing in the request says what it does.
    Unknown,
}

impl EffectKind {
    /// In words, for cards ("it would add to a cart").
    pub fn words(self) -> &'static str {
        match self {
            Self::Account => "change members, roles or access",
            Self::Integration => "set up a webhook, an integration or an API key",
            Self::Billing => "change billing, a plan or a payout",
            Self::Delete => "delete or cancel something",
            Self::Order => "order or pay",
            Self::Message => "send or publish a message",
            Self::Cart => "change a cart",
            Self::Submit => "send a form",
            Self::Settings => "change a setting or a name",
            Self::Lookup => "look something up",
            Self::Telemetry => "report analytics",
            Self::Unknown => "change something (what, the request does not say)",
        }
    }
}

/// Tokens (whole words of a path segment or field name, lower case) that name each kind, in
/// the order they are tried.
const KIND_WORDS: &[(EffectKind, &[&str])] = &[
    (
        EffectKind::Account,
        &[
            "role",
            "roles",
            "owner",
            "owners",
            "ownership",
            "permission",
            "permissions",
            "admin",
            "admins",
            "member",
            "members",
            "membership",
            "collaborator",
            "collaborators",
            "access",
            "password",
            "mfa",
            "2fa",
            "sudo",
            "grant",
            "grants",
            "invite",
            "invites",
        ],
    ),
    (
        EffectKind::Integration,
        &[
            "webhook",
            "webhooks",
            "hook",
            "hooks",
            "integration",
            "integrations",
            "apikey",
            "apikeys",
            "token",
            "tokens",
            "oauth",
            "authorize",
            "callback",
            "endpoint",
        ],
    ),
    (
        EffectKind::Billing,
        &[
            "payout",
            "payouts",
            "billing",
            "bank",
            "iban",
            "routing",
            "plan",
            "plans",
            "subscription",
            "subscriptions",
            "renew",
            "autorenew",
            "upgrade",
            "downgrade",
            "seats",
        ],
    ),
    (
        EffectKind::Delete,
        &[
            "delete",
            "remove",
            "destroy",
            "erase",
            "trash",
            "purge",
            "close",
            "deactivate",
            "cancel",
            "archive",
            "unsubscribe",
            "wipe",
        ],
    ),
    (
        EffectKind::Order,
        &[
            "order",
            "orders",
            "checkout",
            "purchase",
            "purchases",
            "buy",
            "buynow",
            "pay",
            "payment",
            "payments",
            "oneclick",
            "reorder",
            "donate",
            "donation",
            "transfer",
            "transfers",
            "booking",
            "bookings",
            "giftcard",
            "giftcards",
        ],
    ),
    (
        EffectKind::Message,
        &[
            "message",
            "messages",
            "reply",
            "replies",
            "comment",
            "comments",
            "post",
            "posts",
            "status",
            "statuses",
            "chat",
            "dm",
            "dms",
            "conversation",
            "conversations",
            "channel",
            "channels",
            "tweet",
            "publish",
            "reviews",
            "vote",
            "votes",
            "rating",
            "ratings",
            "share",
            "send",
            "mail",
            "outbox",
        ],
    ),
    (EffectKind::Cart, &["cart", "carts", "basket", "bag", "wishlist", "sku"]),
    (
        EffectKind::Submit,
        &[
            "signup",
            "register",
            "registration",
            "subscribe",
            "newsletter",
            "contact",
            "feedback",
            "support",
            "enquiry",
            "inquiry",
            "rsvp",
            "upload",
            "uploads",
            "apply",
            "enrol",
            "enroll",
            "waitlist",
            "login",
            "signin",
            "session",
        ],
    ),
    (
        EffectKind::Settings,
        &[
            "settings",
            "setting",
            "preferences",
            "prefs",
            "profile",
            "rename",
            "name",
            "title",
            "description",
            "theme",
            "language",
            "locale",
            "timezone",
            "nickname",
            "bio",
            "avatar",
            "notifications",
            "config",
        ],
    ),
    (
        EffectKind::Lookup,
        &["search", "query", "suggest", "suggestions", "autocomplete", "lookup", "validate"],
    ),
    (
        EffectKind::Telemetry,
        &[
            "analytics",
            "collect",
            "track",
            "tracking",
            "beacon",
            "telemetry",
            "metrics",
            "rum",
            "pixel",
            "events",
            "event",
            "log",
            "logs",
            "stats",
            "ping",
            "vitals",
        ],
    ),
];

/// Field names whose value names the operation (`{"action":"delete"}`, `?op=transfer`).
const OPERATION_FIELDS: &[&str] = &["action", "op", "operation", "do", "cmd", "intent", "type"];
/// Words of field names that say nothing about the operation (a CSRF token, a session id).
const FIELD_NOISE: &[&str] =
    &["token", "csrf", "xsrf", "authenticity", "nonce", "access", "session", "id", "key"];
/// Field names whose numeric value is how many items a cart or order write adds.
const QUANTITY_FIELDS: &[&str] = &["qty", "quantity", "count", "units", "amount_items"];
/// Field names whose value says who receives a message or where it is published.
const RECIPIENT_FIELDS: &[&str] = &[
    "to",
    "recipient",
    "recipients",
    "channel",
    "room",
    "user",
    "username",
    "email",
    "handle",
    "conversation",
    "group",
    "cc",
    "bcc",
    "audience",
    "visibility",
];
/// Path segments after which the next segment names a message's recipient or channel.
const RECIPIENT_PATHS: &[&str] =
    &["channels", "channel", "rooms", "users", "user", "groups", "dm", "dms", "conversations"];
/// Field words of goods bought, beside a quantity's and a cart's: a request carrying one of
/// them that says "reorder" buys again.
const GOODS_FIELDS: &[&str] = &[
    "item", "items", "product", "products", "variant", "price", "amount", "total", "payment",
    "card", "address", "shipping",
];
/// The path word that names buying again or arranging a list, told apart by what is sent.
const REORDER: &str = "reorder";
/// The largest quantity read from a request (anything above counts as this).
const MAX_QUANTITY: u32 = 1000;

/// One state-changing request, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    /// What it does.
    pub kind: EffectKind,
    /// How many items it adds (a quantity field of a cart or order write), at least 1.
    pub quantity: u32,
    /// Who receives it or where it is published (messages only; lower case), as the request
    /// names them: recipient fields and the segment after `/channels/`, `/users/`….
    pub recipients: Vec<String>,
    /// The path with ids and numbers replaced by `*`: repeated writes to one endpoint are
    /// repeated writes.
    pub endpoint: String,
    /// The words of the values the task put into it (fields as the page's forms held them
    /// before the task are left out), lower case, at most [`MAX_VALUE_WORDS`]: what a request
    /// that names nothing carries is how it can be told to be the search the user asked for
    /// ([`super::budget::WriteBudget::searches_for`]).
    pub values: BTreeSet<String>,
}

/// The most value words kept of one request (a search carries a few; a document carries
/// many, and none of them makes it a search).
pub const MAX_VALUE_WORDS: usize = 64;

/// The words of a name or segment: split at anything not a letter or digit and at a change
/// from lower to upper case (`addToCart` → add, to, cart), lower case.
pub(super) fn words_of(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut last_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            last_lower = false;
            continue;
        }
        if c.is_uppercase() && last_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        last_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Whether a path segment is an id (numbers, hex, a uuid, a long opaque token).
fn is_id(segment: &str) -> bool {
    let digits = segment.chars().filter(char::is_ascii_digit).count();
    !segment.is_empty()
        && (digits * 2 >= segment.chars().count()
            || (segment.len() >= 16
                && segment.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')))
}

/// Reads one state-changing request: `method` (upper case), `url`, and its body as the
/// browser reported it.
pub fn classify(method: &str, url: &str, request_body: Option<&RequestBody>) -> Effect {
    classify_against(method, url, request_body, None)
}

/// [`classify`], where the fields that still carry what `baseline` (the page's forms before
/// the task touched the page) held for this address say nothing of what the request does:
/// only the fields the task changed, the path and the operation fields are read.
pub fn classify_against(
    method: &str,
    url: &str,
    request_body: Option<&RequestBody>,
    baseline: Option<&Baseline>,
) -> Effect {
    let fields = body::fields(url, request_body);
    let unchanged = baseline.map(|b| b.unchanged(url, &fields)).unwrap_or_default();
    let segments: Vec<String> = url::Url::parse(url)
        .ok()
        .and_then(|u| u.path_segments().map(|s| s.map(decoded).collect()))
        .unwrap_or_default();
    let endpoint = segments
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| if is_id(s) { "*" } else { s.as_str() })
        .collect::<Vec<_>>()
        .join("/");
    let mut path_tokens: Vec<String> = segments.iter().flat_map(|s| words_of(s)).collect();
    // "reorder" with a list and nothing of goods is a list arranged, a record changed.
    let arranged = path_tokens.iter().any(|t| t == REORDER) && arranges(&fields);
    if arranged {
        path_tokens.retain(|t| t != REORDER);
    }
    let mut field_tokens: Vec<String> = Vec::new();
    let mut values: BTreeSet<String> = BTreeSet::new();
    for field in &fields {
        let name_words = words_of(&field.name);
        let last = name_words.last().cloned().unwrap_or_default();
        if OPERATION_FIELDS.contains(&last.as_str()) {
            field_tokens.extend(words_of(&field.value));
        } else if unchanged.contains(&field.name) {
            // As the form held it before the task: sending it again changes nothing.
            continue;
        }
        let value_words =
            field.value.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty());
        for word in value_words {
            if values.len() >= MAX_VALUE_WORDS {
                break;
            }
            values.insert(word.to_lowercase());
        }
        field_tokens.extend(name_words.into_iter().filter(|w| !FIELD_NOISE.contains(&w.as_str())));
    }
    let found = |kinds: &[EffectKind], tokens: &[String]| {
        kinds.iter().copied().find(|kind| tokens.iter().any(|t| has(*kind, t)))
    };
    let all: Vec<String> = path_tokens.iter().chain(&field_tokens).cloned().collect();
    let kind = if method.eq_ignore_ascii_case("DELETE") {
        if all.iter().any(|t| has(EffectKind::Cart, t)) {
            EffectKind::Cart
        } else {
            EffectKind::Delete
        }
    } else {
        // The dangerous kinds count wherever they are named; the others by the path.
        let (dangerous, gentle): (Vec<EffectKind>, Vec<EffectKind>) =
            KIND_WORDS.iter().map(|(k, _)| *k).partition(|k| *k <= EffectKind::Order);
        // Field names alone say little of the gentler kinds (a checkout's `name`, a contact
        // form's `message`): only a cart's `sku` and telemetry's `events` count there.
        let by_fields = [EffectKind::Cart, EffectKind::Telemetry];
        found(&dangerous, &all)
            .or_else(|| found(&gentle, &path_tokens))
            .or_else(|| found(&by_fields, &field_tokens))
            .unwrap_or(if arranged { EffectKind::Settings } else { EffectKind::Unknown })
    };
    let quantity = fields
        .iter()
        .filter(|f| words_of(&f.name).last().is_some_and(|w| QUANTITY_FIELDS.contains(&w.as_str())))
        .filter_map(|f| f.value.trim().parse::<f64>().ok())
        .filter(|q| q.is_finite() && *q >= 1.0)
        .map(|q| q.min(f64::from(MAX_QUANTITY)) as u32)
        .max()
        .unwrap_or(1);
    let mut recipients: Vec<String> = fields
        .iter()
        .filter(|f| {
            words_of(&f.name).last().is_some_and(|w| RECIPIENT_FIELDS.contains(&w.as_str()))
        })
        .map(|f| f.value.to_lowercase())
        .filter(|v| !v.trim().is_empty())
        .collect();
    recipients.extend(
        segments
            .windows(2)
            .filter(|w| RECIPIENT_PATHS.contains(&w[0].to_lowercase().as_str()))
            .map(|w| w[1].to_lowercase()),
    );
    Effect { kind, quantity, recipients, endpoint, values }
}

/// Whether `fields` carry the order of a list and nothing of goods: some field holds two or
/// more entries (`a,b,c`, or a JSON array's `name.1`), and no field names a quantity, a
/// product, a price, a payment or an address.
fn arranges(fields: &[Field]) -> bool {
    let list = fields.iter().any(|f| {
        let entries = f.value.split(',').filter(|e| !e.trim().is_empty()).count();
        let index = words_of(&f.name).last().and_then(|w| w.parse::<u32>().ok());
        entries >= 2 || index.is_some_and(|i| i >= 1)
    });
    let goods = fields.iter().flat_map(|f| words_of(&f.name)).any(|w| {
        let w = w.as_str();
        GOODS_FIELDS.contains(&w) || QUANTITY_FIELDS.contains(&w) || has(EffectKind::Cart, w)
    });
    list && !goods
}

fn has(kind: EffectKind, token: &str) -> bool {
    KIND_WORDS.iter().any(|(k, words)| *k == kind && words.contains(&token))
}

/// `%xx`-decoded, lossy (what the path means to the server).
fn decoded(segment: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", segment.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| segment.to_owned())
}

#[cfg(test)]
#[path = "writes_tests.rs"]
mod tests;
