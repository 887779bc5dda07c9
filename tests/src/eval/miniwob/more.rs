//! Oracles for the MiniWoB++ tasks beyond the first dozen: each reads the page's utterance
//! (every wording its template can produce) and names elements as the observation shows
//! them. Tasks that need several observations to decide (open tabs until a link shows,
//! expand a tree) use [`Explore`].

use super::super::oracle::{Move, NameTest, Oracle, Script, Step, Target, all_quoted, quoted};
use super::super::seen::Seen;
use serde_json::json;

/// The oracle of `name`, for the tasks this module knows.
pub fn oracle(name: &str) -> Option<Box<dyn Oracle>> {
    let script = match name {
        "click-test" => Script::new(vec![Step::Click(Target::Only("button"))]),
        "click-test-2" | "click-test-transfer" => Script::planned(|seen| {
            let label = between(&seen.task, "Click button ", ".").ok_or("no button named")?;
            Ok(vec![click("button", label)])
        }),
        "click-button-sequence" => {
            Script::new(vec![click("button", "ONE"), click("button", "TWO")])
        }
        "click-collapsible" => Script::new(vec![
            Step::Click(Target::NameHas("tab", "Section".into())),
            click("button", "Submit"),
        ]),
        "click-dialog-2" | "unicode-test" => Script::planned(|seen| {
            let label = quoted(&seen.task).ok_or("no button named in the task")?;
            // The dialog's "x" in its title bar is its Close button.
            let label = if matches!(label.as_str(), "x" | "×") { "Close".into() } else { label };
            Ok(vec![click("button", label)])
        }),
        "enter-text-2" => Script::planned(|seen| {
            let text = quoted(&seen.task).ok_or("no text in the task")?;
            let text = if seen.task.contains("lower case") {
                text.to_lowercase()
            } else {
                text.to_uppercase()
            };
            Ok(type_and_submit(Target::Only("textbox"), text))
        }),
        "enter-text-dynamic" => Script::planned(|seen| {
            let text = quoted(&seen.task).ok_or("no text in the task")?;
            Ok(type_and_submit(Target::Only("textbox"), text))
        }),
        "enter-time" => Script::planned(|seen| {
            let time = between(&seen.task, "Enter ", " as the time").ok_or("no time")?;
            Ok(type_and_submit(Target::Only("textbox"), clock_24h(&time)?))
        }),
        "focus-text-2" => Script::planned(|seen| {
            let n = ordinal(&seen.task).ok_or("no position in the task")?;
            Ok(vec![Step::Click(Target::Nth("textbox", n))])
        }),
        "use-spinner" => Script::planned(|seen| {
            let value = between(&seen.task, "Select ", " with the spinner").ok_or("no value")?;
            Ok(type_and_submit(Target::Only("spinbutton"), value))
        }),
        "sign-agreement" => Script::planned(|seen| {
            if seen.task == "Click the cancel button." {
                return Ok(vec![click("button", "Cancel")]);
            }
            let name = quoted(&seen.task).ok_or("no name in the task")?;
            let button = all_quoted(&seen.task).pop().ok_or("no button in the task")?;
            // Agree is enabled once the agreement was read to its end.
            Ok(vec![
                Step::Scroll(Target::named("textbox", "User agreement"), "bottom"),
                Step::Type(Target::named("textbox", "Name"), name),
                click("button", button),
            ])
        }),
        "find-greatest" => Script::planned(|seen| {
            let best = seen
                .all_of("clickable")
                .into_iter()
                .filter_map(|e| Some((e.name.trim().parse::<i64>().ok()?, e.reference.clone())))
                .max()
                .ok_or("no numbered cards")?;
            Ok(vec![Step::Click(Target::Ref(best.1)), click("button", "Submit")])
        }),
        "read-table" => Script::planned(|seen| {
            let label = between(&seen.task, "Enter the value of ", " into").ok_or("no label")?;
            let value = cell(seen, &label).ok_or("the table has no such row")?;
            Ok(type_and_submit(Target::Only("textbox"), value))
        }),
        "read-table-2" => Script::planned(|seen| {
            let mut steps = Vec::new();
            for field in seen.all_of("textbox") {
                let value = cell(seen, &field.name).ok_or("the table has no row for a field")?;
                steps.push(Step::Type(Target::Ref(field.reference.clone()), value));
            }
            steps.push(click("button", "Submit"));
            Ok(steps)
        }),
        "find-word" => Script::planned(|seen| {
            let n = ordinal(&seen.task).ok_or("no position in the task")?;
            let paragraph = task_text(seen)
                .into_iter()
                .max_by_key(|l| l.split_whitespace().count())
                .ok_or("no paragraph")?;
            let word = paragraph.split_whitespace().nth(n).ok_or("the paragraph is shorter")?;
            Ok(type_and_submit(Target::Only("textbox"), word.to_owned()))
        }),
        "simple-arithmetic" => Script::planned(|seen| {
            let field = seen.only("textbox").ok_or("no single textbox")?;
            let sum = field.name.trim().trim_end_matches('=').trim().to_owned();
            Ok(type_and_submit(Target::Ref(field.reference.clone()), arithmetic(&sum)?))
        }),
        "simple-algebra" => Script::planned(|seen| {
            let equation = seen
                .text
                .iter()
                .find(|l| l.contains('x') && l.contains('=') && l.trim() != "x =")
                .ok_or("no equation on the page")?;
            Ok(type_and_submit(Target::Only("textbox"), solve_for_x(equation)?))
        }),
        "form-sequence-2" => Script::planned(|seen| {
            // "Check the 2nd radio button and enter the number "44" into the 1st textbox."
            let (radio, rest) =
                seen.task.split_once(" and ").ok_or("the task does not read … and …")?;
            let number = quoted(rest).ok_or("no number in the task")?;
            Ok(vec![
                Step::Check(Target::Nth("radio", ordinal(radio).ok_or("no radio position")?)),
                Step::Type(
                    Target::Nth("textbox", ordinal(rest).ok_or("no textbox position")?),
                    number,
                ),
                click("button", "Submit"),
            ])
        }),
        "odd-or-even" => Script::planned(|seen| {
            let numbers: Vec<i64> =
                task_text(seen).iter().filter_map(|l| l.trim().parse().ok()).collect();
            let pairs: Vec<String> = seen
                .all_of("button")
                .iter()
                .filter(|b| b.name == "Odd")
                .map(|b| b.reference.clone())
                .collect();
            if numbers.len() != pairs.len() {
                return Err(format!("{} numbers for {} answer pairs", numbers.len(), pairs.len()));
            }
            let mut steps: Vec<Step> = numbers
                .iter()
                .zip(pairs)
                .map(|(n, odd)| match n % 2 {
                    0 => Step::Click(Target::After(
                        Box::new(Target::Ref(odd)),
                        "button",
                        "Even".into(),
                    )),
                    _ => Step::Click(Target::Ref(odd)),
                })
                .collect();
            steps.push(click("button", "Submit"));
            Ok(steps)
        }),
        "search-engine" => Script::planned(|seen| {
            let query = quoted(&seen.task).ok_or("no search words")?;
            let n = ordinal(&seen.task).ok_or("no result position")?;
            Ok(vec![
                Step::Type(Target::Only("textbox"), query),
                click("button", "Search"),
                Step::Click(Target::Nth("link", n)),
            ])
        }),
        "use-autocomplete" => Script::planned(|seen| {
            let parts = all_quoted(&seen.task);
            let start = parts.first().cloned().ok_or("no start in the task")?;
            let end = parts.get(1).cloned().unwrap_or_default();
            let (s, e) = (start.clone(), end);
            let fits: NameTest = Box::new(move |n: &str| n.starts_with(&s) && n.ends_with(&e));
            Ok(vec![
                Step::Type(Target::Only("textbox"), start),
                Step::Click(Target::Matching("clickable", fits)),
                click("button", "Submit"),
            ])
        }),
        "click-menu" => Script::planned(|seen| {
            // Submenus open on hover; clicking an item that has one is a wrong answer.
            let path: Vec<&str> =
                seen.task.strip_prefix("Select ").ok_or("no menu path")?.split('>').collect();
            let (last, parents) = path.split_last().ok_or("an empty menu path")?;
            let mut steps: Vec<Step> =
                parents.iter().map(|p| Step::Hover(Target::named("menuitem", p.trim()))).collect();
            steps.push(click("menuitem", last.trim()));
            Ok(steps)
        }),
        "email-inbox"
        | "email-inbox-reply"
        | "email-inbox-forward"
        | "email-inbox-delete"
        | "email-inbox-important"
        | "email-inbox-star-reply"
        | "email-inbox-noscroll" => Script::planned(email),
        _ => return Explore::for_task(name).map(|e| Box::new(e) as Box<dyn Oracle>),
    };
    Some(Box::new(script))
}

/// The email tasks: "Find the email by Ann and reply to them with the text "…"." (or forward
/// that email to Bob, click the trash icon, click the star icon).
fn email(seen: &Seen) -> Result<Vec<Step>, String> {
    let task = &seen.task;
    let sender = between(task, "Find the email by ", " and ").ok_or("no sender in the task")?;
    let prefix = format!("{sender} ");
    let row = || -> Box<Target> {
        let prefix = prefix.clone();
        Box::new(Target::Matching("clickable", Box::new(move |n: &str| n.starts_with(&prefix))))
    };
    if task.contains("trash icon") {
        return Ok(vec![Step::Click(Target::After(row(), "clickable", "trash".into()))]);
    }
    if task.contains("star icon") {
        return Ok(vec![Step::Click(Target::After(row(), "clickable", "star".into()))]);
    }
    if task.contains("reply to them") {
        let text = quoted(task).ok_or("no reply text")?;
        return Ok(vec![
            Step::Click(*row()),
            Step::Click(Target::named("clickable", "Reply")),
            Step::Type(Target::Only("textbox"), text),
            Step::Click(Target::NameHas("clickable", "send".into())),
        ]);
    }
    let to = between(task, "forward that email to ", ".").ok_or("no recipient")?;
    Ok(vec![
        Step::Click(*row()),
        Step::Click(Target::named("clickable", "Forward")),
        Step::Type(Target::Nth("textbox", 0), to),
        Step::Click(Target::NameHas("clickable", "send".into())),
    ])
}

/// Opens what hides the goal (tabs, sections, folders) one after another until the goal's
/// element shows, then clicks it.
pub struct Explore {
    /// The role and name of the element to click in the end.
    goal: (&'static [&'static str], String),
    /// The role of what opens more of the page, and words its name has.
    opener: (&'static str, &'static str),
    /// How an opener opens: `click`, or `hover` (a submenu).
    opens_by: &'static str,
    /// Openers clicked so far (by name and ref: tree icons share a name).
    opened: Vec<String>,
    /// The goal was clicked: the next call ends the task.
    clicked: bool,
}

impl Explore {
    fn for_task(name: &str) -> Option<Self> {
        let (goal_roles, opener, opens_by): (&'static [&'static str], _, _) = match name {
            "click-tab-2" | "click-tab-2-easy" | "click-tab-2-medium" | "click-tab-2-hard" => {
                (&["link", "clickable"], ("tab", ""), "click")
            }
            "click-collapsible-2" => (&["link", "clickable"], ("tab", "Section"), "click"),
            "navigate-tree" => {
                (&["clickable", "link", "treeitem"], ("clickable", "expandable"), "click")
            }
            "click-menu-2" => (&["menuitem", "clickable", "link"], ("menuitem", ""), "hover"),
            _ => return None,
        };
        Some(Explore {
            goal: (goal_roles, String::new()),
            opener,
            opens_by,
            opened: Vec::new(),
            clicked: false,
        })
    }
}

impl Oracle for Explore {
    fn next(&mut self, seen: &Seen) -> Move {
        if self.clicked {
            return Move::Done { answer: "Done.".into(), success: true };
        }
        if self.goal.1.is_empty() {
            // "Click the "Menu" button, and then find and click on the item labeled "Stop"."
            let mut names = all_quoted(&seen.task);
            match names.pop() {
                Some(name) => self.goal.1 = name,
                None => return give_up("no name in the task".into()),
            }
            if let Some(menu) = names.pop() {
                return match Target::named("button", menu).resolve(seen) {
                    Ok(button) => Move::Act("click", json!({ "ref": button.reference })),
                    Err(why) => give_up(why),
                };
            }
        }
        if let Ok(goal) = Target::AnyOf(self.goal.0, self.goal.1.clone()).resolve(seen) {
            self.clicked = true;
            return Move::Act("click", json!({ "ref": goal.reference }));
        }
        let (role, words) = self.opener;
        let next = seen.elements.iter().find(|e| {
            e.role == role
                && e.name.contains(words)
                && !e.rest.contains("selected")
                && !self.opened.contains(&format!("{}|{}", e.reference, e.name))
        });
        match next {
            Some(e) => {
                self.opened.push(format!("{}|{}", e.reference, e.name));
                Move::Act(self.opens_by, json!({ "ref": e.reference }))
            }
            None => give_up(format!(
                "opened everything and saw no {:?} (it shows: {})",
                self.goal.1,
                seen.inventory()
            )),
        }
    }
}

/// The page's own text lines: without the utterance, the canvas note and MiniWoB's reward
/// panel ("Last reward: …", "Episodes done: 0") that follows the task's area.
fn task_text(seen: &Seen) -> Vec<&String> {
    seen.text
        .iter()
        .take_while(|l| !l.starts_with("Last reward"))
        .filter(|l| **l != seen.task && !l.starts_with("(canvas"))
        .collect()
}

fn give_up(why: String) -> Move {
    Move::Done { answer: format!("Oracle cannot go on: {why}"), success: false }
}

fn click(role: &'static str, name: impl Into<String>) -> Step {
    Step::Click(Target::named(role, name))
}

fn type_and_submit(field: Target, text: String) -> Vec<Step> {
    vec![Step::Type(field, text), click("button", "Submit")]
}

/// The text between `start` and the next `end` in `s`.
pub(super) fn between(s: &str, start: &str, end: &str) -> Option<String> {
    let (_, rest) = s.split_once(start)?;
    rest.split_once(end).map(|(inside, _)| inside.to_owned())
}

/// The first ordinal in `s` ("the 2nd", "1st", "3rd", "4th"), from 0.
pub(super) fn ordinal(s: &str) -> Option<usize> {
    s.split(|c: char| !c.is_alphanumeric()).find_map(|w| {
        let digits = w.trim_end_matches(|c: char| c.is_alphabetic());
        let suffix = &w[digits.len()..];
        let n: usize = digits.parse().ok()?;
        matches!(suffix, "st" | "nd" | "rd" | "th").then(|| n.checked_sub(1)).flatten()
    })
}

/// The value of a table row (`Language | Spanish`) the page shows.
fn cell(seen: &Seen, label: &str) -> Option<String> {
    let label = label.trim().trim_end_matches(':');
    seen.text.iter().find_map(|l| {
        let (name, value) = l.split_once(" | ")?;
        (name.trim() == label).then(|| value.trim().to_owned())
    })
}

/// "7:50 PM" → "19:50" (what a time input takes).
fn clock_24h(time: &str) -> Result<String, String> {
    let (clock, half) = time.split_once(' ').ok_or_else(|| format!("not a time: {time}"))?;
    let (h, m) = clock.split_once(':').ok_or_else(|| format!("not a time: {time}"))?;
    let h: u32 = h.parse().map_err(|_| format!("not an hour: {h}"))?;
    let h = match (half, h) {
        ("AM", 12) => 0,
        ("PM", 12) => 12,
        ("PM", h) => h + 12,
        (_, h) => h,
    };
    Ok(format!("{h:02}:{m}"))
}

/// `3 x 3`, `7 + 2`, `9 - 4` → the result.
fn arithmetic(sum: &str) -> Result<String, String> {
    let words: Vec<&str> = sum.split_whitespace().collect();
    let [a, op, b] = words.as_slice() else { return Err(format!("not a sum: {sum}")) };
    let (a, b): (i64, i64) = match (a.parse(), b.parse()) {
        (Ok(a), Ok(b)) => (a, b),
        _ => return Err(format!("not numbers: {sum}")),
    };
    Ok(match *op {
        "+" => a + b,
        "-" => a - b,
        "x" | "*" => a * b,
        _ => return Err(format!("not an operation: {op}")),
    }
    .to_string())
}

/// `x - 6 = 40`, `3 + x = 9`, `x + 2 = 5` → x.
fn solve_for_x(equation: &str) -> Result<String, String> {
    let (left, right) = equation.split_once('=').ok_or("no = in the equation")?;
    let right: i64 = right.trim().parse().map_err(|_| format!("not a number: {right}"))?;
    let words: Vec<&str> = left.split_whitespace().collect();
    let x = match words.as_slice() {
        ["x", "+", n] => right - n.parse::<i64>().map_err(|_| "bad number")?,
        ["x", "-", n] => right + n.parse::<i64>().map_err(|_| "bad number")?,
        [n, "+", "x"] => right - n.parse::<i64>().map_err(|_| "bad number")?,
        [n, "-", "x"] => n.parse::<i64>().map_err(|_| "bad number")? - right,
        _ => return Err(format!("not an equation I can solve: {equation}")),
    };
    Ok(x.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_of_the_utterances_are_read() {
        assert_eq!(ordinal("Find the 4th word"), Some(3));
        assert_eq!(ordinal("click the 2nd search result"), Some(1));
        assert_eq!(ordinal("no position"), None);
        assert_eq!(clock_24h("7:50 PM").as_deref(), Ok("19:50"));
        assert_eq!(clock_24h("12:05 AM").as_deref(), Ok("00:05"));
        assert_eq!(arithmetic("3 x 3").as_deref(), Ok("9"));
        assert_eq!(solve_for_x("x - 6 = 40").as_deref(), Ok("46"));
        assert_eq!(solve_for_x("12 - x = 5").as_deref(), Ok("7"));
        assert_eq!(
            between("Select -9 with the spinner", "Select ", " with").as_deref(),
            Some("-9")
        );
    }
}
