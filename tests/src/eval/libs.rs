//! The `libs` suite: tasks on the library zoo ([`crate::libzoo`]), pages built from the
//! published npm packages of widely used component libraries — react-select, MUI, Headless UI,
//! Radix, Element Plus (Vue), Shoelace (web components), flatpickr, Tom Select, noUiSlider,
//! AG Grid, the rich-text editors Quill and Tiptap (ProseMirror), and the drag-to-reorder
//! lists of SortableJS and dnd kit; then the rounds of libraries no fix was written against
//! (`more`: Ant Design, Material Web, Choices.js; `third`: Mantine, Bootstrap, jQuery UI,
//! Select2; `fluent`: Fluent UI web components; `react4`: PrimeReact, React Aria Components,
//! hello-pangea dnd, react-datepicker, sonner; `vue4`: Vuetify, Ionic, TinyMCE, Trix,
//! SweetAlert2, Pikaday, dragula). Each page posts what its widgets hold, read through the
//! library's own state, so a task succeeds only when the widget really changed.

mod fluent;
mod more;
mod react4;
mod third;
mod vue4;

use super::oracle::{Move, Oracle, Script, Step, Target};
use super::seen::Seen;
use super::task::{Check, EvalTask, Prompt, SuiteName};
use serde_json::json;

/// Roles a two-state control may be read as (a native checkbox, an ARIA switch).
const TOGGLES: &[&str] = &["switch", "checkbox"];

fn task(id: &str, start: &str, prompt: &str, path: &str, fields: &[(&str, &str)]) -> EvalTask {
    EvalTask {
        id: id.to_owned(),
        suite: SuiteName::Libs,
        start: start.to_owned(),
        prompt: Prompt::Fixed(prompt.to_owned()),
        resources: Vec::new(),
        check: Check::Sent {
            path: path.to_owned(),
            fields: fields.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        },
        session: None,
        known_failure: None,
        by_hand: None,
    }
}

fn react(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/react.html", prompt, "/api/react", &[field])
}

fn vue(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/vue.html", prompt, "/api/vue", &[field])
}

fn shoelace(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/shoelace.html", prompt, "/api/shoelace", &[field])
}

fn vanilla(id: &str, prompt: &str, fields: &[(&str, &str)]) -> EvalTask {
    task(id, "/vanilla.html", prompt, "/api/vanilla", fields)
}

/// The rich-text editors (Quill, Tiptap) and drag-to-reorder lists (SortableJS, dnd kit).
fn editing_tasks() -> Vec<EvalTask> {
    let notes = |id: &str, prompt: &str, field: (&str, &str)| {
        task(id, "/richtext.html", prompt, "/api/richtext", &[field])
    };
    let plan = |id: &str, prompt: &str, fields: &[(&str, &str)]| {
        task(id, "/reorder.html", prompt, "/api/reorder", fields)
    };
    vec![
        notes(
            "quill-bold",
            "In the team notes, make “Fix the login bug” bold and save the notes.",
            ("quill", "<strong>Fix the login bug</strong> before launch."),
        ),
        notes(
            "tiptap-italic",
            "In the launch plan, make “every beta tester” italic and save the notes.",
            ("tiptap", "<p>Email <em>every beta tester</em>.</p>"),
        ),
        plan(
            "sortable-list",
            "Put “Take out the trash” first in the chores and save the plan.",
            &[("chores", "trash,dishes,laundry,plants")],
        ),
        plan(
            "sortable-board",
            "Move “Book the tickets” to the Done column and save the plan.",
            &[("todo", "[hotel]"), ("done", "tickets")],
        ),
        plan(
            "dnd-kit-list",
            "Put “Coda” first in the playlist and save the plan.",
            &[("songs", "coda,intro,rain,drive")],
        ),
    ]
}

/// Every task of the suite, in the order they run.
pub fn tasks() -> Vec<EvalTask> {
    let save = " and save the preferences.";
    vec![
        react(
            "react-select",
            &format!("Set the delivery city to Lisbon{save}"),
            ("city", "lisbon"),
        ),
        react(
            "react-select-multi",
            &format!("Tag the ticket urgent and billing{save}"),
            ("tags", "billing,urgent"),
        ),
        react("mui-select", &format!("Choose Japan as the country{save}"), ("country", "jp")),
        react("mui-switch", &format!("Turn on email alerts{save}"), ("alerts", "true")),
        react("mui-slider", &format!("Set the brightness to 70{save}"), ("brightness", "70")),
        react(
            "mui-autocomplete",
            &format!("Set the language to German{save}"),
            ("language", "German"),
        ),
        react("mui-tabs", &format!("Open the Security section{save}"), ("tab", "Security")),
        react("headless-listbox", &format!("Switch the plan to Team{save}"), ("plan", "Team")),
        react("headless-switch", &format!("Turn on dark mode{save}"), ("dark", "true")),
        react("radix-slider", &format!("Set the zoom to 150{save}"), ("zoom", "150")),
        react("radix-switch", &format!("Turn airplane mode on{save}"), ("airplane", "true")),
        react(
            "icon-button-image",
            &format!("Press the message's send button (the paper-plane icon){save}"),
            ("last", "send"),
        ),
        react(
            "icon-button-tooltip",
            &format!("Archive the message with its icon button{save}"),
            ("last", "archive"),
        ),
        vue("element-select", "Book the trip in Business class.", ("cabin", "business")),
        vue(
            "element-multi-select",
            "Book the trip with lounge access and a checked bag as extras.",
            ("extras", "bag,lounge"),
        ),
        vue("element-switch", "Book the trip with travel insurance.", ("insurance", "true")),
        vue("element-slider", "Book the trip with a daily budget of 60.", ("budget", "60")),
        vue(
            "element-date-picker",
            "Book the trip departing on 2025-05-20.",
            ("date", "2025-05-20"),
        ),
        vue("element-input-number", "Book the trip for 3 travellers.", ("travellers", "3")),
        shoelace(
            "sl-switch",
            "Turn on push notifications and save the settings.",
            ("push", "true"),
        ),
        shoelace(
            "sl-select",
            "Set the digest frequency to weekly and save the settings.",
            ("digest", "weekly"),
        ),
        shoelace("sl-range", "Set the alert volume to 60 and save the settings.", ("volume", "60")),
        shoelace("sl-checkbox", "Accept the terms and save the settings.", ("terms", "true")),
        shoelace(
            "sl-radio-group",
            "Make SMS the preferred channel and save the settings.",
            ("channel", "sms"),
        ),
        shoelace(
            "sl-input",
            "Set my nickname to Ziggy and save the settings.",
            ("nickname", "Ziggy"),
        ),
        vanilla(
            "flatpickr",
            "Search holidays checking in on 14 February 2025.",
            &[("checkin", "2025-02-14")],
        ),
        vanilla("tom-select", "Search holidays in Zermatt.", &[("resort", "zermatt")]),
        vanilla(
            "tom-select-multi",
            "Search holidays with skiing and spa as activities.",
            &[("activities", "ski,spa")],
        ),
        vanilla(
            "nouislider",
            "Search holidays between 200 and 300 per night.",
            &[("low", "200"), ("high", "300")],
        ),
        task(
            "ag-grid-sort",
            "/grid.html",
            "Sort the laptops by price, lowest first, and choose the cheapest one (type its \
             model as your pick).",
            "/api/grid",
            &[("pick", "Osprey 15"), ("sort", "price:asc")],
        ),
    ]
    .into_iter()
    .chain(editing_tasks())
    .chain(more::tasks())
    .chain(fluent::tasks())
    .chain(third::tasks())
    .chain(react4::tasks())
    .chain(vue4::tasks())
    .collect()
}

fn click(role: &'static str, name: &str) -> Step {
    Step::Click(Target::named(role, name))
}

fn type_in(role: &'static str, name: &str, text: &str) -> Step {
    Step::Type(Target::named(role, name), text.to_owned())
}

fn toggle(name: &str) -> Step {
    Step::Click(Target::AnyOf(TOGGLES, name.to_owned()))
}

/// The status line a page shows once it has posted.
fn status(start: &'static str) -> Step {
    Step::Answer(Box::new(move |seen: &Seen| {
        seen.text
            .iter()
            .find(|l| l.starts_with(start))
            .cloned()
            .ok_or_else(|| format!("no line starting {start:?} after the last action"))
    }))
}

/// The steps of `id` before the page's own save button.
fn steps(id: &str) -> Option<Vec<Step>> {
    let item = |name: &str| Target::AnyOf(&["draggable", "button"], name.to_owned());
    Some(match id {
        "quill-bold" => vec![
            Step::SelectText(Target::named("textbox", "Team notes"), "Fix the login bug".into()),
            Step::Press(Target::named("textbox", "Team notes"), "Control+b".into()),
        ],
        "tiptap-italic" => vec![
            Step::SelectText(Target::named("textbox", "Launch plan"), "every beta tester".into()),
            click("button", "Italic"),
        ],
        "sortable-list" => vec![Step::Drag(item("Take out the trash"), item("Wash the dishes"))],
        "sortable-board" => vec![Step::Drag(item("Book the tickets"), item("Renew the passport"))],
        "dnd-kit-list" => vec![Step::Drag(item("Coda"), item("Intro theme"))],
        "react-select" => {
            vec![type_in("combobox", "Delivery city", "Lis"), click("option", "Lisbon")]
        }
        "react-select-multi" => vec![
            type_in("combobox", "Ticket tags", "urg"),
            click("option", "urgent"),
            type_in("combobox", "Ticket tags", "bil"),
            click("option", "billing"),
        ],
        "mui-select" => vec![Step::Select(Target::named("combobox", "Country"), "Japan".into())],
        "mui-switch" => vec![toggle("Email alerts")],
        "mui-slider" => vec![type_in("slider", "Brightness", "70")],
        "mui-autocomplete" => {
            vec![type_in("combobox", "Language", "Ger"), click("option", "German")]
        }
        "mui-tabs" => vec![click("tab", "Security")],
        "headless-listbox" => {
            vec![Step::Click(Target::NameHas("button", "Plan".into())), click("option", "Team")]
        }
        "headless-switch" => vec![toggle("Dark mode")],
        "radix-slider" => vec![type_in("slider", "Zoom", "150")],
        "radix-switch" => vec![toggle("Airplane mode")],
        "icon-button-image" => vec![Step::Click(Target::NameHas("button", "send".into()))],
        "icon-button-tooltip" => vec![Step::Click(Target::NameHas("button", "archive".into()))],
        "element-select" => {
            vec![Step::Select(Target::named("combobox", "Cabin class"), "Business".into())]
        }
        "element-multi-select" => vec![
            type_in("combobox", "Extras", "Lou"),
            click("option", "Lounge access"),
            type_in("combobox", "Extras", "bag"),
            click("option", "Checked bag"),
        ],
        "element-switch" => vec![toggle("Travel insurance")],
        "element-slider" => vec![type_in("slider", "Daily budget", "60")],
        "element-date-picker" => vec![
            type_in("textbox", "Departure date", "2025-05-20"),
            Step::Press(Target::named("textbox", "Departure date"), "Enter".into()),
        ],
        "element-input-number" => vec![type_in("spinbutton", "Travellers", "3")],
        "sl-switch" => vec![toggle("Push notifications")],
        "sl-select" => {
            vec![Step::Select(Target::named("combobox", "Digest frequency"), "Weekly".into())]
        }
        "sl-range" => vec![type_in("slider", "Alert volume", "60")],
        "sl-checkbox" => vec![Step::Check(Target::named("checkbox", "I accept the terms"))],
        "sl-radio-group" => vec![click("radio", "SMS")],
        "sl-input" => vec![type_in("textbox", "Nickname", "Ziggy")],
        "flatpickr" => vec![
            click("textbox", "Check-in date"),
            Step::Select(Target::named("combobox", "Month"), "February".into()),
            Step::Click(Target::NameHas("clickable", "February 14, 2025".into())),
        ],
        "tom-select" => vec![Step::Select(Target::named("combobox", "Resort"), "Zermatt".into())],
        "tom-select-multi" => vec![
            type_in("combobox", "Activities", "Ski"),
            click("option", "Skiing"),
            type_in("combobox", "Activities", "Spa"),
            click("option", "Spa"),
        ],
        "nouislider" => vec![
            type_in("slider", "Price per night (1 of 2)", "200"),
            type_in("slider", "Price per night (2 of 2)", "300"),
        ],
        _ => return None,
    })
}

/// The oracle navigator of task `id`.
pub fn oracle(id: &str) -> Option<Box<dyn Oracle>> {
    if id == "ag-grid-sort" {
        return Some(Box::new(CheapestRow::default()));
    }
    let round = more::steps(id)
        .or_else(|| fluent::steps(id))
        .or_else(|| third::steps(id))
        .or_else(|| react4::steps(id))
        .or_else(|| vue4::steps(id));
    if let Some((mut steps, button, done)) = round {
        steps.push(click("button", button));
        steps.push(status(done));
        return Some(Box::new(Script::new(steps).stopping_on_failure()));
    }
    let mut steps = steps(id)?;
    let (button, done) = match id.split('-').next() {
        Some("element") => ("Book trip", "Trip booked"),
        Some("sl") => ("Save settings", "Settings saved"),
        Some("flatpickr" | "tom" | "nouislider") => ("Search holidays", "Searching"),
        Some("quill" | "tiptap") => ("Save notes", "Notes saved"),
        Some("sortable" | "dnd") => ("Save plan", "Plan saved"),
        _ => ("Save preferences", "Preferences saved"),
    };
    steps.push(click("button", button));
    steps.push(status(done));
    Some(Box::new(Script::new(steps).stopping_on_failure()))
}

/// The grid's oracle: sorts by price, then reads the first row as drawn (the first text line
/// after the header that names a price) and types its model as the pick.
#[derive(Default)]
struct CheapestRow {
    step: u32,
}

impl Oracle for CheapestRow {
    fn next(&mut self, seen: &Seen) -> Move {
        let give_up = |why: String| Move::Done {
            answer: format!("Oracle cannot go on: {why}"),
            success: false,
        };
        self.step += 1;
        match self.step {
            // The header's sort control is drawn as a clickable label inside the header cell.
            1 => {
                match Target::AnyOf(&["columnheader", "clickable"], "Price".into()).resolve(seen) {
                    Ok(h) => Move::Act("click", json!({"ref": h.reference})),
                    Err(why) => give_up(why),
                }
            }
            2 => {
                // The first cell as the page lists it: the model of the first row drawn.
                let first = seen.elements.iter().find(|e| e.role == "gridcell");
                match (first, seen.find("textbox", "Your pick")) {
                    (Some(cell), Some(pick)) => {
                        Move::Act("type", json!({"ref": pick.reference, "text": cell.name}))
                    }
                    _ => give_up(format!("no first cell or pick field ({})", seen.inventory())),
                }
            }
            3 => match seen.find("button", "Choose laptop") {
                Some(b) => Move::Act("click", json!({"ref": b.reference})),
                None => give_up("no Choose laptop button".into()),
            },
            _ => match seen.text.iter().find(|l| l.starts_with("Laptop chosen")) {
                Some(line) => Move::Done { answer: line.clone(), success: true },
                None => give_up("no confirmation line".into()),
            },
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
            let page = crate::libzoo::root().join(t.start.trim_start_matches('/'));
            assert!(page.is_file(), "{}", page.display());
        }
        let mut ids: Vec<String> = tasks().into_iter().map(|t| t.id).collect();
        ids.dedup();
        assert_eq!(ids.len(), tasks().len());
    }

    #[test]
    fn the_grid_oracle_reads_the_first_row_as_drawn() {
        let seen = |page: &str| {
            let user = format!("Task: t\n<page_content id=x>\n{page}\n</page_content id=x>\n");
            Seen::from_text(&user, user.clone())
        };
        let mut o = CheapestRow::default();
        let page = seen(
            "[1] clickable Price\n[3] gridcell Osprey 15\n[4] gridcell 749\n[2] textbox Your pick",
        );
        assert_eq!(o.next(&page), Move::Act("click", json!({"ref": "1"})));
        assert_eq!(o.next(&page), Move::Act("type", json!({"ref": "2", "text": "Osprey 15"})));
    }
}
