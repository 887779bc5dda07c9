//! Which origins the agent may act on during a task.

use std::collections::BTreeSet;

/// The origin (`scheme://host[:port]`) of a URL, lower-cased; `None` for URLs without one
/// (`about:`, `data:`, `javascript:`), which the agent never acts on.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "http" | "https") {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    // Credentials in the authority (`user:pass@host`) never count as part of the origin.
    let host_port = authority.rsplit('@').next().unwrap_or("").to_ascii_lowercase();
    if host_port.is_empty() {
        return None;
    }
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    let host_port = host_port.strip_suffix(default_port).unwrap_or(&host_port);
    Some(format!("{scheme}://{host_port}"))
}

/// The host part of an origin.
fn host_of(origin: &str) -> &str {
    let rest = origin.split_once("://").map_or(origin, |(_, r)| r);
    if let Some(stripped) = rest.strip_prefix('[') {
        return stripped.split(']').next().unwrap_or("");
    }
    rest.split(':').next().unwrap_or(rest)
}

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

/// The sensitive category of an origin, if any.
pub fn sensitive_category(origin: &str) -> Option<&'static str> {
    let host = host_of(origin);
    let labels: Vec<&str> = host.split(['.', '-']).collect();
    for (category, words) in SENSITIVE_LABELS {
        for word in *words {
            if word.contains('.') {
                if host == *word || host.ends_with(&format!(".{word}")) {
                    return Some(category);
                }
            } else if labels.contains(word) {
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
}
