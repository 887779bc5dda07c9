//! The zoo's fourth round: React libraries no fix was written against — PrimeReact 10 (its
//! Lara theme), React Aria Components (Adobe; date fields made of spinbutton segments),
//! @hello-pangea/dnd (the maintained react-beautiful-dnd), react-datepicker and sonner — so
//! the suite measures Waymark on widgets it was not tuned on, as the independent widget
//! suite will.

use super::{click, task, toggle, type_in};
use crate::eval::oracle::{Step, Target};
use crate::eval::task::EvalTask;

fn prime(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/prime.html", &format!("{prompt} and register."), "/api/prime", &[field])
}

fn aria(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    let prompt = format!("{prompt} and save the workspace.");
    task(id, "/aria.html", &prompt, "/api/aria", &[field])
}

fn board(id: &str, prompt: &str, fields: &[(&str, &str)]) -> EvalTask {
    task(id, "/pangea.html", &format!("{prompt} and save the board."), "/api/pangea", fields)
}

fn rental(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/rental.html", &format!("{prompt} and save the booking."), "/api/rental", &[field])
}

/// The fourth round's tasks, in the order they run.
pub fn tasks() -> Vec<EvalTask> {
    vec![
        prime("prime-dropdown", "Hold my workshop in Lisbon", ("city", "Lisbon")),
        prime(
            "prime-multiselect",
            "Sign me up for the Keynote and the Rust workshop",
            ("sessions", "keynote,rust"),
        ),
        prime("prime-autocomplete", "Set my country to Croatia", ("country", "Croatia")),
        prime(
            "prime-calendar",
            "Set the arrival date to 12 September 2025",
            ("arrival", "2025-09-12"),
        ),
        prime("prime-slider", "Set my travel budget to 300 EUR", ("budget", "300")),
        prime("prime-switch", "Join the speakers' dinner", ("dinner", "true")),
        prime("prime-selectbutton", "Set my experience level to Expert", ("level", "expert")),
        prime("prime-rating", "Rate last year's event 4 stars", ("stars", "4")),
        prime("prime-number", "Bring 3 guests", ("guests", "3")),
        prime("prime-chips", "Add the topics testing and security", ("topics", "security,testing")),
        prime("prime-tabview", "Open the Venue tab", ("tab", "venue")),
        prime("prime-menu", "Email my badge from the badge options", ("badge", "email")),
        prime("prime-confirm", "Cancel my hotel booking (confirm it)", ("hotel", "cancelled")),
        prime("prime-toast", "Dismiss the early-bird pricing notice", ("notice", "dismissed")),
        aria("aria-select", "Host the workspace in the European Union", ("region", "eu")),
        aria("aria-combobox", "Set the time zone to Europe/Paris", ("timezone", "par")),
        aria("aria-date", "Set the renewal date to 2025-06-12", ("renewal", "2025-06-12")),
        aria("aria-slider", "Set the storage quota to 120 GB", ("storage", "120")),
        aria("aria-switch", "Require single sign-on", ("sso", "true")),
        aria(
            "aria-checkgroup",
            "Email me about mentions and billing changes",
            ("notify", "billing,mentions"),
        ),
        aria("aria-radio", "Move the workspace to the Growth plan", ("plan", "growth")),
        aria("aria-tabs", "Open the Audit log section", ("tab", "audit")),
        aria("aria-menu", "Duplicate the workspace from its actions menu", ("action", "duplicate")),
        aria("aria-dialog", "Rename the workspace to Acme launch", ("name", "Acme launch")),
        aria("aria-number", "Set the seats to 12", ("seats", "12")),
        board(
            "pangea-list",
            "Put “Tag the release” first in the release checklist",
            &[("steps", "tag,notes,tests,blog")],
        ),
        board(
            "pangea-board",
            "Move “Fix the login timeout” to the In progress column",
            &[("todo", "[icons]"), ("doing", "docs,login")],
        ),
        rental("datepicker-day", "Set the pick-up date to 14 March 2025", ("pickup", "2025-03-14")),
        rental(
            "sonner-undo",
            "Remove the extra driver, then undo that from the notice it shows,",
            ("driver", "restored"),
        ),
    ]
}

/// Roles an option of a list or a menu may be read as.
const OPTIONS: &[&str] = &["option", "menuitem", "menuitemradio", "clickable", "link"];
/// Roles a field that takes typed text may be read as.
const FIELDS: &[&str] = &["textbox", "combobox", "searchbox", "spinbutton"];
/// Roles a list item that can be dragged may be read as.
const ITEMS: &[&str] = &["draggable", "listitem", "button"];

fn option(name: &str) -> Step {
    Step::Click(Target::AnyOf(OPTIONS, name.to_owned()))
}

fn field(name: &str, text: &str) -> Step {
    Step::Type(Target::AnyOf(FIELDS, name.to_owned()), text.to_owned())
}

fn enter(name: &str) -> Step {
    Step::Press(Target::AnyOf(FIELDS, name.to_owned()), "Enter".into())
}

fn any(roles: &'static [&'static str], name: &str) -> Step {
    Step::Click(Target::AnyOf(roles, name.to_owned()))
}

fn drag(what: &str, onto: &str) -> Step {
    Step::Drag(Target::AnyOf(ITEMS, what.to_owned()), Target::AnyOf(ITEMS, onto.to_owned()))
}

/// The steps of `id` before the page's own save button, and that button and its status line.
pub fn steps(id: &str) -> Option<(Vec<Step>, &'static str, &'static str)> {
    let steps = match id {
        "prime-dropdown" => {
            vec![any(&["combobox", "textbox", "button"], "Workshop city"), option("Lisbon")]
        }
        "prime-multiselect" => vec![
            any(&["combobox", "textbox", "button"], "Sessions"),
            any(&["option", "checkbox"], "Keynote"),
            any(&["option", "checkbox"], "Rust workshop"),
        ],
        "prime-autocomplete" => vec![field("Country of residence", "Cro"), option("Croatia")],
        "prime-calendar" => vec![
            any(&["textbox", "combobox"], "Arrival date"),
            any(&["gridcell", "button", "clickable", "option"], "12"),
        ],
        "prime-slider" => vec![type_in("slider", "Travel budget (EUR)", "300")],
        "prime-switch" => vec![toggle("Join the speakers' dinner")],
        "prime-selectbutton" => vec![any(&["radio", "button", "option", "checkbox"], "Expert")],
        "prime-rating" => vec![Step::Click(Target::NameHas("clickable", "(4 of 5)".into()))],
        "prime-number" => vec![field("Guests", "3")],
        "prime-chips" => vec![
            field("Topics you want covered", "testing"),
            enter("Topics you want covered"),
            field("Topics you want covered", "security"),
            enter("Topics you want covered"),
        ],
        "prime-tabview" => vec![click("tab", "Venue")],
        "prime-menu" => vec![click("button", "Badge options"), option("Email my badge")],
        "prime-confirm" => {
            vec![click("button", "Cancel hotel booking"), click("button", "Yes, cancel it")]
        }
        "prime-toast" => vec![Step::Click(Target::NameHas("button", "close".into()))],
        // Its button is named by its value and its label: "Select an item Hosting region".
        "aria-select" => vec![Step::Select(
            Target::NameHas("button", "Hosting region".into()),
            "European Union".into(),
        )],
        "aria-combobox" => vec![field("Time zone", "Pari"), option("Europe/Paris")],
        "aria-date" => vec![
            Step::Type(Target::NameHas("spinbutton", "month".into()), "6".into()),
            Step::Type(Target::NameHas("spinbutton", "day".into()), "12".into()),
            Step::Type(Target::NameHas("spinbutton", "year".into()), "2025".into()),
        ],
        "aria-slider" => vec![type_in("slider", "Storage quota (GB)", "120")],
        "aria-switch" => vec![toggle("Require single sign-on")],
        "aria-checkgroup" => vec![
            Step::Check(Target::named("checkbox", "Mentions")),
            Step::Check(Target::named("checkbox", "Billing changes")),
        ],
        "aria-radio" => vec![click("radio", "Growth")],
        "aria-tabs" => vec![click("tab", "Audit log")],
        "aria-menu" => {
            vec![click("button", "Workspace actions"), option("Duplicate workspace")]
        }
        "aria-dialog" => vec![
            click("button", "Rename workspace"),
            type_in("textbox", "New name", "Acme launch"),
            click("button", "Rename"),
        ],
        "aria-number" => vec![field("Seats", "12")],
        "pangea-list" => vec![drag("Tag the release", "Write release notes")],
        "pangea-board" => vec![drag("Fix the login timeout", "Review the API docs")],
        "datepicker-day" => vec![
            click("textbox", "Pick-up date"),
            Step::Click(Target::NameHas("gridcell", "March 14th, 2025".into())),
        ],
        "sonner-undo" => vec![click("button", "Remove extra driver"), click("button", "Undo")],
        _ => return None,
    };
    let (button, done) = match id.split('-').next() {
        Some("prime") => ("Register", "Registration saved"),
        Some("aria") => ("Save workspace", "Workspace saved"),
        Some("pangea") => ("Save board", "Board saved"),
        _ => ("Save booking", "Booking saved"),
    };
    Some((steps, button, done))
}
