//! Workflows natively: recorded from a real run of the agent loop on a fake shop, replayed
//! against the same loop with a model that counts its calls, healed, stopped, validated,
//! edited and stored.

mod demonstration;
mod imported;
mod replay;
mod shop;

use super::*;
use crate::agent::{
    Agent, Gate, Intervention, InterventionSettings, Journal, JournalEntry, JournalError, Operator,
    Reply, TaskEvent, TaskEvents, TaskSpec,
};
use crate::platform::{Env, Llm};
use crate::record::TaskOutcome;
use crate::session::TaskRecord;
use futures::executor::block_on;
pub use shop::{Shop, Variant};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use waymark_protocol::{ErrorBody, LlmCompletion, LlmRequest, ToolCall};

pub const TASK: &str = "Order a teapot for Ada Lovelace on 2026-03-14 with Express shipping";

/// A model whose navigator answers come from a queue; it counts every call by role.
#[derive(Default)]
pub struct Model {
    navigator: RefCell<VecDeque<LlmCompletion>>,
    pub seen: RefCell<Vec<LlmRequest>>,
}

impl Model {
    pub fn new(answers: Vec<LlmCompletion>) -> Self {
        Self { navigator: RefCell::new(answers.into()), seen: RefCell::default() }
    }

    pub fn calls(&self) -> usize {
        self.seen.borrow().len()
    }
}

impl Llm for Model {
    async fn complete(&self, request: LlmRequest) -> Result<LlmCompletion, ErrorBody> {
        let role = request.role.as_str().to_owned();
        self.seen.borrow_mut().push(request);
        Ok(match role.as_str() {
            "planner" => tools(&[("plan", r#"{"steps":[{"phase":"order","goal":"order it"}]}"#)]),
            "validator" => tools(&[("verdict", r#"{"confirmed":true,"reason":"placed"}"#)]),
            _ => {
                self.navigator.borrow_mut().pop_front().expect("the test scripted too few answers")
            }
        })
    }
}

pub fn tools(calls: &[(&str, &str)]) -> LlmCompletion {
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

/// A user who answers cards from a queue (approve by default) and remembers them.
#[derive(Default)]
pub struct User {
    pub answers: RefCell<VecDeque<Reply>>,
    pub cards: RefCell<Vec<Intervention>>,
    /// Stop at this gate (1-based), as the Stop button would.
    pub stop_at_gate: Option<u32>,
    gates: Cell<u32>,
}

impl User {
    pub fn answering(answers: Vec<Reply>) -> Self {
        Self { answers: RefCell::new(answers.into()), ..Self::default() }
    }
}

impl Operator for User {
    async fn gate(&self) -> Gate {
        self.gates.set(self.gates.get() + 1);
        if self.stop_at_gate == Some(self.gates.get()) {
            return Gate::Stop;
        }
        Gate::Go { after_takeover: false }
    }
    fn step_done(&self) {}
    async fn ask(&self, card: Intervention) -> Reply {
        self.cards.borrow_mut().push(card);
        self.answers.borrow_mut().pop_front().unwrap_or_else(Reply::approve)
    }
    fn settings(&self) -> InterventionSettings {
        InterventionSettings {
            questions: false,
            checkpoint: false,
            confidence: false,
            sub_goal: false,
            ..InterventionSettings::default()
        }
    }
    async fn stop_requested(&self) {
        std::future::pending::<()>().await;
    }
}

#[derive(Default)]
pub struct Clock(Cell<f64>);
impl Env for Clock {
    fn now_ms(&self) -> f64 {
        self.0.set(self.0.get() + 1.0);
        1_700_000_000_000.0 + self.0.get()
    }
    fn random_u64(&self) -> u64 {
        7
    }
}

#[derive(Default)]
pub struct Events(pub RefCell<Vec<TaskEvent>>);
impl TaskEvents for Events {
    fn emit(&self, event: TaskEvent) {
        self.0.borrow_mut().push(event);
    }
}

#[derive(Default)]
pub struct Entries(pub RefCell<Vec<JournalEntry>>);
impl Journal for Entries {
    async fn write(&self, entry: &JournalEntry) -> Result<(), JournalError> {
        self.0.borrow_mut().push(entry.clone());
        Ok(())
    }
}

/// Runs `spec` on `shop` with `model` and `user`; the outcome, the journal and the context.
pub fn run_task(
    shop: &Shop,
    model: &Model,
    user: &User,
    spec: TaskSpec,
) -> (TaskOutcome, Entries, crate::agent::TaskContext) {
    let (events, journal, env) = (Events::default(), Entries::default(), Clock::default());
    let agent = Agent {
        llm: model,
        page: shop,
        env: &env,
        events: &events,
        operator: user,
        journal: &journal,
    };
    let mut ctx = block_on(agent.start(spec)).expect("started");
    let outcome = block_on(agent.run(&mut ctx));
    (outcome, journal, ctx)
}

/// The task done once with the model: six actions over two pages (a card approved on the way).
pub fn recorded_task() -> TaskRecord {
    let shop = Shop::new(Variant::default());
    let model = Model::new(vec![
        tools(&[
            ("type", r#"{"ref":1,"text":"Ada Lovelace"}"#),
            ("type", r#"{"ref":2,"text":"2026-03-14"}"#),
            ("select_option", r#"{"ref":3,"option":"Express"}"#),
            ("check", r#"{"ref":4}"#),
            ("click", r#"{"ref":5}"#),
        ]),
        tools(&[("scroll", r#"{"direction":"down"}"#)]),
        tools(&[("click", r#"{"ref":1}"#)]),
        tools(&[("done", r#"{"answer":"Ordered.","success":true}"#)]),
    ]);
    let user = User::default();
    let (outcome, _, ctx) = run_task(&shop, &model, &user, TaskSpec::new(TASK));
    assert!(outcome.success, "{outcome:?}");
    assert_eq!(
        shop.placed.borrow().as_deref(),
        Some("Ada Lovelace on 2026-03-14 by Express, gift wrapped")
    );
    TaskRecord::noted(1, TASK, &outcome, 0.0, &ctx.taint)
}

/// The task of a run of `w` with the inputs `values` (the run's own checks, no validator).
pub fn spec(w: &Workflow, values: &[(&str, &str)]) -> TaskSpec {
    let given = values.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    let run = WorkflowRun::bind(w.clone(), given).expect("bound");
    TaskSpec {
        max_steps: run.max_steps(),
        validate: false,
        ..TaskSpec { workflow: Some(run.clone()), ..TaskSpec::new(run.task_text()) }
    }
}

/// Runs `w` on the unchanged shop (no model) and checks that it succeeded with exactly one
/// card, about `about`: the write its recorded words or demonstration did not grant.
pub fn asks_once_about(w: &Workflow, about: &str) {
    let user = User::default();
    let shop = Shop::new(Variant::default());
    let (outcome, _, _) = run_task(&shop, &Model::default(), &user, spec(w, &[]));
    assert!(outcome.success, "{outcome:?}");
    let cards = user.cards.borrow();
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert!(cards[0].message.contains(about), "{}", cards[0].message);
}

pub fn recorded() -> Workflow {
    record(&recorded_task(), "wf1".into(), 5.0).expect("recorded")
}

#[test]
fn a_finished_task_records_steps_with_locators_and_parameters_never_refs() {
    let w = recorded();
    assert_eq!(w.steps.len(), 6, "scrolling is not kept: {:#?}", w.steps);
    let names: Vec<&str> = w.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["full_name", "delivery_date", "shipping"]);
    assert_eq!(w.param("shipping").and_then(|p| p.default.as_deref()), Some("Express"));
    assert_eq!(
        w.task.as_str(),
        "Order a teapot for {{full_name}} on {{delivery_date}} with {{shipping}} shipping"
    );
    let intents: Vec<&str> = w.steps.iter().map(|s| s.intent.as_str()).collect();
    assert_eq!(
        intents,
        [
            "Type “{{full_name}}” into textbox “Full name” under “Your order”",
            "Type “{{delivery_date}}” into textbox “Delivery date” under “Your order”",
            "Choose “{{shipping}}” in combobox “Shipping” under “Your order”",
            "Check checkbox “Gift wrap” under “Extras”",
            "Click button “Continue” under “Extras”",
            "Click button “Place order” under “Review”",
        ]
    );
    assert_eq!(w.steps[0].page.to_string(), shop::ORDER);
    assert_eq!(w.steps[5].page.to_string(), shop::REVIEW, "the query is not kept");
    assert_eq!(
        w.steps[4].destination.as_ref().map(ToString::to_string).as_deref(),
        Some(shop::REVIEW)
    );
    assert_eq!(w.steps[0].destination, None);
    let json = export_json(&w);
    assert!(!json.contains("\"ref\""), "no refs in a workflow: {json}");
    assert_eq!(import_json(&json).expect("its own export reads back"), w);
}

#[test]
fn values_tracked_as_secrets_become_secret_inputs_and_are_never_stored() {
    let shop = Shop::new(Variant::default());
    let task = "Order a teapot for Ada Lovelace, my card PIN is 48151623 and the key sk-live-Zq8aXcanary42Lm9Tt";
    let model = Model::new(vec![
        tools(&[
            ("type", r#"{"ref":1,"text":"Ada Lovelace"}"#),
            ("type", r#"{"ref":2,"text":"sk-live-Zq8aXcanary42Lm9Tt"}"#),
        ]),
        tools(&[("done", r#"{"answer":"Typed.","success":true}"#)]),
    ]);
    let (outcome, _, ctx) = run_task(&shop, &model, &User::default(), TaskSpec::new(task));
    assert!(outcome.success, "{outcome:?}");
    let record = TaskRecord::noted(1, task, &outcome, 0.0, &ctx.taint);
    let w = super::record(&record, "s".into(), 0.0).expect("recorded");
    let json = export_json(&w);
    for secret in ["Zq8aXcanary42Lm9Tt", "48151623"] {
        assert!(!json.contains(secret), "{secret} stored: {json}");
    }
    let secret = w.params.iter().find(|p| p.secret).expect("a secret input");
    assert_eq!(secret.default, None);
    assert_eq!(secret.name, "delivery_date", "named after its field");
    assert_eq!(
        w.steps[1].action,
        StepAction::Type { text: Template::literal("{{delivery_date}}"), append: false }
    );
    // A run must be given the secret: it has no stored value.
    let missing = WorkflowRun::bind(w.clone(), Default::default()).expect_err("needs the secret");
    assert!(matches!(missing, BindError::Missing { ref name, .. } if name == "delivery_date"));
    let given =
        BTreeMap::from([("delivery_date".to_owned(), "sk-live-Other0000Key1234".to_owned())]);
    let run = WorkflowRun::bind(w, given).expect("bound");
    assert!(!run.task_text().contains("Other0000"), "{}", run.task_text());
}

#[test]
fn tasks_that_cannot_be_repeated_say_why() {
    let mut record = recorded_task();
    for step in &mut record.actions {
        step.located = None;
    }
    assert_eq!(super::record(&record, "x".into(), 0.0), Err(RecordError::NotLocated));
    let mut nothing = recorded_task();
    nothing.actions.retain(|a| matches!(a.action, waymark_page::action::Action::Scroll { .. }));
    assert_eq!(super::record(&nothing, "x".into(), 0.0), Err(RecordError::NoSteps));
    let mut upload = recorded_task();
    upload.actions[0].action = waymark_page::action::Action::Upload {
        ref_id: waymark_page::observation::Ref::top(1),
        file: "cv.pdf".into(),
    };
    assert_eq!(super::record(&upload, "x".into(), 0.0), Err(RecordError::Upload));
    let mut drag = recorded_task();
    drag.actions[0].action = waymark_page::action::Action::Drag {
        ref_id: waymark_page::observation::Ref::top(1),
        to: waymark_page::observation::Ref::top(2),
    };
    assert_eq!(super::record(&drag, "x".into(), 0.0), Err(RecordError::Drag));
}

#[test]
fn a_wait_until_a_text_is_gone_is_kept_as_such() {
    let wait = waymark_page::action::Action::Wait {
        text: Some("Loading…".into()),
        seconds: Some(5.0),
        gone: true,
    };
    let step = StepAction::from_action(&wait).expect("kept").expect("recordable");
    assert_eq!(step.to_action(None, None, &BTreeMap::new()), Some(wait));
    assert!(WorkflowStep::describe_default(&step, None).contains("is gone"));
}

#[test]
fn malformed_and_future_files_are_refused_with_a_clear_error() {
    let good = export_json(&recorded());
    let future = good.replacen("\"schema_version\": 1", "\"schema_version\": 7", 1);
    let err = import_json(&future).expect_err("future");
    assert_eq!(err, ImportError::FutureVersion { found: 7 });
    assert!(err.to_string().contains("newer Waymark"), "{err}");
    assert!(matches!(import_json("{not json"), Err(ImportError::NotJson(_))));
    assert_eq!(import_json(r#"{"name":"x"}"#), Err(ImportError::NotAWorkflow));
    assert!(matches!(
        import_json(&good.replacen("\"steps\"", "\"stepz\"", 1)),
        Err(ImportError::Malformed(_))
    ));
    let mut w: Workflow = serde_json::from_str(&good).expect("json");
    w.steps[0].action = StepAction::Navigate { url: Template::literal("javascript:alert(1)") };
    w.steps[0].target = None;
    w.steps[1].action = StepAction::Type { text: Template::literal("{{nobody}}"), append: false };
    w.steps[2].target.as_mut().expect("target").of = 0;
    w.params[0].name = "Bad Name".into();
    let Err(ImportError::Invalid(problems)) = import_json(&export_json(&w)) else {
        panic!("accepted")
    };
    let all = problems.join("\n");
    for expected in
        ["only http and https", "“{{nobody}}” is used", "impossible", "cannot name an input"]
    {
        assert!(all.contains(expected), "{expected} missing from {all}");
    }
    assert!(matches!(
        import_json(&"x".repeat(schema::MAX_FILE_BYTES + 1)),
        Err(ImportError::TooLarge { .. })
    ));
}

#[test]
fn edits_rename_parameters_everywhere_and_keep_what_the_user_keeps() {
    let w = recorded();
    let mut form = w.edit_form();
    form.name = "Order a teapot".into();
    form.params[0].rename = "shipping".into();
    form.params[2].rename = "full_name".into();
    form.params[1].default = "2026-04-01".into();
    form.steps[3].keep = false;
    form.steps[4].intent = "Go on to the review".into();
    let edited = w.edited(&form).expect("valid");
    assert_eq!(edited.name, "Order a teapot");
    assert_eq!(edited.steps.len(), 5);
    assert_eq!(edited.steps[3].intent, "Go on to the review");
    assert_eq!(
        edited.task.as_str(),
        "Order a teapot for {{shipping}} on {{delivery_date}} with {{full_name}} shipping",
        "names swapped cleanly"
    );
    assert_eq!(
        edited.param("delivery_date").and_then(|p| p.default.as_deref()),
        Some("2026-04-01")
    );
    let mut bad = w.edit_form();
    bad.params[0].rename = "Full Name!".into();
    assert!(w.edited(&bad).expect_err("bad name")[0].contains("cannot name an input"));
    let mut none = w.edit_form();
    for s in &mut none.steps {
        s.keep = false;
    }
    assert!(w.edited(&none).expect_err("empty").iter().any(|p| p.contains("no steps")));
}

pub use crate::platform::memory::MemStore;

#[test]
fn the_store_lists_renames_duplicates_deletes_and_loses_nothing_when_full() {
    let mem = MemStore::default();
    let store = WorkflowStore::new(&mem);
    let w = recorded();
    block_on(store.save(&w)).expect("saved");
    let copy = block_on(store.duplicate("wf1", "wf2".into(), 9.0)).expect("copied");
    assert_eq!(copy.name, format!("{} (copy)", w.name));
    let renamed = block_on(store.rename("wf2", "Teapot for two", 10.0)).expect("renamed");
    assert_eq!(renamed.revision, 1);
    let taken = block_on(store.rename("wf2", &w.name.to_uppercase(), 11.0)).expect_err("taken");
    assert!(taken.to_string().contains("already called"), "{taken}");
    let list = block_on(store.list()).expect("list");
    assert_eq!(
        list.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        [w.name.as_str(), "Teapot for two"]
    );
    assert_eq!(list[0].params, ["full_name", "delivery_date", "shipping"]);

    // Full storage: the save fails, what was stored stays byte for byte.
    let before = mem.map.borrow().clone();
    mem.refuse_writes.set(true);
    let mut changed = w.clone();
    changed.name = "Changed".into();
    let err = block_on(store.save(&changed)).expect_err("full");
    assert!(
        err.to_string().contains("quota") && err.to_string().contains("nothing was changed"),
        "{err}"
    );
    let imported = block_on(store.import(&export_json(&w), "wf3".into(), 12.0));
    assert!(matches!(imported, Err(WorkflowError::Store(_))));
    assert_eq!(*mem.map.borrow(), before);
    mem.refuse_writes.set(false);

    // A malformed import stores nothing.
    let err = block_on(store.import("{\"schema_version\": 1, \"name\": 3}", "wf4".into(), 13.0))
        .expect_err("malformed");
    assert!(matches!(err, WorkflowError::Import(ImportError::Malformed(_))), "{err}");
    assert_eq!(*mem.map.borrow(), before);
    let imported = block_on(store.import(&export_json(&w), "wf3".into(), 12.0)).expect("imported");
    assert_eq!(
        (imported.id.as_str(), imported.name.as_str()),
        ("wf3", format!("{} (2)", w.name).as_str())
    );

    block_on(store.delete("wf2")).expect("deleted");
    assert!(matches!(block_on(store.load("wf2")), Err(WorkflowError::NotFound(_))));
    assert_eq!(block_on(store.list()).expect("list").len(), 2);
}

/// Every kind of action either becomes a step that replays as the same kind, or is one a
/// workflow says it does not keep (a new action forgotten here fails).
#[test]
fn every_action_kind_is_kept_or_declined_by_workflows() {
    let values = std::collections::BTreeMap::new();
    for example in Action::examples() {
        match StepAction::from_action(&example) {
            Some(Ok(step)) => {
                assert_eq!(step.kind(), example.kind());
                let target = example.target_ref();
                let again = step.to_action(target, Some(3), &values).expect("replays");
                assert_eq!(again.kind(), example.kind());
                if example.target_ref().is_some() {
                    assert_ne!(step.target_need(), TargetNeed::None, "{}", example.name());
                }
            }
            Some(Err(why)) => assert!(!why.to_string().is_empty()),
            None => assert!(
                matches!(
                    example.kind(),
                    ActionKind::Scroll
                        | ActionKind::ScrollTo
                        | ActionKind::Find
                        | ActionKind::Collect
                        | ActionKind::Screenshot
                        | ActionKind::Done
                ),
                "{} is dropped from recordings without a reason",
                example.name()
            ),
        }
    }
    let select = StepAction::SelectText { text: Template::literal("second line") };
    assert!(!select.changes_state());
}
