//! Oracle navigators: scripted models that solve a task the way a careful person reading the
//! observation would — each step names its element by role and name as the page shows it, and
//! the oracle looks that name up in what the model is sent ([`Seen`]), never in the DOM.
//!
//! Each step is issued once. There are no retries: an action the extension reported as done
//! that had no effect shows up as a failed check, and an element the task needs that the
//! observation lacks (or leaves unnamed) ends the task at once with that reason.
//!
//! The planner, validator and summariser roles get neutral answers (a one-step plan, a
//! confirmation, no summary), told apart by the tool each is offered.

use super::seen::{Element, Seen};
use crate::llm_server::{RecordedRequest, ScriptedReply};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// Names the element a step acts on.
pub enum Target {
    /// The element of this role with this name.
    Named(&'static str, String),
    /// The only element of this role on the page (a lone unlabelled field, say).
    Only(&'static str),
    /// The element of this role whose name contains these words (case-insensitive).
    NameHas(&'static str, String),
    /// The element named this way with any of these roles (a link drawn as a clickable span).
    AnyOf(&'static [&'static str], String),
    /// A ref the oracle picked from the observation when it planned (one of two unnamed
    /// fields, say).
    Ref(String),
    /// The n-th (from 0) element of this role, in page order, when the step is taken (the
    /// 2nd search result, the 1st textbox).
    Nth(&'static str, usize),
    /// The first element of this role whose name has these words, after the element `anchor`
    /// names (the trash icon of the email by Ann: the controls of a row follow it).
    After(Box<Target>, &'static str, String),
    /// The element of this role with the shortest name that passes the test (an option that
    /// starts with "Be" and ends with "nin", not the list that holds it).
    Matching(&'static str, NameTest),
}

/// A test on an element's name.
pub type NameTest = Box<dyn Fn(&str) -> bool + Send>;

impl Target {
    /// The element of `role` named `name`.
    pub fn named(role: &'static str, name: impl Into<String>) -> Self {
        Target::Named(role, name.into())
    }

    /// The element this target names in what the model is shown.
    pub fn resolve<'a>(&self, seen: &'a Seen) -> Result<&'a Element, String> {
        let found = match self {
            Target::Named(role, name) => seen.find(role, name),
            Target::Only(role) => seen.only(role),
            Target::NameHas(role, words) => {
                let words = words.to_lowercase();
                seen.elements
                    .iter()
                    .find(|e| e.role == *role && e.name.to_lowercase().contains(&words))
            }
            Target::AnyOf(roles, name) => roles.iter().find_map(|role| seen.find(role, name)),
            Target::Ref(r) => seen.elements.iter().find(|e| e.reference == *r),
            Target::Nth(role, n) => seen.all_of(role).get(*n).copied(),
            Target::After(anchor, role, words) => {
                let anchor = anchor.resolve(seen)?;
                let words = words.to_lowercase();
                seen.elements
                    .iter()
                    .skip_while(|e| e.reference != anchor.reference)
                    .skip(1)
                    .find(|e| e.role == *role && e.name.to_lowercase().contains(&words))
            }
            // The most specific: a list's own name holds all its items' names.
            Target::Matching(role, test) => seen
                .elements
                .iter()
                .filter(|e| e.role == *role && test(&e.name))
                .min_by_key(|e| e.name.chars().count()),
        };
        found.ok_or_else(|| {
            format!(
                "the observation of {} has no {} (it shows: {})",
                if seen.url.is_empty() { "the page" } else { &seen.url },
                self.describe(),
                seen.inventory()
            )
        })
    }

    fn describe(&self) -> String {
        match self {
            Target::Named(role, name) => format!("{role} named {name:?}"),
            Target::Only(role) => format!("single {role}"),
            Target::NameHas(role, words) => format!("{role} whose name has {words:?}"),
            Target::AnyOf(roles, name) => format!("{} named {name:?}", roles.join(" or ")),
            Target::Ref(r) => format!("element [{r}]"),
            Target::Nth(role, n) => format!("{role} number {} in page order", n + 1),
            Target::After(anchor, role, words) => {
                format!("{role} whose name has {words:?} after the {}", anchor.describe())
            }
            Target::Matching(role, _) => format!("{role} whose name the task describes"),
        }
    }
}

/// Reads the final answer from what the model is shown; `Err` says what was missing.
pub type AnswerFn = Box<dyn Fn(&Seen) -> Result<String, String> + Send>;

/// One step of a scripted oracle.
pub enum Step {
    /// Click the target.
    Click(Target),
    /// Type text into the target (replacing its value).
    Type(Target, String),
    /// Choose an option of the target (a select) by its label.
    Select(Target, String),
    /// Check a box or a radio.
    Check(Target),
    /// Press keys on the target.
    Press(Target, String),
    /// Select these words inside the target (an editor).
    SelectText(Target, String),
    /// Put the attached file (by its name) into the target file input.
    Upload(Target, String),
    /// Drag the first target onto the second.
    Drag(Target, Target),
    /// Move the pointer over the target (a menu that opens on hover).
    Hover(Target),
    /// Scroll the target (`down`, `up`, `top`, `bottom`).
    Scroll(Target, &'static str),
    /// Wait until this text is gone from the page (a "Loading…" line).
    WaitGone(String),
    /// End the task with the answer read from the page.
    Answer(AnswerFn),
    /// Stop, saying why the task cannot be done here (read from the page).
    GiveUp(AnswerFn),
}

/// What an oracle does on one navigator call.
#[derive(Debug, Clone, PartialEq)]
pub enum Move {
    /// Call this tool with these arguments.
    Act(&'static str, Value),
    /// End the task.
    Done {
        /// The answer.
        answer: String,
        /// Whether the oracle thinks it succeeded.
        success: bool,
    },
}

/// A scripted navigator for one task.
pub trait Oracle: Send {
    /// The next move, given what the model is shown now.
    fn next(&mut self, seen: &Seen) -> Move;
}

/// Builds the steps from the first observation (the task's words, the notes, the page).
pub type Planner = Box<dyn FnOnce(&Seen) -> Result<Vec<Step>, String> + Send>;

/// An oracle that plans its steps once, then issues them one per call.
pub struct Script {
    plan: Option<Planner>,
    steps: VecDeque<Step>,
    /// Give up once a step is reported failed, as a model reading its step history would
    /// (else the script goes on to the page's save button after a choice that did not take).
    stop_on_failure: bool,
}

impl Script {
    /// Fixed steps.
    pub fn new(steps: Vec<Step>) -> Self {
        Script { plan: None, steps: steps.into(), stop_on_failure: false }
    }

    /// Steps that depend on the task's words or the page (MiniWoB's utterance, session notes).
    pub fn planned(plan: impl FnOnce(&Seen) -> Result<Vec<Step>, String> + Send + 'static) -> Self {
        Script { plan: Some(Box::new(plan)), steps: VecDeque::new(), stop_on_failure: false }
    }

    /// This script, giving up as soon as the step history reports a failed step.
    pub fn stopping_on_failure(mut self) -> Self {
        self.stop_on_failure = true;
        self
    }
}

fn give_up(why: String) -> Move {
    Move::Done { answer: format!("Oracle cannot go on: {why}"), success: false }
}

impl Oracle for Script {
    fn next(&mut self, seen: &Seen) -> Move {
        if self.stop_on_failure
            && let Some(failed) = &seen.last_failed
        {
            return give_up(format!("the last step failed: {failed}"));
        }
        if let Some(plan) = self.plan.take() {
            match plan(seen) {
                Ok(steps) => self.steps = steps.into(),
                Err(why) => return give_up(why),
            }
        }
        let Some(step) = self.steps.pop_front() else {
            return Move::Done { answer: "Done.".into(), success: true };
        };
        let act = |target: &Target, tool: &'static str, extra: Value| match target.resolve(seen) {
            Ok(e) => {
                let mut args = json!({"ref": e.reference});
                if let (Some(args), Value::Object(extra)) = (args.as_object_mut(), extra) {
                    args.extend(extra);
                }
                Move::Act(tool, args)
            }
            Err(why) => give_up(why),
        };
        match &step {
            Step::Click(t) => act(t, "click", json!({})),
            Step::Type(t, text) => act(t, "type", json!({"text": text})),
            Step::Select(t, option) => act(t, "select_option", json!({"option": option})),
            Step::Check(t) => act(t, "check", json!({})),
            Step::Press(t, keys) => act(t, "press_keys", json!({"keys": keys})),
            // The model's tool: `click` with `select` selects words inside the element.
            Step::SelectText(t, words) => act(t, "click", json!({"select": words})),
            Step::Upload(t, file) => act(t, "upload", json!({"file": file})),
            Step::Drag(from, to) => match to.resolve(seen) {
                // The model's tool: `click` with `to` drags.
                Ok(onto) => act(from, "click", json!({"to": onto.reference})),
                Err(why) => give_up(why),
            },
            Step::Hover(t) => act(t, "hover", json!({})),
            Step::Scroll(t, direction) => act(t, "scroll", json!({"direction": direction})),
            Step::WaitGone(text) => {
                Move::Act("wait", json!({"text": text, "gone": true, "seconds": 10}))
            }
            Step::Answer(read) => match read(seen) {
                Ok(answer) => Move::Done { answer, success: true },
                Err(why) => give_up(why),
            },
            Step::GiveUp(read) => match read(seen) {
                Ok(answer) => Move::Done { answer, success: false },
                Err(why) => give_up(why),
            },
        }
    }
}

/// The oracle of the task running now, shared with the scripted LLM server's thread.
#[derive(Clone, Default)]
pub struct OracleSlot(Arc<Mutex<Option<Box<dyn Oracle>>>>);

impl OracleSlot {
    /// Puts `oracle` in charge of the next navigator calls.
    pub fn set(&self, oracle: Box<dyn Oracle>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(oracle);
    }

    /// The reply to one request of the scripted LLM server.
    pub fn reply(&self, req: &RecordedRequest) -> ScriptedReply {
        let tools = req.tool_names();
        let offers = |name: &str| tools.iter().any(|t| t == name);
        if offers("plan") {
            return ScriptedReply::tool_call(
                "plan",
                json!({"questions": [], "steps": [{"phase": "working", "goal": "do the task"}]}),
            );
        }
        if offers("verdict") {
            return ScriptedReply::tool_call(
                "verdict",
                json!({"confirmed": true, "reason": "the page shows it"}),
            );
        }
        if !offers("click") {
            // The summariser (no tools): the session falls back to its extractive summary.
            return ScriptedReply::text("no summary");
        }
        let seen = Seen::from_request(req);
        if let Some(path) = std::env::var_os("WAYMARK_EVAL_DUMP") {
            // What the oracle was shown, call after call, for explaining a failure.
            use std::io::Write;
            if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
                #[allow(clippy::let_underscore_must_use, reason = "a debugging aid only")]
                let _ = writeln!(f, "=====\n{}", req.last_user_text().unwrap_or_default());
            }
        }
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let decided = match slot.as_mut() {
            Some(oracle) => oracle.next(&seen),
            None => give_up("no oracle for this task".into()),
        };
        match decided {
            Move::Act(tool, args) => ScriptedReply::tool_call(tool, args),
            Move::Done { answer, success } => {
                ScriptedReply::tool_call("done", json!({"answer": answer, "success": success}))
            }
        }
    }
}

/// The text following `label` on a page text line (`Price: $34.50` → `$34.50`).
pub fn value_after(seen: &Seen, label: &str) -> Option<String> {
    seen.text.iter().find_map(|l| l.split_once(label).map(|(_, v)| v.trim().to_owned()))
}

/// The words between the first pair of straight double quotes in `s`.
pub fn quoted(s: &str) -> Option<String> {
    let start = s.find('"')? + 1;
    let end = s[start..].find('"')? + start;
    Some(s[start..end].to_owned())
}

/// Every quoted string in `s`, in order.
pub fn all_quoted(s: &str) -> Vec<String> {
    s.split('"').skip(1).step_by(2).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(page: &str) -> Seen {
        let user = format!("Task: t\n<page_content id=x>\n{page}\n</page_content id=x>\n");
        Seen::from_text(&user, user.clone())
    }

    #[test]
    fn a_script_acts_once_per_step_and_gives_up_on_a_missing_element() {
        let mut s = Script::new(vec![
            Step::Type(Target::named("textbox", "Name"), "Ada".into()),
            Step::Click(Target::named("button", "Save")),
            Step::Click(Target::named("button", "Next")),
        ]);
        let page = seen("[1] textbox Name\n[2] button Save");
        assert_eq!(s.next(&page), Move::Act("type", json!({"ref": "1", "text": "Ada"})));
        assert_eq!(s.next(&page), Move::Act("click", json!({"ref": "2"})));
        match s.next(&page) {
            Move::Done { success: false, answer } => {
                assert!(answer.contains("button named \"Next\""), "{answer}");
                assert!(answer.contains("textbox \"Name\""), "{answer}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(s.next(&page), Move::Done { success: true, .. }), "nothing left");
    }

    #[test]
    fn quotes_are_read_from_instructions() {
        assert_eq!(quoted("Click on the \"ok\" button.").as_deref(), Some("ok"));
        assert_eq!(all_quoted("user \"ann\" and password \"x1\""), vec!["ann", "x1"]);
        let page = seen("Total: 42 EUR\n[1] button Go");
        assert_eq!(value_after(&page, "Total:").as_deref(), Some("42 EUR"));
    }
}
