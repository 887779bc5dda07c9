//! Redaction before anything reaches a transcript: configured exact secrets first (they are
//! the surest), then patterns for secrets that have a recognisable shape.
//!
//! The patterns are ours (no crate covers this mix): API keys of the major providers, bearer
//! tokens, JWTs, payment card numbers that pass the Luhn check, and one-time codes announced
//! as such ("your verification code is 482913"). A false positive costs a few characters of a
//! transcript; a false negative leaks a secret to disk, so the shapes err on the wide side.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

/// Exact secrets shorter than this are ignored (redacting "a" would shred every line).
pub const MIN_EXACT_LEN: usize = 4;

struct Pattern {
    label: &'static str,
    re: Regex,
    /// Replace only capture group 1 (the code after "verification code is").
    group_only: bool,
    /// Extra check on the match (Luhn for cards).
    check: Option<fn(&str) -> bool>,
}

fn pattern(
    label: &'static str,
    re: &str,
    group_only: bool,
    check: Option<fn(&str) -> bool>,
) -> Pattern {
    // The patterns are constants tested below; a typo is a bug caught by every test run.
    #[allow(clippy::expect_used, reason = "constant patterns, covered by tests")]
    let re = Regex::new(re).expect("redaction pattern compiles");
    Pattern { label, re, group_only, check }
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    vec![
        pattern(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            false,
            None,
        ),
        pattern("bearer", r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}", false, None),
        pattern(
            "api_key",
            concat!(
                r"\b(?:sk-(?:ant-|proj-|or-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
                r"|AIza[0-9A-Za-z_-]{35}",
                r"|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}",
                r"|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}",
                r"|xox[abprs]-[A-Za-z0-9-]{10,}",
                r"|gsk_[A-Za-z0-9]{20,}|hf_[A-Za-z0-9]{30,}|glpat-[A-Za-z0-9_-]{20,}",
                r"|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|xai-[A-Za-z0-9]{20,})"
            ),
            false,
            None,
        ),
        pattern("card", r"\b[0-9](?:[ -]?[0-9]){12,18}\b", false, Some(luhn_valid)),
        pattern(
            "otp",
            concat!(
                r"(?i)\b(?:otp|one[- ]?time (?:code|password|passcode|pin)|verification code",
                r"|security code|confirmation code|auth(?:entication)? code|login code",
                r"|sign-in code|2fa code|passcode|access code)\b",
                r"[^0-9\n]{0,16}?\b([0-9]{4,8}|[0-9]{3}[ -][0-9]{3})\b"
            ),
            true,
            None,
        ),
        pattern(
            "otp",
            r"(?i)\b([0-9]{4,8})\s+is\s+your\s+(?:[a-z-]+\s+){0,3}(?:code|otp|passcode|pin)\b",
            true,
            None,
        ),
    ]
});

/// Whether the digits in `s` (separators ignored) form a 13–19 digit Luhn-valid number.
pub fn luhn_valid(s: &str) -> bool {
    let digits: Vec<u32> = s.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) || digits.iter().all(|d| *d == digits[0]) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d })
        .sum();
    sum.is_multiple_of(10)
}

/// Redacts strings: exact secrets, then the patterns above.
#[derive(Clone, Default)]
pub struct Redactor {
    exact: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor").field("exact", &self.exact.len()).finish()
    }
}

impl Redactor {
    /// A redactor for these exact secrets (longest first, so a secret containing another is
    /// replaced whole).
    pub fn new(exact: impl IntoIterator<Item = String>) -> Self {
        let mut exact: Vec<String> =
            exact.into_iter().filter(|s| s.chars().count() >= MIN_EXACT_LEN).collect();
        exact.sort_by_key(|s| std::cmp::Reverse(s.len()));
        exact.dedup();
        Self { exact }
    }

    /// `text` with every secret replaced by `[REDACTED:<kind>]`.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in &self.exact {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), "[REDACTED:secret]"));
            }
        }
        for p in PATTERNS.iter() {
            if !p.re.is_match(&out) {
                continue;
            }
            let replaced = p.re.replace_all(&out, |c: &Captures<'_>| replacement(p, c));
            if let Cow::Owned(s) = replaced {
                out = Cow::Owned(s);
            }
        }
        out
    }

    /// Redacts every string inside `value` in place (object keys are left alone: they are
    /// names chosen by the extension, not page content).
    pub fn value(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                if let Cow::Owned(r) = self.text(s) {
                    *s = r;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.value(v)),
            _ => {}
        }
    }
}

fn replacement(p: &Pattern, c: &Captures<'_>) -> String {
    let whole = c.get(0).map_or("", |m| m.as_str());
    if let Some(check) = p.check
        && !check(whole)
    {
        return whole.to_owned();
    }
    let tag = format!("[REDACTED:{}]", p.label);
    match (p.group_only, c.get(1), c.get(0)) {
        (true, Some(g), Some(m)) => {
            // Match offsets are character boundaries of the same text.
            let before = whole.get(..g.start() - m.start()).unwrap_or("");
            let after = whole.get(g.end() - m.start()..).unwrap_or("");
            format!("{before}{tag}{after}")
        }
        _ => tag,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(text: &str) -> String {
        Redactor::new(["hunter2-pass".to_owned(), "abc".to_owned()]).text(text).into_owned()
    }

    #[test]
    fn exact_secrets_first_and_short_ones_ignored() {
        assert_eq!(r("pw hunter2-pass!"), "pw [REDACTED:secret]!");
        assert_eq!(r("abc is too short to redact"), "abc is too short to redact");
    }

    #[test]
    fn provider_keys() {
        for key in [
            "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
            "sk-or-v1-0123456789abcdef0123456789abcdef",
            "AIzaSyA0123456789abcdefghijklmnopqrstuv",
            "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
            "AKIAIOSFODNN7EXAMPLE",
            "gsk_0123456789abcdefghijklmnop",
            "xoxb-123456789012-abcdefghij",
        ] {
            let out = r(&format!("key={key} end"));
            assert_eq!(out, "key=[REDACTED:api_key] end", "{key}");
        }
        assert_eq!(r("ask-me-anything is a phrase"), "ask-me-anything is a phrase");
    }

    #[test]
    fn bearer_tokens_and_jwts() {
        assert_eq!(r("Authorization: Bearer abc.def-ghi_123"), "Authorization: [REDACTED:bearer]");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_eq!(r(&format!("token {jwt}")), "token [REDACTED:jwt]");
    }

    #[test]
    fn luhn_valid_cards_only() {
        assert_eq!(r("card 4111 1111 1111 1111 ok"), "card [REDACTED:card] ok");
        assert_eq!(r("card 4111-1111-1111-1111"), "card [REDACTED:card]");
        assert_eq!(r("card 5555555555554444."), "card [REDACTED:card].");
        // Fails Luhn: an order number stays readable.
        assert_eq!(r("order 4111 1111 1111 1112"), "order 4111 1111 1111 1112");
        assert_eq!(r("phone 0044 20 7946 0958"), "phone 0044 20 7946 0958");
        assert!(luhn_valid("378282246310005"));
        assert!(!luhn_valid("0000000000000"));
    }

    #[test]
    fn one_time_codes() {
        assert_eq!(
            r("Your verification code is 482913."),
            "Your verification code is [REDACTED:otp]."
        );
        assert_eq!(r("OTP: 1234"), "OTP: [REDACTED:otp]");
        assert_eq!(r("731 904 is your Example login code"), "731 904 is your Example login code");
        assert_eq!(
            r("731904 is your Example login code"),
            "[REDACTED:otp] is your Example login code"
        );
        assert_eq!(r("flight 1234 leaves at 10:30"), "flight 1234 leaves at 10:30");
    }

    #[test]
    fn values_are_walked() {
        let mut v = json!({"text": "key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345", "n": 1,
                           "list": ["hunter2-pass", {"deep": "Bearer zzzzzzzzzz"}]});
        Redactor::new(["hunter2-pass".to_owned()]).value(&mut v);
        assert_eq!(v["text"], "key [REDACTED:api_key]");
        assert_eq!(v["list"][0], "[REDACTED:secret]");
        assert_eq!(v["list"][1]["deep"], "[REDACTED:bearer]");
        assert_eq!(v["n"], 1);
    }
}
