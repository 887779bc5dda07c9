//! The one URL parser of the safety policy: every URL the policy judges is parsed the way the
//! browser parses it (WHATWG, the `url` crate), so what the policy checks is what Chrome loads.
//! A hand-written parser disagreed with Chrome on `https://a.example\@b.example/` (Chrome goes to
//! `a.example`); there must be no second opinion about where a URL goes.

use url::{Host, Position, Url};

/// A URL the agent may load or judge: `http` or `https`, parsed the WHATWG way, held in its
/// canonical form (the string the browser is given is exactly the one the policy judged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebUrl(Url);

/// Why a string is not a URL the agent may load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefusal {
    /// The browser would not parse it either (or it is relative).
    #[error("“{0}” is not a complete web address")]
    Unparsable(String),
    /// Parsed, but not `http`/`https` (`javascript:`, `data:`, `blob:`, `file:`, …).
    #[error("only http and https addresses can be opened, not “{0}”")]
    NotWeb(String),
    /// A user name or password in the address: `https://shop.example@evil.example/` reads as one
    /// site and goes to another, so such addresses are never opened.
    #[error("“{0}” carries a user name or password before its host; it is not opened")]
    Credentials(String),
}

impl WebUrl {
    /// Parses `input` as the browser would (tabs and newlines dropped, backslashes as slashes,
    /// IDNA hosts to punycode, IPv4 forms normalised) and keeps it only if it is http(s).
    pub fn parse(input: &str) -> Result<Self, UrlRefusal> {
        let url = Url::parse(input).map_err(|_| UrlRefusal::Unparsable(shown(input)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(UrlRefusal::NotWeb(shown(input)));
        }
        Ok(Self(url))
    }

    /// [`Self::parse`], refusing credentials too: what a navigation the model asks for must be.
    pub fn parse_for_navigation(input: &str) -> Result<Self, UrlRefusal> {
        let url = Self::parse(input)?;
        if !url.0.username().is_empty() || url.0.password().is_some() {
            return Err(UrlRefusal::Credentials(shown(url.as_str())));
        }
        Ok(url)
    }

    /// The canonical string: what the browser is sent after the policy judged it.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Whether both name the same document (they differ at most in the fragment): a link to
    /// `#pay` on its own page loads nothing.
    pub fn same_document(&self, other: &WebUrl) -> bool {
        self.0[..Position::AfterQuery] == other.0[..Position::AfterQuery]
    }

    /// The origin's ASCII serialization (`https://xn--bcher-kva.example:8443`), as Chrome's
    /// `new URL(u).origin` writes it.
    pub fn origin(&self) -> String {
        self.0.origin().ascii_serialization()
    }

    /// The host's DNS labels, lower case, without a trailing dot, in ASCII and — for IDNA
    /// labels — also in Unicode; empty for IP addresses (they have no words).
    pub fn host_labels(&self) -> Vec<String> {
        let Some(Host::Domain(host)) = self.0.host() else { return Vec::new() };
        let host = host.trim_end_matches('.');
        let mut labels: Vec<String> = host.split('.').map(str::to_owned).collect();
        if host.split('.').any(|l| l.starts_with("xn--")) {
            let unicode = url::quirks::domain_to_unicode(host);
            labels.extend(unicode.split('.').map(str::to_owned));
        }
        labels
    }

    /// The host without a trailing dot (`shop.example`, `127.0.0.1`, `[::1]`).
    pub fn host(&self) -> String {
        self.0.host_str().unwrap_or_default().trim_end_matches('.').to_owned()
    }

    /// The site as people read it: host and, when not the default, port (`shop.localhost:8080`).
    pub fn site(&self) -> String {
        match self.0.port() {
            Some(port) => format!("{}:{port}", self.host()),
            None => self.host(),
        }
    }

    /// The path, percent-decoded where it decodes to UTF-8, lower case: what path rules read
    /// (`/Setup%2Eexe` is `/setup.exe` to the server).
    pub fn path(&self) -> String {
        let raw = self.0.path();
        let decoded = percent_decode(raw).unwrap_or_else(|| raw.to_owned());
        decoded.to_lowercase()
    }

    /// The query, percent-decoded where possible, lower case.
    pub fn query(&self) -> String {
        let raw = self.0.query().unwrap_or_default();
        percent_decode(raw).unwrap_or_else(|| raw.to_owned()).to_lowercase()
    }
}

/// `%XX` sequences decoded (not `+`, which a path keeps); `None` when the bytes are not UTF-8.
fn percent_decode(raw: &str) -> Option<String> {
    percent_encoding::percent_decode_str(raw).decode_utf8().ok().map(|s| s.into_owned())
}

/// At most 200 characters of an input, for messages (a model may send a very long string).
fn shown(input: &str) -> String {
    input.chars().take(200).collect()
}

/// The origin of an `http`/`https` URL (`scheme://host[:port]`, default port dropped, host in
/// ASCII), exactly as Chrome's `new URL(url).origin` computes it; `None` for everything else —
/// opaque origins, `javascript:`, `data:`, `about:`, `file:`, `filesystem:` and `blob:` too: a
/// `blob:https://site/…` document has that site's origin, but the agent never loads a `blob:`
/// URL itself, and a frame's real origin comes from the live document
/// ([`super::ActionTarget::origin`]), not from a URL.
pub fn origin_of(url: &str) -> Option<String> {
    WebUrl::parse(url).ok().map(|u| u.origin())
}

/// What Chrome's `new URL(url).origin` gives for any scheme (`"null"` for opaque origins), or
/// `None` where `new URL` throws: the end-to-end tests compare this with Chromium.
pub fn browser_origin(url: &str) -> Option<String> {
    Url::parse(url).ok().map(|u| u.origin().ascii_serialization())
}

/// Whether `origin` is a well-formed web origin as [`origin_of`] writes it (a string reported by
/// a page is trusted only if it round-trips).
pub fn is_web_origin(origin: &str) -> bool {
    origin_of(origin).as_deref() == Some(origin)
}

#[cfg(test)]
#[path = "weburl_tests.rs"]
mod tests;
