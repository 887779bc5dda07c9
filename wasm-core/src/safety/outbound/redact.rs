//! Cutting tracked values out of text before it is stored or exported: every occurrence,
//! also split by separators, in another case, reversed, partly (long values), and words that
//! decode to one (base64, hex, percent-encoding, entities).

use super::spelling::{Needle, PARTIAL_MIN, Payload, fold, pack};
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

/// Marks (per byte, with the needle's index + 1) the letters and digits that spell a needle
/// in the normalised text.
fn mark_plain(text: &str, needles: &[&Needle]) -> Vec<u32> {
    let mut marked = vec![0u32; text.len()];
    // The normalised characters, each with its byte range, and whether it starts or ends a
    // token (a short value must be whole tokens, so `4821` stays inside `148210`).
    let mut chars: Vec<(u8, usize, usize)> = Vec::new();
    let mut starts = Vec::new();
    let mut ends = Vec::new();
    let mut previous_alnum = false;
    for (at, c) in text.char_indices() {
        let folded = fold(c);
        if folded.is_ascii_alphanumeric() {
            starts.push(!previous_alnum);
            if !previous_alnum && let Some(last) = ends.last_mut() {
                *last = true;
            }
            ends.push(false);
            chars.push((folded.to_ascii_lowercase() as u8, at, at + c.len_utf8()));
            previous_alnum = true;
        } else {
            previous_alnum = false;
        }
    }
    if let Some(last) = ends.last_mut() {
        *last = true;
    }
    let squashed: Vec<u8> = chars.iter().map(|(b, _, _)| *b).collect();
    let squashed = String::from_utf8_lossy(&squashed).into_owned();
    let mut hit = |from: usize, len: usize, mark: u32| {
        for &(_, start, end) in &chars[from..from + len] {
            marked[start..end].iter_mut().for_each(|m| *m = mark);
        }
    };
    // Every window of PARTIAL_MIN characters of every long spelling, looked up in one pass
    // over the text (a prompt is tens of kilobytes and is concealed on every model call).
    let mut windows: HashMap<u64, u32> = HashMap::new();
    for (n, needle) in needles.iter().enumerate() {
        let mark = n as u32 + 1;
        for value in &needle.spellings() {
            if value.len() >= PARTIAL_MIN {
                for window in value.as_bytes().windows(PARTIAL_MIN) {
                    windows.entry(pack(window)).or_insert(mark);
                }
                continue;
            }
            // A short value counts only as whole tokens (`4821` stays inside `148210`).
            for (at, _) in squashed.match_indices(value.as_str()) {
                let whole = starts.get(at).copied().unwrap_or(false)
                    && ends.get(at + value.len() - 1).copied().unwrap_or(false);
                if whole {
                    hit(at, value.len(), mark);
                }
            }
        }
    }
    if !windows.is_empty() {
        for (at, window) in squashed.as_bytes().windows(PARTIAL_MIN).enumerate() {
            if let Some(&mark) = windows.get(&pack(window)) {
                hit(at, PARTIAL_MIN, mark);
            }
        }
    }
    marked
}

/// Marks whole words that decode to a needle (base64, hex, percent-encoded, entities).
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
            if let Some(n) = needles.iter().position(|n| n.find(&payload).is_some()) {
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
    fn text_without_values_is_unchanged() {
        assert_eq!(
            redacted("Order 12345678 costs $12.50", &["4821"]),
            "Order 12345678 costs $12.50"
        );
    }
}
