//! Small wording helpers for what the user reads (panel lines, answers, exports).

use std::fmt::Display;

/// `n` with its noun in the right number: "1 step", "3 steps", "0 tasks" (regular plurals
/// only: every noun Waymark counts takes an "s").
pub fn counted<N: Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) { format!("{n} {noun}") } else { format!("{n} {noun}s") }
}

/// Finds the JSON object in a text answer: strips code fences and surrounding prose and drops
/// trailing commas. Returns `None` when there is no balanced object.
pub fn extract_json(text: &str) -> Option<String> {
    let object = text.get(text.find('{')?..)?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut end = None;
    for (i, ch) in object.char_indices() {
        if in_string {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(i + ch.len_utf8());
                    break;
                }
            }
            _ => {}
        }
    }
    Some(drop_trailing_commas(object.get(..end?)?))
}

fn drop_trailing_commas(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut in_string = false;
    let mut escaped = false;
    let chars: Vec<char> = json.chars().collect();
    for (i, &ch) in chars.iter().enumerate() {
        if in_string {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if ch == '"' {
            in_string = true;
        } else if ch == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_everything_else_plural() {
        assert_eq!(counted(1u32, "step"), "1 step");
        assert_eq!(counted(0usize, "task"), "0 tasks");
        assert_eq!(counted(12u64, "call"), "12 calls");
    }
}
