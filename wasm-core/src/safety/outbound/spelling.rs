//! Every reading of outbound text a secret could hide in, and how a tracked value is found in
//! it: as is, in any case, percent-encoded (also twice, `+` as space), with HTML numeric
//! entities, JavaScript `\x`/`\u` escapes, base64 (both alphabets, any alignment), hex (with or
//! without separators), character by character as words (digit names, the spelling alphabet)
//! or as codes (decimal, octal or binary numbers), with look-alike or full-width characters,
//! split by separators,
//! reversed, partly (a run of [`PARTIAL_MIN`] characters of its distinctive part), and in
//! pieces spread over several actions.
//!
//! Each reading is normalised once into tokens (maximal runs of letters and digits, folded to
//! lower-case ASCII) and a squashed string (the tokens joined), so one comparison covers case,
//! separators, dots, whitespace and look-alikes.

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use std::collections::HashSet;
use std::fmt;

/// Shortest run of a long value's distinctive part that counts as sending the value: shorter
/// runs match ordinary text by accident, longer ones let a secret leave a few characters short.
pub const PARTIAL_MIN: usize = 8;

/// Decoding rounds applied on top of each other (base64 of percent-encoding of hex, …).
const MAX_DEPTH: usize = 3;

/// Readings kept per text: the decoders fan out, and outbound texts are small.
const MAX_READINGS: usize = 24;

/// Shortest base64 run worth decoding (6 bytes).
const MIN_BASE64_RUN: usize = 8;

/// Shortest hex run worth decoding (4 bytes).
const MIN_HEX_RUN: usize = 8;

/// How a value was spelled where the check found it (the refusal names it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// Verbatim (in any case).
    AsIs,
    /// Percent-encoded, once or more.
    UrlEncoded,
    /// With HTML numeric character references.
    HtmlEntities,
    /// With JavaScript `\x41` / `\u0041` escapes.
    Escaped,
    /// Base64, either alphabet, any alignment.
    Base64,
    /// Hex digits, with or without separators.
    Hex,
    /// Split by separators, dots, whitespace, or spelled with look-alike characters.
    SplitUp,
    /// Backwards.
    Reversed,
    /// A run of at least `PARTIAL_MIN` characters of it.
    Partly,
    /// In pieces over this and earlier actions to the same site.
    Pieces,
    /// With its letters (or digits) shifted through the alphabet: rot13, any Caesar shift,
    /// atbash.
    Shifted,
    /// Character by character as words: digit names ("four nine three"), the spelling
    /// alphabet ("sierra kilo").
    SpelledOut,
    /// Character by character as numbers: decimal, octal or binary character codes.
    CharCodes,
}

impl fmt::Display for Spelling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::AsIs => "as is",
            Self::UrlEncoded => "URL-encoded",
            Self::HtmlEntities => "as HTML entities",
            Self::Escaped => "as escape sequences",
            Self::Base64 => "base64-encoded",
            Self::Hex => "hex-encoded",
            Self::SplitUp => "split up or disguised",
            Self::Reversed => "reversed",
            Self::Partly => "in part",
            Self::Pieces => "in pieces over several actions",
            Self::Shifted => "with its letters shifted (rot13 or similar)",
            Self::SpelledOut => "spelled out in words",
            Self::CharCodes => "as character codes",
        })
    }
}

/// One decoded reading of a text, normalised for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reading {
    how: Spelling,
    tokens: Vec<String>,
    squashed: String,
}

impl Reading {
    fn new(how: Spelling, text: &str) -> Self {
        let tokens = tokens(text);
        let squashed: String = tokens.concat();
        Self { how, tokens, squashed }
    }
}

/// Outbound text (a destination URL and the data sent there) in all its readings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    readings: Vec<Reading>,
    /// The data's only token, when the data is a single token (a piece typed on its own).
    sole: Option<String>,
    /// Every [`PARTIAL_MIN`]-byte window of every reading's squashed form, packed (exact: 8
    /// ASCII bytes): a long value can match only if one of its windows is here.
    windows: HashSet<u64>,
    /// Every run of consecutive tokens and every part of a token that a short value (4 to 7
    /// characters) could equal: it can match only if it is here.
    shorts: HashSet<String>,
    /// Every [`PARTIAL_MIN`]-byte window of every reading's [`shift_signature`]: a long value
    /// spelled with shifted letters (rot13, a Caesar shift) has the same signature.
    shifted: HashSet<u64>,
}

impl Payload {
    /// Decodes `text` every way a page or a model could have encoded a value in it.
    pub fn new(text: &str) -> Self {
        let readings: Vec<Reading> =
            decoded(text).iter().map(|(how, t)| Reading::new(*how, t)).collect();
        let mut windows = HashSet::new();
        let mut shorts = HashSet::new();
        let mut shifted = HashSet::new();
        for reading in &readings {
            windows.extend(reading.squashed.as_bytes().windows(PARTIAL_MIN).map(pack));
            shifted.extend(shift_signature(&reading.squashed).windows(PARTIAL_MIN).map(pack));
            for (i, token) in reading.tokens.iter().enumerate() {
                for len in 6..PARTIAL_MIN {
                    shorts.extend(token.as_bytes().windows(len).map(bytes_text));
                }
                let mut joined = String::new();
                for next in &reading.tokens[i..] {
                    joined.push_str(next);
                    if joined.len() >= PARTIAL_MIN {
                        break;
                    }
                    shorts.insert(joined.clone());
                }
            }
        }
        Self { readings, sole: None, windows, shorts, shifted }
    }

    /// Data sent to a destination URL: both are read together.
    pub fn outbound(destination_url: &str, data: &str) -> Self {
        let data_tokens = tokens(data);
        let sole = match data_tokens.as_slice() {
            [only] => Some(only.clone()),
            _ => None,
        };
        Self { sole, ..Self::new(&format!("{destination_url} {data}")) }
    }

    /// The decoded texts of `text` (itself first), before normalisation: where embedded URLs
    /// are looked for.
    pub fn texts(text: &str) -> Vec<String> {
        decoded(text).into_iter().map(|(_, t)| t).collect()
    }

    /// Candidate fragments of a value, in order: tokens of three characters or more as
    /// written, and a two-character token sent on its own (`49`, then `38`, then `17`); a
    /// two-digit number inside ordinary text is too common to count.
    fn fragments(&self) -> impl Iterator<Item = &str> {
        let plain = self.readings.first().map_or(&[][..], |r| r.tokens.as_slice());
        plain.iter().map(String::as_str).filter(|t| t.len() >= 3).chain(self.sole.as_deref())
    }
}

/// A tracked value, normalised like the readings it is looked for in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needle {
    /// The whole value, normalised.
    pub full: String,
    /// The part that identifies it (without a common prefix such as `sk-live-`), normalised.
    distinctive: String,
    reversed: String,
    /// Shift signatures of the distinctive part, forwards and backwards, as written and
    /// mirrored (atbash), without the windows too regular to identify it.
    shifted: Vec<u64>,
}

impl Needle {
    /// `None` when the value has fewer than `min` letters and digits.
    pub fn new(value: &str, min: usize) -> Option<Self> {
        let full: String = tokens(value).concat();
        if full.len() < min {
            return None;
        }
        let distinctive = distinctive_part(value).unwrap_or_else(|| full.clone());
        let reversed: String = distinctive.chars().rev().collect();
        let mut shifted = Vec::new();
        for form in [&distinctive, &reversed] {
            let signature = shift_signature(form);
            for sig in [mirrored(&signature), signature] {
                shifted.extend(
                    sig.windows(PARTIAL_MIN)
                        .filter(|w| w.iter().collect::<HashSet<_>>().len() >= MIN_SHIFT_VARIETY)
                        .map(pack),
                );
            }
        }
        Some(Self { full, distinctive, reversed, shifted })
    }

    /// The normalised forms to cut out of stored text: whole, distinctive part, reversed.
    pub fn spellings(&self) -> Vec<String> {
        let mut out = vec![self.full.clone()];
        if self.distinctive != self.full {
            out.push(self.distinctive.clone());
        }
        out.push(self.reversed.clone());
        out
    }

    /// Whether a partial run is enough (long values) or the whole value must appear.
    fn long(&self) -> bool {
        self.distinctive.len() >= PARTIAL_MIN
    }

    /// The shortest run that counts as sending the value: [`PARTIAL_MIN`], or half the value
    /// for one shorter than twice that (a 15-character password's second half is 7), never
    /// under 6.
    fn partial_run(&self) -> usize {
        (self.distinctive.len() / 2).clamp(6, PARTIAL_MIN)
    }

    /// Whether a run of [`Self::partial_run`] characters under [`PARTIAL_MIN`] is in one of
    /// the payload's tokens.
    fn short_run_in(&self, payload: &Payload) -> bool {
        let run = self.partial_run();
        run < PARTIAL_MIN
            && [&self.distinctive, &self.reversed]
                .iter()
                .any(|v| v.as_bytes().windows(run).any(|w| payload.shorts.contains(&bytes_text(w))))
    }

    /// How the value appears in `payload`, if it does.
    pub fn find(&self, payload: &Payload) -> Option<Spelling> {
        self.find_spelled(payload)
            .or_else(|| {
                (self.long() && self.shifted.iter().any(|w| payload.shifted.contains(w)))
                    .then_some(Spelling::Shifted)
            })
            .or_else(|| (self.long() && self.short_run_in(payload)).then_some(Spelling::Partly))
    }

    fn find_spelled(&self, payload: &Payload) -> Option<Spelling> {
        let possible = if self.long() {
            self.any_window_in(&payload.windows)
        } else {
            payload.shorts.contains(&self.distinctive) || payload.shorts.contains(&self.reversed)
        };
        if !possible {
            return None;
        }
        let mut partly = None;
        for reading in &payload.readings {
            if self.long() {
                if reading.squashed.contains(&self.distinctive) {
                    return Some(label(reading, &self.distinctive));
                }
                if reading.squashed.contains(&self.reversed) {
                    return Some(Spelling::Reversed);
                }
                partly = Some(Spelling::Partly);
            } else if let Some(how) = self.find_short(reading) {
                return Some(how);
            }
        }
        partly
    }

    fn any_window_in(&self, windows: &HashSet<u64>) -> bool {
        [&self.distinctive, &self.reversed]
            .iter()
            .any(|v| v.as_bytes().windows(PARTIAL_MIN).any(|w| windows.contains(&pack(w))))
    }

    /// A short value (a code, a PIN) must appear whole: inside one token (six characters or
    /// more; shorter ones only as a whole token, so `4821` is not found in `148210`), or as
    /// consecutive tokens split by separators.
    fn find_short(&self, reading: &Reading) -> Option<Spelling> {
        let inside = |t: &String, v: &str| {
            if v.len() >= 6 { t.contains(v) } else { t == v }
        };
        if reading.tokens.iter().any(|t| inside(t, &self.distinctive)) {
            return Some(reading.how);
        }
        if reading.tokens.iter().any(|t| inside(t, &self.reversed)) {
            return Some(Spelling::Reversed);
        }
        for value in [&self.distinctive, &self.reversed] {
            if joins_to(&reading.tokens, value) {
                return Some(if reading.how == Spelling::AsIs {
                    Spelling::SplitUp
                } else {
                    reading.how
                });
            }
        }
        None
    }

    /// Whether what was sent to one site during the task (the current action last) together
    /// carries the value: its fragments in order, or most of it covered by pieces in any order.
    pub fn in_pieces(&self, sent: &Sent<'_>) -> bool {
        let candidate = [&self.distinctive, &self.reversed].iter().any(|v| {
            v.as_bytes().windows(3).any(|g| sent.grams.contains(g))
                || sent.soles.iter().any(|s| v.contains(s))
        });
        if !candidate {
            return false;
        }
        let fragments: Vec<&str> = sent
            .fragments
            .iter()
            .copied()
            .filter(|t| self.distinctive.contains(t) || self.reversed.contains(t))
            .collect();
        let joined = fragments.concat();
        if self.long() {
            let windows: HashSet<u64> = joined.as_bytes().windows(PARTIAL_MIN).map(pack).collect();
            if self.any_window_in(&windows) {
                return true;
            }
        } else if joined.contains(&self.distinctive) || joined.contains(&self.reversed) {
            return true;
        }
        // Coverage in any order, by pieces of every reading: as many characters as a partial
        // run would need, wherever they sit (quarters 1 and 3 are as bad as a half).
        let (min_piece, needed) =
            if self.long() { (4, PARTIAL_MIN) } else { (3, self.distinctive.len()) };
        [&self.distinctive, &self.reversed].iter().any(|v| covered(v, sent, min_piece) >= needed)
    }
}

/// What was sent to one site, indexed once per check.
pub struct Sent<'a> {
    /// Tokens of three characters or more as written, and tokens sent on their own, in order.
    fragments: Vec<&'a str>,
    /// Tokens of every reading that can be a piece (three characters or more, not one
    /// character repeated).
    pieces: HashSet<&'a str>,
    /// Every 3-byte window of the fragments and pieces: a value none of whose 3-grams is here
    /// cannot be in pieces.
    grams: HashSet<&'a [u8]>,
    /// Two-character tokens sent on their own.
    soles: Vec<&'a str>,
}

impl<'a> Sent<'a> {
    /// Indexes `payloads`, oldest first.
    pub fn new(payloads: &[&'a Payload]) -> Self {
        let fragments: Vec<&str> = payloads.iter().flat_map(|p| p.fragments()).collect();
        let pieces: HashSet<&str> = payloads
            .iter()
            .flat_map(|p| p.readings.iter().flat_map(|r| r.tokens.iter()))
            .map(String::as_str)
            .filter(|t| t.len() >= 3 && distinct_chars(t) >= 3)
            .collect();
        let grams =
            fragments.iter().chain(pieces.iter()).flat_map(|t| t.as_bytes().windows(3)).collect();
        let soles = fragments.iter().copied().filter(|t| t.len() < 3).collect();
        Self { fragments, pieces, grams, soles }
    }
}

/// How many positions of `value` the pieces (of `min` characters or more) cover: every part
/// of `value` that was sent as a whole token.
fn covered(value: &str, sent: &Sent<'_>, min: usize) -> usize {
    let mut hit = vec![false; value.len()];
    // Pieces start and end on character boundaries (a value may hold `é` or `“`).
    let bounds: Vec<usize> = value.char_indices().map(|(i, _)| i).chain([value.len()]).collect();
    for (k, &start) in bounds.iter().enumerate() {
        for &end in bounds.iter().skip(k).filter(|&&end| end >= start + min) {
            if value.get(start..end).is_some_and(|piece| sent.pieces.contains(&piece)) {
                hit.iter_mut().take(end).skip(start).for_each(|h| *h = true);
            }
        }
    }
    hit.iter().filter(|h| **h).count()
}

fn distinct_chars(t: &str) -> usize {
    t.bytes().collect::<HashSet<u8>>().len()
}

/// Whether a run of consecutive tokens joins to exactly `value`.
fn joins_to(tokens: &[String], value: &str) -> bool {
    for start in 0..tokens.len() {
        let mut joined = String::new();
        for t in &tokens[start..] {
            joined.push_str(t);
            if joined.len() >= value.len() {
                break;
            }
        }
        if joined == value {
            return true;
        }
    }
    false
}

/// The spelling to report for a value found in a reading's squashed form.
fn label(reading: &Reading, value: &str) -> Spelling {
    match reading.how {
        Spelling::AsIs if reading.tokens.iter().any(|t| t.contains(value)) => Spelling::AsIs,
        Spelling::AsIs => Spelling::SplitUp,
        other => other,
    }
}

/// A value's part without a common prefix (`sk-live-`, `ghp_`, `pk_test_`): leading
/// letter-only segments of up to five characters, when at least [`PARTIAL_MIN`] characters
/// remain. A partial match on `sk-live-` alone would flag every key of the same service.
fn distinctive_part(value: &str) -> Option<String> {
    let mut rest = value.trim();
    while let Some((head, tail)) = rest.split_once(['-', '_']) {
        if head.is_empty() || head.len() > 5 || !head.chars().all(|c| c.is_ascii_alphabetic()) {
            break;
        }
        rest = tail;
    }
    let distinctive: String = tokens(rest).concat();
    (rest.len() < value.trim().len() && distinctive.len() >= PARTIAL_MIN).then_some(distinctive)
}

/// Fewest different steps a signature window needs to identify a value: `12345678` or
/// `abcdefgh` (every step +1) would match any counting sequence.
const MIN_SHIFT_VARIETY: usize = 4;

/// The steps between neighbouring characters of a normalised (lower-case letters and digits)
/// string: letter to letter modulo 26, digit to digit modulo 10, anything else one mark.
/// Shifting every letter (rot13, any Caesar shift) or every digit by the same amount keeps
/// it, so a shifted secret is found without trying each shift.
fn shift_signature(normalised: &str) -> Vec<u8> {
    normalised
        .as_bytes()
        .windows(2)
        .map(|pair| {
            let (a, b) = (pair[0], pair[1]);
            match (a.is_ascii_lowercase(), b.is_ascii_lowercase()) {
                (true, true) => b'a' + (26 + b - a) % 26,
                _ if a.is_ascii_digit() && b.is_ascii_digit() => b'0' + (10 + b - a) % 10,
                _ => b'#',
            }
        })
        .collect()
}

/// The signature of the mirrored alphabet (atbash: a↔z, and 0↔9): every step negated.
fn mirrored(signature: &[u8]) -> Vec<u8> {
    signature
        .iter()
        .map(|&step| match step {
            b'a'..=b'z' => b'a' + (26 - (step - b'a')) % 26,
            b'0'..=b'9' => b'0' + (10 - (step - b'0')) % 10,
            other => other,
        })
        .collect()
}

fn bytes_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub(super) fn pack(window: &[u8]) -> u64 {
    window.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b))
}

/// Maximal runs of letters and digits, look-alikes folded, lower-case ASCII.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars().map(fold) {
        if c.is_ascii_alphanumeric() {
            current.push(c.to_ascii_lowercase());
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Full-width forms, mathematical letters and digits, other scripts' decimal digits,
/// super- and subscripts and the Cyrillic and Greek letters that look Latin, as ASCII. A
/// full confusables table (or NFKC) would weigh more in the wasm than everything else here;
/// these are the spellings that keep a value readable to a person or a script.
pub(super) fn fold(c: char) -> char {
    let n = c as u32;
    let digit = |d: u32| char::from_digit(d % 10, 10).unwrap_or(c);
    let mapped = match n {
        0x00..=0x7F => return c,
        0xFF01..=0xFF5E => char::from_u32(n - 0xFEE0),
        0x1D400..=0x1D6A3 => {
            let i = ((n - 0x1D400) % 52) as u8;
            Some(if i < 26 { (b'A' + i) as char } else { (b'a' + i - 26) as char })
        }
        0x1D7CE..=0x1D7FF => Some(digit(n - 0x1D7CE)),
        0x0660..=0x0669 => Some(digit(n - 0x0660)),
        0x06F0..=0x06F9 => Some(digit(n - 0x06F0)),
        0x0966..=0x096F => Some(digit(n - 0x0966)),
        0x09E6..=0x09EF => Some(digit(n - 0x09E6)),
        0x2080..=0x2089 => Some(digit(n - 0x2080)),
        0x2074..=0x2079 => Some(digit(n - 0x2070)),
        0x2070 => Some('0'),
        0x00B9 => Some('1'),
        0x00B2 => Some('2'),
        0x00B3 => Some('3'),
        0x2460..=0x2468 => Some(digit(n - 0x245F)),
        _ => None,
    };
    mapped.unwrap_or_else(|| look_alike(c))
}

fn look_alike(c: char) -> char {
    match c {
        'а' | 'α' => 'a',
        'в' | 'β' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ε' => 'e',
        'һ' => 'h',
        'і' | 'ι' | 'ı' => 'i',
        'ј' => 'j',
        'к' | 'κ' => 'k',
        'м' => 'm',
        'п' | 'η' => 'n',
        'о' | 'ο' | 'σ' => 'o',
        'р' | 'ρ' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' | 'τ' => 't',
        'υ' | 'ս' => 'u',
        'ν' => 'v',
        'ԝ' | 'ω' => 'w',
        'х' | 'χ' => 'x',
        'у' | 'γ' => 'y',
        'А' | 'Α' => 'A',
        'В' | 'Β' => 'B',
        'С' => 'C',
        'Е' | 'Ε' => 'E',
        'Н' | 'Η' => 'H',
        'І' | 'Ι' => 'I',
        'К' | 'Κ' => 'K',
        'М' | 'Μ' => 'M',
        'Ν' => 'N',
        'О' | 'Ο' => 'O',
        'Р' | 'Ρ' => 'P',
        'Ѕ' => 'S',
        'Т' | 'Τ' => 'T',
        'Х' | 'Χ' => 'X',
        'У' | 'Υ' => 'Y',
        'Ζ' => 'Z',
        other => other,
    }
}

/// `text` and everything it decodes to, up to [`MAX_DEPTH`] decodings deep, labelled with
/// the outermost encoding.
fn decoded(text: &str) -> Vec<(Spelling, String)> {
    let mut raw: Vec<(Spelling, String)> = vec![(Spelling::AsIs, text.to_owned())];
    let mut seen: HashSet<String> = HashSet::from([text.to_owned()]);
    let mut frontier = 0;
    for _ in 0..MAX_DEPTH {
        let end = raw.len();
        for i in frontier..end {
            let (how, current) = raw[i].clone();
            for (decoded_how, decoded) in decodings(&current) {
                if raw.len() >= MAX_READINGS {
                    break;
                }
                if decoded.trim().is_empty() || !seen.insert(decoded.clone()) {
                    continue;
                }
                let how = if how == Spelling::AsIs { decoded_how } else { how };
                raw.push((how, decoded));
            }
        }
        frontier = end;
    }
    raw
}

/// One round of decoding: each decoder whose syntax appears in `text`.
fn decodings(text: &str) -> Vec<(Spelling, String)> {
    let mut out = Vec::new();
    if text.contains(['%', '+']) {
        let spaced = text.replace('+', " ");
        let decoded = percent_encoding::percent_decode_str(&spaced).decode_utf8_lossy();
        if decoded != text {
            out.push((Spelling::UrlEncoded, decoded.into_owned()));
        }
    }
    if text.contains("&#") {
        out.push((Spelling::HtmlEntities, html_numeric_entities(text)));
    }
    if text.contains("\\x") || text.contains("\\u") {
        out.push((Spelling::Escaped, js_escapes(text)));
    }
    let base64 = base64_runs(text);
    if !base64.is_empty() {
        out.push((Spelling::Base64, base64));
    }
    let squashed: String = text.chars().filter(char::is_ascii_alphanumeric).collect();
    let hex = [hex_runs(text), hex_runs(&squashed)].join(" ");
    if !hex.trim().is_empty() {
        out.push((Spelling::Hex, hex));
    }
    if let Some(spelled) = spelled_out(text) {
        out.push((Spelling::SpelledOut, spelled));
    }
    if let Some(codes) = char_codes(text) {
        out.push((Spelling::CharCodes, codes));
    }
    out
}

/// Shortest run of spelled-out characters or character codes worth reading as one value.
const MIN_SPELLED_RUN: usize = 4;

/// The character a lower-case word spells: a digit's name, a letter of the spelling alphabet
/// (ICAO and its common variants).
fn spelled_char(word: &str) -> Option<char> {
    const DIGITS: [&str; 10] =
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    const ALPHABET: [&str; 26] = [
        "alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
        "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu",
    ];
    let w = match word {
        "oh" | "nought" | "nil" => "zero",
        "niner" => "nine",
        "alpha" => "alfa",
        "juliet" => "juliett",
        "whisky" => "whiskey",
        "x-ray" => "xray",
        other => other,
    };
    if let Some(d) = DIGITS.iter().position(|n| *n == w) {
        return char::from_digit(d as u32, 10);
    }
    ALPHABET.iter().position(|n| *n == w).map(|i| (b'a' + i as u8) as char)
}

/// Runs of words that each spell one character (`four nine three eight`, `sierra kilo dash`),
/// each run joined into the characters it spells; `double`/`triple` repeat the next one.
/// `None` when there is no such run.
fn spelled_out(text: &str) -> Option<String> {
    let mut runs: Vec<String> = Vec::new();
    let mut run = String::new();
    let mut repeat = 1;
    let text = text.to_ascii_lowercase().replace("x-ray", "xray");
    for word in text.split(|c: char| !c.is_ascii_alphabetic()).filter(|w| !w.is_empty()) {
        match (word, spelled_char(word)) {
            ("double", _) => repeat = 2,
            ("triple", _) => repeat = 3,
            (_, Some(c)) => {
                run.extend(std::iter::repeat_n(c, repeat));
                repeat = 1;
            }
            // Separators spoken as words, and capitalisation hints, do not end a run.
            (
                "dash" | "hyphen" | "minus" | "underscore" | "dot" | "point" | "capital" | "upper"
                | "uppercase" | "lower" | "lowercase" | "small" | "letter" | "digit" | "number",
                _,
            ) => {}
            _ => {
                if run.len() >= MIN_SPELLED_RUN {
                    runs.push(std::mem::take(&mut run));
                }
                run.clear();
                repeat = 1;
            }
        }
    }
    if run.len() >= MIN_SPELLED_RUN {
        runs.push(run);
    }
    (!runs.is_empty()).then(|| runs.join(" "))
}

/// Runs of numbers that each read as a printable ASCII character code — decimal (`115 107`),
/// octal (`0163 0153`, or `\163`) or binary (`01110011`) — each run decoded into its
/// characters; `None` when there is none.
fn char_codes(text: &str) -> Option<String> {
    let numbers: Vec<&str> =
        text.split(|c: char| !c.is_ascii_digit()).filter(|n| !n.is_empty()).collect();
    let mut out: Vec<String> = Vec::new();
    let as_char = |n: &str, radix: u32| {
        u32::from_str_radix(n, radix)
            .ok()
            .filter(|c| (32..127).contains(c))
            .and_then(char::from_u32)
    };
    /// A radix and the shape a number must have to be read as a character code in it.
    type Shape = (u32, fn(&str) -> bool);
    let readings: [Shape; 3] = [
        (2, |n| n.len() >= 7 && n.len() <= 8 && n.bytes().all(|b| b == b'0' || b == b'1')),
        (8, |n| (2..=3).contains(&n.len()) || (n.len() == 4 && n.starts_with('0'))),
        (10, |n| n.len() <= 3),
    ];
    for (radix, shaped) in readings {
        let mut run = String::new();
        for n in &numbers {
            match as_char(n, radix).filter(|_| shaped(n)) {
                Some(c) => run.push(c),
                None => {
                    if run.len() >= MIN_SPELLED_RUN {
                        out.push(std::mem::take(&mut run));
                    }
                    run.clear();
                }
            }
        }
        if run.len() >= MIN_SPELLED_RUN {
            out.push(run);
        }
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// `&#52;`, `&#x34;` (the semicolon is optional for browsers too). Named references are left
/// alone: none of them spells a letter or a digit, so they cannot hide a value's characters.
fn html_numeric_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, after)) = rest.split_once("&#") {
        out.push_str(before);
        let (radix, body) = match after.strip_prefix(['x', 'X']) {
            Some(hex) => (16, hex),
            None => (10, after),
        };
        let digits = body.split(|c: char| !c.is_digit(radix)).next().unwrap_or("");
        let tail = body.strip_prefix(digits).unwrap_or(body);
        match u32::from_str_radix(digits, radix).ok().and_then(char::from_u32) {
            Some(c) if !digits.is_empty() => {
                out.push(c);
                rest = tail.strip_prefix(';').unwrap_or(tail);
            }
            _ => {
                out.push_str("&#");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `\x41`, `\u0041`, `\u{41}`.
fn js_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, after)) = rest.split_once('\\') {
        out.push_str(before);
        // The escape's hex digits and what follows it.
        let escape = if let Some(h) = after.strip_prefix('x') {
            h.split_at_checked(2)
        } else if let Some(braced) = after.strip_prefix("u{") {
            braced.split_once('}')
        } else if let Some(h) = after.strip_prefix('u') {
            h.split_at_checked(4)
        } else {
            None
        };
        let decoded = escape.and_then(|(digits, tail)| {
            let c = u32::from_str_radix(digits, 16).ok().and_then(char::from_u32)?;
            (!digits.is_empty()).then_some((c, tail))
        });
        match decoded {
            Some((c, tail)) => {
                out.push(c);
                rest = tail;
            }
            None => {
                out.push('\\');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every run of base64 characters (either alphabet), decoded at each of the four character
/// alignments (a value encoded after 1–3 other bytes starts mid-group), joined by spaces.
fn base64_runs(text: &str) -> String {
    const ENGINE: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let mut out = Vec::new();
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '-' | '_');
    for run in text.split(|c: char| !is_b64(c)).filter(|r| r.len() >= MIN_BASE64_RUN) {
        let standard = run.replace('-', "+").replace('_', "/");
        for offset in 0..4 {
            // A last group of one character cannot be decoded; two or three can (no padding).
            let rest = standard.len() - offset;
            let usable = if rest % 4 == 1 { rest - 1 } else { rest };
            if usable < 4 {
                continue;
            }
            let Some(group) = standard.get(offset..offset + usable) else { continue };
            if let Ok(bytes) = ENGINE.decode(group) {
                out.push(String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    out.join(" ")
}

/// Every run of hex digits, decoded at both nibble alignments, joined by spaces.
fn hex_runs(text: &str) -> String {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_ascii_hexdigit()).filter(|r| r.len() >= MIN_HEX_RUN) {
        for offset in 0..2 {
            let bytes: Vec<u8> = run.as_bytes()[offset..]
                .chunks_exact(2)
                .filter_map(|pair| std::str::from_utf8(pair).ok())
                .filter_map(|pair| u8::from_str_radix(pair, 16).ok())
                .collect();
            out.push(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(value: &str, text: &str) -> Option<Spelling> {
        Needle::new(value, 4).expect("needle").find(&Payload::new(text))
    }

    #[test]
    fn decoders_undo_each_encoding() {
        assert_eq!(html_numeric_entities("&#52;&#x39;3&#56"), "4938");
        assert_eq!(js_escapes("\\x34\\u0039\\u{33}8"), "4938");
        assert!(base64_runs("Zm9vYmFyYmF6").contains("foobarbaz"));
        assert!(hex_runs("xx666f6f626172").contains("foobar"));
        assert_eq!(tokens("Ｓｋ-LIVE_ѕk１"), vec!["sk", "live", "sk1"]);
    }

    #[test]
    fn long_values_match_in_every_spelling() {
        let key = "Zq8aX9canary42Lm9Tt77";
        assert_eq!(found(key, &format!("k={key}")), Some(Spelling::AsIs));
        assert_eq!(found(key, &key.to_uppercase()), Some(Spelling::AsIs));
        assert_eq!(found(key, "zq8ax9-cana.ry42 lm9tt77"), Some(Spelling::SplitUp));
        let reversed: String = key.chars().rev().collect();
        assert_eq!(found(key, &reversed), Some(Spelling::Reversed));
        assert_eq!(found(key, "x=canary42Lm"), Some(Spelling::Partly));
        assert_eq!(found(key, "only canary here"), None);
        let rot13 = |s: &str, n: u8| -> String {
            s.chars()
                .map(|c| match c {
                    'a'..='z' => (b'a' + (c as u8 - b'a' + n) % 26) as char,
                    'A'..='Z' => (b'A' + (c as u8 - b'A' + n) % 26) as char,
                    _ => c,
                })
                .collect()
        };
        assert_eq!(found(key, &format!("note={}", rot13(key, 13))), Some(Spelling::Shifted));
        assert_eq!(found(key, &rot13(key, 3).to_uppercase()), Some(Spelling::Shifted));
        let atbash: String = key
            .chars()
            .map(|c| match c {
                'a'..='z' => (b'z' - (c as u8 - b'a')) as char,
                'A'..='Z' => (b'Z' - (c as u8 - b'A')) as char,
                _ => c,
            })
            .collect();
        assert_eq!(found(key, &atbash), Some(Spelling::Shifted));
        let reversed_rot: String = rot13(key, 13).chars().rev().collect();
        assert_eq!(found(key, &reversed_rot), Some(Spelling::Shifted));
        assert_eq!(found(key, "abcdefghijklmnop 12345678901234"), None, "counting runs");
        // A 15-character password: its 7-character second half is half of it.
        assert_eq!(found("Qz8aX9c!Lm4Tt7w", "note=!Lm4Tt7w"), Some(Spelling::Partly));
        assert_eq!(found("Qz8aX9c!Lm4Tt7w", "note=Lm4T"), None, "four characters are not half");
        assert_eq!(found(key, "x=canar"), None, "a long key needs 8");
    }

    #[test]
    fn values_spelled_character_by_character_are_found() {
        let key = "Zq8aX9canary42Lm9Tt77";
        assert_eq!(found("493817", "four nine three eight one seven"), Some(Spelling::SpelledOut));
        assert_eq!(
            found("493817", "Four-Niner-Three, Eight One Seven"),
            Some(Spelling::SpelledOut)
        );
        assert_eq!(
            found("4938117", "four nine three eight double one seven"),
            Some(Spelling::SpelledOut)
        );
        let nato = "zulu quebec eight alfa x-ray nine charlie alpha november alfa romeo yankee \
                    four two lima mike nine tango tango seven seven";
        assert_eq!(found(key, nato), Some(Spelling::SpelledOut));
        let decimal: Vec<String> = key.bytes().map(|b| b.to_string()).collect();
        assert_eq!(found(key, &decimal.join(" ")), Some(Spelling::CharCodes));
        assert_eq!(found(key, &decimal.join(",")), Some(Spelling::CharCodes));
        let octal: Vec<String> = key.bytes().map(|b| format!("\\{b:o}")).collect();
        assert_eq!(found(key, &octal.concat()), Some(Spelling::CharCodes));
        let binary: Vec<String> = key.bytes().map(|b| format!("{b:08b}")).collect();
        assert_eq!(found(key, &binary.join(" ")), Some(Spelling::CharCodes));
        let otp_codes: Vec<String> = "493817".bytes().map(|b| b.to_string()).collect();
        assert_eq!(found("493817", &otp_codes.join(" ")), Some(Spelling::CharCodes));
        // Ordinary words and numbers spell nothing.
        assert_eq!(found("493817", "one of the two delta flights at nine"), None);
        assert_eq!(found("493817", "rooms 101 202 303 404 at 12 30"), None);
    }

    #[test]
    fn short_values_match_whole_or_split_never_inside_other_numbers() {
        assert_eq!(found("493817", "code 493817"), Some(Spelling::AsIs));
        assert_eq!(found("493817", "4-9-3 8.1.7"), Some(Spelling::SplitUp));
        assert_eq!(found("493817", "718394"), Some(Spelling::Reversed));
        assert_eq!(found("4821", "order 148210"), None);
        assert_eq!(found("4821", "pin 4821"), Some(Spelling::AsIs));
    }
}
