//! The zoo's fourth round: libraries none of the earlier fixes were written against —
//! Vuetify 3 (Vue), Ionic 8's core web components used without a framework (shadow DOM and
//! overlays everywhere), the rich-text editors TinyMCE 7 (its body in a same-origin iframe)
//! and Trix 2, and SweetAlert2, Pikaday and dragula on a vanilla page — so the suite measures
//! Waymark on widgets it was not tuned on, as the independent widget suite will.

use super::{click, task, toggle, type_in};
use crate::eval::oracle::{Step, Target};
use crate::eval::task::EvalTask;

fn vuetify(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/vuetify.html", &format!("{prompt} and save my profile."), "/api/vuetify", &[field])
}

fn ionic(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/ionic.html", &format!("{prompt} and save the settings."), "/api/ionic", &[field])
}

fn editors(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    let prompt = format!("{prompt} and save the document.");
    task(id, "/editors.html", &prompt, "/api/editors", &[field])
}

fn misc(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/misc.html", &format!("{prompt} and save the household."), "/api/misc", &[field])
}

/// A task the fourth round found failing, with why (the CI run expects it to fail, so a fix
/// flips the flag).
fn known(mut task: EvalTask, why: &'static str) -> EvalTask {
    task.known_failure = Some(why);
    task
}

/// The fourth round's tasks, in the order they run.
pub fn tasks() -> Vec<EvalTask> {
    vec![
        vuetify("vt-select", "Set my shirt size to Large", ("size", "L")),
        known(
            vuetify("vt-autocomplete", "Make Lisbon my home airport", ("airport", "LIS")),
            "Vuetify draws its lists, menus and dialogs in an overlay container at the end of \
             the body (a `display: contents` box, a page-sized `pointer-events: none` layer): \
             the list filtered by the typed text is never in the observation",
        ),
        known(
            vuetify("vt-combobox", "Add Rust and Go to my skills", ("skills", "Go,Rust")),
            "typing the second tag and pressing Enter leaves Vuetify holding only that one \
             (`Go`), and every step read back ok: a false success; not yet understood (the \
             `change` event `type` fires after the text, or the value set at once)",
        ),
        vuetify("vt-date", "Set the start date to 18 June 2025", ("start", "2025-06-18")),
        vuetify("vt-slider", "Set my weekly hours to 30", ("hours", "30")),
        vuetify("vt-range", "Set the salary range to 40 to 80", ("salary", "40-80")),
        vuetify("vt-switch", "Subscribe me to the newsletter", ("newsletter", "true")),
        vuetify("vt-btn-toggle", "Switch my work mode to Remote", ("mode", "remote")),
        vuetify("vt-rating", "Rate the onboarding 4 stars", ("rating", "4")),
        vuetify("vt-tabs", "Open the Privacy tab", ("tab", "privacy")),
        known(
            vuetify("vt-menu", "Set my status to Away", ("presence", "away")),
            "the menu opens (its button reads expanded) but its items, in Vuetify's overlay \
             container at the end of the body, are not in the observation",
        ),
        known(
            vuetify("vt-dialog", "Revoke my API key (confirm it)", ("key", "revoked")),
            "the dialog's buttons, in Vuetify's overlay container, are not in the observation \
             (and the click that opens it draws an account-settings card)",
        ),
        vuetify("vt-expansion", "Turn on beta features in the advanced settings", ("beta", "true")),
        known(
            ionic("ion-select-alert", "Switch the language to French", ("language", "fr")),
            "`<ion-select>` draws a transparent native button over its box and keeps its \
             options as unslotted light-DOM children: it reads as a clickable named by all \
             its options (\"English French German\"), no combobox",
        ),
        known(
            ionic("ion-select-popover", "Use the Dark theme", ("theme", "dark")),
            "as ion-select-alert: a clickable named by its unslotted options, no combobox",
        ),
        ionic("ion-toggle", "Only download over Wi-Fi", ("wifi", "true")),
        ionic("ion-range", "Set the font size to 18", ("font", "18")),
        ionic("ion-datetime", "Set the reminder date to 20 June 2025", ("remind", "2025-06-20")),
        ionic("ion-segment", "Show my Favorites in the library", ("segment", "favorites")),
        ionic("ion-checkbox", "Accept the terms", ("terms", "true")),
        ionic("ion-radio", "Sync weekly", ("sync", "weekly")),
        known(
            ionic(
                "ion-searchbar",
                "Search the library for hiking boots",
                ("search", "hiking boots"),
            ),
            "the search field reads as \"search text\", not by the placeholder a person sees \
             (\"Search the library\")",
        ),
        editors(
            "tinymce-bold",
            "In the release notes, bold the sentence “Ship the release on Friday.”",
            ("bold", "Ship the release on Friday."),
        ),
        editors(
            "tinymce-list",
            "In the release notes, make “Back up the database” a bulleted list item",
            ("bullets", "Back up the database"),
        ),
        editors(
            "tinymce-link",
            "In the release notes, link the words “our guide” to https://example.com/guide",
            ("links", "our guide->https://example.com/guide"),
        ),
        editors("trix-bold", "In the team memo, bold “before noon”", ("memo_bold", "before noon")),
        misc("pikaday", "Set the pickup date to 18 June 2025", ("pickup", "2025-06-18")),
        misc(
            "dragula",
            "Put “Call the plumber” first among the chores",
            ("chores", "plumber,dishes,laundry,plants"),
        ),
        misc("swal-confirm", "Delete the old shopping list (confirm it)", ("list", "deleted")),
    ]
}

/// Roles an option of a list or a menu may be read as.
const OPTIONS: &[&str] = &["option", "menuitem", "menuitemradio", "radio", "clickable", "link"];
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

fn select(name: &str, choice: &str) -> Step {
    let target = Target::AnyOf(&["combobox", "listbox", "button"], name.to_owned());
    Step::Select(target, choice.to_owned())
}

/// The steps of `id` before the page's own save button, and that button and its status line.
pub fn steps(id: &str) -> Option<(Vec<Step>, &'static str, &'static str)> {
    let notes = || Target::named("textbox", "Release notes");
    let steps = match id {
        "vt-select" => vec![select("Shirt size", "Large")],
        "vt-autocomplete" => vec![field("Home airport", "Lis"), option("Lisbon (LIS)")],
        "vt-combobox" => {
            vec![field("Skills", "Rust"), enter("Skills"), field("Skills", "Go"), enter("Skills")]
        }
        "vt-date" => vec![Step::Click(Target::NameHas("button", "18".into()))],
        "vt-slider" => vec![type_in("slider", "Weekly hours", "30")],
        "vt-range" => vec![
            type_in("slider", "Salary range (k) (1 of 2)", "40"),
            type_in("slider", "Salary range (k) (2 of 2)", "80"),
        ],
        "vt-switch" => vec![toggle("Newsletter")],
        "vt-btn-toggle" => vec![any(&["button", "radio"], "Remote")],
        "vt-rating" => vec![Step::Click(Target::NameHas("radio", "4".into()))],
        "vt-tabs" => vec![click("tab", "Privacy")],
        "vt-menu" => vec![Step::Click(Target::NameHas("button", "Status".into())), option("Away")],
        "vt-dialog" => vec![click("button", "Revoke API key"), click("button", "Revoke")],
        "vt-expansion" => vec![
            click("button", "Advanced settings"),
            Step::Check(Target::named("checkbox", "Try beta features")),
        ],
        "ion-select-alert" => vec![select("Language", "French")],
        "ion-select-popover" => vec![select("Theme", "Dark")],
        "ion-toggle" => vec![toggle("Download over Wi-Fi only")],
        "ion-range" => vec![type_in("slider", "Font size", "18")],
        "ion-datetime" => vec![Step::Click(Target::NameHas("button", "June 20".into()))],
        "ion-segment" => vec![any(&["tab", "button", "radio"], "Favorites")],
        "ion-checkbox" => vec![Step::Check(Target::named("checkbox", "I accept the terms"))],
        "ion-radio" => vec![click("radio", "Weekly")],
        "ion-searchbar" => vec![field("Search the library", "hiking boots")],
        // Trix's toolbar has a "Bold" too, later on the page: the release notes' is the first.
        "tinymce-bold" => vec![
            Step::SelectText(notes(), "Ship the release on Friday.".into()),
            Step::Click(Target::Nth("button", 0)),
        ],
        "tinymce-list" => vec![
            Step::SelectText(notes(), "Back up the database".into()),
            click("button", "Bullet list"),
        ],
        "tinymce-link" => vec![
            Step::SelectText(notes(), "our guide".into()),
            Step::Click(Target::NameHas("button", "link".into())),
            field("URL", "https://example.com/guide"),
            click("button", "Save"),
        ],
        "trix-bold" => vec![
            Step::SelectText(Target::named("textbox", "Team memo"), "before noon".into()),
            click("button", "Bold"),
        ],
        "pikaday" => vec![click("textbox", "Pickup date"), any(&["button", "gridcell"], "18")],
        "dragula" => {
            let item = |name: &str| Target::AnyOf(&["draggable", "listitem"], name.to_owned());
            vec![Step::Drag(item("Call the plumber"), item("Do the dishes"))]
        }
        "swal-confirm" => {
            vec![click("button", "Delete old shopping list"), click("button", "Yes, delete it")]
        }
        _ => return None,
    };
    let (button, done) = match id.split('-').next() {
        Some("vt") => ("Save profile", "Profile saved"),
        Some("ion") => ("Save settings", "Settings saved"),
        Some("tinymce" | "trix") => ("Save document", "Document saved"),
        _ => ("Save household", "Household saved"),
    };
    Some((steps, button, done))
}
