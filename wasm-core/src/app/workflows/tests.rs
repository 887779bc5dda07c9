//! The workflows behind the panel against an in-memory store: every workflow request of the
//! panel, runs from a prompt or an external agent, healed steps across a restart, and what a
//! full storage keeps.

use super::*;
use crate::panel::TaskView;
use crate::platform::memory::MemStore;
use crate::platform::scripted::Clock;
use crate::workflow::tests::{
    Model, Shop, User, Variant, recorded, recorded_task, run_task, spec, tools,
};
use futures::executor::block_on;
use waymark_protocol::ErrorCode;

struct Fixture {
    mem: MemStore,
    state: RefCell<PanelState>,
    clock: Clock,
}

impl Fixture {
    fn new() -> Self {
        Self { mem: MemStore::default(), state: RefCell::default(), clock: Clock::default() }
    }
    fn desk(&self) -> WorkflowDesk<&MemStore> {
        let desk = WorkflowDesk::new(&self.mem);
        block_on(desk.load(&self.state));
        desk
    }
    fn ask(&self, desk: &WorkflowDesk<&MemStore>, request: PanelRequest) -> WorkflowEffect {
        let task = recorded_task();
        block_on(desk.handle(&self.state, &self.clock, |t| (t == 1).then(|| task.clone()), request))
    }
    /// A request that only changes the view.
    fn redraw(&self, desk: &WorkflowDesk<&MemStore>, request: PanelRequest) {
        assert_eq!(self.ask(desk, request), WorkflowEffect::Redraw);
    }
    fn notice(&self) -> Option<String> {
        self.state.borrow().workflows.notice.clone()
    }
    fn error(&self) -> Option<String> {
        self.state.borrow().workflows.error.clone()
    }
    /// Saves turn 1 as a workflow named `name`; its id.
    fn saved_as(&self, desk: &WorkflowDesk<&MemStore>, name: &str) -> String {
        assert_eq!(
            self.ask(desk, PanelRequest::SaveAsWorkflow { turn: 1 }),
            WorkflowEffect::Redraw
        );
        let mut form = self.state.borrow().workflows.editor.clone().expect("editor open").form;
        form.name = name.into();
        assert_eq!(self.ask(desk, PanelRequest::SaveWorkflow { form }), WorkflowEffect::Redraw);
        let list = self.state.borrow().workflows.list.clone();
        list.iter().find(|i| i.name == name).expect("listed").id.clone()
    }
}

#[test]
fn a_task_saved_as_a_workflow_is_listed_runs_from_the_list_and_from_a_prompt() {
    let fx = Fixture::new();
    let desk = fx.desk();
    assert_eq!(fx.ask(&desk, PanelRequest::SaveAsWorkflow { turn: 9 }), WorkflowEffect::Redraw);
    assert_eq!(fx.error().as_deref(), Some("Task 9 is not in this session."));
    let id = fx.saved_as(&desk, "Teapot");
    assert_eq!(
        fx.notice().as_deref(),
        Some("Saved “Teapot”: run it from this list or with “run Teapot”.")
    );
    assert!(fx.state.borrow().workflows.editor.is_none());
    let values = BTreeMap::from([("full_name".to_owned(), "Grace Hopper".to_owned())]);
    let WorkflowEffect::Start(run) = fx.ask(&desk, PanelRequest::RunWorkflow { id, values }) else {
        panic!("not started")
    };
    assert!(run.task_text().contains("Grace Hopper"), "{}", run.task_text());
    assert!(matches!(desk.from_prompt(&fx.state, "run Teapot"), PromptRun::Start(_)));
    assert_eq!(desk.from_prompt(&fx.state, "find me a teapot"), PromptRun::Task);
    // A restarted worker finds it.
    let again = fx.desk();
    assert!(matches!(again.from_prompt(&fx.state, "run teapot"), PromptRun::Start(_)));
}

#[test]
fn a_run_waits_for_the_running_task_and_a_bad_value_says_why() {
    let fx = Fixture::new();
    let desk = fx.desk();
    let id = fx.saved_as(&desk, "Teapot");
    fx.state.borrow_mut().task = Some(TaskView::started("busy"));
    let effect =
        fx.ask(&desk, PanelRequest::RunWorkflow { id: id.clone(), values: BTreeMap::new() });
    assert_eq!(effect, WorkflowEffect::Redraw);
    assert_eq!(fx.error().as_deref(), Some("A task is running: wait for it to end, or stop it."));
    fx.state.borrow_mut().task = None;
    let values = BTreeMap::from([("no_such_input".to_owned(), "x".to_owned())]);
    assert_eq!(fx.ask(&desk, PanelRequest::RunWorkflow { id, values }), WorkflowEffect::Redraw);
    assert!(fx.error().is_some_and(|e| e.starts_with("The workflow did not start:")));
    assert!(matches!(desk.from_prompt(&fx.state, "run Nothing"), PromptRun::Task));
    let gone =
        fx.ask(&desk, PanelRequest::RunWorkflow { id: "gone".into(), values: BTreeMap::new() });
    assert_eq!(gone, WorkflowEffect::Redraw);
    assert_eq!(fx.error().as_deref(), Some("That workflow is no longer saved."));
}

#[test]
fn a_full_storage_or_a_bad_form_keeps_the_users_draft_open() {
    let fx = Fixture::new();
    let desk = fx.desk();
    fx.redraw(&desk, PanelRequest::SaveAsWorkflow { turn: 1 });
    let mut form = fx.state.borrow().workflows.editor.clone().expect("open").form;
    form.name = "Mine".into();
    fx.mem.refuse_writes.set(true);
    fx.redraw(&desk, PanelRequest::SaveWorkflow { form: form.clone() });
    let editor = fx.state.borrow().workflows.editor.clone().expect("still open");
    assert_eq!(editor.form, form, "the user's form as they left it");
    assert!(
        fx.error()
            .is_some_and(|e| e.starts_with("Could not save “Mine”") && e.contains("still open"))
    );
    fx.mem.refuse_writes.set(false);
    for s in &mut form.steps {
        s.keep = false;
    }
    fx.redraw(&desk, PanelRequest::SaveWorkflow { form: form.clone() });
    let editor = fx.state.borrow().workflows.editor.clone().expect("still open");
    assert!(editor.problems.iter().any(|p| p.contains("no steps")), "{:?}", editor.problems);
    assert!(fx.state.borrow().workflows.list.is_empty(), "nothing stored");
    fx.redraw(&desk, PanelRequest::CloseWorkflowEditor);
    assert!(fx.state.borrow().workflows.editor.is_none());
}

#[test]
fn rename_duplicate_and_a_confirmed_delete_change_the_list() {
    let fx = Fixture::new();
    let desk = fx.desk();
    let id = fx.saved_as(&desk, "Teapot");
    fx.redraw(&desk, PanelRequest::RenameWorkflow { id: id.clone(), name: "Kettle".into() });
    assert_eq!(fx.notice().as_deref(), Some("Renamed to “Kettle”."));
    fx.redraw(&desk, PanelRequest::DuplicateWorkflow { id: id.clone() });
    assert!(
        fx.notice().is_some_and(|n| n.starts_with("Saved a copy: “Kettle")),
        "{:?}",
        fx.notice()
    );
    assert_eq!(fx.state.borrow().workflows.list.len(), 2);
    // Unconfirmed, or cancelled: kept.
    fx.redraw(&desk, PanelRequest::ConfirmDeleteWorkflow { id: id.clone() });
    fx.redraw(&desk, PanelRequest::DeleteWorkflow { id: id.clone() });
    fx.redraw(&desk, PanelRequest::CancelDeleteWorkflow);
    fx.redraw(&desk, PanelRequest::ConfirmDeleteWorkflow { id: id.clone() });
    assert_eq!(fx.state.borrow().workflows.list.len(), 2);
    fx.redraw(&desk, PanelRequest::DeleteWorkflow { id: id.clone() });
    assert!(fx.state.borrow().workflows.confirm_delete.is_some());
    fx.redraw(&desk, PanelRequest::ConfirmDeleteWorkflow { id: id.clone() });
    assert_eq!(fx.notice().as_deref(), Some("Deleted “Kettle”."));
    assert_eq!(fx.state.borrow().workflows.list.len(), 1);
    assert!(desk.find(&id).is_none());
    fx.redraw(&desk, PanelRequest::RenameWorkflow { id, name: "x".into() });
    assert!(fx.error().is_some_and(|e| e.starts_with("Not renamed:")), "{:?}", fx.error());
}

#[test]
fn an_export_is_written_by_the_host_and_its_json_imports_again() {
    let fx = Fixture::new();
    let desk = fx.desk();
    let id = fx.saved_as(&desk, "Tea pot!");
    let WorkflowEffect::Export { name, write } = fx.ask(&desk, PanelRequest::ExportWorkflow { id })
    else {
        panic!("no export")
    };
    assert_eq!(write.name_hint.as_deref(), Some("workflow-tea-pot"));
    let json = write.content.clone();
    desk.exported(
        &fx.state,
        name.clone(),
        write.clone(),
        Err(ErrorBody::new(ErrorCode::ExportFailed, "disk full")),
    );
    let shown = fx.state.borrow().workflows.export.clone().expect("shown");
    assert!(shown.path.is_none() && shown.error.is_some() && shown.json == json);
    desk.exported(
        &fx.state,
        name,
        write,
        Ok(ExportWritten { path: "/tmp/w.json".into(), bytes: 1 }),
    );
    assert_eq!(
        fx.state.borrow().workflows.export.clone().expect("shown").path.as_deref(),
        Some("/tmp/w.json")
    );
    fx.redraw(&desk, PanelRequest::ImportWorkflow { json });
    assert!(fx.notice().is_some_and(|n| n.starts_with("Imported “Tea pot!")), "{:?}", fx.notice());
    fx.redraw(&desk, PanelRequest::ImportWorkflow { json: "{not json".into() });
    assert!(
        fx.error()
            .is_some_and(|e| e.starts_with("Not imported:") && e.ends_with("Nothing was stored."))
    );
    assert_eq!(fx.state.borrow().workflows.list.len(), 2);
}

#[test]
fn healed_steps_wait_across_a_restart_and_are_accepted_or_rejected() {
    let fx = Fixture::new();
    let desk = fx.desk();
    block_on(WorkflowStore::new(&fx.mem).save(&recorded())).expect("saved");
    let desk_after = fx.desk();
    drop(desk);
    let model =
        Model::new(vec![tools(&[("check", r#"{"ref":4}"#)]), tools(&[("click", r#"{"ref":5}"#)])]);
    let shop = Shop::new(Variant { renamed: true, moved: true, ..Variant::default() });
    let (outcome, _, ctx) = run_task(&shop, &model, &User::default(), spec(&recorded(), &[]));
    assert!(outcome.success);
    let ran = block_on(desk_after.after_run(&fx.state, &ctx)).expect("a workflow run");
    assert_eq!(ran.healed, 2);
    assert!(fx.state.borrow().workflows.heals.is_some());
    // A restart finds them waiting.
    let restarted = Fixture { mem: MemStore::default(), ..Fixture::new() };
    *restarted.mem.map.borrow_mut() = fx.mem.map.borrow().clone();
    let again = restarted.desk();
    assert!(restarted.state.borrow().workflows.heals.is_some());
    restarted.redraw(&again, PanelRequest::RejectHeals);
    assert!(restarted.notice().is_some_and(|n| n.ends_with("stays as it was.")));
    assert!(restarted.state.borrow().workflows.heals.is_none());
    assert!(!restarted.mem.map.borrow().contains_key(HEALS_KEY));
    // Accepted in the first worker: the workflow changes and the heals go.
    fx.redraw(&desk_after, PanelRequest::AcceptHeals);
    assert!(fx.notice().is_some_and(|n| n.starts_with("Updated “")), "{:?}", fx.notice());
    assert!(fx.state.borrow().workflows.heals.is_none());
    assert!(!fx.mem.map.borrow().contains_key(HEALS_KEY));
}

#[test]
fn an_external_agent_names_a_workflow_and_hears_how_its_run_ended() {
    let fx = Fixture::new();
    let desk = fx.desk();
    let err = desk.for_bridge("Teapot", BTreeMap::new()).expect_err("none yet");
    assert_eq!(err.kind, BridgeFailureKind::BadArguments);
    assert!(err.message.contains("saved workflows: none yet"), "{}", err.message);
    fx.saved_as(&desk, "Teapot");
    assert!(desk.for_bridge(" teapot ", BTreeMap::new()).is_ok());
    let ended = |ending| TaskOutcome {
        answer: "Ordered.".into(),
        success: ending == Ending::Finished,
        error: None,
        steps: vec![],
        step_count: 1,
        elapsed_ms: 1.0,
        ending,
    };
    assert_eq!(bridge_result(ended(Ending::Finished)).expect("ok").text, "Ordered.");
    assert_eq!(
        bridge_result(ended(Ending::Stopped)).expect_err("stopped").kind,
        BridgeFailureKind::Stopped
    );
    assert_eq!(
        bridge_result(ended(Ending::Refused)).expect_err("refused").kind,
        BridgeFailureKind::Refused
    );
    assert_eq!(
        bridge_result(ended(Ending::Failed)).expect_err("failed").kind,
        BridgeFailureKind::PageFailed
    );
}
