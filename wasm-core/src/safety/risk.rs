//! Risk classes of proposed actions, decided from what the action touches — the element, its
//! form's final action URL, the page and the URL — and never from the model's own claim.

use super::scope::origin_of;

/// What the agent proposes to do, reduced to what matters for risk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionKind {
    /// Observe, extract, scroll, find, wait, hover: nothing changes.
    Read,
    /// A click (or double click) on the target.
    Click,
    /// Typing text into the target.
    Type {
        /// The text.
        text: String,
    },
    /// Pressing a key on the target (Enter in a form submits it).
    PressKey {
        /// The key, e.g. `Enter`.
        key: String,
    },
    /// Choosing an option or checking a box.
    Choose,
    /// Loading a URL in the tab (or a new tab).
    Navigate {
        /// Where to.
        url: String,
    },
    /// Setting a file on a file input.
    Upload {
        /// The file's name as the user attached it.
        file: String,
    },
}

/// The element an action targets and where it sits, as the content script reports it from the
/// live element (never from the model's words).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ActionTarget {
    /// ARIA role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Tag name, lower case.
    pub tag: String,
    /// `type` attribute of inputs and buttons, lower case.
    pub input_type: String,
    /// `autocomplete` attribute, lower case.
    pub autocomplete: String,
    /// `href` of links (absolute).
    pub href: Option<String>,
    /// Whether the link has a `download` attribute.
    pub download: bool,
    /// The final action URL of the element's form (absolute), when it is in one.
    pub form_action: Option<String>,
    /// Whether activating the element submits its form.
    pub submits_form: bool,
    /// URL of the page.
    pub page_url: String,
    /// The values of the element's form (`name=value` pairs, password fields left out): what a
    /// submission would send, for the outbound check.
    pub form_data: String,
}

/// What the policy decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Risk {
    /// Done without asking.
    Free,
    /// Shown to the user exactly, and done only after a real click on Approve.
    Confirm {
        /// Category for the card's heading.
        category: &'static str,
        /// Exactly what will happen, for the card.
        what: String,
    },
    /// Never done by the agent: it pauses and the user takes over.
    Never {
        /// Why, for the take-over card.
        reason: String,
    },
}

/// Words that make an element one the agent must never operate.
const NEVER_WORDS: &[(&str, &str)] = &[
    ("password", "a password field"),
    ("passcode", "a passcode field"),
    ("one-time", "a one-time code"),
    ("otp", "a one-time code"),
    ("verification code", "a verification code"),
    ("security code", "a card security code"),
    ("cvv", "a card security code"),
    ("cvc", "a card security code"),
    ("card number", "a payment card field"),
    ("captcha", "a CAPTCHA"),
    ("i'm not a robot", "a CAPTCHA"),
    ("recovery email", "account recovery settings"),
    ("recovery e-mail", "account recovery settings"),
    ("recovery phone", "account recovery settings"),
    ("forwarding", "mail forwarding settings"),
    ("two-factor", "two-factor settings"),
    ("2fa", "two-factor settings"),
    ("backup codes", "two-factor settings"),
    ("authenticator", "two-factor settings"),
];

/// Words in an element's name that need a confirmation, by category.
const CONFIRM_WORDS: &[(&str, &[&str])] = &[
    (
        "purchase",
        &[
            "buy",
            "purchase",
            "checkout",
            "check out",
            "place order",
            "pay",
            "order now",
            "subscribe",
            "add to cart",
            "book now",
        ],
    ),
    (
        "delete",
        &["delete", "remove", "trash", "erase", "empty", "discard", "destroy", "unsubscribe"],
    ),
    (
        "send",
        &[
            "send", "post", "publish", "reply", "comment", "tweet", "share", "submit", "invite",
            "transfer",
        ],
    ),
    (
        "account settings",
        &[
            "change password",
            "security",
            "permissions",
            "grant",
            "authorize",
            "allow access",
            "api key",
            "access token",
        ],
    ),
];

/// File types a download of which needs a confirmation (executables and archives).
const RISKY_DOWNLOADS: &[&str] = &[
    ".exe",
    ".msi",
    ".dmg",
    ".pkg",
    ".deb",
    ".rpm",
    ".appimage",
    ".sh",
    ".bat",
    ".cmd",
    ".ps1",
    ".jar",
    ".apk",
    ".zip",
    ".7z",
    ".rar",
    ".tar.gz",
    ".iso",
    ".scr",
    ".vbs",
];

/// URL paths of account and security settings.
const SETTINGS_PATHS: &[&str] =
    &["/settings", "/account", "/security", "/preferences/security", "/admin"];

/// Classifies one proposed action.
pub fn classify(kind: &ActionKind, target: Option<&ActionTarget>) -> Risk {
    if !matches!(kind, ActionKind::Read)
        && let Some(reason) = target.and_then(never_reason)
    {
        return Risk::Never { reason };
    }
    if let Some(t) = target
        && is_oauth_consent(t)
        && matches!(kind, ActionKind::Click | ActionKind::PressKey { .. })
    {
        return Risk::Never { reason: "an OAuth consent screen".into() };
    }
    match kind {
        ActionKind::Read => Risk::Free,
        ActionKind::Navigate { url } => navigation(url, target.map(|t| t.page_url.as_str())),
        ActionKind::Upload { file } => Risk::Confirm {
            category: "file upload",
            what: format!("Upload “{file}”{}", on(target)),
        },
        ActionKind::Type { .. } | ActionKind::Choose => Risk::Free,
        ActionKind::PressKey { key } => match target {
            Some(t) if presses_enter(key) && t.form_action.is_some() && t.tag != "textarea" => {
                form_submission(t)
            }
            _ => Risk::Free,
        },
        ActionKind::Click => match target {
            Some(t) => click(t),
            None => Risk::Free,
        },
    }
}

/// Whether a key sequence (`Enter`, `Control+Enter`, `a b Enter`) presses Enter.
fn presses_enter(keys: &str) -> bool {
    keys.split([' ', '+']).any(|k| k.eq_ignore_ascii_case("enter"))
}

fn on(target: Option<&ActionTarget>) -> String {
    target.map(|t| format!(" into “{}” on {}", t.name, t.page_url)).unwrap_or_default()
}

fn never_reason(t: &ActionTarget) -> Option<String> {
    let autocomplete = &t.autocomplete;
    if t.input_type == "password"
        || autocomplete.contains("password")
        || autocomplete.contains("one-time-code")
        || autocomplete.split_whitespace().any(|a| a.starts_with("cc-"))
    {
        return Some(format!("“{}” is a credential or payment field", t.name));
    }
    let name = t.name.to_lowercase();
    NEVER_WORDS
        .iter()
        .find(|(word, _)| contains_phrase(&name, word))
        .map(|(_, what)| format!("“{}” is {what}", t.name))
}

fn is_oauth_consent(t: &ActionTarget) -> bool {
    let url = t.page_url.to_lowercase();
    let consent_page =
        url.contains("/oauth") || url.contains("/authorize") || url.contains("consent");
    let name = t.name.to_lowercase();
    consent_page
        && ["allow", "authorize", "accept", "continue", "grant"]
            .iter()
            .any(|w| contains_phrase(&name, w))
}

fn navigation(url: &str, from: Option<&str>) -> Risk {
    let to = origin_of(url);
    let here = from.and_then(origin_of);
    if let Some(download) = risky_download(url) {
        return Risk::Confirm {
            category: "download",
            what: format!("Download {download} from {url}"),
        };
    }
    if to.is_none() {
        return Risk::Never { reason: format!("`{url}` is not a web address") };
    }
    if here.is_some() && to == here {
        return Risk::Free;
    }
    Risk::Confirm { category: "navigation to a new site", what: format!("Open {url}") }
}

fn risky_download(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url).to_lowercase();
    RISKY_DOWNLOADS.iter().copied().find(|ext| path.ends_with(ext))
}

fn click(t: &ActionTarget) -> Risk {
    if let Some(href) = &t.href {
        if t.download || risky_download(href).is_some() {
            return Risk::Confirm { category: "download", what: format!("Download {href}") };
        }
        if let Risk::Confirm { category, what } = navigation(href, Some(&t.page_url)) {
            return Risk::Confirm { category, what: format!("Click “{}”: {what}", t.name) };
        }
    }
    let name = t.name.to_lowercase();
    for (category, words) in CONFIRM_WORDS {
        if words.iter().any(|w| contains_phrase(&name, w)) {
            let dest = t
                .form_action
                .as_deref()
                .map(|a| format!(" (sends the form to {a})"))
                .unwrap_or_default();
            return Risk::Confirm {
                category,
                what: format!("Click “{}” on {}{dest}", t.name, t.page_url),
            };
        }
    }
    if t.submits_form {
        return form_submission(t);
    }
    if SETTINGS_PATHS.iter().any(|p| t.page_url.to_lowercase().contains(p)) && t.role == "button" {
        return Risk::Confirm {
            category: "account settings",
            what: format!("Click “{}” on the settings page {}", t.name, t.page_url),
        };
    }
    Risk::Free
}

fn form_submission(t: &ActionTarget) -> Risk {
    let dest = t.form_action.clone().unwrap_or_else(|| t.page_url.clone());
    Risk::Confirm {
        category: "form submission",
        what: format!("Submit the form (“{}”) to {dest}", t.name),
    }
}

/// Whether `phrase` occurs in `text` at word boundaries.
fn contains_phrase(text: &str, phrase: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(pos) = text[from..].find(phrase) {
        let start = from + pos;
        let end = start + phrase.len();
        let before_ok = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
        let after_ok = end == bytes.len() || !bytes[end].is_ascii_alphanumeric();
        if before_ok && after_ok {
            return true;
        }
        from = start + 1;
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn button(name: &str) -> ActionTarget {
        ActionTarget {
            role: "button".into(),
            name: name.into(),
            tag: "button".into(),
            page_url: "https://shop.example/item".into(),
            ..ActionTarget::default()
        }
    }

    fn category(risk: &Risk) -> &str {
        match risk {
            Risk::Confirm { category, .. } => category,
            Risk::Free => "free",
            Risk::Never { .. } => "never",
        }
    }

    #[test]
    fn reads_and_ordinary_clicks_are_free() {
        assert_eq!(classify(&ActionKind::Read, None), Risk::Free);
        assert_eq!(classify(&ActionKind::Click, Some(&button("Next page"))), Risk::Free);
        assert_eq!(
            classify(&ActionKind::Type { text: "Ada".into() }, Some(&button("Name"))),
            Risk::Free
        );
    }

    #[test]
    fn purchases_deletes_and_sends_need_confirmation() {
        assert_eq!(
            category(&classify(&ActionKind::Click, Some(&button("Place order")))),
            "purchase"
        );
        assert_eq!(category(&classify(&ActionKind::Click, Some(&button("Delete all")))), "delete");
        assert_eq!(category(&classify(&ActionKind::Click, Some(&button("Post comment")))), "send");
        assert_eq!(category(&classify(&ActionKind::Click, Some(&button("Payday loans")))), "free");
    }

    #[test]
    fn form_submission_names_the_final_action_url() {
        let mut save = button("Save");
        save.submits_form = true;
        save.form_action = Some("https://collector.evil/steal".into());
        let Risk::Confirm { category: kind, what } = classify(&ActionKind::Click, Some(&save))
        else {
            panic!("not confirmed")
        };
        assert_eq!(kind, "form submission");
        assert!(what.contains("https://collector.evil/steal"), "{what}");
        let mut field = button("Search");
        field.tag = "input".into();
        field.form_action = Some("https://shop.example/search".into());
        let enter = classify(&ActionKind::PressKey { key: "Enter".into() }, Some(&field));
        assert_eq!(category(&enter), "form submission");
    }

    #[test]
    fn credentials_codes_cards_and_recovery_are_never_done() {
        let mut pw = button("Password");
        pw.input_type = "password".into();
        assert_eq!(category(&classify(&ActionKind::Type { text: "x".into() }, Some(&pw))), "never");
        let mut otp = button("Code");
        otp.autocomplete = "one-time-code".into();
        assert_eq!(
            category(&classify(&ActionKind::Type { text: "1".into() }, Some(&otp))),
            "never"
        );
        let mut cc = button("Number");
        cc.autocomplete = "cc-number".into();
        assert_eq!(category(&classify(&ActionKind::Type { text: "4".into() }, Some(&cc))), "never");
        assert_eq!(
            category(&classify(&ActionKind::Click, Some(&button("Change recovery email")))),
            "never"
        );
        assert_eq!(
            category(&classify(&ActionKind::Click, Some(&button("I'm not a robot")))),
            "never"
        );
        let mut consent = button("Allow");
        consent.page_url = "https://accounts.example/oauth/authorize?client_id=x".into();
        assert_eq!(category(&classify(&ActionKind::Click, Some(&consent))), "never");
    }

    #[test]
    fn navigation_to_a_new_origin_and_risky_downloads_need_confirmation() {
        let here = button("x");
        let same = ActionKind::Navigate { url: "https://shop.example/other".into() };
        assert_eq!(classify(&same, Some(&here)), Risk::Free);
        let away = ActionKind::Navigate { url: "https://elsewhere.example/".into() };
        assert_eq!(category(&classify(&away, Some(&here))), "navigation to a new site");
        let exe = ActionKind::Navigate { url: "https://shop.example/setup.exe?v=2".into() };
        assert_eq!(category(&classify(&exe, Some(&here))), "download");
        let js = ActionKind::Navigate { url: "javascript:alert(1)".into() };
        assert_eq!(category(&classify(&js, Some(&here))), "never");
        let mut link = button("Get the installer");
        link.role = "link".into();
        link.href = Some("https://cdn.example/installer.dmg".into());
        assert_eq!(category(&classify(&ActionKind::Click, Some(&link))), "download");
    }

    #[test]
    fn uploads_always_need_confirmation() {
        let upload = ActionKind::Upload { file: "cv.pdf".into() };
        assert_eq!(category(&classify(&upload, Some(&button("Attach")))), "file upload");
    }

    #[test]
    fn phrases_match_at_word_boundaries_only() {
        assert!(contains_phrase("buy now", "buy"));
        assert!(!contains_phrase("buyer guide", "buy"));
        assert!(contains_phrase("post-comment", "post"));
        assert!(!contains_phrase("compost", "post"));
    }
}
