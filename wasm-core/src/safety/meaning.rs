//! What activating an element means to the user — paying, sending a message, deleting, changing
//! account settings — read from its live accessible name AND its form (where the form posts, what
//! fields it carries). Generic words ("Submit", "Save", "Continue", "Search", "Apply") mean
//! nothing by themselves: a card on every benign form teaches users to click through cards.

use super::risk::ConfirmClass;
use super::target::ActionTarget;
use super::weburl::WebUrl;

/// Names that spend money (matched as whole words on the normalised name).
const MONEY: &[&str] = &[
    "buy",
    "buy now",
    "purchase",
    "place order",
    "place your order",
    "complete order",
    "complete purchase",
    "complete payment",
    "confirm order",
    "confirm purchase",
    "confirm payment",
    "submit order",
    "submit payment",
    "pay",
    "make payment",
    "make a payment",
    "order now",
    "book now",
    "confirm booking",
    "donate",
    "place bid",
    "bid now",
    "upgrade",
    "start trial",
    "start free trial",
    "start subscription",
    "start membership",
    "renew",
    "send money",
    "send payment",
    "transfer",
    "transfer money",
    "transfer funds",
    "withdraw",
    "top up",
    "add funds",
    "1 click",
    "rent",
];

/// Words next to an amount (`$9.99`) that make it a price to pay rather than a filter label.
const PRICE_VERBS: &[&str] = &[
    "get",
    "subscribe",
    "join",
    "start",
    "confirm",
    "complete",
    "continue",
    "checkout",
    "order",
    "book",
    "renew",
    "buy",
    "pay",
    "tip",
    "give",
];

/// Names that destroy data or end something the user has.
const DELETION: &[&str] = &[
    "delete",
    "erase",
    "destroy",
    "purge",
    "wipe",
    "empty trash",
    "empty bin",
    "empty recycle bin",
    "empty the trash",
    "deactivate",
    "close account",
    "close my account",
    "cancel account",
    "terminate",
    "permanently",
    "clear history",
    "clear browsing data",
    "clear data",
    "remove account",
    "remove user",
    "remove member",
    "remove collaborator",
    "remove repository",
    "remove project",
    "remove team",
    "remove organization",
    "remove device",
    "remove everything",
    "cancel order",
    "cancel subscription",
    "cancel membership",
    "cancel booking",
    "cancel reservation",
    "factory reset",
];

/// Names that change who can get into the account or what others may do with it.
const ACCOUNT: &[&str] = &[
    "change password",
    "reset password",
    "update password",
    "set password",
    "change email",
    "update email",
    "change e mail",
    "add email",
    "change username",
    "change phone",
    "update phone",
    "add phone",
    "api key",
    "api keys",
    "access token",
    "generate token",
    "create token",
    "new token",
    "personal access token",
    "ssh key",
    "deploy key",
    "add key",
    "webhook",
    "add webhook",
    "transfer ownership",
    "make owner",
    "make admin",
    "grant",
    "authorize",
    "allow access",
    "revoke",
    "change role",
    "make public",
    "make private",
    "change visibility",
];

/// Verbs that send a message whenever they lead the name.
const MESSAGE_VERBS: &[&str] = &["send", "post", "publish", "tweet", "retweet", "repost"];

/// Verbs that send a message when the element submits a form (alone they often only open an
/// editor: Gmail's "Reply", a "Share" menu).
const MESSAGE_VERBS_IN_FORMS: &[&str] = &["reply", "comment", "share", "invite", "forward"];

/// Phrases that send a message wherever they stand.
const MESSAGE_PHRASES: &[&str] = &[
    "post comment",
    "post reply",
    "submit comment",
    "submit review",
    "submit reply",
    "submit post",
    "add comment",
    "add reply",
    "leave comment",
    "leave a comment",
    "leave a reply",
    "send message",
    "send invitation",
    "send invite",
];

/// Form field names (tokens) that carry payment details.
const MONEY_FIELDS: &[&str] = &[
    "card",
    "card number",
    "cardnumber",
    "cc number",
    "ccnumber",
    "cvv",
    "cvc",
    "csc",
    "iban",
    "routing number",
    "amount",
    "donation",
];

/// Form field names (tokens) of a message to someone.
/// (`to` alone is no message: a flight search has `from` and `to`.)
const MESSAGE_FIELDS: &[&str] =
    &["recipient", "recipients", "bcc", "subject", "message", "msg", "comment", "reply"];

/// Path words (of the form's action) that pay, delete or send.
const MONEY_PATH: &[&str] = &["pay", "payment", "payments", "purchase", "buy", "charge", "donate"];
const DELETION_PATH: &[&str] = &["delete", "destroy", "erase", "purge", "deactivate"];
const MESSAGE_PATH: &[&str] = &[
    "comment",
    "comments",
    "reply",
    "replies",
    "message",
    "messages",
    "send",
    "compose",
    "publish",
    "tweet",
    "tweets",
    "invite",
    "invitations",
    "share",
];

/// Path words of the page or the form's action that make any submission an account change.
const ACCOUNT_PATH: &[&str] = &[
    "security",
    "admin",
    "password",
    "passwords",
    "2fa",
    "mfa",
    "tokens",
    "token",
    "apikeys",
    "keys",
    "ssh",
    "webhooks",
    "webhook",
    "permissions",
    "members",
    "collaborators",
    "oauth",
    "recovery",
    "sessions",
];

/// Path words of pages where the user's account is edited.
const SETTINGS_PATH: &[&str] = &[
    "settings",
    "setting",
    "account",
    "accounts",
    "profile",
    "preferences",
    "security",
    "admin",
    "user",
    "users",
    "me",
];

/// Field words that, edited on an account page, change how the account is reached or shared.
const ACCOUNT_FIELDS: &[&str] = &[
    "email",
    "e mail",
    "phone",
    "mobile",
    "tel",
    "username",
    "user name",
    "login",
    "role",
    "permission",
    "permissions",
    "visibility",
    "owner",
    "admin",
    "access",
    "sharing",
    "public",
];

/// Words of a field whose Enter sends what was written (a chat box, a comment field).
const COMPOSE_FIELDS: &[&str] =
    &["message", "reply", "comment", "chat", "compose", "tweet", "post", "write"];

/// How the element would be activated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// Clicked.
    Click,
    /// Enter pressed in it.
    Enter,
    /// Typed into, chosen, checked.
    Edit,
}

/// What activating `t` means, if it is one of the carded meanings.
pub fn meaning(t: &ActionTarget, how: Activation) -> Option<ConfirmClass> {
    let name = normalise(&t.name);
    match how {
        Activation::Edit => account_field(t, &name).then_some(ConfirmClass::AccountSettings),
        Activation::Enter => {
            let compose = any_phrase(&name, COMPOSE_FIELDS) && !contains_phrase(&name, "search");
            if compose && t.input_type != "search" && t.role != "searchbox" {
                return Some(ConfirmClass::Message);
            }
            if t.form_action.is_none() || t.tag == "textarea" {
                return None;
            }
            // Enter submits the form as its default button would: judged as that click.
            let pressed = ActionTarget {
                name: t.default_button.clone(),
                submits_form: true,
                href: None,
                ..t.clone()
            };
            by_name(&pressed, &pressed.name).or_else(|| form_context(t))
        }
        Activation::Click => {
            // What the element draws counts as much as what it is called: a button labelled
            // "Search" for screen readers but drawn "Place order" places an order.
            let drawn = Some(t.shown.as_str()).filter(|s| !s.is_empty());
            if let Some(class) = by_name(t, &t.name).or_else(|| by_name(t, drawn?)) {
                return Some(class);
            }
            t.submits_form.then(|| form_context(t)).flatten()
        }
    }
}

/// The meaning the words `label` (its accessible name, or what it draws) give a clicked
/// element.
fn by_name(t: &ActionTarget, label: &str) -> Option<ConfirmClass> {
    let name = &normalise(label);
    if any_phrase(name, DELETION) {
        return Some(ConfirmClass::Delete);
    }
    if is_navigation_link(t) {
        // A link is a GET navigation: it pays or sends nothing by its words (a "Buy now" banner
        // leads to a product page); deletion links (`data-method="delete"`) are the exception.
        return None;
    }
    if any_phrase(name, ACCOUNT) {
        return Some(ConfirmClass::AccountSettings);
    }
    if any_phrase(name, MONEY) || is_price(label, name) {
        return Some(ConfirmClass::Purchase);
    }
    let first = name.split(' ').next().unwrap_or_default();
    let in_form = t.submits_form;
    let verb = MESSAGE_VERBS.contains(&first)
        || (in_form && MESSAGE_VERBS_IN_FORMS.contains(&first) && !name.starts_with("forward "))
        || any_phrase(name, MESSAGE_PHRASES);
    verb.then_some(ConfirmClass::Message)
}

/// Whether the element is a link that loads another document (not `#`, not `javascript:`):
/// those are judged as navigations.
fn is_navigation_link(t: &ActionTarget) -> bool {
    let Some(href) = t.href.as_deref() else { return false };
    let Ok(to) = WebUrl::parse(href) else { return false };
    WebUrl::parse(&t.page_url).map_or(true, |here| !here.same_document(&to))
}

/// What the form around a submission says: its fields and where it posts.
fn form_context(t: &ActionTarget) -> Option<ConfirmClass> {
    let fields: Vec<(String, String)> = t
        .form_data
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (normalise(k), v.trim().to_lowercase()))
        .collect();
    let action = t.form_action.as_deref().and_then(|a| WebUrl::parse(a).ok());
    let action_path = action.as_ref().map(|a| normalise(&a.path())).unwrap_or_default();
    let page_path = WebUrl::parse(&t.page_url).map(|u| normalise(&u.path())).unwrap_or_default();
    let field_has = |words: &[&str]| fields.iter().any(|(k, _)| field_is(k, words));
    if fields.iter().any(|(k, v)| k == "method" && v == "delete")
        || any_phrase(&action_path, DELETION_PATH)
    {
        return Some(ConfirmClass::Delete);
    }
    if any_phrase(&action_path, ACCOUNT_PATH) || any_phrase(&page_path, ACCOUNT_PATH) {
        return Some(ConfirmClass::AccountSettings);
    }
    if field_has(MONEY_FIELDS)
        || any_phrase(&action_path, MONEY_PATH)
        || any_phrase(&action_path, &["place order", "complete order", "confirm order"])
    {
        return Some(ConfirmClass::Purchase);
    }
    let searching = any_phrase(&action_path, &["search", "filter"])
        || any_phrase(&normalise(&t.name), &["search", "find", "filter"]);
    if !searching && (field_has(MESSAGE_FIELDS) || any_phrase(&action_path, MESSAGE_PATH)) {
        return Some(ConfirmClass::Message);
    }
    None
}

/// Whether a form field's normalised name is one of `words`: short words (`to`, `card`) only
/// as the whole name (`return_to` is no recipient), longer ones anywhere in it
/// (`comment_post_id`).
fn field_is(key: &str, words: &[&str]) -> bool {
    words.iter().any(|w| key == *w || (w.len() >= 5 && contains_phrase(key, w)))
}

/// Whether editing `t` changes how the account is reached or shared: an email, phone, user name,
/// role or visibility field on an account or settings page.
fn account_field(t: &ActionTarget, name: &str) -> bool {
    let page_path = WebUrl::parse(&t.page_url).map(|u| normalise(&u.path())).unwrap_or_default();
    let signing_in =
        any_phrase(&page_path, &["login", "signin", "sign in", "signup", "sign up", "register"]);
    if signing_in || !any_phrase(&page_path, SETTINGS_PATH) {
        return false;
    }
    let kind = normalise(&format!("{} {}", t.input_type, t.autocomplete));
    any_phrase(name, ACCOUNT_FIELDS) || any_phrase(&kind, &["email", "tel", "username"])
}

/// Whether the name states a price to pay (`Subscribe – $9.99/month`, `Get Pro for 5 €`).
fn is_price(raw: &str, name: &str) -> bool {
    const CURRENCY: &str = "$€£¥₹₩₽₺₴₦₱฿₫₪";
    let symbol = raw.chars().any(|c| CURRENCY.contains(c))
        || any_phrase(name, &["usd", "eur", "gbp", "chf", "jpy", "cad", "aud"]);
    let amount = raw.chars().any(|c| c.is_ascii_digit());
    symbol && amount && any_phrase(name, PRICE_VERBS)
}

fn any_phrase(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| contains_phrase(text, p))
}

/// Whether `phrase` occurs in the normalised `text` at word boundaries.
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    let padded = format!(" {text} ");
    padded.contains(&format!(" {phrase} "))
}

/// A name (or a path, or a field name) as words: lower case, look-alike letters folded,
/// invisible characters dropped, full-width forms narrowed, everything that is not a letter or
/// digit a single space — so "Place-Order", "PLACE\u{200b} ORDER" and "place_order" read alike.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_invisible(c) {
            continue;
        }
        let c = narrow(c);
        for c in c.to_lowercase() {
            let c = fold_lookalike(c);
            if c.is_alphanumeric() {
                out.push(c);
            } else if !out.ends_with(' ') {
                out.push(' ');
            }
        }
    }
    out.trim().to_owned()
}

/// Zero-width and direction controls, soft hyphens: they split a word for a matcher but not
/// for a reader.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{feff}'
    )
}

/// Full-width ASCII forms (`Ｐａｙ`) to ASCII.
fn narrow(c: char) -> char {
    match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
        '\u{3000}' => ' ',
        other => other,
    }
}

/// Cyrillic and Greek letters that look like Latin ones, folded to those: enough to see through
/// a homograph of a trigger word or a brand (a full confusables table is in no crate we use).
pub fn fold_lookalike(c: char) -> char {
    match c {
        'а' | 'α' => 'a',
        'е' | 'ε' => 'e',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' | 'ϲ' => 'c',
        'у' | 'γ' => 'y',
        'х' | 'χ' => 'x',
        'і' | 'ι' => 'i',
        'ѕ' => 's',
        'ј' => 'j',
        'ԁ' => 'd',
        'ӏ' | 'ⅼ' => 'l',
        'ɡ' => 'g',
        'ո' => 'n',
        'ν' => 'v',
        'ω' | 'ԝ' => 'w',
        'κ' | 'к' => 'k',
        'т' | 'τ' => 't',
        'в' | 'β' => 'b',
        'м' => 'm',
        'һ' => 'h',
        other => other,
    }
}

#[cfg(test)]
#[path = "meaning_tests.rs"]
mod tests;
