//! Which values of a text are worth tracking, and which of them are secrets.
//!
//! Tracked: codes, keys and identifiers (mostly digits, or long mixed tokens), whatever
//! follows a secret's name ("password: …", "my PIN is …", "API key …"), and grouped numbers
//! (card numbers, IBANs). Secrets (credentials, codes, keys, card numbers) are also redacted
//! from session notes; identifiers (order numbers, SKUs) stay in the notes with their
//! provenance.

use super::destinations::destinations;
use super::handles::SecretKind;
use crate::safety::origin_of;

/// Shortest token tracked without a secret's name before it: shorter ones match by accident.
const MIN_TOKEN_LEN: usize = 6;

/// Shortest value tracked after a secret's name (a 4-digit PIN).
const MIN_NAMED_LEN: usize = 4;

/// Words that name a secret whatever its shape: what follows is the secret, even a word.
const STRONG_NAMES: &[&str] = &[
    "password",
    "passwort",
    "passcode",
    "passphrase",
    "pwd",
    "pw",
    "pin",
    "otp",
    "secret",
    "cvv",
    "cvc",
    "csc",
    "ssn",
];

/// Words that name a secret when what follows looks like one (has a digit, a capital or a
/// symbol): "code SAVE10" yes, "code below" no.
const WEAK_NAMES: &[&str] = &[
    "pass",
    "code",
    "token",
    "key",
    "apikey",
    "api-key",
    "api_key",
    "iban",
    "card",
    "credential",
    "credentials",
];

/// Words between a secret's name and the secret.
const FILLERS: &[&str] = &[
    "is",
    "are",
    "was",
    "be",
    "my",
    "your",
    "our",
    "the",
    "a",
    "an",
    "to",
    "of",
    "for",
    "use",
    "using",
    "number",
    "no",
    "nr",
    "num",
    "with",
    "as",
    "it's",
    "its",
    "=",
    ":",
    "-",
    "#",
    "api",
    "one-time",
    "security",
    "verification",
    "access",
    "secret",
    "private",
    "new",
];

/// Prefixes of well-known credential formats.
const KEY_PREFIXES: &[&str] = &[
    "sk-",
    "sk_",
    "pk_",
    "rk_",
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "akia",
    "aiza",
    "eyj",
    "glpat-",
    "npm_",
    "shpat_",
    "whsec_",
];

/// A value found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// As written.
    pub value: String,
    /// A credential, code, key or card number (redacted from session notes), rather than an
    /// identifier.
    pub secret: bool,
    /// What kind of secret it is (for its handle), when it is one.
    pub kind: SecretKind,
    /// For a token inside a link: every origin the link sends to (its own, and the ones an
    /// open redirect in it forwards to); empty elsewhere.
    pub link: Vec<String>,
}

/// Whose text it is: the user's words are trusted to name their secrets with plain words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    /// A web page (or anything read from one).
    Page,
    /// The user.
    User,
}

/// The values of `text` worth tracking. A secret's handle (`⟨secret:3 api key from
/// dash.example:8080⟩`, in an answer or a note) is Waymark's own words, not a value.
pub fn values(text: &str, speaker: Speaker) -> Vec<Found> {
    let without_handles;
    let text = if super::handles::has_handle(text) {
        let mut out = text.to_owned();
        for (range, _) in super::handles::handle_refs(text).into_iter().rev() {
            out.replace_range(range, " ");
        }
        without_handles = out;
        without_handles.as_str()
    } else {
        text
    };
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<Found> = Vec::new();
    let mut push = |found: Found| {
        if !out.iter().any(|f| f.value == found.value) {
            out.push(found);
        }
    };
    let mut grouped = grouped_numbers(&words);
    grouped.extend(grouped_codes(&words));
    let squash = |v: &str| v.chars().filter(|c| c.is_alphanumeric()).collect::<String>();
    let in_group: Vec<String> = grouped.iter().map(|g| squash(&g.value)).collect();
    for found in grouped {
        push(found);
    }
    for found in named_secrets(&words, speaker) {
        // `card 4111 1111 …`: the name is followed by the first group of a grouped number.
        if !in_group.iter().any(|g| g.contains(&squash(&found.value))) {
            push(found);
        }
    }
    for word in text.split(|c: char| c.is_whitespace() || "\"'<>()[]{},;".contains(c)) {
        // A piece of a handle turned around or cut up (a page asked the model to spell it):
        // Waymark's own words, no value.
        if word.contains(['⟨', '⟩']) {
            continue;
        }
        // `name=value` outside a URL: the value alone.
        let word = match word.split_once('=') {
            Some((_, value)) if !word.contains("://") => value,
            _ => word,
        };
        let link = if word.contains("://") { destinations(word) } else { Vec::new() };
        for token in url_pieces(word) {
            let token = token.trim_matches(|c: char| matches!(c, '.' | ':' | '!' | '?'));
            if looks_tracked(token) && !looks_like_host(token) && !looks_like_date_or_amount(token)
            {
                push(Found {
                    value: token.to_owned(),
                    secret: looks_key(token),
                    kind: kind_by_shape(token),
                    link: link.clone(),
                });
            }
        }
    }
    out
}

/// The hosts a text names (URLs and bare host names such as `shop.example`), with the port
/// when one is written.
pub fn named_hosts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "\"'<>()[]{},;".contains(c)) {
        let word = word.trim_matches(|c: char| matches!(c, '.' | ':' | '!' | '?'));
        let word = word.strip_suffix("'s").unwrap_or(word);
        let host = if word.contains("://") {
            origin_of(word).and_then(|o| {
                let url = url::Url::parse(&o).ok()?;
                let host = url.host_str()?.to_owned();
                Some(match url.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host,
                })
            })
        } else {
            let host = word.split(['/', '?', '#']).next().unwrap_or("");
            looks_like_host(host).then(|| host.to_owned())
        };
        if let Some(host) = host.filter(|h| !out.contains(h)) {
            out.push(host);
        }
    }
    out
}

/// Numbers written in groups (`4111 1111 1111 1111`, `DE89 3704 0044 0532 0130 00`): at
/// least 12 letters and digits, mostly digits, over three or more words.
fn grouped_numbers(words: &[&str]) -> Vec<Found> {
    let mut out = Vec::new();
    let group = |w: &str| {
        let w = w.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')'));
        (2..=6).contains(&w.len())
            && w.chars().all(|c| c.is_ascii_alphanumeric())
            && w.chars().any(|c| c.is_ascii_digit())
    };
    let mut i = 0;
    while i < words.len() {
        let run = words[i..].iter().take_while(|w| group(w)).count();
        if run >= 3 {
            let joined: String = words[i..i + run].join(" ");
            let alnum: String = joined.chars().filter(char::is_ascii_alphanumeric).collect();
            let digits = alnum.chars().filter(char::is_ascii_digit).count();
            if alnum.len() >= 12 && digits * 2 >= alnum.len() {
                let kind = if luhn(&alnum) && alnum.len() <= 19 {
                    SecretKind::CardNumber
                } else {
                    SecretKind::AccountNumber
                };
                out.push(Found { value: joined, secret: true, kind, link: Vec::new() });
            }
        }
        i += run.max(1);
    }
    out
}

/// Codes written in groups for reading (`JBSW Y3DP EHPK 3PXP`, an authenticator's setup key;
/// `4F7Q 9XK2 M3PD 7TRW`, a licence key): three or more groups of 3 to 8 letters and digits,
/// each in capitals and digits or holding a digit, at least 12 characters with two digits and
/// two letters among them. Each group alone is too short to track: the run is tracked whole.
/// A comma or semicolon after a group ends the run: `FhpN3X, tNPS9zn, VUy2Vt` is a list of
/// names (checkbox labels), not one code.
fn grouped_codes(words: &[&str]) -> Vec<Found> {
    let mut out = Vec::new();
    let group = |w: &str| {
        let w = w.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')'));
        (3..=8).contains(&w.len())
            && w.chars().all(|c| c.is_ascii_alphanumeric())
            && (w.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                || w.chars().any(|c| c.is_ascii_digit()))
    };
    let listed = |w: &&str| w.ends_with([',', ';']);
    let mut i = 0;
    while i < words.len() {
        let groups = words[i..].iter().take_while(|w| group(w)).count();
        // Up to and with the first group a list separator follows.
        let run = words[i..i + groups].iter().position(listed).map_or(groups, |at| at + 1);
        if run >= 3 {
            let joined: String = words[i..i + run].join(" ");
            let alnum: String = joined.chars().filter(char::is_ascii_alphanumeric).collect();
            let digits = alnum.chars().filter(char::is_ascii_digit).count();
            if alnum.len() >= 12 && digits >= 2 && alnum.len() - digits >= 2 {
                out.push(Found {
                    value: joined,
                    secret: true,
                    kind: SecretKind::Code,
                    link: Vec::new(),
                });
            }
        }
        i += run.max(1);
    }
    out
}

/// What follows a secret's name: `password: hunter2`, `PIN is 4821`, `API key sk-…`,
/// `passphrase "correct horse battery"`, `password=hunter2`.
fn named_secrets(words: &[&str], speaker: Speaker) -> Vec<Found> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        // The name is split off the word as written, then lower-cased (lower-casing can
        // change lengths: `İ` is two bytes, its lower case three).
        let (name, glued) = match words[i].split_once([':', '=']) {
            Some((n, v)) if !v.is_empty() => (n.to_lowercase(), Some(v)),
            _ => (
                words[i].to_lowercase().trim_matches(|c: char| !c.is_alphanumeric()).to_owned(),
                None,
            ),
        };
        let strong = STRONG_NAMES.contains(&name.as_str());
        if !strong && !WEAK_NAMES.contains(&name.as_str()) {
            i += 1;
            continue;
        }
        let strong = strong && speaker == Speaker::User;
        let kind = SecretKind::named(&name);
        // `… my API key? Obeyed …`: the sentence ended with the name; what follows is not
        // its value.
        if glued.is_none() && words[i].ends_with(['.', '?', '!']) {
            i += 1;
            continue;
        }
        if let Some(value) = glued {
            if let Some(found) = accept(value, strong, kind) {
                out.push(found);
            }
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < words.len() && j <= i + 4 && is_filler(words[j]) {
            j += 1;
        }
        if let Some(first) = words.get(j) {
            if let Some(quote) = first.chars().next().filter(|c| "\"'“‘`«".contains(*c)) {
                let closing = match quote {
                    '“' => '”',
                    '‘' => '’',
                    '«' => '»',
                    q => q,
                };
                let rest = words[j..].join(" ");
                let inner = rest.strip_prefix(quote).unwrap_or(&rest);
                if let Some((value, _)) = inner.split_once(closing) {
                    let value = value.trim();
                    if value.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_NAMED_LEN {
                        out.push(Found {
                            value: value.to_owned(),
                            secret: true,
                            kind,
                            link: Vec::new(),
                        });
                    }
                }
            } else if let Some(found) = accept(first, strong, kind) {
                out.push(found);
            }
        }
        i = j.max(i + 1);
    }
    out
}

fn is_filler(word: &str) -> bool {
    let w = word.to_lowercase();
    let w = w.trim_end_matches([':', ',']);
    w.is_empty() || FILLERS.contains(&w) || STRONG_NAMES.contains(&w) || WEAK_NAMES.contains(&w)
}

/// A value after a secret's name, if it looks like one (anything of four characters or more
/// after a strong name in the user's words).
/// Shortest run of capitals alone that reads as a code after a secret's name (a base32 setup
/// key is 16 or more); shorter ones are words.
const MIN_CAPITALS_CODE: usize = 12;

fn accept(word: &str, strong: bool, kind: SecretKind) -> Option<Found> {
    let value = word.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | ')'));
    let alnum = value.chars().filter(|c| c.is_alphanumeric()).count();
    if alnum < MIN_NAMED_LEN || looks_like_host(value) || value.contains("://") {
        return None;
    }
    // Code-like: a digit, a mark inside, capitals past the first letter beside small ones
    // (`xKqAbZ`), or a long run of capitals (`JBSWYDPEHPK`); a capitalised word (`Obeyed`) is
    // prose, and a short word in capitals is a name or a brand (`POLITICO`, `NASA`), which a
    // page writes after "code" as often as a code.
    let letters_only = value.chars().all(char::is_alphabetic);
    let all_capitals = letters_only && value.chars().all(char::is_uppercase);
    let shaped = value.chars().any(|c| c.is_ascii_digit() || !c.is_alphanumeric())
        || (all_capitals && alnum >= MIN_CAPITALS_CODE)
        || (!all_capitals && value.chars().skip(1).any(char::is_uppercase));
    // A name too vague for the value's shape (`key sk-live-…`) yields to the shape.
    let kind = match (kind, kind_by_shape(value)) {
        (
            SecretKind::Secret | SecretKind::Code,
            by_shape @ (SecretKind::ApiKey | SecretKind::Token | SecretKind::CardNumber),
        ) => by_shape,
        (named, _) => named,
    };
    (strong || shaped).then(|| Found {
        value: value.to_owned(),
        secret: true,
        kind,
        link: Vec::new(),
    })
}

/// What a credential is by its shape alone: a known key or token prefix, a card number (Luhn),
/// else a key.
fn kind_by_shape(token: &str) -> SecretKind {
    let lower = token.to_ascii_lowercase();
    let digits: String = token.chars().filter(char::is_ascii_digit).collect();
    if TOKEN_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        SecretKind::Token
    } else if KEY_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        SecretKind::ApiKey
    } else if (13..=19).contains(&digits.len())
        && digits.len() * 4 >= token.len() * 3
        && luhn(&digits)
    {
        SecretKind::CardNumber
    } else {
        SecretKind::Secret
    }
}

/// Prefixes of [`KEY_PREFIXES`] that name access tokens rather than API keys.
const TOKEN_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "eyj",
    "glpat-",
    "npm_",
    "shpat_",
];

/// A URL shown as text is split into its path, query and fragment pieces, without its scheme
/// and host: a link to another site is not a secret, but a token in its query may be.
fn url_pieces(word: &str) -> Vec<String> {
    let Some((before, after)) = word.split_once("://") else { return vec![word.to_owned()] };
    // The URL starts at its scheme (`src=https://…`, `“https://…`: what precedes it is no
    // part of it), so only the scheme's characters just before `://` are kept.
    let scheme = before.rsplit(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c))).next();
    let Ok(url) = url::Url::parse(&format!("{}://{after}", scheme.unwrap_or(""))) else {
        // Not a URL the parser takes: its pieces after the authority, as written.
        return after.split(['/', '?', '&', '=', '#']).skip(1).map(str::to_owned).collect();
    };
    let path = url.path_segments().into_iter().flatten();
    let query = url.query().into_iter().flat_map(|q| q.split(['&', '=']));
    let fragment = url.fragment().into_iter().flat_map(|f| f.split(['/', '?', '&', '=']));
    path.chain(query).chain(fragment).map(str::to_owned).collect()
}

/// `shop.example`, `shop.localhost:8080`, `user@evil.example`: host names (with a port) name
/// places, not secrets; a dotted name whose last label is alphabetic and not a file extension.
pub fn looks_like_host(token: &str) -> bool {
    let host = token.rsplit('@').next().unwrap_or(token);
    let host = host.rsplit_once(':').filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit()));
    let host = host.map_or(token.rsplit('@').next().unwrap_or(token), |(h, _)| h);
    let host = host.trim_end_matches('.');
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && labels.last().is_some_and(|tld| {
            tld.len() >= 2
                && tld.chars().all(|c| c.is_ascii_alphabetic())
                && !FILE_EXTENSIONS.contains(&tld.to_ascii_lowercase().as_str())
        })
}

/// File extensions that look like top-level domains in a bare `name.ext` value: those are
/// files on the site, not hosts (`?file=report.pdf`).
const FILE_EXTENSIONS: &[&str] = &[
    "html", "htm", "php", "asp", "aspx", "jsp", "cgi", "pdf", "png", "jpg", "jpeg", "gif", "svg",
    "webp", "ico", "css", "js", "mjs", "json", "xml", "txt", "csv", "md", "doc", "docx", "xls",
    "xlsx", "ppt", "pptx", "mp3", "mp4", "webm", "wav", "avi", "mov", "gz", "tar", "tgz", "rar",
    "7z", "woff", "woff2", "ttf", "map", "rss", "atom", "yaml", "yml", "ini", "log",
];

/// Tokens that look like codes, keys or identifiers rather than words.
fn looks_tracked(token: &str) -> bool {
    let len = token.chars().count();
    if !(MIN_TOKEN_LEN..=512).contains(&len) {
        return false;
    }
    let digits = token.chars().filter(char::is_ascii_digit).count();
    let alpha = token.chars().filter(|c| c.is_alphabetic()).count();
    (digits >= 4 && digits * 2 >= len) || (len >= 16 && digits > 0 && alpha > 0) || len >= 24
}

/// `12/05/2024`, `2024-05-12`, `12:30:45`, `1,249.99`: dates, times and amounts are what
/// pages and users write all the time, not codes.
fn looks_like_date_or_amount(token: &str) -> bool {
    let token = token.trim_start_matches(['$', '€', '£', '¥']);
    if !token.chars().all(|c| c.is_ascii_digit() || "/.-:,".contains(c)) {
        return false;
    }
    let groups: Vec<&str> = token.split(['/', '.', '-', ':', ',']).collect();
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    let date = lens.len() == 3
        && lens.iter().filter(|l| **l == 4).count() <= 1
        && lens.iter().all(|l| matches!(l, 1 | 2 | 4));
    let amount = token.contains([',', '.'])
        && lens.len() >= 2
        && lens[1..].iter().all(|l| matches!(l, 2 | 3))
        && (1..=3).contains(&lens[0]);
    date || amount
}

/// Credentials by shape: a known key prefix, a long mixed-case token with digits, a long
/// random-looking run, or a card number (Luhn).
fn looks_key(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    let digits: String = token.chars().filter(char::is_ascii_digit).collect();
    KEY_PREFIXES.iter().any(|p| lower.starts_with(p))
        || (token.len() >= 20
            && token.chars().any(|c| c.is_ascii_lowercase())
            && token.chars().any(|c| c.is_ascii_uppercase())
            && !digits.is_empty())
        || ((13..=19).contains(&digits.len())
            && digits.len() * 4 >= token.len() * 3
            && luhn(&digits))
}

fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> Vec<(String, bool)> {
        values(text, Speaker::User).into_iter().map(|f| (f.value, f.secret)).collect()
    }

    fn page(text: &str) -> Vec<String> {
        values(text, Speaker::Page).into_iter().map(|f| f.value).collect()
    }

    #[test]
    fn the_user_names_secrets_with_plain_words() {
        assert_eq!(user("log in with password sunshine please"), [("sunshine".into(), true)]);
        assert_eq!(user("my PIN is 4821"), [("4821".into(), true)]);
        assert_eq!(user("password=hunter2pw"), [("hunter2pw".into(), true)]);
        assert_eq!(
            user("passphrase \"correct horse battery\" then"),
            [("correct horse battery".into(), true)]
        );
        assert_eq!(
            user("pay with card 4111 1111 1111 1111 exp 12/27"),
            [("4111 1111 1111 1111".into(), true)]
        );
        assert!(
            user("use the API key sk-live-Zq8aXcanary42Lm9Tt")
                .contains(&("sk-live-Zq8aXcanary42Lm9Tt".into(), true))
        );
        assert_eq!(user("track order 12345678 on shop.example"), [("12345678".into(), false)]);
    }

    #[test]
    fn ordinary_words_after_a_name_are_not_secrets() {
        assert!(page("Enter the code below and press any key to continue").is_empty());
        assert!(user("find a card game and pin the tab").is_empty());
        assert!(page("Welcome back, please review 3 items in 2024").is_empty());
        assert_eq!(page("Your code is 493817."), ["493817"]);
        assert_eq!(page("Your password: Hunter2x"), ["Hunter2x"]);
    }

    #[test]
    fn codes_shown_in_groups_are_tracked_whole() {
        let manual = page("Or enter this code manually: JBSW Y3DP EHPK 3PXP then press Next");
        assert!(manual.contains(&"JBSW Y3DP EHPK 3PXP".to_owned()), "{manual:?}");
        assert!(page("Licence 4F7Q 9XK2 M3PD 7TRW").contains(&"4F7Q 9XK2 M3PD 7TRW".to_owned()));
        let recovery = page("a1b2 c3d4 e5f6 g7h8");
        assert!(recovery.contains(&"a1b2 c3d4 e5f6 g7h8".to_owned()), "{recovery:?}");
        // A list of names with digits in them is not one code (MiniWoB's checkbox labels).
        assert!(user("Select FhpN3X, tNPS9zn, VUy2Vt and click Submit.").is_empty());
        // Capitals without digits, or ordinary words, are not a code.
        assert!(page("FREE SHIPPING ON ALL ORDERS TODAY").is_empty());
        assert!(page("the cat sat on the mat").is_empty());
    }

    #[test]
    fn named_hosts_are_urls_and_host_names() {
        assert_eq!(
            named_hosts(
                "Compare https://a.example/x with shop.localhost:8080's price, not report.pdf"
            ),
            ["a.example", "shop.localhost:8080"]
        );
    }

    #[test]
    fn a_handle_is_no_value() {
        assert!(page("Your key is ⟨secret:3 api key from dash.localhost:39103⟩.").is_empty());
        assert_eq!(page("⟨secret:1 code from x⟩ and order 12345678"), ["12345678"]);
        assert!(page("⟩30193:tsohlacol.hsad morf yek ipa 1:terces⟨").is_empty());
    }

    #[test]
    fn card_numbers_pass_luhn() {
        assert!(luhn("4111111111111111"));
        assert!(!luhn("4111111111111112"));
    }

    #[test]
    fn a_url_glued_to_a_wide_character_is_read_from_its_scheme() {
        // Issue 25: `“` before the scheme once put the slice inside the quote's three bytes.
        for glued in [
            "“https://docs.example.com/setup?token=Zq8aXcanary42Lm9Tt”",
            "链接：https://docs.example.com/setup?token=Zq8aXcanary42Lm9Tt",
            "«https://docs.example.com/setup?token=Zq8aXcanary42Lm9Tt»",
            "→https://docs.example.com/setup?token=Zq8aXcanary42Lm9Tt",
            "👉🏽https://docs.example.com/setup?token=Zq8aXcanary42Lm9Tt",
        ] {
            let pieces = url_pieces(glued);
            assert!(
                pieces.iter().any(|p| p.starts_with("Zq8aXcanary42Lm9Tt")),
                "{glued}: {pieces:?}"
            );
            assert!(pieces.contains(&"setup".to_owned()), "{glued}: {pieces:?}");
            // And the scanners over page text take it whole.
            let _ = page(glued);
        }
    }

    #[test]
    fn a_short_word_in_capitals_after_code_is_a_name_not_a_secret() {
        // The soak: a news site's name after "code" once hid the name on every page of it.
        let secret = |text: &str| values(text, Speaker::Page).into_iter().any(|f| f.secret);
        assert!(!secret("Use the promo code POLITICO at checkout"));
        assert!(!secret("code NASA"));
        assert!(secret("Your code: 7Fq2Zx9K"));
        assert!(secret("setup code JBSWYDPEHPKXPAQR"));
    }
}
