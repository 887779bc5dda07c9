//! The zoo's second round: libraries none of the first round's fixes were written against —
//! Ant Design 6 (React), Material Web (Lit web components, every control in a shadow root) and
//! Choices.js (a select library over hidden native selects) — so the suite also measures how
//! Waymark does on widgets it was not tuned on.

use super::{click, task, toggle, type_in};
use crate::eval::oracle::{Step, Target};
use crate::eval::task::EvalTask;

fn antd(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/antd.html", &format!("{prompt} and save the workspace."), "/api/antd", &[field])
}

fn material(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/material.html", &format!("{prompt} and save my profile."), "/api/material", &[field])
}

fn choices(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/choices.html", &format!("{prompt} and save the draft."), "/api/choices", &[field])
}

/// The second round's tasks, in the order they run.
pub fn tasks() -> Vec<EvalTask> {
    vec![
        antd("antd-select-search", "Set the time zone to Tokyo", ("zone", "tokyo")),
        antd(
            "antd-select-multi",
            "Notify me about mentions and incidents",
            ("notify", "incidents,mentions"),
        ),
        antd(
            "antd-cascader",
            "Set my home office to Lisbon, Portugal",
            ("office", "europe/portugal/lisbon"),
        ),
        antd("antd-date-picker", "Set the trial end date to 2025-03-15", ("trial", "2025-03-15")),
        antd("antd-time-picker", "Set the daily digest time to 08:30", ("digest", "08:30")),
        antd("antd-slider", "Set the storage limit to 40 GB", ("storage", "40")),
        antd("antd-switch", "Make the workspace public", ("open", "true")),
        antd("antd-rate", "Give the workspace 4 stars for how happy I am", ("stars", "4")),
        antd("antd-radio-buttons", "Switch the default view to Board", ("view", "board")),
        antd("antd-segmented", "Set the density to Compact", ("density", "Compact")),
        antd("antd-input-number", "Allow 5 guest accounts", ("guests", "5")),
        antd("antd-tabs", "Open the Audit log tab", ("tab", "audit")),
        material("md-text-field", "Change my display name to Ada L", ("display", "Ada L")),
        material("md-select", "Set my language to Dutch", ("language", "nl")),
        material("md-switch", "Turn on “Show my status”", ("presence", "true")),
        material("md-checkbox", "Turn on the weekly digest by email", ("digest", "true")),
        material("md-radio", "Use the dark theme", ("theme", "dark")),
        material("md-slider", "Set the sound volume to 60", ("volume", "60")),
        material(
            "md-chips",
            "Pick Research and Hiring as my topics",
            ("topics", "hiring,research"),
        ),
        choices(
            "choices-single",
            "Put the job in the Engineering department",
            ("department", "engineering"),
        ),
        choices("choices-multi", "Pick Rust and SQL as the skills", ("skills", "rust,sql")),
        choices(
            "choices-tags",
            "Use remote and senior as the keywords",
            ("keywords", "remote,senior"),
        ),
    ]
}

/// Roles an option of a list, a menu or a cascade may be read as.
const OPTIONS: &[&str] =
    &["option", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem", "clickable"];
/// Roles a field that takes typed text may be read as.
const FIELDS: &[&str] = &["textbox", "combobox", "searchbox", "spinbutton"];

fn option(name: &str) -> Step {
    Step::Click(Target::AnyOf(OPTIONS, name.to_owned()))
}

fn field(name: &str, text: &str) -> Step {
    Step::Type(Target::AnyOf(FIELDS, name.to_owned()), text.to_owned())
}

/// The steps of `id` before the page's own save button, and that button and its status line.
pub fn steps(id: &str) -> Option<(Vec<Step>, &'static str, &'static str)> {
    let steps = match id {
        "antd-select-search" => vec![type_in("combobox", "Time zone", "Tok"), option("Tokyo")],
        "antd-select-multi" => vec![
            type_in("combobox", "Notify me about", "Men"),
            option("Mentions"),
            type_in("combobox", "Notify me about", "Inc"),
            option("Incidents"),
        ],
        "antd-cascader" => vec![
            Step::Click(Target::AnyOf(&["combobox"], "Home office".into())),
            option("Europe"),
            option("Portugal"),
            option("Lisbon"),
        ],
        "antd-date-picker" => vec![
            field("Trial ends on", "2025-03-15"),
            Step::Press(Target::AnyOf(FIELDS, "Trial ends on".into()), "Enter".into()),
        ],
        "antd-time-picker" => vec![
            field("Daily digest at", "08:30"),
            Step::Press(Target::AnyOf(FIELDS, "Daily digest at".into()), "Enter".into()),
        ],
        "antd-slider" => vec![type_in("slider", "Storage limit (GB)", "40")],
        "antd-switch" => vec![toggle("Public workspace")],
        "antd-rate" => vec![Step::Click(Target::NameHas("radio", "4 of 5".into()))],
        "antd-radio-buttons" => vec![click("radio", "Board")],
        "antd-segmented" => {
            vec![Step::Click(Target::AnyOf(&["radio", "option", "tab"], "Compact".into()))]
        }
        "antd-input-number" => vec![type_in("spinbutton", "Guest accounts", "5")],
        "antd-tabs" => vec![click("tab", "Audit log")],
        "md-text-field" => vec![type_in("textbox", "Display name", "Ada L")],
        "md-select" => vec![Step::Select(Target::named("combobox", "Language"), "Dutch".into())],
        "md-switch" => vec![toggle("Show my status")],
        "md-checkbox" => vec![Step::Check(Target::named("checkbox", "Weekly digest by email"))],
        "md-radio" => vec![Step::Click(Target::AnyOf(&["radio", "clickable"], "Dark".into()))],
        "md-slider" => vec![type_in("slider", "Sound volume", "60")],
        "md-chips" => vec![
            Step::Click(Target::AnyOf(
                &["checkbox", "option", "button", "switch"],
                "Research".into(),
            )),
            Step::Click(Target::AnyOf(
                &["checkbox", "option", "button", "switch"],
                "Hiring".into(),
            )),
        ],
        "choices-single" => {
            vec![Step::Select(
                Target::AnyOf(&["combobox", "listbox"], "Department".into()),
                "Engineering".into(),
            )]
        }
        "choices-multi" => {
            let skills = || click("combobox", "Skills");
            vec![skills(), option("Rust"), skills(), option("SQL")]
        }
        "choices-tags" => vec![
            field("Keywords", "remote"),
            Step::Press(Target::AnyOf(FIELDS, "Keywords".into()), "Enter".into()),
            field("Keywords", "senior"),
            Step::Press(Target::AnyOf(FIELDS, "Keywords".into()), "Enter".into()),
        ],
        _ => return None,
    };
    let (button, done) = match id.split('-').next() {
        Some("antd") => ("Save workspace", "Workspace saved"),
        Some("md") => ("Save profile", "Profile saved"),
        _ => ("Save draft", "Draft saved"),
    };
    Some((steps, button, done))
}
