//! Fluent UI web components 3: controls whose role and state live only in their
//! ElementInternals (no `role` or `aria-checked` attribute anywhere), labelled by a
//! `<fluent-field>` around them — the web-component family the first two rounds lacked.

use super::{click, task, toggle, type_in};
use crate::eval::oracle::{Step, Target};
use crate::eval::task::EvalTask;

fn fluent(id: &str, prompt: &str, field: (&str, &str)) -> EvalTask {
    task(id, "/fluent.html", &format!("{prompt} and save the meeting."), "/api/fluent", &[field])
}

/// The Fluent page's tasks, in the order they run.
pub fn tasks() -> Vec<EvalTask> {
    vec![
        fluent(
            "fluent-text-input",
            "Rename the meeting to Design review",
            ("title", "Design review"),
        ),
        fluent("fluent-dropdown", "Set the time zone to Tokyo", ("zone", "tokyo")),
        fluent("fluent-switch", "Record the meeting", ("record", "true")),
        fluent("fluent-checkbox", "Send the notes to the guests", ("notes", "true")),
        fluent("fluent-radio", "Make the meeting 30 minutes long", ("length", "30")),
        fluent("fluent-slider", "Set the reminder volume to 70", ("volume", "70")),
        fluent("fluent-tabs", "Open the Guests tab", ("tab", "guests")),
    ]
}

/// The steps of `id` before the page's own save button, and that button and its status line.
pub fn steps(id: &str) -> Option<(Vec<Step>, &'static str, &'static str)> {
    let steps = match id {
        "fluent-text-input" => vec![type_in("textbox", "Meeting title", "Design review")],
        "fluent-dropdown" => vec![Step::Select(
            Target::AnyOf(&["combobox", "listbox"], "Time zone".into()),
            "Tokyo".into(),
        )],
        "fluent-switch" => vec![toggle("Record the meeting")],
        "fluent-checkbox" => vec![Step::Check(Target::named("checkbox", "Send notes to guests"))],
        "fluent-radio" => vec![Step::Click(Target::NameHas("radio", "30 minutes".into()))],
        "fluent-slider" => vec![type_in("slider", "Reminder volume", "70")],
        "fluent-tabs" => vec![click("tab", "Guests")],
        _ => return None,
    };
    Some((steps, "Save meeting", "Meeting saved"))
}
