//! The side panel's routines: the list (what each runs, when, its last runs) and the form that
//! schedules a saved workflow. The form comes back as typed fields; whether it makes a routine
//! is decided here.

use crate::routine::{
    CardInRun, MissedRuns, NotifyWhen, Routine, RoutineJob, RunEnding, Schedule, TimeOfDay, Weekday,
};
use serde::{Deserialize, Serialize};

/// What is wrong with a routine's form, in the user's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoutineFormError {
    /// A task routine needs the page it starts on.
    #[error("give the page the task starts on")]
    NoStartPage,
    /// The start page is not an http(s) address.
    #[error("“{0}” is not a web page address (http or https)")]
    NotWebAddress(String),
    /// A task routine with no words.
    #[error("write the task it does")]
    NoTask,
    /// The time of day does not read as one.
    #[error("“{0}” is not a time of day (write it as 08:30)")]
    NotTime(String),
    /// A weekly routine without its day.
    #[error("choose the day of the week it runs")]
    NoDay,
    /// A limit without the finding it applies to.
    #[error("name the finding the limit applies to (its key, e.g. price)")]
    NoKey,
    /// A limit that is not a number.
    #[error("“{0}” is not a number")]
    NotNumber(String),
}

/// How often, as the form says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Every {
    /// Every hour (at the form's minute).
    Hour,
    /// Every day.
    Day,
    /// Monday to Friday.
    Weekday,
    /// Once a week (on the form's day).
    Week,
}

/// When to tell the user, as the form says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum NotifyChoice {
    /// Any finding changes.
    Changes,
    /// A finding's number drops below the limit.
    Below,
    /// A finding's number rises above the limit.
    Above,
    /// Every run.
    EveryRun,
}

/// The schedule form: of a saved workflow, or of a task in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RoutineForm {
    /// What it runs.
    pub job: RoutineJob,
    /// The page its tab opens (required for a task; a workflow starts on its first page).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub start_url: String,
    /// How often.
    pub every: Every,
    /// The time of day, `HH:MM` (for hourly runs, only the minutes count).
    pub at: String,
    /// The day, for weekly runs.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub day: Option<Weekday>,
    /// When to notify.
    pub notify: NotifyChoice,
    /// The finding a limit applies to.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub key: String,
    /// The limit, as typed.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub limit: String,
    /// Runs missed while the browser was closed.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub missed: MissedRuns,
    /// What a card does to a run.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub on_card: CardInRun,
}

impl RoutineForm {
    /// The routine the form describes, named `name` (the workflow's; a task's is its words),
    /// or what is wrong with it (in the user's words).
    pub fn routine(
        &self,
        id: String,
        name: &str,
        now_ms: f64,
        offset_minutes: i32,
    ) -> Result<Routine, RoutineFormError> {
        use RoutineFormError as E;
        let start_url = match self.start_url.trim() {
            "" if matches!(self.job, RoutineJob::Task { .. }) => return Err(E::NoStartPage),
            "" => None,
            url => match url::Url::parse(url) {
                Ok(u) if matches!(u.scheme(), "http" | "https") => Some(u.to_string()),
                _ => return Err(E::NotWebAddress(url.to_owned())),
            },
        };
        if let RoutineJob::Task { prompt } = &self.job
            && prompt.trim().is_empty()
        {
            return Err(E::NoTask);
        }
        let at = parse_time(&self.at).ok_or_else(|| E::NotTime(self.at.clone()))?;
        let schedule = match self.every {
            Every::Hour => Schedule::Hour { minute: at.minute },
            Every::Day => Schedule::Day { at },
            Every::Weekday => Schedule::Weekday { at },
            Every::Week => Schedule::Week { day: self.day.ok_or(E::NoDay)?, at },
        };
        let key = self.key.trim().to_owned();
        let limit = || {
            if key.is_empty() {
                return Err(E::NoKey);
            }
            crate::routine::number_in(&self.limit).ok_or_else(|| E::NotNumber(self.limit.clone()))
        };
        let notify = match self.notify {
            NotifyChoice::Changes => NotifyWhen::Changes,
            NotifyChoice::EveryRun => NotifyWhen::EveryRun,
            NotifyChoice::Below => NotifyWhen::Below { limit: limit()?, key: key.clone() },
            NotifyChoice::Above => NotifyWhen::Above { limit: limit()?, key: key.clone() },
        };
        let name = match &self.job {
            RoutineJob::Task { prompt } => waymark_page::observation::shorten(prompt.trim(), 60),
            RoutineJob::Workflow { .. } => name.to_owned(),
        };
        Ok(Routine {
            id,
            name,
            job: self.job.clone(),
            start_url,
            next_ms: schedule.next_after(now_ms, offset_minutes),
            schedule,
            notify,
            on_card: self.on_card,
            missed: self.missed,
            paused: false,
            history: Vec::new(),
        })
    }
}

/// `HH:MM` (or `H:MM`) as a time of day.
fn parse_time(text: &str) -> Option<TimeOfDay> {
    let (hour, minute) = text.trim().split_once(':')?;
    TimeOfDay::new(hour.trim().parse().ok()?, minute.trim().parse().ok()?)
}

/// Everything the panel shows about routines.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RoutinesView {
    /// Every routine.
    #[serde(default)]
    pub list: Vec<RoutineItem>,
    /// Why the last change failed.
    #[serde(default)]
    pub error: Option<String>,
    /// What the last change did.
    #[serde(default)]
    pub notice: Option<String>,
}

/// One routine in the list, in words.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RoutineItem {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// "every day at 08:00 · tells you when price drops below 40".
    pub plan: String,
    /// Paused.
    pub paused: bool,
    /// When it runs next (ms since the epoch; the panel writes it in the user's locale).
    pub next_ms: f64,
    /// Its latest runs, newest first, one line each.
    pub runs: Vec<String>,
}

/// The list the panel draws.
pub fn list(routines: &[Routine]) -> Vec<RoutineItem> {
    routines
        .iter()
        .map(|r| RoutineItem {
            id: r.id.clone(),
            name: r.name.clone(),
            plan: format!("{} · tells you {}", r.schedule.describe(), r.notify.describe()),
            paused: r.paused,
            next_ms: r.next_ms,
            runs: r.history.iter().rev().take(5).map(run_line).collect(),
        })
        .collect()
}

fn run_line(run: &crate::routine::RoutineRun) -> String {
    let seconds = run.duration_ms / 1000.0;
    let what = match run.ending {
        RunEnding::Done if run.changes.is_empty() => "done, no change".to_owned(),
        RunEnding::Done => {
            let changes: Vec<String> =
                run.changes.iter().map(crate::routine::FindingChange::describe).collect();
            format!("done: {}", changes.join("; "))
        }
        RunEnding::Failed => format!("failed: {}", run.answer),
        RunEnding::Stopped => format!("stopped: {}", run.answer),
    };
    let cost = match run.tokens {
        0 => String::new(),
        tokens => format!(", {}", crate::text::counted(tokens, "token")),
    };
    waymark_page::observation::shorten(&format!("{what} ({seconds:.1} s{cost})"), 200)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn form(every: Every, at: &str, notify: NotifyChoice, limit: &str) -> RoutineForm {
        RoutineForm {
            job: RoutineJob::Workflow { id: "w1".into(), values: BTreeMap::new() },
            start_url: String::new(),
            every,
            at: at.into(),
            day: None,
            notify,
            key: "price".into(),
            limit: limit.into(),
            missed: MissedRuns::RunOnce,
            on_card: CardInRun::Wait,
        }
    }

    #[test]
    fn the_form_makes_a_routine_or_says_what_is_wrong() {
        let ok = form(Every::Day, "8:05", NotifyChoice::Below, "€40")
            .routine("r".into(), "Teapot", 0.0, 0)
            .expect("valid");
        assert_eq!(ok.schedule, Schedule::Day { at: TimeOfDay::new(8, 5).expect("t") });
        assert_eq!(ok.notify, NotifyWhen::Below { key: "price".into(), limit: 40.0 });
        assert_eq!(ok.next_ms, 8.0 * 3_600_000.0 + 5.0 * 60_000.0);
        let mut ok = ok;
        let run = |tokens, ending| crate::routine::RoutineRun {
            started_ms: 0.0,
            duration_ms: 1500.0,
            ending,
            answer: "the page did not load".into(),
            findings: BTreeMap::new(),
            changes: Vec::new(),
            tokens,
        };
        ok.history = vec![
            run(0, crate::routine::RunEnding::Done),
            run(3400, crate::routine::RunEnding::Failed),
        ];
        let items = list(&[ok]);
        assert_eq!(items[0].plan, "every day at 08:05 · tells you when price drops below 40");
        assert_eq!(
            items[0].runs,
            vec!["failed: the page did not load (1.5 s, 3400 tokens)", "done, no change (1.5 s)"]
        );

        let bad_time = form(Every::Day, "25:00", NotifyChoice::Changes, "");
        assert!(
            bad_time
                .routine("r".into(), "T", 0.0, 0)
                .expect_err("refused")
                .to_string()
                .contains("time of day")
        );
        let no_day = form(Every::Week, "08:00", NotifyChoice::Changes, "");
        assert!(
            no_day
                .routine("r".into(), "T", 0.0, 0)
                .expect_err("refused")
                .to_string()
                .contains("day of the week")
        );
        let mut task = form(Every::Hour, "00:30", NotifyChoice::Changes, "");
        task.job = RoutineJob::Task { prompt: "Check the  teapot's price".into() };
        assert!(
            task.routine("r".into(), "", 0.0, 0).expect_err("no page").to_string().contains("page")
        );
        task.start_url = "javascript:alert(1)".into();
        assert!(
            task.routine("r".into(), "", 0.0, 0).expect_err("bad").to_string().contains("web page")
        );
        task.start_url = "https://shop.example/teapot".into();
        let hourly = task.routine("r".into(), "", 0.0, 0).expect("a task routine");
        assert_eq!(hourly.start_url.as_deref(), Some("https://shop.example/teapot"));
        assert_eq!(hourly.name, "Check the  teapot's price");
        assert_eq!(hourly.schedule, Schedule::Hour { minute: 30 });
        let no_limit = form(Every::Day, "08:00", NotifyChoice::Above, "lots");
        assert!(
            no_limit
                .routine("r".into(), "T", 0.0, 0)
                .expect_err("refused")
                .to_string()
                .contains("not a number")
        );
    }
}
