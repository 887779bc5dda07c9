//! Which origins the agent may act on during a task, and which kinds of confirmed action the
//! user let go without a card on which site.

use super::meaning::fold_lookalike;
use super::risk::ConfirmClass;
use super::weburl::WebUrl;
pub use super::weburl::origin_of;
use std::collections::BTreeSet;

/// Sensitive categories: words that, as a label of the host, mark a site that needs an
/// explicit per-site grant even when the user started the task there.
const SENSITIVE_LABELS: &[(&str, &[&str])] = &[
    (
        "banking",
        &[
            "bank",
            "banking",
            "chase",
            "wellsfargo",
            "barclays",
            "hsbc",
            "santander",
            "ing",
            "revolut",
            "monzo",
            "n26",
        ],
    ),
    ("payments", &["paypal", "stripe", "venmo", "wise", "klarna", "payoneer", "squareup", "pay"]),
    (
        "crypto",
        &["coinbase", "binance", "kraken", "metamask", "ledger", "crypto", "wallet", "bitstamp"],
    ),
    ("health", &["health", "patient", "mychart", "clinic", "hospital", "pharmacy", "medical"]),
    ("government identity", &["gov", "irs", "ssa", "login.gov", "id.me", "passport", "tax"]),
];

/// The sensitive category of an origin (or URL), if any: its host's labels — lower case,
/// without a trailing dot, in ASCII and Unicode, with Latin look-alikes folded (`pаypal` with a
/// Cyrillic `а` is `paypal`) — are compared whole, never as substrings.
pub fn sensitive_category(origin: &str) -> Option<&'static str> {
    let url = WebUrl::parse(origin).ok()?;
    let host = url.host();
    let labels: Vec<String> = url
        .host_labels()
        .iter()
        .flat_map(|label| {
            label
                .split('-')
                .map(|l| l.chars().map(fold_lookalike).collect::<String>())
                .collect::<Vec<_>>()
        })
        .collect();
    for (category, words) in SENSITIVE_LABELS {
        for word in *words {
            if word.contains('.') {
                if host == *word || host.ends_with(&format!(".{word}")) {
                    return Some(category);
                }
            } else if labels.iter().any(|l| l == word) {
                return Some(category);
            }
        }
    }
    None
}

/// Origins allowed for one task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteScope {
    allowed: BTreeSet<String>,
    granted_sensitive: BTreeSet<String>,
    /// (kind of action, origin) pairs the user let go without a card for the rest of the task.
    similar: BTreeSet<(ConfirmClass, String)>,
}

/// Why an origin is out of scope, in words for the side panel.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// Not a web origin at all.
    #[error("`{0}` is not a web page the agent may act on")]
    NotWeb(String),
    /// Not among the origins the user allowed for this task.
    #[error(
        "{0} is not allowed for this task; add it in the side panel to let the agent act there"
    )]
    NotAllowed(String),
    /// A sensitive site without an explicit grant.
    #[error(
        "{origin} looks like a {category} site; the agent acts there only after you grant it explicitly"
    )]
    Sensitive {
        /// The origin.
        origin: String,
        /// Which category.
        category: &'static str,
    },
}

impl SiteScope {
    /// The scope of a task started on `start_url`'s tab.
    pub fn starting_at(start_url: &str) -> Self {
        let mut scope = Self::default();
        if let Some(origin) = origin_of(start_url) {
            scope.allowed.insert(origin);
        }
        scope
    }

    /// The user allowed another site (a click in the side panel, never a model's request).
    pub fn allow(&mut self, url_or_origin: &str) {
        if let Some(origin) = origin_of(url_or_origin) {
            self.allowed.insert(origin);
        }
    }

    /// The user explicitly granted a sensitive site.
    pub fn grant_sensitive(&mut self, url_or_origin: &str) {
        if let Some(origin) = origin_of(url_or_origin) {
            self.allowed.insert(origin.clone());
            self.granted_sensitive.insert(origin);
        }
    }

    /// Whether the agent may act on a page at `url`.
    pub fn check(&self, url: &str) -> Result<String, ScopeError> {
        let origin = origin_of(url).ok_or_else(|| ScopeError::NotWeb(url.to_owned()))?;
        if !self.allowed.contains(&origin) {
            return Err(ScopeError::NotAllowed(origin));
        }
        if let Some(category) = sensitive_category(&origin)
            && !self.granted_sensitive.contains(&origin)
        {
            return Err(ScopeError::Sensitive { origin, category });
        }
        Ok(origin)
    }

    /// The user chose "allow this kind of action on this site for the rest of the task" on a
    /// card that offered it; kinds that never may ([`ConfirmClass::may_allow_similar`]) are
    /// ignored, whatever a journal says.
    pub fn allow_similar(&mut self, class: ConfirmClass, url_or_origin: &str) {
        if let Some(origin) = origin_of(url_or_origin)
            && class.may_allow_similar()
        {
            self.similar.insert((class, origin));
        }
    }

    /// Whether actions of `class` on `origin` go without a card.
    pub fn similar_allowed(&self, class: ConfirmClass, origin: &str) -> bool {
        class.may_allow_similar() && self.similar.contains(&(class, origin.to_owned()))
    }

    /// The allowed origins, for display.
    pub fn allowed(&self) -> impl Iterator<Item = &str> {
        self.allowed.iter().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_normalised_and_credentials_dropped() {
        assert_eq!(
            origin_of("HTTPS://Shop.Example:443/a?b#c").as_deref(),
            Some("https://shop.example")
        );
        assert_eq!(origin_of("http://127.0.0.1:8080/x").as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(
            origin_of("http://evil.test@bank.example/").as_deref(),
            Some("http://bank.example")
        );
        assert_eq!(origin_of("javascript:alert(1)"), None);
        assert_eq!(origin_of("data:text/html,hi"), None);
    }

    #[test]
    fn only_the_start_origin_is_in_scope_until_the_user_adds_one() {
        let mut scope = SiteScope::starting_at("https://shop.example/cart");
        assert!(scope.check("https://shop.example/other").is_ok());
        assert_eq!(
            scope.check("https://evil.example/"),
            Err(ScopeError::NotAllowed("https://evil.example".into()))
        );
        scope.allow("https://docs.example/page");
        assert!(scope.check("https://docs.example/x").is_ok());
    }

    #[test]
    fn sensitive_sites_need_an_explicit_grant_even_as_the_start_tab() {
        let mut scope = SiteScope::starting_at("https://www.paypal.com/myaccount");
        assert!(matches!(
            scope.check("https://www.paypal.com/x"),
            Err(ScopeError::Sensitive { category: "payments", .. })
        ));
        scope.grant_sensitive("https://www.paypal.com");
        assert!(scope.check("https://www.paypal.com/x").is_ok());
    }

    #[test]
    fn categories_match_whole_labels_not_substrings() {
        assert_eq!(sensitive_category("https://online.bank.example"), Some("banking"));
        assert_eq!(sensitive_category("https://www.irs.gov"), Some("government identity"));
        assert_eq!(sensitive_category("https://bankruptcy-news.example"), None);
        assert_eq!(sensitive_category("https://payday.example"), None);
    }

    #[test]
    fn categories_see_through_case_trailing_dots_idna_and_look_alikes() {
        assert_eq!(sensitive_category("https://WWW.PAYPAL.COM./x"), Some("payments"));
        assert_eq!(sensitive_category("https://xn--pypal-4ve.com/"), Some("payments"));
        assert_eq!(sensitive_category("https://pаypal.com/"), Some("payments"));
        assert_eq!(sensitive_category("https://my-bank.example"), Some("banking"));
        assert_eq!(sensitive_category("https://www.irs.gov./"), Some("government identity"));
        assert_eq!(sensitive_category("https://bank.example\\@shop.example/"), Some("banking"));
        assert_eq!(sensitive_category("https://shop.example@bank.example/"), Some("banking"));
        assert_eq!(sensitive_category("https://shop.example/bank"), None);
        assert_eq!(sensitive_category("http://127.0.0.1:8080"), None);
    }

    #[test]
    fn the_scope_judges_origins_the_way_chrome_does() {
        let scope = SiteScope::starting_at("https://shop.example/");
        assert!(scope.check("https://SHOP.example:443/x").is_ok());
        assert!(scope.check("https://sh\top.example/").is_ok());
        assert_eq!(
            scope.check("https://evil.example\\@shop.example/"),
            Err(ScopeError::NotAllowed("https://evil.example".into()))
        );
        assert!(scope.check("https://shop.example:8443/").is_err());
        assert!(matches!(scope.check("blob:https://shop.example/x"), Err(ScopeError::NotWeb(_))));
    }

    #[test]
    fn similar_actions_are_allowed_per_kind_and_site_never_for_money_or_deletion() {
        let mut scope = SiteScope::starting_at("https://mail.example/");
        scope.allow_similar(ConfirmClass::Message, "https://mail.example/inbox");
        assert!(scope.similar_allowed(ConfirmClass::Message, "https://mail.example"));
        assert!(!scope.similar_allowed(ConfirmClass::Message, "https://other.example"));
        assert!(!scope.similar_allowed(ConfirmClass::FormSubmission, "https://mail.example"));
        scope.allow_similar(ConfirmClass::Purchase, "https://mail.example");
        scope.allow_similar(ConfirmClass::Delete, "https://mail.example");
        assert!(!scope.similar_allowed(ConfirmClass::Purchase, "https://mail.example"));
        assert!(!scope.similar_allowed(ConfirmClass::Delete, "https://mail.example"));
    }
}
