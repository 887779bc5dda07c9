//! Cutting tracked values out of text before it is stored or exported: every occurrence,
//! also split by separators, in another case, reversed, partly (long values), and words that
//! decode to one (base64, hex, percent-encoding, entities).

use super::spelling::{Needle, PARTIAL_MIN, Payload, Spelling, fold, pack};
use std::collections::HashMap;

/// What replaces a redacted value.
pub const REDACTED: &str = "[redacted]";

/// `text` with every occurrence of the `needles` replaced by [`REDACTED`].
pub fn redact(text: &str, needles: &[&Needle]) -> String {
    replace(text, needles, |_| REDACTED.to_owned())
}

/// `text` with every occurrence of the `needles` replaced by what `by` gives for the needle's
/// index (its handle, or [`REDACTED`]).
pub fn replace(text: &str, needles: &[&Needle], mut by: impl FnMut(usize) -> String) -> String {
    if needles.is_empty() || text.is_empty() {
        return text.to_owned();
    }
    let mut marked = mark_plain(text, needles);
    mark_encoded_words(text, needles, &mut marked);
    let mut out = String::with_capacity(text.len());
    // The needle (index + 1) being replaced; 0 outside one.
    let mut current = 0;
    for (i, c) in text.char_indices() {
        let mark = marked.get(i).copied().unwrap_or(0);
        if mark != 0 {
            if mark != current {
                out.push_str(&by(mark as usize - 1));
                current = mark;
            }
        } else if current != 0 && !c.is_alphanumeric() && next_mark(&marked, text, i) == current {
            // A separator inside a redacted value (`4111 1111 …`) goes with it.
        } else {
            current = 0;
            out.push(c);
        }
    }
    out
}

/// The mark of the next letter or digit after byte `i` (the separator at `i` sits inside
/// that value when it is the same).
fn next_mark(marked: &[u32], text: &str, i: usize) -> u32 {
    text.get(i..)
        .unwrap_or_default()
        .char_indices()
        .skip(1)
        .find(|(_, c)| c.is_alphanumeric())
        .map_or(0, |(j, _)| marked.get(i + j).copied().unwrap_or(0))
}

/// One letter or digit of the text, normalised, with its byte range and its token's bounds.
struct Normalised {
    /// Folded to lower-case ASCII.
    byte: u8,
    start: usize,
    end: usize,
    /// Whether it starts, and whether it ends, a token (a maximal run of letters and digits).
    first: bool,
    last: bool,
    upper: bool,
}

/// Marks (per byte, with the needle's index + 1) the letters and digits that spell a needle
/// in the normalised text: a whole spelling (value, distinctive part, reversed) wherever it
/// stands, split by separators or not; a short one only as whole tokens (`4821` stays inside
/// `148210`); a part of a long one (a run of [`PARTIAL_MIN`] or more characters) only as
/// whole tokens that are no ordinary words — a field cut short, a key split over lines — so
/// `twitter.com` stays readable beside a secret `pic.twitter.com/YO67l8ooRc`.
fn mark_plain(text: &str, needles: &[&Needle]) -> Vec<u32> {
    let mut marked = vec![0u32; text.len()];
    let mut chars: Vec<Normalised> = Vec::new();
    let mut previous_alnum = false;
    for (at, c) in text.char_indices() {
        let folded = fold(c);
        if folded.is_ascii_alphanumeric() {
            if !previous_alnum && let Some(last) = chars.last_mut() {
                last.last = true;
            }
            chars.push(Normalised {
                byte: folded.to_ascii_lowercase() as u8,
                start: at,
                end: at + c.len_utf8(),
                first: !previous_alnum,
                last: false,
                upper: c.is_uppercase(),
            });
            previous_alnum = true;
        } else {
            previous_alnum = false;
        }
    }
    if let Some(last) = chars.last_mut() {
        last.last = true;
    }
    let squashed: Vec<u8> = chars.iter().map(|c| c.byte).collect();
    let squashed = String::from_utf8_lossy(&squashed).into_owned();
    let mut hit = |from: usize, len: usize, mark: u32| {
        for c in &chars[from..from + len] {
            marked[c.start..c.end].iter_mut().for_each(|m| *m = mark);
        }
    };
    // Every window of PARTIAL_MIN characters of every long spelling, looked up in one pass
    // over the text (a prompt is tens of kilobytes and is concealed on every model call).
    let mut windows: HashMap<u64, u32> = HashMap::new();
    for (n, needle) in needles.iter().enumerate() {
        let mark = n as u32 + 1;
        for value in &needle.spellings() {
            let long = value.len() >= PARTIAL_MIN;
            if long {
                for window in value.as_bytes().windows(PARTIAL_MIN) {
                    windows.entry(pack(window)).or_insert(mark);
                }
            }
            for (at, _) in squashed.match_indices(value.as_str()) {
                let whole = chars.get(at).is_some_and(|c| c.first)
                    && chars.get(at + value.len() - 1).is_some_and(|c| c.last);
                if long || whole {
                    hit(at, value.len(), mark);
                }
            }
        }
    }
    if windows.is_empty() {
        return marked;
    }
    // Parts: each run of overlapping windows of one needle, cut to the whole tokens inside it
    // and trimmed of ordinary words at both ends.
    let found: Vec<Option<u32>> =
        squashed.as_bytes().windows(PARTIAL_MIN).map(|w| windows.get(&pack(w)).copied()).collect();
    let mut i = 0;
    while i < found.len() {
        let Some(mark) = found[i] else {
            i += 1;
            continue;
        };
        let mut end = i + PARTIAL_MIN;
        let mut j = i + 1;
        while j < found.len() && j < end && found[j] == Some(mark) {
            end = j + PARTIAL_MIN;
            j += 1;
        }
        if let Some((from, to)) = secret_tokens(&chars, i, end) {
            hit(from, to - from, mark);
        }
        i = j;
    }
    marked
}

/// The part of `chars[from..to]` that is whole tokens, starting and ending with a token that
/// is no ordinary word, when it is still [`PARTIAL_MIN`] characters long.
fn secret_tokens(chars: &[Normalised], from: usize, to: usize) -> Option<(usize, usize)> {
    let mut tokens: Vec<(usize, usize)> = Vec::new();
    let mut k = from;
    while k < to {
        if !chars[k].first {
            k += 1;
            continue;
        }
        let Some(len) = chars[k..to].iter().position(|c| c.last) else { break };
        tokens.push((k, k + len + 1));
        k += len + 1;
    }
    let unusual = |&&(a, b): &&(usize, usize)| not_a_word(&chars[a..b]);
    let first = tokens.iter().find(unusual)?.0;
    let last = tokens.iter().rev().find(unusual)?.1;
    (last - first >= PARTIAL_MIN).then_some((first, last))
}

/// Whether a token is no ordinary word: it has digits, or capitals after small letters
/// (`mDnMnYXpDa`). A word in small letters, capitalised or in capitals (`twitter`, `Lina`,
/// `NASA`) is one.
fn not_a_word(token: &[Normalised]) -> bool {
    token.iter().any(|c| c.byte.is_ascii_digit())
        || token.windows(2).any(|w| !w[0].upper && w[1].upper && w[0].byte.is_ascii_alphabetic())
}

/// Marks whole words that decode to a needle (base64, hex, percent-encoded, entities, escapes).
fn mark_encoded_words(text: &str, needles: &[&Needle], marked: &mut [u32]) {
    let mut offset = 0;
    for word in text.split_inclusive(char::is_whitespace) {
        let start = word.len() - word.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
        let trimmed = word
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .trim_end_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '=' | '%' | ';'));
        let already = marked[offset..offset + word.len()].iter().any(|m| *m != 0);
        if trimmed.len() >= PARTIAL_MIN && !already && may_be_encoded(trimmed) {
            let payload = Payload::new(trimmed);
            // Only a whole spelling the word decodes to: the outbound check's looser
            // findings (a part, shifted letters) would hide ordinary addresses.
            let decoded = |n: &&&Needle| {
                matches!(
                    n.find(&payload),
                    Some(
                        Spelling::UrlEncoded
                            | Spelling::HtmlEntities
                            | Spelling::Escaped
                            | Spelling::Base64
                            | Spelling::Hex
                            | Spelling::Reversed
                    )
                )
            };
            if let Some(n) = needles.iter().position(|n| decoded(&n)) {
                let from = offset + start;
                marked[from..from + trimmed.len()].iter_mut().for_each(|m| *m = n as u32 + 1);
            }
        }
        offset += word.len();
    }
}

/// Whether a word could spell a value in an encoding (decoding every word of a prompt costs
/// too much): percent-encoding, entities and escapes have their marks; hex is 12 or more hex
/// digits; base64 mixes letters with digits or its own symbols (a run of letters alone is a
/// word).
fn may_be_encoded(word: &str) -> bool {
    let marked = word.contains(['%', '&', '\\', '=', ';']);
    let hex = word.len() >= 12 && word.chars().all(|c| c.is_ascii_hexdigit());
    let letters = word.chars().any(|c| c.is_ascii_alphabetic());
    let others = word.chars().any(|c| c.is_ascii_digit() || matches!(c, '+' | '/' | '-' | '_'));
    marked || hex || (letters && others)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redacted(text: &str, values: &[&str]) -> String {
        let needles: Vec<Needle> = values.iter().filter_map(|v| Needle::new(v, 4)).collect();
        redact(text, &needles.iter().collect::<Vec<_>>())
    }

    #[test]
    fn values_are_cut_in_every_spelling() {
        assert_eq!(
            redacted("key sk-live-Zq8aXcanary42Lm9Tt ok", &["sk-live-Zq8aXcanary42Lm9Tt"]),
            "key [redacted] ok"
        );
        assert_eq!(
            redacted("card 4111 1111 1111 1111, thanks", &["4111111111111111"]),
            "card [redacted], thanks"
        );
        assert_eq!(redacted("code 493817.", &["493817"]), "code [redacted].");
        assert_eq!(redacted("pin 4821 not 148210", &["4821"]), "pin [redacted] not 148210");
        let b64 = "c2stbGl2ZS1acThhWGNhbmFyeTQyTG05VHQ=";
        assert_eq!(
            redacted(&format!("see {b64}"), &["sk-live-Zq8aXcanary42Lm9Tt"]),
            "see [redacted]"
        );
        assert_eq!(redacted("tT9mL24yranacXa8qZ", &["Zq8aXcanary42Lm9Tt"]), "[redacted]");
    }

    #[test]
    fn words_that_share_a_run_with_a_secret_stay_readable() {
        // The soak's case: a link id taken for a secret, with its host in it.
        let secret = ["pic.twitter.com/YO67l8ooRc"];
        assert_eq!(
            redacted("page — http://127.0.0.1:1/postlight/twitter.com.html", &secret),
            "page — http://127.0.0.1:1/postlight/twitter.com.html"
        );
        assert_eq!(
            redacted("pic.twitter.com/mDnMnYXpDa and pic.twitter.com/YO67l8ooRc", &secret),
            "pic.twitter.com/mDnMnYXpDa and [redacted]"
        );
        // A part of the value that is its own token (a field cut short, a key over two
        // lines) is still the secret; ordinary words around it are not.
        let key = ["sk-live-Zq8aXcanary42Lm9Tt"];
        assert_eq!(
            redacted("Key: sk-live-Zq8aXcanar (cut)", &key),
            "Key: sk-live-[redacted] (cut)"
        );
        assert_eq!(
            redacted("twitter.com/YO67l8ooRc/photo", &secret),
            "twitter.com/[redacted]/photo"
        );
        assert_eq!(redacted("ary42Lm9Tt", &key), "[redacted]");
        // A run glued inside a longer word is no part shown.
        assert_eq!(redacted("xyzZq8aXcanarq", &key), "xyzZq8aXcanarq");
    }

    #[test]
    fn text_without_values_is_unchanged() {
        assert_eq!(
            redacted("Order 12345678 costs $12.50", &["4821"]),
            "Order 12345678 costs $12.50"
        );
    }
}
