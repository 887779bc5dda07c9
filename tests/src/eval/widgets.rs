//! The `widgets` suite: tasks on the widget zoo (`tests/fixtures/zoo/`), whose pages behave like
//! component libraries — a popup date picker, an ARIA combobox with slow suggestions, sliders,
//! a kanban board and a sortable list, a rich-text editor with its own model, a virtualised
//! list, a terminal emulator, a canvas app — each with its own check (what the site received,
//! what the answer names) and an oracle navigator. The canvas task cannot be done: success is
//! saying so.

use super::oracle::{Move, Oracle, Script, Step, Target};
use super::seen::Seen;
use super::task::{Check, EvalTask, Prompt, SuiteName};
use serde_json::json;
use std::path::PathBuf;

/// The zoo's root.
pub fn root() -> PathBuf {
    crate::paths::fixtures_dir().join("zoo")
}

fn task(id: &str, start: &str, prompt: &str, check: Check) -> EvalTask {
    EvalTask {
        id: id.to_owned(),
        suite: SuiteName::Widgets,
        start: start.to_owned(),
        prompt: Prompt::Fixed(prompt.to_owned()),
        resources: Vec::new(),
        check,
        session: None,
        known_failure: None,
        by_hand: None,
    }
}

fn sent(path: &str, fields: &[(&str, &str)]) -> Check {
    Check::Sent {
        path: path.to_owned(),
        fields: fields.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
    }
}

/// Every task of the suite, in the order they run.
pub fn tasks() -> Vec<EvalTask> {
    vec![
        task(
            "date-picker",
            "/datepicker.html",
            "Book the Turing meeting room for 14 March 2025.",
            sent("/api/book", &[("room", "Turing"), ("date", "2025-03-14")]),
        ),
        task(
            "combobox",
            "/combobox.html",
            "Ship the order to London.",
            sent("/api/ship", &[("city", "London")]),
        ),
        task(
            "sliders",
            "/slider.html",
            "Set the volume to 65 and the balance to 20 right, then save the settings.",
            sent("/api/settings", &[("volume", "65"), ("balance", "20")]),
        ),
        task(
            "drag-and-drop",
            "/dnd.html",
            "Move “Write report” to Done, put Milk first on the shopping list, and save the plan.",
            sent("/api/plan", &[("done", "report"), ("list", "milk,bread,eggs,apples")]),
        ),
        task(
            "rich-text",
            "/richtext.html",
            "Replace the team note with “Launch moved to Friday” in bold, and save it.",
            sent("/api/note", &[("html", "<strong>Launch moved to Friday</strong>")]),
        ),
        task(
            "virtual-list",
            "/virtual.html",
            "What is the status of order #1058?",
            Check::Answer(vec!["1058".into(), "cancelled".into()]),
        ),
        task(
            "terminal",
            "/terminal.html",
            "On the server console, run the status command and tell me the server's load.",
            Check::Answer(vec!["0.12".into()]),
        ),
        task(
            "canvas",
            "/canvas.html",
            "Read me what is written on the whiteboard.",
            Check::GaveUp(vec!["canvas".into()]),
        ),
    ]
}

/// The oracle navigator of task `id`.
pub fn oracle(id: &str) -> Option<Box<dyn Oracle>> {
    let status = |start: &'static str| {
        Step::Answer(Box::new(move |seen: &Seen| {
            seen.text
                .iter()
                .find(|l| l.starts_with(start))
                .cloned()
                .ok_or_else(|| format!("no line starting {start:?} after the last action"))
        }))
    };
    let script = match id {
        "date-picker" => Script::new(vec![
            Step::Select(Target::named("combobox", "Room"), "Turing".into()),
            // The field is read-only: its calendar opens on a click.
            Step::Click(Target::named("textbox", "Date")),
            Step::Click(Target::named("button", "Next month")),
            Step::Click(Target::named("button", "Next month")),
            Step::Click(Target::NameHas("button", "14 March 2025".into())),
            Step::Click(Target::named("button", "Book room")),
            status("Booked"),
        ]),
        "combobox" => Script::new(vec![
            Step::Type(Target::named("combobox", "Ship to"), "Lon".into()),
            Step::WaitGone("Loading…".into()),
            Step::Click(Target::named("option", "London")),
            Step::Click(Target::named("button", "Ship here")),
            status("Shipping to"),
        ]),
        "sliders" => Script::new(vec![
            Step::Type(Target::named("slider", "Volume"), "65".into()),
            Step::Type(Target::named("slider", "Balance"), "20".into()),
            Step::Click(Target::named("button", "Save settings")),
            status("Saved"),
        ]),
        "drag-and-drop" => Script::new(vec![
            Step::Drag(
                Target::named("draggable", "Write report"),
                Target::named("dropzone", "Done"),
            ),
            Step::Drag(
                Target::NameHas("clickable", "Milk".into()),
                Target::NameHas("clickable", "Bread".into()),
            ),
            Step::Click(Target::named("button", "Save plan")),
            status("Plan saved"),
        ]),
        "rich-text" => Script::new(vec![
            Step::Click(Target::named("button", "Bold")),
            Step::Type(Target::named("textbox", "Note"), "Launch moved to Friday".into()),
            Step::Click(Target::named("button", "Save note")),
            status("Note saved"),
        ]),
        "virtual-list" => {
            return Some(Box::new(FindOrder { order: "#1058", scrolls: 0, opened: false }));
        }
        "terminal" => Script::new(vec![
            Step::Type(Target::named("textbox", "Terminal input"), "status\n".into()),
            Step::Answer(Box::new(|seen| {
                seen.text
                    .iter()
                    .find(|l| l.contains("load "))
                    .cloned()
                    .ok_or_else(|| "the terminal shows no load line".to_owned())
            })),
        ]),
        "canvas" => Script::new(vec![Step::GiveUp(Box::new(|seen| {
            let line = seen
                .text
                .iter()
                .find(|l| l.starts_with("(canvas"))
                .ok_or("the page shows no canvas line")?;
            Ok(format!("This cannot be done here: the whiteboard is a canvas. {line}"))
        }))]),
        _ => return None,
    };
    Some(Box::new(script))
}

/// Most scrolls of the list before the oracle gives up.
const MAX_SCROLLS: u32 = 20;

/// The virtualised list's oracle: scrolls the list's box until the order's row exists, opens
/// it, reads its status line.
struct FindOrder {
    order: &'static str,
    scrolls: u32,
    opened: bool,
}

impl Oracle for FindOrder {
    fn next(&mut self, seen: &Seen) -> Move {
        let give_up = |why: String| Move::Done {
            answer: format!("Oracle cannot go on: {why}"),
            success: false,
        };
        if self.opened {
            let prefix = format!("Order {}", self.order);
            return match seen.text.iter().find(|l| l.starts_with(&prefix)) {
                Some(line) => Move::Done { answer: line.clone(), success: true },
                None => give_up(format!("no detail line for {} after opening it", self.order)),
            };
        }
        let row =
            seen.elements.iter().find(|e| e.role == "clickable" && e.name.contains(self.order));
        if let Some(row) = row {
            self.opened = true;
            return Move::Act("click", json!({"ref": row.reference}));
        }
        if self.scrolls >= MAX_SCROLLS {
            return give_up(format!("no row {} after {MAX_SCROLLS} scrolls", self.order));
        }
        match seen.find("scrollable", "Orders list") {
            Some(list) => {
                self.scrolls += 1;
                Move::Act("scroll", json!({"ref": list.reference, "direction": "down"}))
            }
            None => give_up(format!("no scrollable list (it shows: {})", seen.inventory())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_has_an_oracle_and_its_page() {
        for t in tasks() {
            assert!(oracle(&t.id).is_some(), "{}", t.id);
            let page = root().join(t.start.trim_start_matches('/'));
            assert!(page.is_file(), "{}", page.display());
        }
    }

    #[test]
    fn the_list_oracle_scrolls_until_the_row_exists() {
        let seen = |page: &str| {
            let user = format!("Task: t\n<page_content id=x>\n{page}\n</page_content id=x>\n");
            Seen::from_text(&user, user.clone())
        };
        let mut o = FindOrder { order: "#1058", scrolls: 0, opened: false };
        let top =
            seen("[1] scrollable \"Orders list\" 9280px below\n[2] clickable Order #1001 · Ada");
        assert_eq!(o.next(&top), Move::Act("scroll", json!({"ref": "1", "direction": "down"})));
        let there =
            seen("[1] scrollable \"Orders list\" 5px above\n[7] clickable Order #1058 · Alan");
        assert_eq!(o.next(&there), Move::Act("click", json!({"ref": "7"})));
        let detail = seen("Order #1058 for Alan: cancelled, 2 item(s).");
        assert!(
            matches!(o.next(&detail), Move::Done { success: true, answer } if answer.contains("cancelled"))
        );
    }
}
