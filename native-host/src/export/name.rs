//! File names for exports: the extension's hint reduced to one safe path component.
//!
//! Hand-written because no crate we know both keeps readable Unicode names and refuses
//! Windows device names; the rules are short and fully tested below.

/// Longest stem kept from a hint, in characters.
pub const MAX_STEM_CHARS: usize = 80;

/// Windows device names that cannot be file names on any drive, whatever the extension.
const RESERVED: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7",
    "COM8", "COM9", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
    "CONIN$", "CONOUT$",
];

/// Reduces `hint` to a safe stem (no separators, no `..`, no leading dot, no control or
/// Windows-reserved characters, no device name, at most [`MAX_STEM_CHARS`]).
/// Returns `None` when nothing usable is left, so the caller picks a default name.
pub fn sanitize_stem(hint: &str, extension: &str) -> Option<String> {
    // Characters kept as they are; everything else (separators, `:`, `*`, controls…) becomes `-`.
    let mapped: String = hint
        .chars()
        .take(4 * MAX_STEM_CHARS)
        .map(|c| if c.is_alphanumeric() || " _-.()+,@'".contains(c) { c } else { '-' })
        .collect();

    // Collapse runs of `-`, whitespace and dots so `..` can never survive.
    let mut out = String::with_capacity(mapped.len());
    for c in mapped.chars() {
        let c = if c.is_whitespace() { ' ' } else { c };
        let prev = out.chars().last();
        let is_sep = matches!(c, '-' | ' ' | '.');
        if is_sep && prev == Some(c) {
            continue;
        }
        out.push(c);
    }

    let mut stem = trim(&out).to_owned();
    // The extension is chosen by the format; drop the same one if the hint already had it.
    let suffix = format!(".{extension}");
    if stem.len() > suffix.len() && stem.to_ascii_lowercase().ends_with(&suffix) {
        stem.truncate(stem.len() - suffix.len());
        stem = trim(&stem).to_owned();
    }
    let stem: String = stem.chars().take(MAX_STEM_CHARS).collect();
    let stem = trim(&stem).to_owned();

    if stem.is_empty() || is_reserved(&stem) {
        return None;
    }
    Some(stem)
}

/// Leading dots would make hidden files; trailing dots and spaces are dropped by Windows.
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| matches!(c, '-' | ' ' | '.' | '_'))
}

fn is_reserved(stem: &str) -> bool {
    // Windows treats `NUL.tar` and `nul ` like `NUL`.
    let base = stem.split('.').next().unwrap_or(stem).trim_end();
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(base))
}

/// The name used when the hint gives nothing: `browse-session-YYYYMMDD-HHMMSS` (local time).
pub fn default_stem(now: chrono::DateTime<chrono::Local>) -> String {
    format!("browse-session-{}", now.format("%Y%m%d-%H%M%S"))
}

/// The `n`-th candidate file name: `stem.ext`, then `stem-1.ext`, `stem-2.ext`, …
pub fn candidate(stem: &str, extension: &str, n: u32) -> String {
    if n == 0 { format!("{stem}.{extension}") } else { format!("{stem}-{n}.{extension}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(hint: &str) -> Option<String> {
        sanitize_stem(hint, "md")
    }

    #[test]
    fn plain_names_survive() {
        assert_eq!(s("Flights to Lisbon").as_deref(), Some("Flights to Lisbon"));
        assert_eq!(s("résumé_2024").as_deref(), Some("résumé_2024"));
    }

    #[test]
    fn traversal_and_absolute_paths_become_one_component() {
        assert_eq!(s("../x").as_deref(), Some("x"));
        assert_eq!(s("../../etc/passwd").as_deref(), Some("etc-passwd"));
        assert_eq!(s("/etc/passwd").as_deref(), Some("etc-passwd"));
        assert_eq!(s("C:\\x").as_deref(), Some("C-x"));
        assert_eq!(s("..\\..\\Windows\\win.ini").as_deref(), Some("Windows-win.ini"));
        assert_eq!(s("a/../b").as_deref(), Some("a-.-b"));
        for hint in ["../x", "/etc/passwd", "C:\\x", "a/../b", "x\0y", "\u{202e}evil"] {
            let stem = s(hint).expect("some");
            assert!(!stem.contains(['/', '\\', '\0', ':']), "{hint:?} -> {stem:?}");
            assert!(!stem.contains(".."), "{hint:?} -> {stem:?}");
            assert!(!stem.starts_with('.'), "{hint:?} -> {stem:?}");
        }
    }

    #[test]
    fn hidden_and_empty_hints_are_refused() {
        assert_eq!(s(".bashrc").as_deref(), Some("bashrc"));
        assert_eq!(s(""), None);
        assert_eq!(s("..."), None);
        assert_eq!(s("/"), None);
        assert_eq!(s("\u{1}\u{2}"), None);
    }

    #[test]
    fn device_names_are_refused() {
        for hint in ["NUL", "nul", "CON", "com1", "LPT9", "NUL.txt", "aux "] {
            assert_eq!(s(hint), None, "{hint}");
        }
        assert_eq!(s("NULL").as_deref(), Some("NULL"));
        assert_eq!(s("console").as_deref(), Some("console"));
    }

    #[test]
    fn long_names_are_capped() {
        let long = "a".repeat(10 * 1024);
        let stem = s(&long).expect("some");
        assert_eq!(stem.chars().count(), MAX_STEM_CHARS);
        let long_multibyte = "é".repeat(10 * 1024);
        assert_eq!(s(&long_multibyte).expect("some").chars().count(), MAX_STEM_CHARS);
    }

    #[test]
    fn duplicate_extension_is_dropped() {
        assert_eq!(s("notes.md").as_deref(), Some("notes"));
        assert_eq!(s("notes.MD").as_deref(), Some("notes"));
        assert_eq!(sanitize_stem("data.json", "jsonl").as_deref(), Some("data.json"));
    }

    #[test]
    fn candidates_count_up() {
        assert_eq!(candidate("a", "md", 0), "a.md");
        assert_eq!(candidate("a", "md", 2), "a-2.md");
        let when = chrono::DateTime::parse_from_rfc3339("2024-05-06T07:08:09+00:00")
            .expect("date")
            .with_timezone(&chrono::Local);
        assert!(default_stem(when).starts_with("browse-session-2024050"));
    }
}
