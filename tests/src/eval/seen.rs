//! What the navigator model is shown, read back from one recorded request: the task, the
//! session notes and the page's element lines. The oracle navigators decide from this alone,
//! never from the DOM, so an element the page does not name (or that perception drops) fails
//! the task exactly as it would fail a model.

use crate::llm_server::RecordedRequest;

/// One element line of the page (`[12] button "Save" disabled`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The ref as the model writes it back: `12`, or `f2:14` inside a frame.
    pub reference: String,
    /// The role word (`button`, `textbox`, `link`, …).
    pub role: String,
    /// The accessible name (empty when the page gives none).
    pub name: String,
    /// Whatever follows the name on its line (value, states, options).
    pub rest: String,
}

/// The parts of a navigator request the oracles read.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The task's words (after `Task: ` or `New task: `).
    pub task: String,
    /// The text between the session-notes fences (empty in a session's first task).
    pub notes: String,
    /// The page's URL (from its `page:` line).
    pub url: String,
    /// Every element line of the current page, in order.
    pub elements: Vec<Element>,
    /// The page's other lines (headings, text), in order.
    pub text: Vec<String>,
    /// The whole request's text, for reading the latest tool output.
    pub all: String,
    /// The status of the latest step in the step history when it failed (`failed: why`).
    pub last_failed: Option<String>,
}

impl Seen {
    /// Reads a navigator request (OpenAI or Anthropic wire).
    pub fn from_request(req: &RecordedRequest) -> Self {
        Self::from_text(&req.last_user_text().unwrap_or_default(), req.all_text())
    }

    /// Reads the navigator's user message `user`; `all` is the whole request's text.
    pub fn from_text(user: &str, all: String) -> Self {
        // Step lines read `3. Click “Save” [4] → failed: why`; the latest one counts.
        let last_step = user
            .lines()
            .filter(|l| l.split_once(". ").is_some_and(|(n, _)| n.parse::<u32>().is_ok()))
            .filter_map(|l| l.rsplit_once(" → ").map(|(_, status)| status.trim()))
            .next_back();
        let last_failed = last_step.filter(|s| s.starts_with("failed")).map(str::to_owned);
        let mut seen = Seen { all, last_failed, ..Seen::default() };
        let mut in_notes = false;
        let mut in_page = false;
        for line in user.lines() {
            if line.starts_with("<session_notes id=") {
                in_notes = true;
                continue;
            }
            if line.starts_with("</session_notes id=") {
                in_notes = false;
                continue;
            }
            if line.starts_with("<page_content id=") {
                // Only the latest page counts.
                in_page = true;
                seen.elements.clear();
                seen.text.clear();
                continue;
            }
            if line.starts_with("</page_content id=") {
                in_page = false;
                continue;
            }
            if in_notes {
                seen.notes.push_str(line);
                seen.notes.push('\n');
            } else if let Some(page) = line.strip_prefix("page: ").filter(|_| in_page) {
                // The page's title and address open its fence.
                seen.url = page.rsplit(' ').next().unwrap_or_default().to_owned();
            } else if in_page {
                match parse_element(line) {
                    Some(e) => seen.elements.push(e),
                    None => seen.text.push(line.to_owned()),
                }
            } else if let Some(task) =
                line.strip_prefix("Task: ").or_else(|| line.strip_prefix("New task: "))
            {
                seen.task = task.to_owned();
            } else if let Some(page) = line.strip_prefix("page: ") {
                seen.url = page.rsplit(' ').next().unwrap_or_default().to_owned();
            }
        }
        seen
    }

    /// The element of `role` named exactly `name` (case-insensitive, surrounding space
    /// ignored); the last one when several match (a dialog is written after the page).
    pub fn find(&self, role: &str, name: &str) -> Option<&Element> {
        let want = name.trim().to_lowercase();
        self.elements.iter().rev().find(|e| e.role == role && e.name.trim().to_lowercase() == want)
    }

    /// The one element of `role` on the page, when there is exactly one.
    pub fn only(&self, role: &str) -> Option<&Element> {
        let mut of_role = self.elements.iter().filter(|e| e.role == role);
        match (of_role.next(), of_role.next()) {
            (Some(e), None) => Some(e),
            _ => None,
        }
    }

    /// Every element of `role`, in page order.
    pub fn all_of(&self, role: &str) -> Vec<&Element> {
        self.elements.iter().filter(|e| e.role == role).collect()
    }

    /// Whether the page's text (not its elements) has a line containing `words`.
    pub fn says(&self, words: &str) -> bool {
        self.text.iter().any(|l| l.contains(words))
            || self.elements.iter().any(|e| e.name.contains(words))
    }

    /// A short list of what the page offers, for a failure reason.
    pub fn inventory(&self) -> String {
        let mut out: Vec<String> = self
            .elements
            .iter()
            .take(25)
            .map(|e| {
                if e.name.is_empty() {
                    format!("{} (no name)", e.role)
                } else {
                    format!("{} {:?}", e.role, e.name)
                }
            })
            .collect();
        if self.elements.len() > 25 {
            out.push(format!("… {} more", self.elements.len() - 25));
        }
        if out.is_empty() { "no elements".to_owned() } else { out.join(", ") }
    }
}

impl Element {
    /// The value on the element's line (`value="…"`, unescaped), if it shows one.
    pub fn value(&self) -> Option<String> {
        let quoted = self.rest.strip_prefix("value=\"")?;
        let end = closing_quote(quoted)?;
        let mut out = String::with_capacity(end);
        let mut chars = quoted[..end].chars();
        while let Some(c) = chars.next() {
            out.push(match c {
                '\\' => match chars.next()? {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                },
                c => c,
            });
        }
        Some(out)
    }

    /// Whether the line shows this state word (after the value, if any).
    pub fn has_state(&self, state: &str) -> bool {
        let states = match self.rest.strip_prefix("value=\"") {
            Some(quoted) => closing_quote(quoted).map_or("", |end| &quoted[end + 1..]),
            None => &self.rest,
        };
        states.split_whitespace().any(|w| w == state)
    }
}

/// Parses `[ref] role name…` (name quoted when something follows it, bare otherwise).
pub fn parse_element(line: &str) -> Option<Element> {
    let rest = line.trim_start().strip_prefix('[')?;
    let close = rest.find(']')?;
    let reference = rest[..close].to_owned();
    // Frame markers (`[frame f5 …]`, `[/frame f5]`) are not elements.
    if reference.is_empty() || reference.contains(' ') || reference.starts_with('/') {
        return None;
    }
    let after = rest[close + 1..].trim_start();
    let (role, after) = after.split_once(' ').unwrap_or((after, ""));
    let (name, rest) = if let Some(quoted) = after.strip_prefix('"') {
        let end = closing_quote(quoted)?;
        (quoted[..end].replace("\\\"", "\""), quoted[end + 1..].trim().to_owned())
    } else if let Some(rest) = after.strip_prefix("(no name)") {
        // An unnamed element: what follows is its value and states.
        (String::new(), rest.trim().to_owned())
    } else {
        (after.trim().to_owned(), String::new())
    };
    Some(Element { reference, role: role.to_owned(), name, rest })
}

/// Index of the first unescaped `"` in `s`.
fn closing_quote(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER: &str = "\
<session_notes id=ab>
1. Find the lead: Grace Hopper (E-2044)
</session_notes id=ab>

New task: Message the lead

Current page:
<page_content id=ab>
page: Inbox — http://127.0.0.1:9/eval/message.html
# Messages
[1] textbox \"To\" value=\"x\" required
[2] button Send
[3] checkbox \"Say \\\"hi\\\"\" checked
[frame f5 http://127.0.0.1:9/inner.html]
[f5:1] link Terms
[/frame f5]
[4] textbox
</page_content id=ab>
";

    #[test]
    fn reads_task_notes_and_elements() {
        let seen = Seen::from_text(USER, USER.to_owned());
        assert_eq!(seen.task, "Message the lead");
        assert!(seen.notes.contains("Grace Hopper (E-2044)"));
        assert_eq!(seen.url, "http://127.0.0.1:9/eval/message.html");
        assert_eq!(seen.find("textbox", "to").map(|e| e.reference.as_str()), Some("1"));
        assert_eq!(
            seen.find("textbox", "To").map(|e| e.rest.as_str()),
            Some("value=\"x\" required")
        );
        assert_eq!(seen.find("button", "Send").map(|e| e.reference.as_str()), Some("2"));
        assert_eq!(seen.find("checkbox", "Say \"hi\"").map(|e| e.rest.as_str()), Some("checked"));
        assert_eq!(seen.find("link", "Terms").map(|e| e.reference.as_str()), Some("f5:1"));
        assert!(seen.find("button", "Cancel").is_none());
        assert_eq!(seen.all_of("textbox").len(), 2);
        assert!(seen.only("textbox").is_none(), "two text boxes");
        assert_eq!(seen.only("button").map(|e| e.name.as_str()), Some("Send"));
        assert!(seen.says("Messages"));
        assert!(seen.inventory().contains("textbox (no name)"), "{}", seen.inventory());
    }

    #[test]
    fn the_latest_step_says_whether_it_failed() {
        let history = |last: &str| {
            format!("<steps id=ab>\n1. Click “Open → next” [2] → ok\n{last}\n</steps id=ab>\n")
        };
        let failed = history("2. Choose “Dutch” in “Language” [3] → failed: not selected");
        let seen = Seen::from_text(&failed, failed.clone());
        assert_eq!(seen.last_failed.as_deref(), Some("failed: not selected"));
        let ok = history("2. Click “Save” [4] → ok (page changed)");
        assert_eq!(Seen::from_text(&ok, ok.clone()).last_failed, None);
        assert_eq!(Seen::from_text(USER, USER.to_owned()).last_failed, None, "no steps yet");
    }

    #[test]
    fn values_and_states_of_unnamed_fields_are_read() {
        let area =
            parse_element("[3] textbox (no name) value=\"Say \\\"hi\\\" multiline \" multiline")
                .expect("an element");
        assert_eq!(area.name, "");
        assert_eq!(area.value().as_deref(), Some("Say \"hi\" multiline "));
        assert!(area.has_state("multiline"));
        let line = parse_element("[4] textbox (no name) value=\"multiline\"").expect("element");
        assert!(!line.has_state("multiline"), "a value is not a state");
        let named = parse_element("[5] textbox \"To\" value=\"x\" required").expect("element");
        assert_eq!(named.value().as_deref(), Some("x"));
        assert!(named.has_state("required"));
    }
}
