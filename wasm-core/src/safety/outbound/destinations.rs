//! Every place a URL can send what it carries: its own origin and every URL embedded in it
//! (query values, path segments, fragments; percent-encoded any number of times, as HTML or
//! JavaScript escapes, in base64; absolute, scheme-relative, with backslashes or credentials),
//! because an open redirect on a trusted site forwards the rest of the URL to the embedded
//! one. A bare host name in a query or fragment value counts too (`/go?to=evil.example/x`).

use super::spelling::Payload;
use super::values::looks_like_host;
use crate::safety::origin_of;

/// The origins `url` sends to: its own first, then every embedded one (deduplicated). Empty
/// when nothing in it parses as a web origin.
pub fn destinations(url: &str) -> Vec<String> {
    let mut out: Vec<String> = origin_of(url).into_iter().collect();
    let scheme = url.split_once(':').map_or("https", |(s, _)| s).to_ascii_lowercase();
    let scheme = if scheme == "http" { "http" } else { "https" };
    for reading in Payload::texts(url) {
        let reading = reading.replace('\\', "/");
        for authority in authorities(&reading) {
            push_host(&mut out, scheme, authority);
        }
        for value in parameter_values(&reading) {
            let host = value.split(['/', '?', '#']).next().unwrap_or("");
            if looks_like_host(host) {
                push_host(&mut out, scheme, host);
            }
        }
    }
    out
}

/// What follows each `//` (an absolute or scheme-relative URL), and what follows `http:` /
/// `https:` without slashes (browsers read `https:evil.example` as a host too).
fn authorities(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    // Each match is ASCII, so the byte just after it is a character boundary (`get` cannot
    // miss); ASCII lower-casing keeps every byte where it was.
    for (at, found) in text.match_indices("//") {
        out.extend(text.get(at + found.len()..));
    }
    let lower = text.to_ascii_lowercase();
    for scheme in ["http:", "https:"] {
        for (at, _) in lower.match_indices(scheme) {
            let rest = text.get(at + scheme.len()..).unwrap_or("");
            if !rest.starts_with('/') {
                out.push(rest);
            }
        }
    }
    out
}

/// The host of an authority (and, for `user@host`, the part before `@` too: parsers
/// disagree on which one wins, so both are destinations).
fn push_host(out: &mut Vec<String>, scheme: &str, authority: &str) {
    let authority = authority.split(['/', '?', '#', ' ', '"', '\'', '<', '>']).next().unwrap_or("");
    let mut candidates = vec![authority.rsplit('@').next().unwrap_or("")];
    if let Some((before, _)) = authority.split_once('@') {
        candidates.push(before.rsplit(':').nth(1).unwrap_or(before));
    }
    for host in candidates {
        let host = host.trim_end_matches('.');
        if host.is_empty() || !host.chars().any(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        if let Some(origin) = origin_of(&format!("{scheme}://{host}/"))
            && !out.contains(&origin)
        {
            out.push(origin);
        }
    }
}

/// Values of `name=value` pairs anywhere (query, fragment, path parameters).
fn parameter_values(text: &str) -> Vec<&str> {
    text.split(['?', '&', '#', ';'])
        .filter_map(|pair| pair.split_once('=').map(|(_, v)| v))
        .map(|v| v.trim_start_matches(['/', ' ']))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(url: &str) -> Vec<String> {
        destinations(url)
    }

    #[test]
    fn a_plain_url_has_one_destination() {
        assert_eq!(hosts("https://mail.example/inbox?page=2"), vec!["https://mail.example"]);
        assert_eq!(hosts("https://mail.example/files?f=report.pdf"), vec!["https://mail.example"]);
    }

    #[test]
    fn embedded_urls_are_destinations_in_any_encoding() {
        let evil = "https://evil.example".to_owned();
        for url in [
            "https://mail.example/go?to=https://evil.example/?d=1",
            "https://mail.example/go?to=https%3A%2F%2Fevil.example%2F%3Fd%3D1",
            "https://mail.example/go?to=https%253A%252F%252Fevil.example",
            "https://mail.example/go/https://evil.example/x",
            "https://mail.example/go#next=//evil.example/x",
            "https://mail.example/go?to=%2F%2Fevil.example",
            "https://mail.example/go?to=/\\evil.example",
            "https://mail.example/go?to=evil.example/collect",
            "https://mail.example/go?u=aHR0cHM6Ly9ldmlsLmV4YW1wbGUvP2Q9MQ",
            "https://mail.example/go?to=https:evil.example",
            "https://mail.example/go?to=https://mail.example@evil.example/",
            "https://mail.example/go?to=&#x68;ttps://evil.example/",
        ] {
            assert!(hosts(url).contains(&evil), "{url}: {:?}", hosts(url));
        }
    }
}
