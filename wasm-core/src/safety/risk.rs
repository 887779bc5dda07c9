//! Risk classes of proposed actions, decided from what the action touches — the element, its
//! form's final action URL, the page and the URL — and never from the model's own claim.

use super::effects;
use super::meaning::{Activation, contains_phrase, meaning, normalise};
pub use super::target::{ActionTarget, DocumentOrigin};
use super::weburl::{WebUrl, is_web_origin, origin_of};
use serde::{Deserialize, Serialize};

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

/// Which kind of confirmation a card asks for: its heading, whether "allow this kind of action on
/// this site for the rest of the task" may be offered, and the key that allowance is kept under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmClass {
    /// Spending money (pay, buy, place an order, donate, transfer).
    Purchase,
    /// Deleting data or ending something (an account, an order, a subscription).
    Delete,
    /// Sending or publishing a message, a comment, an invitation.
    Message,
    /// Changing how the account is reached or shared (email, password, keys, roles).
    AccountSettings,
    /// A form sent to another origin than the page's.
    FormSubmission,
    /// Loading a page of a site outside the task's scope.
    Navigation,
    /// Downloading an executable or archive (or any `download` link).
    Download,
    /// Giving a page one of the user's files.
    Upload,
    /// Acting on a page or frame of a site outside the task's scope.
    NewSite,
    /// A change on a site the task's words did not ask for (a form sent, a state-changing
    /// request the page made, a one-click link, keys that activate what Waymark cannot see).
    Effect,
    /// The first action on a site the task's words do not name after the task read another
    /// site's pages (information flow).
    Flow,
}

impl ConfirmClass {
    /// The card heading's noun ("Approve this purchase?").
    pub fn label(self) -> &'static str {
        match self {
            Self::Purchase => "purchase",
            Self::Delete => "deletion",
            Self::Message => "message",
            Self::AccountSettings => "account settings change",
            Self::FormSubmission => "form submission",
            Self::Navigation => "navigation to a new site",
            Self::Download => "download",
            Self::Upload => "file upload",
            Self::NewSite => "action on a new site",
            Self::Effect => "change the task did not ask for",
            Self::Flow => "action on another site after reading your pages",
        }
    }

    /// Whether a card of this class may offer "allow this kind of action on this site for the
    /// rest of the task". Never for money, deletion, account settings (credentials and take-over
    /// live there), downloads or uploads; scope cards need no such offer (approving them adds
    /// the site to the task).
    pub fn may_allow_similar(self) -> bool {
        matches!(self, Self::Message | Self::FormSubmission)
    }

    /// The words of the panel's button that allows this kind on `site`.
    pub fn allow_similar_words(self, site: &str) -> Option<String> {
        let what = match self {
            Self::Message => "sending messages",
            Self::FormSubmission => "sending forms",
            _ => return None,
        };
        Some(format!("Allow {what} to {site} for the rest of this task"))
    }
}

/// What the policy decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Risk {
    /// Done without asking.
    Free,
    /// Shown to the user exactly, and done only after a real click on Approve.
    Confirm {
        /// The kind of confirmation.
        class: ConfirmClass,
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
    ("one time", "a one-time code"),
    ("otp", "a one-time code"),
    ("verification code", "a verification code"),
    ("security code", "a card security code"),
    ("cvv", "a card security code"),
    ("cvc", "a card security code"),
    ("card number", "a payment card field"),
    ("captcha", "a CAPTCHA"),
    ("i m not a robot", "a CAPTCHA"),
    ("recovery email", "account recovery settings"),
    ("recovery e mail", "account recovery settings"),
    ("recovery phone", "account recovery settings"),
    ("forwarding", "mail forwarding settings"),
    ("two factor", "two-factor settings"),
    ("2fa", "two-factor settings"),
    ("backup codes", "two-factor settings"),
    ("authenticator", "two-factor settings"),
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
            class: ConfirmClass::Upload,
            what: format!("Upload “{file}”{}", on(target)),
        },
        ActionKind::Type { text } => match target {
            Some(t) if meaning(t, Activation::Edit).is_some() => Risk::Confirm {
                class: ConfirmClass::AccountSettings,
                what: format!("Type “{text}” into “{}” on {}", t.name, t.page_url),
            },
            _ => Risk::Free,
        },
        ActionKind::Choose => match target {
            Some(t) if meaning(t, Activation::Edit).is_some() => Risk::Confirm {
                class: ConfirmClass::AccountSettings,
                what: format!("Change “{}” on {}", t.name, t.page_url),
            },
            _ => Risk::Free,
        },
        // Keys are judged by what they activate: Space or Enter on a button, link or box is
        // its click; keys that move the focus first activate an element nobody described.
        ActionKind::PressKey { key } => match target {
            Some(t) if effects::moves_then_activates(key) => Risk::Confirm {
                class: ConfirmClass::Effect,
                what: format!(
                    "Press {key} starting from {} on {}: the focus moves first, so the keys \
                     activate an element Waymark cannot check beforehand",
                    called(t),
                    t.page_url
                ),
            },
            Some(t) if effects::activates(key) && effects::activatable(t) => match click(t) {
                Risk::Confirm { class, what } => Risk::Confirm {
                    class,
                    what: what.replacen("Click", &format!("Press {key} on"), 1),
                },
                risk => risk,
            },
            Some(t) if presses_enter(key) => enter(t),
            _ => Risk::Free,
        },
        ActionKind::Click => match target {
            Some(t) => click(t),
            None => Risk::Free,
        },
    }
}

/// The origin of the element's own document: the live document's report when it is a well-formed
/// web origin, `None` when it is opaque (a sandboxed frame) or malformed, and the page URL's
/// origin when the content script did not report one.
pub fn document_origin(t: &ActionTarget) -> Option<String> {
    match &t.origin {
        DocumentOrigin::Web(origin) => is_web_origin(origin).then(|| origin.clone()),
        DocumentOrigin::Opaque => None,
        DocumentOrigin::Unknown => origin_of(&t.page_url),
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
    // A password is never picked from a list: component libraries set `new-password` on their
    // comboboxes' search boxes to keep the browser's autofill away (Ant Design's Select,
    // Cascader and TreeSelect). A code or a card's fields keep their meaning there (a card's
    // expiry month may well be a combobox).
    let picker = t.role.eq_ignore_ascii_case("combobox");
    if t.input_type == "password"
        || (!picker && autocomplete.contains("password"))
        || autocomplete.contains("one-time-code")
        || autocomplete.split_whitespace().any(|a| a.starts_with("cc-"))
    {
        return Some(format!("“{}” is a credential or payment field", t.name));
    }
    let name = normalise(&t.name);
    NEVER_WORDS
        .iter()
        .find(|(word, _)| contains_phrase(&name, word))
        .map(|(_, what)| format!("“{}” is {what}", t.name))
}

/// An OAuth consent screen's approve button: the page's path or query names the flow.
fn is_oauth_consent(t: &ActionTarget) -> bool {
    let Ok(page) = WebUrl::parse(&t.page_url) else { return false };
    let path = page.path();
    let query = page.query();
    let consent_page = path.contains("oauth")
        || path.contains("authorize")
        || path.contains("consent")
        || (query.contains("client_id=") && query.contains("redirect_uri="));
    let name = normalise(&t.name);
    consent_page
        && ["allow", "authorize", "accept", "continue", "grant"]
            .iter()
            .any(|w| contains_phrase(&name, w))
}

fn navigation(url: &str, from: Option<&str>) -> Risk {
    let to = match WebUrl::parse(url) {
        Ok(to) => to,
        Err(e) => return Risk::Never { reason: e.to_string() },
    };
    if let Some(download) = risky_download(&to) {
        return Risk::Confirm {
            class: ConfirmClass::Download,
            what: format!("Download {download} from {}", to.as_str()),
        };
    }
    if from.and_then(origin_of).is_some_and(|here| here == to.origin()) {
        return Risk::Free;
    }
    Risk::Confirm { class: ConfirmClass::Navigation, what: format!("Open {}", to.as_str()) }
}

/// The risky file type a URL's decoded path ends with.
fn risky_download(url: &WebUrl) -> Option<&'static str> {
    let path = url.path();
    RISKY_DOWNLOADS.iter().copied().find(|ext| path.ends_with(ext))
}

fn click(t: &ActionTarget) -> Risk {
    if let Some(href) = &t.href
        && let Ok(to) = WebUrl::parse(href)
    {
        if t.download || risky_download(&to).is_some() {
            return Risk::Confirm {
                class: ConfirmClass::Download,
                what: format!("Download {}", to.as_str()),
            };
        }
        if let Risk::Confirm { class, what } = navigation(href, Some(&t.page_url)) {
            return Risk::Confirm { class, what: format!("Click {}: {what}", called(t)) };
        }
    }
    match meaning(t, Activation::Click) {
        Some(class) => Risk::Confirm { class, what: clicked(t) },
        None if t.submits_form => foreign_submission(t),
        None => Risk::Free,
    }
}

/// Enter in a field: a message sent from a compose box, or the field's form submitted.
fn enter(t: &ActionTarget) -> Risk {
    match meaning(t, Activation::Enter) {
        Some(class) => Risk::Confirm {
            class,
            what: format!("Press Enter in “{}” on {}{}", t.name, t.page_url, sends_to(t)),
        },
        None if t.form_action.is_some() && t.tag != "textarea" => foreign_submission(t),
        None => Risk::Free,
    }
}

fn clicked(t: &ActionTarget) -> String {
    format!("Click {} on {}{}", called(t), t.page_url, sends_to(t))
}

/// The element in quotes as the card names it: its name, and what it draws when that differs
/// (the user approves what they see on the page, not only what a screen reader says).
fn called(t: &ActionTarget) -> String {
    if t.shown.is_empty() {
        format!("“{}”", t.name)
    } else {
        format!("“{}” (drawn as “{}”)", t.name, t.shown)
    }
}

fn sends_to(t: &ActionTarget) -> String {
    match (&t.form_action, t.submits_form || t.tag == "input" || t.tag == "textarea") {
        (Some(action), true) => format!(" (sends the form to {action})"),
        _ => String::new(),
    }
}

/// A submission with no carded meaning: free when the form posts to its own document's origin
/// (the browser holds the tab to the task's scope meanwhile), a card naming the destination
/// otherwise.
fn foreign_submission(t: &ActionTarget) -> Risk {
    let dest = t.form_action.clone().unwrap_or_else(|| t.page_url.clone());
    let same_origin = match (origin_of(&dest), document_origin(t)) {
        (Some(to), Some(here)) => to == here,
        _ => false,
    };
    if same_origin {
        return Risk::Free;
    }
    Risk::Confirm {
        class: ConfirmClass::FormSubmission,
        what: format!("Submit the form ({}) to {dest}", called(t)),
    }
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

    #[test]
    fn the_card_names_what_the_element_draws_too() {
        let t = ActionTarget { shown: "Place order".into(), ..button("Search") };
        match classify(&ActionKind::Click, Some(&t)) {
            Risk::Confirm { class: ConfirmClass::Purchase, what } => assert_eq!(
                what,
                "Click “Search” (drawn as “Place order”) on https://shop.example/item"
            ),
            other => panic!("{other:?}"),
        }
    }

    fn category(risk: &Risk) -> &str {
        match risk {
            Risk::Confirm { class, .. } => class.label(),
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
        assert_eq!(
            category(&classify(&ActionKind::Click, Some(&button("Delete all")))),
            "deletion"
        );
        assert_eq!(
            category(&classify(&ActionKind::Click, Some(&button("Post comment")))),
            "message"
        );
        assert_eq!(category(&classify(&ActionKind::Click, Some(&button("Payday loans")))), "free");
    }

    #[test]
    fn form_submission_names_the_final_action_url_when_it_leaves_the_page_origin() {
        let mut save = button("Save");
        save.submits_form = true;
        save.form_action = Some("https://collector.evil/steal".into());
        let Risk::Confirm { class, what } = classify(&ActionKind::Click, Some(&save)) else {
            panic!("not confirmed")
        };
        assert_eq!(class, ConfirmClass::FormSubmission);
        assert!(what.contains("https://collector.evil/steal"), "{what}");
        let mut field = button("Search");
        field.tag = "input".into();
        field.form_action = Some("https://shop.example/search".into());
        let enter = ActionKind::PressKey { key: "Enter".into() };
        assert_eq!(classify(&enter, Some(&field)), Risk::Free, "same-origin search");
        field.form_action = Some("https://search.other.example/q".into());
        assert_eq!(category(&classify(&enter, Some(&field))), "form submission");
    }

    #[test]
    fn a_same_origin_form_is_judged_on_the_frame_s_own_origin() {
        let mut save = button("Save");
        save.submits_form = true;
        save.form_action = Some("https://shop.example/save".into());
        assert_eq!(classify(&ActionKind::Click, Some(&save)), Risk::Free);
        save.origin = DocumentOrigin::Opaque;
        assert_eq!(category(&classify(&ActionKind::Click, Some(&save))), "form submission");
        save.origin = DocumentOrigin::Web("https://ads.example".into());
        assert_eq!(category(&classify(&ActionKind::Click, Some(&save))), "form submission");
        save.origin = DocumentOrigin::Web("https://shop.example".into());
        assert_eq!(classify(&ActionKind::Click, Some(&save)), Risk::Free);
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
        let mut picker = button("Time zone");
        picker.tag = "input".into();
        (picker.role, picker.input_type, picker.autocomplete) =
            ("combobox".into(), "search".into(), "new-password".into());
        let typing = ActionKind::Type { text: "Tok".into() };
        assert_ne!(category(&classify(&typing, Some(&picker))), "never", "a list's search box");
        picker.role = "textbox".into();
        assert_eq!(category(&classify(&typing, Some(&picker))), "never", "a new password");
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
        assert_eq!(
            category(&classify(
                &ActionKind::Type { text: "x".into() },
                Some(&button("Pass\u{200b}word"))
            )),
            "never",
            "an invisible character does not hide a password field"
        );
        let mut consent = button("Allow");
        consent.page_url = "https://accounts.example/oauth/authorize?client_id=x".into();
        assert_eq!(category(&classify(&ActionKind::Click, Some(&consent))), "never");
        consent.page_url = "https://accounts.example/o/%61uthorize".into();
        assert_eq!(category(&classify(&ActionKind::Click, Some(&consent))), "never");
    }

    #[test]
    fn navigation_to_a_new_origin_and_risky_downloads_need_confirmation() {
        let here = button("x");
        let same = ActionKind::Navigate { url: "https://shop.example/other".into() };
        assert_eq!(classify(&same, Some(&here)), Risk::Free);
        let away = ActionKind::Navigate { url: "https://elsewhere.example/".into() };
        assert_eq!(category(&classify(&away, Some(&here))), "navigation to a new site");
        let tricked =
            ActionKind::Navigate { url: "https://elsewhere.example\\@shop.example/".into() };
        assert_eq!(category(&classify(&tricked, Some(&here))), "navigation to a new site");
        let exe = ActionKind::Navigate { url: "https://shop.example/setup.exe?v=2".into() };
        assert_eq!(category(&classify(&exe, Some(&here))), "download");
        let encoded = ActionKind::Navigate { url: "https://shop.example/setup%2Eexe".into() };
        assert_eq!(category(&classify(&encoded, Some(&here))), "download");
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
    fn only_messages_and_foreign_forms_may_be_allowed_for_the_rest_of_a_task() {
        use ConfirmClass::*;
        for class in [Purchase, Delete, AccountSettings, Download, Upload, Navigation, NewSite] {
            assert!(!class.may_allow_similar(), "{class:?}");
            assert_eq!(class.allow_similar_words("shop.example"), None);
        }
        for class in [Message, FormSubmission] {
            assert!(class.may_allow_similar());
            assert!(
                class
                    .allow_similar_words("mail.example")
                    .is_some_and(|w| w.contains("mail.example"))
            );
        }
    }
}
