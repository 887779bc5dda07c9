//! What an action activates, where its words cannot be trusted: which keys activate the
//! focused element like a click, which GET addresses change state on their own ("Buy it
//! again" → `/orders/new?…&oneclick=1`), and which fields publish what is typed into them.
//! Page words here only ever *add* a check (a URL that says "delete" is held for a read-only
//! task; a benign-looking one is still held at the network layer if it POSTs).

use super::target::ActionTarget;
use super::weburl::WebUrl;

/// Key names that activate the focused element (a button, link, checkbox, menu item).
const ACTIVATING_KEYS: &[&str] = &["enter", "space", "spacebar", "numpadenter"];
/// Key names that move the focus to another element before the keys after them.
const FOCUS_MOVING_KEYS: &[&str] = &[
    "tab",
    "arrowdown",
    "arrowup",
    "arrowleft",
    "arrowright",
    "home",
    "end",
    "pagedown",
    "pageup",
];
/// Roles of elements a key activates like a click.
const ACTIVATABLE_ROLES: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "switch",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "option",
    "treeitem",
];
/// Input types a key activates like a click.
const ACTIVATABLE_INPUTS: &[&str] = &["submit", "button", "checkbox", "radio", "image", "reset"];

/// The single keys of a sequence (`Tab Space`, `Shift+Tab Enter`), lower case; a `+` chord
/// counts with each of its keys.
fn keys(sequence: &str) -> impl Iterator<Item = String> + '_ {
    sequence.split([' ', '+']).filter(|k| !k.is_empty()).map(str::to_lowercase)
}

/// Whether a key sequence activates what is focused (Enter or Space).
pub fn activates(sequence: &str) -> bool {
    keys(sequence).any(|k| ACTIVATING_KEYS.contains(&k.as_str()))
}

/// Whether a key sequence moves the focus and then activates: the element it activates is not
/// the one described before the keys ("Tab Space").
pub fn moves_then_activates(sequence: &str) -> bool {
    let mut moved = false;
    for key in keys(sequence) {
        if FOCUS_MOVING_KEYS.contains(&key.as_str()) {
            moved = true;
        } else if moved && ACTIVATING_KEYS.contains(&key.as_str()) {
            return true;
        }
    }
    false
}

/// Whether Space or Enter on the element does what a click does (not a text field, where
/// Enter submits its form and Space types).
pub fn activatable(t: &ActionTarget) -> bool {
    match t.tag.as_str() {
        "input" => ACTIVATABLE_INPUTS.contains(&t.input_type.as_str()),
        "textarea" | "select" => false,
        "button" | "a" | "summary" => true,
        _ => ACTIVATABLE_ROLES.contains(&t.role.to_lowercase().as_str()),
    }
}

/// Words in a GET address that say it changes something (a one-click order, an unsubscribe
/// link, a delete link): matched on whole path segments and query keys and values, decoded.
const STATE_WORDS: &[&str] = &[
    "oneclick",
    "one-click",
    "1click",
    "buy",
    "buynow",
    "buy-now",
    "purchase",
    "checkout",
    "order",
    "orders",
    "reorder",
    "pay",
    "payment",
    "delete",
    "remove",
    "destroy",
    "erase",
    "unsubscribe",
    "subscribe",
    "cancel",
    "confirm",
    "approve",
    "accept",
    "grant",
    "authorize",
    "transfer",
    "send",
    "post",
    "publish",
    "vote",
    "like",
    "follow",
    "invite",
    "add",
    "add-to-cart",
    "addtocart",
    "cart-add",
    "donate",
    "archive",
    "close",
    "deactivate",
    "disable",
    "enable",
    "upgrade",
    "downgrade",
    "renew",
    "autorenew",
    "auto-renew",
    "share",
    "transfer-ownership",
];
/// Query keys whose mere presence with a value names an operation (`?action=…`, `?do=…`).
const OPERATION_KEYS: &[&str] = &["action", "do", "op", "cmd", "operation", "method"];

/// Whether a GET to `url` looks like it changes state on the server: a whole path segment or
/// a query key or value (decoded) is one of [`STATE_WORDS`], or the query names an operation.
/// A list (`/orders`, `/orders/1234`, `/post/17`) is read; `/orders/new` is an order.
pub fn get_changes_state(url: &str) -> bool {
    if WebUrl::parse(url).is_err() {
        return false;
    }
    let Ok(parsed) = url::Url::parse(url) else { return false };
    let is_word = |w: &str| STATE_WORDS.contains(&w.to_lowercase().as_str());
    let segments: Vec<String> = parsed
        .path_segments()
        .map(|s| s.map(|p| decoded(p).to_lowercase()).collect())
        .unwrap_or_default();
    let path_says = segments.iter().any(|s| is_word(s) && !is_listing(s));
    let new_entry = segments.windows(2).any(|w| is_listing(&w[0]) && w[1] == "new");
    let query_says = parsed.query_pairs().any(|(k, v)| {
        let key = k.to_lowercase();
        is_word(&key) || is_word(&v) || (OPERATION_KEYS.contains(&key.as_str()) && !v.is_empty())
    });
    path_says || new_entry || query_says
}

/// Segments that name a list or an item to read (`/orders`, `/post/17`), not an operation.
fn is_listing(segment: &str) -> bool {
    matches!(segment, "orders" | "order" | "post" | "send" | "like" | "share")
}

/// `%xx`-decoded, lossy (what the path means to the server).
fn decoded(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| s.to_owned())
}

/// Words in a field's name that say what is typed there is shown to other people (a status,
/// a comment, a post, a review, a public profile).
const PUBLIC_WORDS: &[&str] = &[
    "status",
    "comment",
    "comments",
    "post",
    "reply",
    "tweet",
    "publish",
    "review",
    "public",
    "mind",
    "caption",
    "guestbook",
    "paste",
    "shout",
];
/// Path segments of a form's address that say it publishes what it is sent.
const PUBLIC_PATHS: &[&str] = &[
    "comment",
    "comments",
    "reply",
    "replies",
    "status",
    "statuses",
    "tweet",
    "publish",
    "review",
    "reviews",
    "guestbook",
    "paste",
    "pastes",
    "post",
    "posts",
    "new-post",
    "wall",
];

/// Whether a field's form publishes what is typed into it to others: the field's name or a
/// segment of its form's action path say so. Only ever makes a field stricter (a secret is
/// never typed into it; for a task that did not ask to publish, typing there asks first).
/// Fields the browser autofills (a user name, an e-mail address) and searches are not posts.
pub fn publishes(t: &ActionTarget) -> bool {
    let has_word = |text: &str, words: &[&str]| {
        text.to_lowercase()
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .any(|w| words.contains(&w))
    };
    let field =
        matches!(t.tag.as_str(), "input" | "textarea") || t.role.eq_ignore_ascii_case("textbox");
    let autofilled = !t.autocomplete.is_empty() && t.autocomplete != "off";
    let search = t.role.eq_ignore_ascii_case("searchbox") || t.input_type == "search";
    let plain_text = matches!(t.input_type.as_str(), "" | "text");
    if !field || autofilled || search || (t.tag == "input" && !plain_text) {
        return false;
    }
    let action_path = t
        .form_action
        .as_deref()
        .and_then(|a| url::Url::parse(a).ok())
        .map(|u| u.path().to_owned())
        .unwrap_or_default();
    has_word(&t.name, PUBLIC_WORDS)
        || action_path
            .split('/')
            .any(|segment| PUBLIC_PATHS.contains(&segment.to_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_activate_and_keys_that_move_first() {
        assert!(activates("Space"));
        assert!(activates("Control+Enter"));
        assert!(!activates("a b c"));
        assert!(moves_then_activates("Tab Space"));
        assert!(moves_then_activates("Shift+Tab Enter"));
        assert!(!moves_then_activates("Space Tab"));
        assert!(!moves_then_activates("Enter"));
    }

    #[test]
    fn buttons_and_links_are_activated_fields_are_not() {
        let button = ActionTarget { tag: "button".into(), ..ActionTarget::default() };
        let check = ActionTarget {
            tag: "input".into(),
            input_type: "checkbox".into(),
            ..ActionTarget::default()
        };
        let field = ActionTarget {
            tag: "input".into(),
            input_type: "text".into(),
            ..ActionTarget::default()
        };
        let div_button = ActionTarget { tag: "div".into(), role: "button".into(), ..field.clone() };
        assert!(activatable(&button) && activatable(&check) && activatable(&div_button));
        assert!(!activatable(&field));
    }

    #[test]
    fn get_links_that_change_state_are_recognised() {
        for url in [
            "https://shop.example/orders/new?item=42&oneclick=1",
            "https://shop.example/buy-now/42",
            "https://news.example/list?action=unsubscribe&u=7",
            "https://files.example/f/9/delete",
            "https://shop.example/cart?add=42",
            "https://shop.example/account?autorenew=on",
        ] {
            assert!(get_changes_state(url), "{url}");
        }
        for url in [
            "https://shop.example/orders",
            "https://shop.example/orders/1234",
            "https://shop.example/product/blue-teapot",
            "https://forum.example/post/17",
            "https://shop.example/search?q=teapot",
            "https://news.example/2026/11/cancel-culture-debate",
        ] {
            assert!(!get_changes_state(url), "{url}");
        }
    }

    #[test]
    fn public_fields_are_recognised_by_name_or_form() {
        let status = ActionTarget {
            tag: "textarea".into(),
            name: "What's on your mind?".into(),
            ..ActionTarget::default()
        };
        assert!(publishes(&status));
        let note = ActionTarget {
            tag: "input".into(),
            name: "Note".into(),
            form_action: Some("https://forum.example/thread/9/reply".into()),
            ..ActionTarget::default()
        };
        assert!(publishes(&note));
        let search = ActionTarget {
            tag: "input".into(),
            input_type: "search".into(),
            name: "Search posts".into(),
            ..ActionTarget::default()
        };
        assert!(!publishes(&search));
        let name = ActionTarget {
            tag: "input".into(),
            name: "Your name".into(),
            ..ActionTarget::default()
        };
        assert!(!publishes(&name));
        // A forum's login form: its user name field is no post.
        let login = ActionTarget {
            tag: "input".into(),
            name: "Username".into(),
            autocomplete: "username".into(),
            form_action: Some("https://forum.example/forum/login".into()),
            ..ActionTarget::default()
        };
        assert!(!publishes(&login));
        let unnamed = ActionTarget { autocomplete: String::new(), ..login };
        assert!(!publishes(&unnamed), "“forum” in the path is not a post");
    }
}
