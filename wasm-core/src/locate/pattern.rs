//! The page a workflow step expects, as a pattern of its URL: the origin, and the path with the
//! segments that name one record (an id, a number, a long token) left open. The query and the
//! fragment are not part of it (they carry search terms, tracking and session tokens, which
//! change from run to run and must not be stored).

use crate::safety::WebUrl;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A segment that matches any one path segment.
const ANY: &str = "*";

/// A page's URL pattern, written `https://shop.example/orders/*` (a `*` segment matches any
/// one path segment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "string"))]
#[serde(try_from = "String", into = "String")]
pub struct UrlPattern {
    /// `scheme://host[:port]`, as the browser writes origins.
    origin: String,
    /// Path segments (decoded as the URL parser leaves them); `*` matches any one.
    segments: Vec<String>,
}

/// Why a string is not a URL pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("“{0}” is not a web page pattern (an http or https address, `*` for any one segment)")]
pub struct PatternError(pub String);

impl UrlPattern {
    /// The pattern of a page Waymark was on: its origin and path, with record-like segments
    /// (ids, numbers, long tokens) open. `None` for anything but an http(s) page.
    pub fn of_page(url: &str) -> Option<Self> {
        let parsed = url::Url::parse(url).ok()?;
        WebUrl::parse(url).ok()?;
        let origin = parsed.origin().ascii_serialization();
        let segments = path_segments(&parsed)
            .into_iter()
            .map(|s| if looks_like_a_record(&s) { ANY.to_owned() } else { s })
            .collect();
        Some(Self { origin, segments })
    }

    /// The origin the pattern is on.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether `url` is a page this pattern describes (same origin, same path but for the
    /// open segments; any query and fragment).
    pub fn matches(&self, url: &str) -> bool {
        let Ok(parsed) = url::Url::parse(url) else { return false };
        if parsed.origin().ascii_serialization() != self.origin {
            return false;
        }
        let segments = path_segments(&parsed);
        segments.len() == self.segments.len()
            && self.segments.iter().zip(&segments).all(|(want, got)| want == ANY || want == got)
    }

    /// A URL the pattern describes, to open when the run starts elsewhere; `None` when a
    /// segment is open (there is no one page to open then).
    pub fn concrete(&self) -> Option<String> {
        if self.segments.iter().any(|s| s == ANY) {
            return None;
        }
        Some(format!("{}/{}", self.origin, self.segments.join("/")))
    }
}

/// The path's segments, without empty ones (a trailing slash is the same page to a person).
fn path_segments(url: &url::Url) -> Vec<String> {
    url.path_segments()
        .map(|segments| segments.filter(|s| !s.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// A path segment that names one record rather than a kind of page: all digits, a UUID or
/// hash, or a long run with digits in it (`a8f3c2d19e`, `INV-2026-0042`).
fn looks_like_a_record(segment: &str) -> bool {
    let digits = segment.chars().filter(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let all_digits = digits == segment.chars().count();
    let hexish = segment.len() >= 8 && segment.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    let long_with_digits = segment.len() >= 8 && digits * 3 >= segment.len();
    all_digits || hexish || long_with_digits
}

impl fmt::Display for UrlPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.origin, self.segments.join("/"))
    }
}

impl From<UrlPattern> for String {
    fn from(p: UrlPattern) -> String {
        p.to_string()
    }
}

impl TryFrom<String> for UrlPattern {
    type Error = PatternError;

    /// Reads a stored pattern back: an http(s) origin and a path; `*` segments stay open.
    fn try_from(text: String) -> Result<Self, PatternError> {
        let refuse = || PatternError(text.chars().take(200).collect());
        // `*` is a valid path character, so the URL parser keeps it as it is.
        let parsed = url::Url::parse(&text).map_err(|_| refuse())?;
        WebUrl::parse_for_navigation(&text).map_err(|_| refuse())?;
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(refuse());
        }
        let origin = parsed.origin().ascii_serialization();
        Ok(Self { origin, segments: path_segments(&parsed) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_segments_are_open_and_kinds_of_page_are_not() {
        let p = UrlPattern::of_page("https://shop.example/orders/55512345/edit?tab=2#x")
            .expect("pattern");
        assert_eq!(p.to_string(), "https://shop.example/orders/*/edit");
        assert!(p.matches("https://shop.example/orders/777/edit"));
        assert!(p.matches("https://shop.example/orders/777/edit/"));
        assert!(!p.matches("https://shop.example/orders/777/delete"));
        assert!(!p.matches("https://evil.example/orders/777/edit"));
        assert!(!p.matches("http://shop.example/orders/777/edit"), "the scheme is the origin's");
        let words = UrlPattern::of_page("http://127.0.0.1:8080/wf/order.html").expect("pattern");
        assert_eq!(words.to_string(), "http://127.0.0.1:8080/wf/order.html");
        assert_eq!(words.concrete().as_deref(), Some("http://127.0.0.1:8080/wf/order.html"));
        assert!(words.matches("http://127.0.0.1:8080/wf/order.html?name=Ada"));
        assert_eq!(p.concrete(), None);
        for record in ["3f2b1c4d-aa10-4c3e-9d1e-2b9f00c1d2e3", "INV-2026-0042", "42"] {
            assert!(looks_like_a_record(record), "{record}");
        }
        for kind in ["checkout", "v2", "page1", "order.html"] {
            assert!(!looks_like_a_record(kind), "{kind}");
        }
    }

    #[test]
    fn stored_patterns_read_back_and_anything_else_is_refused() {
        let p: UrlPattern =
            serde_json::from_str("\"https://shop.example/orders/*/edit\"").expect("reads");
        assert!(p.matches("https://shop.example/orders/9/edit"));
        assert_eq!(
            serde_json::to_string(&p).expect("json"),
            "\"https://shop.example/orders/*/edit\""
        );
        for bad in [
            "javascript:alert(1)",
            "data:text/html,hi",
            "/relative/path",
            "https://user:pw@shop.example/",
            "https://shop.example/a?q=1",
            "not a url",
        ] {
            assert!(UrlPattern::try_from(bad.to_owned()).is_err(), "{bad}");
        }
        assert_eq!(UrlPattern::of_page("chrome://settings/"), None);
    }
}
