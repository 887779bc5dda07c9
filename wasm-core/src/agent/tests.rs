use super::*;
use crate::observation::{Element, Item};
use crate::protocol::{ErrorCode, ToolCall};
use std::cell::RefCell;
use std::collections::VecDeque;

struct ScriptedLlm {
    replies: RefCell<VecDeque<Result<LlmCompletion, ErrorBody>>>,
    seen: RefCell<Vec<LlmRequest>>,
}

impl ScriptedLlm {
    fn new(replies: Vec<Result<LlmCompletion, ErrorBody>>) -> Self {
        Self { replies: RefCell::new(replies.into()), seen: RefCell::new(Vec::new()) }
    }
}

impl Llm for ScriptedLlm {
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        self.seen.borrow_mut().push(request);
        self.replies.borrow_mut().pop_front().expect("the test scripted too few replies")
    }
}

/// A form page: [1] Name textbox, [2] Save button; Save records the name.
#[derive(Default)]
struct FakeForm {
    name: RefCell<String>,
    saved: RefCell<Option<String>>,
    acts: RefCell<u32>,
}

impl Page for FakeForm {
    async fn observe(&self) -> Result<Observation, String> {
        let mut items = vec![
            Item::Element(Element {
                ref_id: crate::observation::Ref::top(1),
                role: "textbox".into(),
                name: "Name".into(),
                value: Some(self.name.borrow().clone()),
                states: vec![],
                ..Element::default()
            }),
            Item::Element(Element {
                ref_id: crate::observation::Ref::top(2),
                role: "button".into(),
                name: "Save".into(),
                ..Element::default()
            }),
        ];
        if let Some(saved) = &*self.saved.borrow() {
            items.push(Item::Text {
                text: format!("Saved: {saved}"),
                heading: None,
                zone: Default::default(),
            });
        }
        Ok(Observation {
            url: "http://x/".into(),
            title: "Form".into(),
            items,
            engine: "fake".into(),
            ..Observation::default()
        })
    }

    async fn act(&self, action: &Action) -> Result<ActionOutcome, String> {
        *self.acts.borrow_mut() += 1;
        match action {
            Action::Type {
                ref_id: crate::observation::Ref { frame: 0, index: 1 }, text, ..
            } => {
                *self.name.borrow_mut() = text.clone();
                Ok(ActionOutcome { value_changed: true, ..ActionOutcome::done() })
            }
            Action::Click { ref_id: crate::observation::Ref { frame: 0, index: 2 } } => {
                *self.saved.borrow_mut() = Some(self.name.borrow().clone());
                Ok(ActionOutcome::done())
            }
            other => Ok(ActionOutcome::failed(format!("cannot {other:?}"))),
        }
    }
}

struct FixedEnv;
impl Env for FixedEnv {
    fn now_ms(&self) -> f64 {
        1000.0
    }
    fn random_u64(&self) -> u64 {
        0xfeed
    }
}

#[derive(Default)]
struct Recorder(RefCell<Vec<TaskEvent>>);
impl TaskEvents for Recorder {
    fn emit(&self, event: TaskEvent) {
        self.0.borrow_mut().push(event);
    }
}

fn calls(calls: &[(&str, &str)]) -> Result<LlmCompletion, ErrorBody> {
    Ok(LlmCompletion {
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
    })
}

fn run(llm: &ScriptedLlm, page: &FakeForm, events: &Recorder) -> TaskOutcome {
    futures::executor::block_on(run_task("Fill Ada and save", 5, llm, page, &FixedEnv, events))
}

#[test]
fn fills_the_form_and_finishes_with_the_models_answer() {
    let llm = ScriptedLlm::new(vec![
        calls(&[("type", r#"{"ref":1,"text":"Ada"}"#), ("click", r#"{"ref":2}"#)]),
        calls(&[("done", r#"{"answer":"Saved Ada.","success":true}"#)]),
    ]);
    let page = FakeForm::default();
    let events = Recorder::default();
    let outcome = run(&llm, &page, &events);
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(outcome.answer, "Saved Ada.");
    assert_eq!(outcome.steps.len(), 2);
    assert_eq!(outcome.steps[0].description, "Type “Ada” into “Name” [1]");
    assert_eq!(page.saved.borrow().as_deref(), Some("Ada"));
    let second = &llm.seen.borrow()[1];
    let user = &second.messages[1].content;
    assert!(user.contains("1. Type “Ada” into “Name” [1] → ok"), "{user}");
    assert!(user.contains("Saved: Ada"), "{user}");
    assert!(user.contains("<page_content id=000000000000feed>"), "{user}");
    assert!(matches!(events.0.borrow().last(), Some(TaskEvent::Finished(_))));
}

#[test]
fn garbage_twice_stops_with_a_clear_message_and_acts_on_nothing() {
    let garbage = || Ok(LlmCompletion { text: "lorem ipsum".into(), ..LlmCompletion::default() });
    let llm = ScriptedLlm::new(vec![garbage(), garbage()]);
    let page = FakeForm::default();
    let outcome = run(&llm, &page, &Recorder::default());
    assert!(!outcome.success);
    assert!(outcome.answer.contains("could not be understood"), "{}", outcome.answer);
    assert_eq!(*page.acts.borrow(), 0);
    let reask = &llm.seen.borrow()[1].messages[1].content;
    assert!(reask.contains("previous answer could not be used"), "{reask}");
}

#[test]
fn garbage_once_is_recovered_by_the_reask() {
    let llm = ScriptedLlm::new(vec![
        Ok(LlmCompletion { text: "hmm".into(), ..LlmCompletion::default() }),
        calls(&[("done", r#"{"answer":"nothing to do","success":true}"#)]),
    ]);
    let outcome = run(&llm, &FakeForm::default(), &Recorder::default());
    assert!(outcome.success);
}

#[test]
fn unknown_refs_are_refused_and_reported_back() {
    let llm = ScriptedLlm::new(vec![
        calls(&[("click", r#"{"ref":42}"#)]),
        calls(&[("done", r#"{"answer":"gave up","success":false}"#)]),
    ]);
    let page = FakeForm::default();
    let outcome = run(&llm, &page, &Recorder::default());
    assert_eq!(*page.acts.borrow(), 0, "a missing ref must never reach the page");
    let user = &llm.seen.borrow()[1].messages[1].content;
    assert!(user.contains("no element [42]"), "{user}");
    assert!(!outcome.success);
}

#[test]
fn host_errors_end_the_task_with_an_explanation() {
    let llm = ScriptedLlm::new(vec![Err(ErrorBody {
        code: ErrorCode::LlmUnreachable,
        message: "connection refused at http://127.0.0.1:1/v1".into(),
    })]);
    let outcome = run(&llm, &FakeForm::default(), &Recorder::default());
    assert!(outcome.answer.starts_with("The model endpoint could not be reached"));
    assert!(outcome.error.is_some());
}

#[test]
fn the_step_budget_is_enforced() {
    let llm = ScriptedLlm::new((0..5).map(|_| calls(&[("click", r#"{"ref":2}"#)])).collect());
    let outcome = run(&llm, &FakeForm::default(), &Recorder::default());
    assert_eq!(outcome.step_count, 5);
    assert!(outcome.answer.contains("Stopped after 5 steps"));
}
