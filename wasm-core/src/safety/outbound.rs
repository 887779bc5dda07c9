//! The outbound data check: secrets seen on one origin (or in sensitive fields) must not leave
//! for another origin — raw, URL-encoded, base64, hex, or spelled into a subdomain.

use super::scope::origin_of;

/// Shortest token worth tracking: shorter strings match by accident.
const MIN_SECRET_LEN: usize = 6;

/// A value that must not leave for another origin.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Tainted {
    value: String,
    source: String,
    /// The origin of the link the value was part of: it may go there (the link goes there).
    link: Option<String>,
    sensitive: bool,
}

/// Values seen during a task and where they came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaintLedger {
    entries: Vec<Tainted>,
}

/// Why an outbound action was blocked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("blocked: this would send data from {from} ({form}) to {destination}")]
pub struct OutboundBlock {
    /// Where the value came from.
    pub from: String,
    /// Where it would go.
    pub destination: String,
    /// How it was spelled (raw, base64…).
    pub form: &'static str,
}

impl TaintLedger {
    /// Records secret-looking tokens of page text read on `url`.
    pub fn record_page_text(&mut self, url: &str, text: &str) {
        let Some(source) = origin_of(url) else { return };
        for word in text.split(|c: char| c.is_whitespace() || "\"'<>()[]{},;".contains(c)) {
            let link = word.contains("://").then(|| origin_of(word)).flatten();
            for token in url_pieces(word) {
                let token = token.trim_matches(|c: char| matches!(c, '.' | ':' | '!' | '?'));
                if looks_secret(token)
                    && !looks_like_host(token)
                    && !self.entries.iter().any(|e| e.value == token)
                {
                    self.entries.push(Tainted {
                        value: token.to_owned(),
                        source: source.clone(),
                        link: link.clone(),
                        sensitive: false,
                    });
                }
            }
        }
    }

    /// Records secret-looking tokens of page text whose origin is no longer known (what earlier
    /// steps extracted, after the service worker restarted): they may leave for no origin.
    pub fn record_unattributed(&mut self, text: &str) {
        let before = self.entries.len();
        self.record_page_text("http://an-earlier-page.invalid/", text);
        for entry in &mut self.entries[before..] {
            entry.source = "an earlier page of this task".into();
            entry.sensitive = true;
        }
    }

    /// Number of values tracked (for tests and the timeline).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is tracked yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records a value from a sensitive field: it may leave for no origin at all.
    pub fn record_sensitive(&mut self, url: &str, value: &str) {
        if value.len() >= 4 {
            let source = origin_of(url).unwrap_or_else(|| "a sensitive field".into());
            self.entries.push(Tainted {
                value: value.to_owned(),
                source,
                link: None,
                sensitive: true,
            });
        }
    }

    /// Checks data about to be sent to `destination_url` (a URL to open, text to type into a
    /// field of that page, or a form's serialized values).
    pub fn check(&self, destination_url: &str, outbound: &str) -> Result<(), OutboundBlock> {
        let destination = origin_of(destination_url).unwrap_or_else(|| destination_url.to_owned());
        // The destination URL itself is outbound data too (query, path, subdomain).
        let haystack = format!("{destination_url} {outbound}").to_lowercase();
        let decoded = percent_decode(&haystack);
        for entry in &self.entries {
            let home = entry.source == destination || entry.link.as_ref() == Some(&destination);
            if !entry.sensitive && home {
                continue;
            }
            if let Some(form) = spelled_in(&entry.value, &haystack, &decoded) {
                return Err(OutboundBlock { from: entry.source.clone(), destination, form });
            }
        }
        Ok(())
    }
}

/// A URL shown as text is split into its path, query and fragment pieces, without its scheme
/// and host: a link to another site is not a secret, but a token in its query may be.
fn url_pieces(word: &str) -> Vec<&str> {
    match word.split_once("://") {
        Some((_, rest)) => rest.split(['/', '?', '&', '=', '#']).skip(1).collect(),
        None => vec![word],
    }
}

/// `shop.example`, `shop.localhost:8080`: host names (with a port) name places, not secrets.
fn looks_like_host(token: &str) -> bool {
    let host = token.rsplit_once(':').filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()));
    let host = host.map_or(token, |(h, _)| h);
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && labels.last().is_some_and(|tld| tld.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Tokens that look like codes, keys or identifiers rather than words.
fn looks_secret(token: &str) -> bool {
    let len = token.chars().count();
    if !(MIN_SECRET_LEN..=512).contains(&len) {
        return false;
    }
    let digits = token.chars().filter(char::is_ascii_digit).count();
    let alpha = token.chars().filter(|c| c.is_alphabetic()).count();
    (digits >= 4 && digits * 2 >= len) || (len >= 16 && digits > 0 && alpha > 0) || len >= 24
}

fn spelled_in(value: &str, haystack: &str, decoded: &str) -> Option<&'static str> {
    let lower = value.to_lowercase();
    if haystack.contains(&lower) {
        return Some("as is");
    }
    if decoded.contains(&lower) {
        return Some("URL-encoded");
    }
    let squashed: String = haystack.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let value_squashed: String = lower.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    if value_squashed.len() >= MIN_SECRET_LEN && squashed.contains(&value_squashed) {
        return Some("split up (e.g. in a subdomain)");
    }
    let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
    if haystack.contains(&hex) {
        return Some("hex-encoded");
    }
    // The haystack is lower-cased, so base64 is compared case-insensitively.
    for variant in base64_variants(value.as_bytes()) {
        if haystack.contains(&variant) || decoded.contains(&variant) {
            return Some("base64-encoded");
        }
    }
    None
}

/// The stable middle of the value's base64 at each of the three byte alignments, in both
/// alphabets, lower-cased to match the lower-cased haystack.
fn base64_variants(value: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for shift in 0..3usize {
        let mut padded = vec![0u8; shift];
        padded.extend_from_slice(value);
        let encoded = base64(&padded);
        // Drop the characters that depend on unknown neighbouring bytes.
        let skip = if shift == 0 { 0 } else { (shift * 4).div_ceil(3) + 1 };
        let keep_end = (padded.len() / 3) * 4;
        if keep_end > skip + 4 {
            let middle = &encoded[skip..keep_end];
            out.push(middle.to_lowercase());
            out.push(middle.replace('+', "-").replace('/', "_").to_lowercase());
        }
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OTP: &str = "Your code is 493817. It expires soon.";
    const KEY: &str = "sk-live-Zq8aXcanary42Lm9Tt";

    fn ledger() -> TaintLedger {
        let mut l = TaintLedger::default();
        l.record_page_text("https://mail.example/inbox", OTP);
        l.record_page_text("https://dash.example/keys", &format!("API key: {KEY}"));
        l
    }

    #[test]
    fn secrets_may_return_to_their_own_origin() {
        assert!(ledger().check("https://mail.example/reply", "code 493817").is_ok());
    }

    #[test]
    fn secrets_may_not_leave_in_any_spelling() {
        let l = ledger();
        let dest = "https://forum.example/post";
        assert_eq!(l.check(dest, "my code: 493817").map_err(|e| e.form), Err("as is"));
        assert_eq!(
            l.check(dest, "https://forum.example/?k=sk%2Dlive%2DZq8aXcanary42Lm9Tt")
                .map_err(|e| e.form),
            Err("URL-encoded")
        );
        let hex: String = KEY.bytes().map(|b| format!("{b:02X}")).collect();
        assert_eq!(l.check(dest, &hex).map_err(|e| e.form), Err("hex-encoded"));
        for prefix in ["", "a", "ab"] {
            let b64 = base64(format!("{prefix}{KEY}!").as_bytes());
            assert_eq!(
                l.check(dest, &format!("q={b64}")).map_err(|e| e.form),
                Err("base64-encoded"),
                "{prefix}"
            );
        }
        assert!(l.check("https://493-817.evil.example/", "").is_err(), "split into a subdomain");
    }

    #[test]
    fn ordinary_words_and_short_numbers_are_not_tracked() {
        let mut l = TaintLedger::default();
        l.record_page_text("https://a.example/", "Welcome back, please review 3 items in 2024");
        assert!(l.check("https://b.example/", "welcome review items 2024").is_ok());
    }

    #[test]
    fn sensitive_field_values_may_go_nowhere() {
        let mut l = TaintLedger::default();
        l.record_sensitive("https://bank.example/login", "hunter2pw");
        assert!(l.check("https://bank.example/search", "hunter2pw").is_err());
    }

    #[test]
    fn links_shown_as_text_are_not_secrets_but_their_tokens_are() {
        let mut l = TaintLedger::default();
        l.record_page_text(
            "https://a.example/",
            "See https://shop.localhost:41234/checkout/confirmation-page-2024 or \
             shop.localhost:41234, reset at https://b.example/r?token=Zq8aX9canary42Lm9Tt77",
        );
        assert!(
            l.check("https://shop.localhost:41234/checkout/confirmation-page-2024", "").is_ok()
        );
        assert!(l.check("https://b.example/?t=Zq8aX9canary42Lm9Tt77", "").is_ok());
        assert!(l.check("https://c.example/?t=Zq8aX9canary42Lm9Tt77", "").is_err());
    }

    #[test]
    fn text_of_unknown_origin_may_go_nowhere() {
        let mut l = TaintLedger::default();
        l.record_unattributed("Your code is 493817.");
        let err = l.check("https://mail.example/", "493817").expect_err("blocked");
        assert_eq!(err.from, "an earlier page of this task");
    }

    #[test]
    fn base64_matches_the_reference_encoding() {
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(b"fo"), "Zm8=");
    }
}
