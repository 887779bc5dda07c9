//! The zoo's third round: libraries none of the earlier fixes were written against — Mantine 7
//! (React), Bootstrap 5 (its CSS and data-attribute JS on a vanilla page), jQuery UI 1.14 and
//! Select2 4.1 (jQuery plugins over native controls) — so the suite measures Waymark on
//! widgets it was not tuned on, as the independent widget suite will.

use super::{click, task, toggle, type_in};
use crate::eval::oracle::{Step, Target};
use crate::eval::task::EvalTask;

fn mantine(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/mantine.html", &format!("{prompt} and save the account."), "/api/mantine", &[field])
}

fn bootstrap(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    let prompt = format!("{prompt} and save the delivery options.");
    task(id, "/bootstrap.html", &prompt, "/api/delivery", &[field])
}

fn jquery_ui(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/jqueryui.html", &format!("{prompt} and book the room."), "/api/jqueryui", &[field])
}

fn select2(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/select2.html", &format!("{prompt} and save the listing."), "/api/select2", &[field])
}

/// The third round's tasks, in the order they run.
pub fn tasks() -> Vec<EvalTask> {
    vec![
        mantine("mantine-select", "Store my data in the Frankfurt region", ("region", "Frankfurt")),
        mantine(
            "mantine-multiselect",
            "Add Design and Music to my interests",
            ("interests", "Design,Music"),
        ),
        mantine("mantine-tags", "Label the account vip and beta", ("labels", "beta,vip")),
        mantine("mantine-date", "Set the start date to 12 June 2025", ("start", "2025-06-12")),
        mantine("mantine-slider", "Set the notification volume to 60", ("volume", "60")),
        mantine("mantine-switch", "Make my profile public", ("public", "true")),
        mantine("mantine-segmented", "Switch the theme to Dark", ("theme", "dark")),
        mantine("mantine-rating", "Rate the service 4 stars", ("rating", "4")),
        mantine("mantine-number", "Set the seats to 7", ("headcount", "7")),
        mantine(
            "mantine-chips",
            "Subscribe me to the Events and Research newsletter topics",
            ("topics", "events,research"),
        ),
        mantine("mantine-tabs", "Open the Billing tab", ("tab", "billing")),
        mantine(
            "mantine-menu",
            "Archive the project from its actions menu",
            ("project", "archive"),
        ),
        mantine("mantine-modal", "Delete the old draft (confirm it)", ("draft", "gone")),
        bootstrap("bs-dropdown", "Choose Express delivery", ("speed", "express")),
        bootstrap(
            "bs-modal",
            "Add the gift message “Happy birthday, Sam!”",
            ("gift", "Happy birthday, Sam!"),
        ),
        bootstrap("bs-pills", "Switch to store pickup", ("mode", "pickup")),
        bootstrap("bs-accordion", "Ask the courier to call me on arrival", ("call", "true")),
        bootstrap("bs-switch", "Have the parcel left at the door", ("door", "true")),
        bootstrap("bs-btn-check", "Pick the L T-shirt size", ("size", "L")),
        bootstrap("bs-range", "Give the courier a 15% tip", ("tip", "15")),
        bootstrap("bs-toast", "Close the cookie notice", ("cookies", "false")),
        jquery_ui(
            "jqui-datepicker",
            "Set the arrival date to 2025-06-12",
            ("arrival", "2025-06-12"),
        ),
        jquery_ui("jqui-slider", "Book it for 4 guests", ("guests", "4")),
        jquery_ui(
            "jqui-sortable",
            "Put “Night market” first in the itinerary",
            ("itinerary", "market,museum,lunch,tower"),
        ),
        jquery_ui("jqui-autocomplete", "Set the departure city to Porto", ("city", "Porto")),
        jquery_ui("jqui-selectmenu", "Make it a Suite", ("room", "suite")),
        jquery_ui("jqui-spinner", "Stay 3 nights", ("nights", "3")),
        jquery_ui("jqui-dialog", "Request a late checkout (confirm it)", ("late", "true")),
        select2("select2-single", "Set the country to Portugal", ("country", "pt")),
        select2("select2-multi", "Say English and Spanish are spoken", ("languages", "en,es")),
        select2("select2-tags", "Add the features wifi and garden", ("features", "garden,wifi")),
    ]
}

/// Roles an option of a list or a menu may be read as.
const OPTIONS: &[&str] = &["option", "menuitem", "menuitemradio", "clickable", "link"];
/// Roles a field that takes typed text may be read as.
const FIELDS: &[&str] = &["textbox", "combobox", "searchbox", "spinbutton"];

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

/// The steps of `id` before the page's own save button, and that button and its status line.
pub fn steps(id: &str) -> Option<(Vec<Step>, &'static str, &'static str)> {
    let steps = match id {
        "mantine-select" => vec![field("Data region", "Fra"), option("Frankfurt")],
        "mantine-multiselect" => {
            vec![any(&["combobox", "textbox"], "Interests"), option("Design"), option("Music")]
        }
        "mantine-tags" => {
            vec![field("Labels", "vip"), enter("Labels"), field("Labels", "beta"), enter("Labels")]
        }
        "mantine-date" => vec![
            any(&["button", "combobox", "textbox"], "Start date"),
            any(&["button", "gridcell", "clickable"], "12 June 2025"),
        ],
        "mantine-slider" => vec![type_in("slider", "Notification volume", "60")],
        "mantine-switch" => vec![toggle("Public profile")],
        "mantine-segmented" => vec![any(&["radio", "tab", "option", "button"], "Dark")],
        "mantine-rating" => vec![Step::Click(Target::NameHas("radio", "4".into()))],
        "mantine-number" => vec![field("Seats", "7")],
        "mantine-chips" => vec![
            any(&["checkbox", "button", "switch"], "Events"),
            any(&["checkbox", "button", "switch"], "Research"),
        ],
        "mantine-tabs" => vec![click("tab", "Billing")],
        "mantine-menu" => vec![click("button", "Project actions"), option("Archive project")],
        "mantine-modal" => vec![click("button", "Delete old draft"), click("button", "Delete")],
        "bs-dropdown" => vec![click("button", "Standard"), option("Express")],
        "bs-modal" => vec![
            click("button", "Add a gift message"),
            type_in("textbox", "Message on the card", "Happy birthday, Sam!"),
            click("button", "Save message"),
        ],
        "bs-pills" => vec![click("tab", "Store pickup")],
        "bs-accordion" => vec![
            click("button", "Courier instructions"),
            Step::Check(Target::named("checkbox", "Call me on arrival")),
        ],
        "bs-switch" => vec![toggle("Leave at the door")],
        "bs-btn-check" => vec![any(&["radio", "button", "clickable"], "L")],
        "bs-range" => vec![type_in("slider", "Tip for the courier (%)", "15")],
        // The modal's own Close button is hidden with it, so the one shown is the toast's.
        "bs-toast" => vec![click("button", "Close")],
        "jqui-datepicker" => vec![field("Arrival date", "2025-06-12"), enter("Arrival date")],
        "jqui-slider" => vec![type_in("slider", "Guests", "4")],
        "jqui-sortable" => {
            let item = |name: &str| Target::AnyOf(&["draggable", "listitem"], name.to_owned());
            vec![Step::Drag(item("Night market"), item("Visit the museum"))]
        }
        "jqui-autocomplete" => vec![field("Departure city", "Por"), option("Porto")],
        "jqui-selectmenu" => vec![Step::Select(
            Target::AnyOf(&["combobox", "listbox", "button"], "Room type".into()),
            "Suite".into(),
        )],
        "jqui-spinner" => vec![field("Nights", "3")],
        "jqui-dialog" => {
            vec![click("button", "Request late checkout"), click("button", "Confirm late checkout")]
        }
        "select2-single" => vec![Step::Select(
            Target::AnyOf(&["combobox", "listbox"], "Country".into()),
            "Portugal".into(),
        )],
        "select2-multi" => vec![
            field("Languages spoken", "Eng"),
            option("English"),
            field("Languages spoken", "Spa"),
            option("Spanish"),
        ],
        "select2-tags" => vec![
            field("Features", "wifi"),
            enter("Features"),
            field("Features", "garden"),
            enter("Features"),
        ],
        _ => return None,
    };
    let (button, done) = match id.split('-').next() {
        Some("mantine") => ("Save account", "Account saved"),
        Some("bs") => ("Save delivery options", "Delivery options saved"),
        Some("jqui") => ("Book room", "Room booked"),
        _ => ("Save listing", "Listing saved"),
    };
    Some((steps, button, done))
}
