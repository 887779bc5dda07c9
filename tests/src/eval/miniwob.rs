//! The `miniwob` suite: MiniWoB++ task pages as the `miniwob` package on PyPI ships them
//! (`cargo xtask setup` unpacks the wheel into the tools cache), served on 127.0.0.1.
//!
//! Each episode starts the way the package's own environment starts it — a seed, then
//! `core.startEpisodeReal()` — with the episode's time limit raised to the task's time budget;
//! the task's words are the page's utterance, and success is the raw reward the page's own
//! JavaScript gives when it ends the episode (positive = success, MiniWoB's convention).

use super::oracle::{Oracle, Script, Step, Target, all_quoted, quoted};
use super::task::{ByHand, Check, EvalTask, Prompt, SuiteName};
use std::path::PathBuf;

mod fields;
mod more;

/// The `miniwob` package version `cargo xtask setup` installs.
pub const MINIWOB_VERSION: &str = "1.1.0";

/// Environment variable naming the unpacked package's `miniwob/html` folder.
pub const MINIWOB_DIR_ENV: &str = "WAYMARK_MINIWOB_DIR";

/// The `html` folder of the unpacked package: `WAYMARK_MINIWOB_DIR`, else where `cargo xtask
/// setup` puts it in the tools cache.
pub fn html_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(MINIWOB_DIR_ENV) {
        return PathBuf::from(dir);
    }
    crate::paths::tools_dir()
        .join("python")
        .join(format!("miniwob-{MINIWOB_VERSION}"))
        .join("miniwob")
        .join("html")
}

/// The tasks `--suite miniwob` runs unless `--tasks` names others: the MiniWoB++ tasks that
/// a DOM-reading agent can do (no drawing, dragging or reading pictures), as commonly
/// reported for LLM agents.
pub const DEFAULT_TASKS: &[&str] = &[
    "click-button",
    "click-button-sequence",
    "click-checkboxes",
    "click-collapsible",
    "click-dialog",
    "click-dialog-2",
    "click-link",
    "click-option",
    "click-tab",
    "click-tab-2",
    "click-widget",
    "choose-list",
    "enter-date",
    "enter-password",
    "enter-text",
    "enter-text-2",
    "enter-time",
    "focus-text",
    "focus-text-2",
    "login-user",
    "navigate-tree",
    "search-engine",
    "use-autocomplete",
    "email-inbox",
];

/// The task `name` (a page `miniwob/<name>.html` of the package).
pub fn task(name: &str) -> EvalTask {
    EvalTask {
        id: name.to_owned(),
        suite: SuiteName::MiniWob,
        start: format!("/miniwob/{name}.html"),
        prompt: Prompt::FromPage,
        resources: Vec::new(),
        check: Check::Reward,
        session: None,
        known_failure: known_failure(name),
        by_hand: matches!(name, "enter-password" | "login-user").then_some(ByHand::TypePassword),
    }
}

/// Why a MiniWoB task fails with the oracle today (each a defect or a design choice the
/// evaluation found, explained); none is known now.
pub fn known_failure(_name: &str) -> Option<&'static str> {
    None
}

/// Every task page the package ships (for `--tasks all`).
pub fn all_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(html_dir().join("miniwob"))
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str()?.strip_suffix(".html").map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// JavaScript that starts one episode on a loaded task page: records the first end of the
/// episode (the page's own `core.endEpisode` call) in `window.__waymarkEpisode`, seeds the
/// page's random generator, raises the time limit to `limit_ms` and starts the episode.
/// Returns the utterance.
pub fn start_episode_js(seed: &str, limit_ms: u64) -> String {
    format!(
        "(() => {{
  window.__waymarkEpisode = null;
  const end = core.endEpisode;
  core.endEpisode = function (reward, timeProportional, reason) {{
    if (window.__waymarkEpisode === null && core.EP_TIMER !== null) {{
      window.__waymarkEpisode = {{ reward: Number(reward), reason: String(reason ?? '') }};
    }}
    return end.apply(this, arguments);
  }};
  Math.seedrandom({seed});
  core.EPISODE_MAX_TIME = {limit_ms};
  core.startEpisodeReal();
  const u = core.getUtterance();
  return typeof u === 'string' ? u : u.utterance;
}})()",
        seed = serde_json::to_string(seed).unwrap_or_else(|_| "\"0\"".to_owned())
    )
}

/// JavaScript answering the episode's end as JSON text (`null` while it runs).
pub const EPISODE_JS: &str = "JSON.stringify(window.__waymarkEpisode ?? null)";

/// How an episode ended, as the page said.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Episode {
    /// The raw reward (before the time discount): > 0 is a success.
    pub reward: f64,
    /// The page's reason, when it gives one (`timed out`).
    pub reason: String,
}

/// The oracle navigator of MiniWoB task `name`, for the tasks that have one.
pub fn oracle(name: &str) -> Option<Box<dyn Oracle>> {
    let script = match name {
        "click-button" => Script::planned(move |seen| {
            let label = quoted(&seen.task).ok_or("no button named in the task")?;
            Ok(vec![Step::Click(Target::named("button", label))])
        }),
        "click-link" => Script::planned(move |seen| {
            let label = quoted(&seen.task).ok_or("no link named in the task")?;
            // The page's links are underlined spans with a click listener: clickable, not link.
            Ok(vec![Step::Click(Target::AnyOf(&["link", "clickable"], label))])
        }),
        "enter-text" => Script::planned(|seen| {
            let text = quoted(&seen.task).ok_or("no text in the task")?;
            Ok(vec![
                Step::Type(Target::Only("textbox"), text),
                Step::Click(Target::named("button", "Submit")),
            ])
        }),
        "enter-password" => Script::planned(|seen| {
            let password = quoted(&seen.task).ok_or("no password in the task")?;
            // Both fields are unlabelled password boxes; the page lists them in order.
            let fields: Vec<String> =
                seen.all_of("textbox").iter().map(|e| e.reference.clone()).collect();
            if fields.len() != 2 {
                return Err(format!("expected two password fields, saw {}", seen.inventory()));
            }
            Ok(vec![
                Step::Type(Target::Ref(fields[0].clone()), password.clone()),
                Step::Type(Target::Ref(fields[1].clone()), password),
                Step::Click(Target::named("button", "Submit")),
            ])
        }),
        "login-user" => Script::planned(|seen| {
            let words = all_quoted(&seen.task);
            let [user, password] = words.as_slice() else {
                return Err("no user name and password in the task".into());
            };
            Ok(vec![
                Step::Type(Target::named("textbox", "Username"), user.clone()),
                Step::Type(Target::named("textbox", "Password"), password.clone()),
                Step::Click(Target::named("button", "Login")),
            ])
        }),
        "focus-text" => Script::new(vec![Step::Click(Target::Only("textbox"))]),
        "click-dialog" => Script::new(vec![Step::Click(Target::named("button", "Close"))]),
        "click-checkboxes" | "click-checkboxes-large" | "click-checkboxes-transfer" => {
            Script::planned(|seen| {
                // "Select words, more and click Submit." (or "Select nothing and click Submit.")
                let list = seen
                    .task
                    .strip_prefix("Select ")
                    .and_then(|t| t.strip_suffix(" and click Submit."))
                    .ok_or("the task does not read Select … and click Submit.")?;
                let mut steps: Vec<Step> = list
                    .split(", ")
                    .filter(|w| !w.is_empty() && *w != "nothing")
                    .map(|w| Step::Check(Target::named("checkbox", w)))
                    .collect();
                steps.push(Step::Click(Target::named("button", "Submit")));
                Ok(steps)
            })
        }
        "click-option" => Script::planned(|seen| {
            let option = seen
                .task
                .strip_prefix("Select ")
                .and_then(|t| t.strip_suffix(" and click Submit."))
                .ok_or("the task does not read Select … and click Submit.")?
                .to_owned();
            Ok(vec![
                Step::Check(Target::named("radio", option)),
                Step::Click(Target::named("button", "Submit")),
            ])
        }),
        "choose-list" => Script::planned(|seen| {
            let option = seen
                .task
                .strip_prefix("Select ")
                .and_then(|t| t.strip_suffix(" from the list and click Submit."))
                .ok_or("the task does not read Select … from the list and click Submit.")?
                .to_owned();
            let list = seen.only("combobox").ok_or("no single list on the page")?;
            Ok(vec![
                Step::Select(Target::Ref(list.reference.clone()), option),
                Step::Click(Target::named("button", "Submit")),
            ])
        }),
        "click-tab" => Script::planned(|seen| {
            let n = seen
                .task
                .strip_prefix("Click on Tab #")
                .and_then(|t| t.strip_suffix('.'))
                .ok_or("the task does not name a tab")?
                .to_owned();
            Ok(vec![Step::Click(Target::NameHas("tab", n))])
        }),
        "enter-date" => Script::planned(|seen| {
            // "Enter 03/14/2016 as the date and hit submit." → the input's own format.
            let date = seen
                .task
                .strip_prefix("Enter ")
                .and_then(|t| t.split_whitespace().next())
                .ok_or("no date in the task")?;
            let parts: Vec<&str> = date.split('/').collect();
            let [m, d, y] = parts.as_slice() else { return Err(format!("not a date: {date}")) };
            Ok(vec![
                Step::Type(Target::Only("textbox"), format!("{y}-{m}-{d}")),
                Step::Click(Target::named("button", "Submit")),
            ])
        }),
        _ => return more::oracle(name).or_else(|| fields::oracle(name)),
    };
    Some(Box::new(script))
}

/// The MiniWoB tasks with an oracle (the ones the oracle suite runs).
pub const ORACLE_TASKS: &[&str] = &[
    "click-button",
    "click-link",
    "enter-text",
    "enter-password",
    "login-user",
    "focus-text",
    "click-dialog",
    "click-checkboxes",
    "click-option",
    "choose-list",
    "click-tab",
    "enter-date",
    "click-test",
    "click-test-2",
    "click-test-transfer",
    "click-button-sequence",
    "click-collapsible",
    "click-collapsible-2",
    "click-dialog-2",
    "click-tab-2",
    "click-tab-2-easy",
    "click-tab-2-medium",
    "click-tab-2-hard",
    "click-menu",
    "click-menu-2",
    "click-checkboxes-large",
    "click-checkboxes-transfer",
    "unicode-test",
    "enter-text-2",
    "enter-text-dynamic",
    "enter-time",
    "focus-text-2",
    "use-spinner",
    "use-autocomplete",
    "sign-agreement",
    "find-greatest",
    "find-word",
    "read-table",
    "read-table-2",
    "simple-arithmetic",
    "simple-algebra",
    "form-sequence-2",
    "odd-or-even",
    "search-engine",
    "navigate-tree",
    "email-inbox",
    "email-inbox-reply",
    "email-inbox-forward",
    "email-inbox-delete",
    "email-inbox-important",
    "email-inbox-star-reply",
    "email-inbox-noscroll",
    "multi-layouts",
    "multi-orderings",
    "click-widget",
    "copy-paste",
    "copy-paste-2",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_oracle_task_has_an_oracle_and_the_js_seeds() {
        for t in ORACLE_TASKS {
            assert!(oracle(t).is_some(), "{t}");
        }
        let js = start_episode_js("click-button-1", 120_000);
        assert!(js.contains("Math.seedrandom(\"click-button-1\")"), "{js}");
        assert!(js.contains("core.EPISODE_MAX_TIME = 120000"), "{js}");
    }
}
