//! Oracles for the MiniWoB++ form tasks that need what a field is to be read, not only its
//! place: the label laid out beside or under it (`multi-layouts`, `multi-orderings`), a
//! multi-line box told from a one-line one (`click-widget`), and a box's exact value
//! (`copy-paste`, `copy-paste-2`, whose text ends with a space).

use super::super::oracle::{Oracle, Script, Step, Target};
use super::super::seen::{Element, Seen};

/// The oracle of `name`, for the tasks this module knows.
pub fn oracle(name: &str) -> Option<Box<dyn Oracle>> {
    let script = match name {
        "multi-layouts" | "multi-orderings" => Script::planned(movie_search),
        "click-widget" => Script::planned(|seen| {
            // "Click on a "textarea" widget."
            let kind = super::super::oracle::quoted(&seen.task).ok_or("no widget kind")?;
            let widget = seen
                .elements
                .iter()
                .find(|e| match kind.as_str() {
                    "text" => e.role == "textbox" && !e.has_state("multiline"),
                    "textarea" => e.role == "textbox" && e.has_state("multiline"),
                    role => e.role == role,
                })
                .ok_or_else(|| format!("no {kind} widget (it shows: {})", seen.inventory()))?;
            Ok(vec![Step::Click(Target::Ref(widget.reference.clone()))])
        }),
        "copy-paste" | "copy-paste-2" => Script::planned(|seen| {
            // "Copy the text in the textarea below, …" or "… from the 2nd text area below …".
            let areas = multiline(seen, true);
            let n = super::more::ordinal(&seen.task).unwrap_or(0);
            let area = areas.get(n).ok_or("no such text area")?;
            let text = area.value().ok_or("the text area shows no value")?;
            let [input] = multiline(seen, false)[..] else {
                return Err(format!("expected one text input (it shows: {})", seen.inventory()));
            };
            Ok(vec![
                Step::Type(Target::Ref(input.reference.clone()), text),
                Step::Click(Target::named("button", "Submit")),
            ])
        }),
        _ => return None,
    };
    Some(Box::new(script))
}

/// The text boxes that hold several lines (`true`) or one (`false`), in page order.
fn multiline(seen: &Seen, several: bool) -> Vec<&Element> {
    seen.all_of("textbox").into_iter().filter(|e| e.has_state("multiline") == several).collect()
}

/// "Search for action movies directed by Smith from year 1999.": each field found by the
/// words of its label (`Genre`, `Movie Genre`; `Director`, `Director Name`; `Year`,
/// `Released Date`), then the form's one submitting control.
fn movie_search(seen: &Seen) -> Result<Vec<Step>, String> {
    let task = &seen.task;
    let genre = super::more::between(task, "Search for ", " movies").ok_or("no genre")?;
    let director = super::more::between(task, "directed by ", " from year").ok_or("no director")?;
    let year = task
        .split_once("from year ")
        .map(|(_, y)| y.trim_end_matches('.').trim().to_owned())
        .ok_or("no year")?;
    let field = |words: &'static [&'static str]| -> Result<String, String> {
        seen.all_of("textbox")
            .into_iter()
            .find(|e| words.iter().any(|w| e.name.to_lowercase().contains(w)))
            .map(|e| e.reference.clone())
            .ok_or_else(|| format!("no field named {words:?} (it shows: {})", seen.inventory()))
    };
    let submit = seen
        .elements
        .iter()
        .find(|e| {
            matches!(e.role.as_str(), "button" | "clickable")
                && matches!(e.name.trim(), "Submit" | "Search" | "Go!")
        })
        .ok_or_else(|| format!("no submitting control (it shows: {})", seen.inventory()))?;
    Ok(vec![
        Step::Type(Target::Ref(field(&["genre"])?), genre),
        Step::Type(Target::Ref(field(&["director"])?), director),
        Step::Type(Target::Ref(field(&["year", "date"])?), year),
        Step::Click(Target::Ref(submit.reference.clone())),
    ])
}
