//! The app against an in-memory store: every panel request kind it decides, what it shows and
//! which effects the worker is asked to carry out.

use super::*;
use crate::agent::Reply;
use crate::panel::prompt::Attachment;
use crate::platform::memory::MemStore;
use crate::platform::scripted::Clock;
use crate::platform::scripted::{CountingPanels, ScriptedHost};
use crate::platform::{Alarms, Platform, TabError, Tabs};
use crate::workflow::WorkflowStore;
use crate::workflow::tests::recorded;
use futures::executor::block_on;
use std::cell::Cell;
use waymark_protocol::RequestBody;

fn started(mem: &MemStore) -> App<&MemStore> {
    let app = App::new(mem);
    assert_eq!(CLOCK.with(|clock| block_on(app.start(clock))), Redraw::Session);
    app
}

/// Alarms nobody needs to see.
struct NoAlarms;
impl Alarms for NoAlarms {
    fn at(&self, _name: &str, _when_ms: f64) {}
    fn clear(&self, _name: &str) {}
    fn utc_offset_minutes(&self) -> i32 {
        0
    }
}

thread_local! {
    /// One clock per test thread: fresh ids for every new session.
    static CLOCK: Clock = Clock::default();
}

fn ask(app: &App<&MemStore>, request: PanelRequest) -> Vec<Effect> {
    ask_with(app, &ScriptedHost::default(), request)
}

/// The tabs: the one the user looks at, and what was armed and watched.
#[derive(Default)]
struct FakeTabs {
    target: RefCell<Option<(i32, String)>>,
    refuse: Cell<bool>,
    armed: RefCell<Vec<(i32, bool)>>,
    watching: Cell<bool>,
}

impl Tabs for FakeTabs {
    async fn target(&self) -> Option<(i32, String)> {
        self.target.borrow().clone()
    }
    async fn arm_recording(&self, tab: i32, on: bool) -> Result<bool, TabError> {
        if self.refuse.get() {
            return Err(TabError("Could not establish connection".into()));
        }
        self.armed.borrow_mut().push((tab, on));
        Ok(on)
    }
    fn watch_loads(&self, on: bool) {
        self.watching.set(on);
    }
}

/// The platform of a test: its clock, a scripted host, counted redraws, no alarms, fake tabs.
struct Fakes<'a> {
    clock: &'a Clock,
    host: &'a ScriptedHost,
    panels: &'a CountingPanels,
    tabs: &'a FakeTabs,
}

impl Platform for Fakes<'_> {
    type Env = Clock;
    type Host = ScriptedHost;
    type Panels = CountingPanels;
    type Alarms = NoAlarms;
    type Tabs = FakeTabs;
    fn env(&self) -> &Clock {
        self.clock
    }
    fn host(&self) -> &ScriptedHost {
        self.host
    }
    fn panels(&self) -> &CountingPanels {
        self.panels
    }
    fn alarms(&self) -> &NoAlarms {
        &NoAlarms
    }
    fn tabs(&self) -> &FakeTabs {
        self.tabs
    }
}

fn ask_on(
    app: &App<&MemStore>,
    host: &ScriptedHost,
    panels: &CountingPanels,
    tabs: &FakeTabs,
    request: PanelRequest,
) -> Vec<Effect> {
    CLOCK.with(|clock| block_on(app.handle(&Fakes { clock, host, panels, tabs }, request)))
}

fn ask_with(app: &App<&MemStore>, host: &ScriptedHost, request: PanelRequest) -> Vec<Effect> {
    ask_on(app, host, &CountingPanels::default(), &FakeTabs::default(), request)
}

fn task(prompt: &str) -> PanelRequest {
    PanelRequest::StartTask {
        prompt: prompt.into(),
        mode: OutputMode::default(),
        max_steps: None,
        step_mode: false,
        resources: BTreeMap::new(),
    }
}

fn starts(effects: &[Effect]) -> Option<&TaskStart> {
    effects.iter().find_map(|e| match e {
        Effect::StartTask(start) => Some(&**start),
        _ => None,
    })
}

#[test]
fn hello_redraws_and_asks_the_host() {
    let mem = MemStore::default();
    let app = started(&mem);
    assert_eq!(
        ask(&app, PanelRequest::Hello),
        vec![Effect::Redraw(Redraw::View), Effect::RefreshHost]
    );
}

#[test]
fn a_task_starts_with_the_attached_files_is_remembered_and_none_starts_over_a_running_one() {
    let mem = MemStore::default();
    let app = started(&mem);
    app.state.borrow_mut().attachments =
        vec![Attachment { name: "cv.pdf".into(), path: "/home/u/cv.pdf".into() }];
    app.state.borrow_mut().settings.agent.allowed_sites = vec!["https://jobs.example".into()];
    let effects = ask(&app, task("apply to the job"));
    let start = starts(&effects).expect("started");
    assert_eq!(start.prompt, "apply to the job");
    assert_eq!(start.resources.get("cv.pdf").map(String::as_str), Some("/home/u/cv.pdf"));
    assert_eq!(start.allowed_sites, vec!["https://jobs.example".to_owned()]);
    let state = app.state.borrow();
    assert!(state.attachments.is_empty(), "the attachments went with the task");
    assert!(state.task.as_ref().is_some_and(|t| t.running && t.prompt == "apply to the job"));
    assert_eq!(state.prompt_history.first().map(String::as_str), Some("apply to the job"));
    drop(state);
    assert_eq!(mem.map.borrow()[HISTORY_KEY], serde_json::json!(["apply to the job"]));
    assert!(ask(&app, task("another")).is_empty(), "one task at a time");
    app.state.borrow_mut().task = None;
    assert!(ask(&app, task("   ")).is_empty(), "an empty prompt starts nothing");
    // A restarted worker has the history.
    let again = started(&mem);
    block_on(again.load_history());
    assert_eq!(again.state.borrow().prompt_history, vec!["apply to the job".to_owned()]);
}

#[test]
fn a_prompt_naming_a_workflow_runs_it_and_a_bad_one_ends_at_once_saying_why() {
    let mem = MemStore::default();
    block_on(WorkflowStore::new(&mem).save(&recorded())).expect("saved");
    let app = started(&mem);
    let name = recorded().name;
    let effects = ask(&app, task(&format!("run {name}")));
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::StartRun { run, .. } if run.workflow.name == name)),
        "{effects:?}"
    );
    assert_eq!(
        app.state.borrow().task.as_ref().and_then(|t| t.workflow.clone()),
        Some(name.clone())
    );
    app.state.borrow_mut().task = None;
    let effects = ask(&app, task(&format!("run {name} with nonsense_input=1")));
    let Some(Effect::EndedAtStart(outcome)) = effects.first() else { panic!("{effects:?}") };
    assert!(
        !outcome.success && outcome.answer.contains("has several inputs"),
        "{}",
        outcome.answer
    );
}

#[test]
fn the_sample_task_finishes_the_guide_and_starts() {
    let mem = MemStore::default();
    let app = started(&mem);
    let effects = ask(&app, PanelRequest::TrySample);
    assert!(app.state.borrow().guide.done);
    assert!(mem.map.borrow().contains_key(GUIDE_KEY), "the guide's end is kept");
    assert_eq!(
        starts(&effects).map(|s| s.prompt.as_str()),
        Some(crate::panel::guide::SAMPLE_PROMPT)
    );
}

#[test]
fn controls_reach_the_running_task_and_are_dropped_when_none_runs() {
    let mem = MemStore::default();
    let app = started(&mem);
    // No task: nothing happens, nothing breaks.
    for request in [PanelRequest::Pause, PanelRequest::Stop, PanelRequest::TakeOver] {
        assert!(ask(&app, request).is_empty());
    }
    let controls = Controls::new(InterventionSettings::default(), false);
    *app.controls.borrow_mut() = Some(controls.clone());
    assert!(ask(&app, PanelRequest::Pause).is_empty());
    assert!(controls.snapshot().paused);
    let _ = ask(&app, PanelRequest::Resume);
    assert!(!controls.snapshot().paused);
    let _ = ask(&app, PanelRequest::TakeOver);
    assert!(controls.snapshot().taken_over);
    let _ = ask(&app, PanelRequest::Step);
    let _ = ask(&app, PanelRequest::AnswerIntervention { reply: Reply::default() });
    let _ = ask(&app, PanelRequest::Stop);
    assert!(controls.snapshot().stopping);
}

#[test]
fn intervention_settings_reach_the_running_task_are_stored_and_load_again() {
    let mem = MemStore::default();
    let app = started(&mem);
    let controls = Controls::new(InterventionSettings::default(), false);
    *app.controls.borrow_mut() = Some(controls.clone());
    let mut settings = InterventionSettings::default();
    settings.badge = !settings.badge;
    assert_eq!(
        ask(&app, PanelRequest::SetInterventionSettings { settings }),
        vec![Effect::Redraw(Redraw::View)]
    );
    assert_eq!(app.state.borrow().interventions, settings);
    assert!(mem.map.borrow().contains_key(INTERVENTIONS_KEY));
    assert_eq!(started(&mem).state.borrow().interventions, settings);
    mem.refuse_writes.set(true);
    let _ = ask(
        &app,
        PanelRequest::SetInterventionSettings { settings: InterventionSettings::default() },
    );
    let told = app.state.borrow().storage_error.clone().expect("told");
    assert!(told.contains("the intervention settings"), "{told}");
    let _ = controls;
}

#[test]
fn a_secret_is_revealed_only_from_the_finished_tasks_ledger() {
    let mem = MemStore::default();
    let app = started(&mem);
    app.state.borrow_mut().task = Some(TaskView::started("log in"));
    let _ = ask(&app, PanelRequest::RevealSecret { id: 1 });
    assert!(app.state.borrow().task.as_ref().is_some_and(|t| t.revealed.is_empty()));
    let mut ledger = TaintLedger::default();
    ledger.record_workflow_secret(
        "password",
        "hunter2-very-secret",
        vec!["https://a.example".into()],
    );
    let id = ledger.handle_of("hunter2-very-secret").expect("a handle").id;
    *app.secrets.borrow_mut() = Some(ledger);
    assert_eq!(ask(&app, PanelRequest::RevealSecret { id }), vec![Effect::Redraw(Redraw::View)]);
    let revealed = app.state.borrow().task.as_ref().expect("task").revealed.clone();
    assert_eq!(revealed.get(&id).map(String::as_str), Some("hunter2-very-secret"));
    let _ = ask(&app, PanelRequest::RevealSecret { id: id + 7 });
    assert_eq!(app.state.borrow().task.as_ref().expect("task").revealed.len(), 1);
}

#[test]
fn a_crash_notice_goes_when_dismissed() {
    let mem = MemStore::default();
    let app = started(&mem);
    app.state.borrow_mut().crash =
        Some(crate::crash::CrashNotice { text: "crashed".into(), report: "r".into() });
    assert_eq!(ask(&app, PanelRequest::DismissCrash), vec![Effect::Redraw(Redraw::View)]);
    assert!(app.state.borrow().crash.is_none());
}

#[test]
fn every_session_request_reaches_the_sessions() {
    let mem = MemStore::default();
    let mut old = crate::session::tests::session_of(2);
    old.id = "old".into();
    block_on(crate::session::SessionStore::new(&mem).save_turns(&old, &[1, 2], false))
        .expect("stored");
    let app = started(&mem);
    let first = app.sessions.current().id.clone();
    assert_eq!(ask(&app, PanelRequest::NewSession), vec![Effect::Redraw(Redraw::Session)]);
    let second = app.sessions.current().id.clone();
    assert_ne!(first, second);
    assert_eq!(ask(&app, PanelRequest::ClearSession), vec![Effect::Redraw(Redraw::Session)]);
    assert_ne!(app.sessions.current().id, second);
    let _ = ask(&app, PanelRequest::ContinueSession { id: "old".into() });
    assert_eq!(app.sessions.current().id, "old");
    let _ = ask(&app, PanelRequest::RenameSession { id: "old".into(), title: "Trip".into() });
    assert_eq!(app.state.borrow().session.title, "Trip");
    let _ = ask(&app, PanelRequest::Search { query: "item".into(), current_only: false });
    assert!(app.state.borrow().search.as_ref().is_some_and(|s| !s.hits.is_empty()));
    let _ = ask(&app, PanelRequest::NewSession);
    let _ = ask(&app, PanelRequest::JumpToTurn { session_id: Some("old".into()), turn: 2 });
    assert_eq!(app.sessions.current().id, "old");
    assert_eq!(app.state.borrow().focus.as_ref().map(|f| f.turn.turn), Some(2));
    let _ = ask(&app, PanelRequest::DeleteSession { id: "old".into() });
    let _ = ask(&app, PanelRequest::CancelDelete);
    assert!(app.state.borrow().confirm_delete.is_none());
    let _ = ask(&app, PanelRequest::DeleteSession { id: "old".into() });
    assert_eq!(
        ask(&app, PanelRequest::ConfirmDelete { id: "old".into() }),
        vec![Effect::Redraw(Redraw::Session)]
    );
    assert!(app.state.borrow().sessions.iter().all(|s| s.id != "old"));
    assert_ne!(app.sessions.current().id, "old", "a fresh session replaced the deleted one");
}

#[test]
fn workflow_requests_reach_the_workflows_and_their_runs_and_exports_come_back_as_effects() {
    let mem = MemStore::default();
    block_on(WorkflowStore::new(&mem).save(&recorded())).expect("saved");
    let app = started(&mem);
    let id = recorded().id;
    let effects = ask(&app, PanelRequest::RunWorkflow { id: id.clone(), values: BTreeMap::new() });
    assert!(effects.iter().any(|e| matches!(e, Effect::StartRun { .. })), "{effects:?}");
    let effects = ask(&app, PanelRequest::ExportWorkflow { id: id.clone() });
    assert!(effects.iter().any(|e| matches!(e, Effect::ExportWorkflow { .. })), "{effects:?}");
    for request in [
        PanelRequest::EditWorkflow { id: id.clone() },
        PanelRequest::CloseWorkflowEditor,
        PanelRequest::SaveAsWorkflow { turn: 1 },
        PanelRequest::RenameWorkflow { id: id.clone(), name: "Tea".into() },
        PanelRequest::DuplicateWorkflow { id: id.clone() },
        PanelRequest::DeleteWorkflow { id: id.clone() },
        PanelRequest::CancelDeleteWorkflow,
        PanelRequest::ConfirmDeleteWorkflow { id: id.clone() },
        PanelRequest::ImportWorkflow { json: "{}".into() },
        PanelRequest::AcceptHeals,
        PanelRequest::RejectHeals,
    ] {
        assert_eq!(ask(&app, request), vec![Effect::Redraw(Redraw::View)]);
    }
    assert_eq!(app.state.borrow().workflows.list.len(), 2, "renamed and duplicated");
}

#[test]
fn external_agents_are_switched_on_and_off_kept_and_disconnected() {
    let mem = MemStore::default();
    let app = started(&mem);
    assert!(!block_on(app.load_external_agents()));
    let on = ask(&app, PanelRequest::SetExternalAgents { on: true });
    assert_eq!(on, vec![Effect::Redraw(Redraw::View), Effect::OpenBridge]);
    assert!(app.state.borrow().external.enabled);
    assert!(block_on(started(&mem).load_external_agents()), "kept across a restart");
    let off = ask(&app, PanelRequest::SetExternalAgents { on: false });
    assert_eq!(off, vec![Effect::Redraw(Redraw::View), Effect::CloseBridge]);
    assert!(!app.state.borrow().external.enabled);
    let gone = ask(&app, PanelRequest::DisconnectExternal { client: 4 });
    assert_eq!(gone, vec![Effect::DisconnectExternal(4)]);
}

#[test]
fn files_are_attached_to_the_next_task_once_each_and_detached() {
    let mem = MemStore::default();
    let app = started(&mem);
    let attach = |path: &str| ask(&app, PanelRequest::Attach { path: path.into() });
    assert_eq!(attach("/home/u/cv.pdf"), vec![Effect::Redraw(Redraw::View)]);
    assert_eq!(app.state.borrow().attachments.len(), 1);
    let _ = attach("relative/cv.pdf");
    assert!(app.state.borrow().attach_error.is_some(), "a relative path is refused, with why");
    assert_eq!(app.state.borrow().attachments.len(), 1);
    let name = app.state.borrow().attachments[0].name.clone();
    let _ = ask(&app, PanelRequest::Detach { name });
    assert!(app.state.borrow().attachments.is_empty());
    assert!(app.state.borrow().attach_error.is_none());
}

#[test]
fn exports_go_through_the_host_and_show_the_path_and_the_prompt_or_why_not() {
    let mem = MemStore::default();
    let app = started(&mem);
    let host = ScriptedHost::default();
    host.answer(Ok(serde_json::json!({"path": "/home/u/waymark/session.md", "bytes": 120})));
    let _ = ask_with(&app, &host, PanelRequest::Export);
    let Some(ExportView::Written { path, prompt }) = app.state.borrow().export.clone() else {
        panic!("not written")
    };
    assert_eq!(path, "/home/u/waymark/session.md");
    assert!(prompt.contains(&path), "{prompt}");
    let RequestBody::ExportWrite(write) = host.seen.borrow()[0].clone() else {
        panic!("not an export")
    };
    assert_eq!(write.format, ExportFormat::Md);
    assert!(write.content.starts_with('#'), "markdown: {}", write.content);
    // JSON stays JSON; the host's error is shown with its advice.
    host.answer(Err(waymark_protocol::ErrorBody::new(
        waymark_protocol::ErrorCode::ExportFailed,
        "disk full",
    )));
    let values = TrackedValues::default();
    let _ =
        ask_with(&app, &host, PanelRequest::ExportSession { format: ExportFormat::Json, values });
    let RequestBody::ExportWrite(write) = host.seen.borrow()[1].clone() else {
        panic!("not an export")
    };
    assert_eq!(write.format, ExportFormat::Json);
    let Some(ExportView::Failed { message }) = app.state.borrow().export.clone() else {
        panic!("not failed")
    };
    assert!(message.contains("disk full"), "{message}");
    // A table that is not there is said so, and nothing is sent.
    let values = TrackedValues::default();
    let _ = ask_with(&app, &host, PanelRequest::ExportTable { turn: 3, index: 0, values });
    assert_eq!(host.seen.borrow().len(), 2);
    let Some(ExportView::Failed { message }) = app.state.borrow().export.clone() else {
        panic!("not failed")
    };
    assert_eq!(message, "turn 3 has no table 1");
}

#[test]
fn the_settings_view_reads_the_hosts_settings_saves_changes_and_says_what_failed() {
    let mem = MemStore::default();
    let app = started(&mem);
    let host = ScriptedHost::default();
    let current = crate::panel::settings::tests::current();
    host.answer(Ok(serde_json::to_value(&current).expect("json")));
    assert_eq!(
        ask_with(&app, &host, PanelRequest::OpenSettings),
        vec![Effect::Redraw(Redraw::View)]
    );
    assert!(app.state.borrow().settings.host.is_some());
    assert!(app.state.borrow().settings.host_error.is_none());
    // A change of the host's settings goes in one config.set; the allowed sites to the store.
    let mut form = crate::panel::settings::tests::form();
    form.export_dir = "/tmp/elsewhere".into();
    form.allowed_sites = "https://shop.example".into();
    host.answer(Ok(serde_json::to_value(&current).expect("json")));
    let effects = ask_with(&app, &host, PanelRequest::SaveSettings { form: form.clone() });
    assert_eq!(effects, vec![Effect::Redraw(Redraw::View), Effect::RefreshHost]);
    assert!(matches!(host.seen.borrow().last(), Some(RequestBody::ConfigSet(_))));
    assert_eq!(app.state.borrow().settings.notice.as_deref(), Some("Saved."));
    assert!(mem.map.borrow().contains_key(AGENT_SETTINGS_KEY));
    // The host refuses: the notice says so.
    form.export_dir = "/tmp/third".into();
    host.answer(Err(waymark_protocol::ErrorBody::new(
        waymark_protocol::ErrorCode::BadRequest,
        "export_dir is not writable",
    )));
    let _ = ask_with(&app, &host, PanelRequest::SaveSettings { form: form.clone() });
    let notice = app.state.borrow().settings.notice.clone().expect("told");
    assert_eq!(notice, "The host refused the change: export_dir is not writable");
    // A bad field: nothing is sent.
    let sent = host.seen.borrow().len();
    form.max_read_mb = "lots".into();
    let _ = ask_with(&app, &host, PanelRequest::SaveSettings { form });
    assert_eq!(host.seen.borrow().len(), sent);
    assert!(!app.state.borrow().settings.errors.is_empty());
    // Without a host, the view says the host's part is missing.
    let _ = ask_with(&app, &ScriptedHost::default(), PanelRequest::OpenSettings);
    assert!(app.state.borrow().settings.host_error.is_some());
}

#[test]
fn the_doctor_runs_in_the_host_and_a_missing_host_says_to_install_it_first() {
    let mem = MemStore::default();
    let app = started(&mem);
    let host = ScriptedHost::default();
    host.answer(Ok(serde_json::json!({"checks": [{"ok": true, "text": "model answers"}]})));
    let panels = CountingPanels::default();
    let effects = ask_on(&app, &host, &panels, &FakeTabs::default(), PanelRequest::CheckSetup);
    assert_eq!(effects, vec![Effect::Redraw(Redraw::View)]);
    assert_eq!(panels.0.get(), 1, "the running checks were shown first");
    let doctor = app.state.borrow().settings.doctor.clone().expect("shown");
    assert!(!doctor.running && doctor.checks.len() == 1 && doctor.error.is_none());
    let _ = ask(&app, PanelRequest::CheckSetup);
    let error = app.state.borrow().settings.doctor.clone().expect("shown").error.expect("error");
    assert!(error.ends_with("install it first (the command is above)."), "{error}");
}

#[test]
fn the_guide_keeps_its_step_and_its_model_form_sets_the_host_then_checks_it() {
    let mem = MemStore::default();
    let app = started(&mem);
    block_on(app.load_settings());
    let step = app.state.borrow().guide.step;
    let effects = ask(&app, PanelRequest::Guide { action: crate::panel::GuideAction::Next });
    assert_eq!(effects, vec![Effect::Redraw(Redraw::View), Effect::RefreshHost]);
    assert_ne!(app.state.borrow().guide.step, step);
    let again = started(&mem);
    block_on(again.load_settings());
    assert_eq!(again.state.borrow().guide, app.state.borrow().guide, "kept across a restart");
    // A key-needing preset without a key: told, nothing sent.
    let host = ScriptedHost::default();
    let form = crate::panel::GuideModelForm {
        preset: crate::panel::guide::ModelPreset::Openai,
        api_key: String::new(),
        base_url: String::new(),
        model: String::new(),
    };
    let _ = ask_with(&app, &host, PanelRequest::GuideModel { form: form.clone() });
    assert!(app.state.borrow().guide_error.is_some());
    assert!(host.seen.borrow().is_empty());
    // With a key: set, the host asked again, then the doctor.
    let form = crate::panel::GuideModelForm { api_key: "sk-test".into(), ..form };
    host.answer(Ok(serde_json::to_value(crate::panel::settings::tests::current()).expect("json")));
    host.answer(Ok(serde_json::json!({"checks": []})));
    let _ = ask_with(&app, &host, PanelRequest::GuideModel { form });
    assert!(app.state.borrow().guide_error.is_none());
    assert_eq!(*host.refreshed.borrow(), 1);
    let seen = host.seen.borrow();
    assert!(matches!(seen[..], [RequestBody::ConfigSet(_), RequestBody::Doctor(_)]), "{seen:?}");
}

#[test]
fn routine_requests_reach_the_routines_and_run_now_is_the_workers() {
    let mem = MemStore::default();
    block_on(WorkflowStore::new(&mem).save(&recorded())).expect("saved");
    let app = started(&mem);
    let form = crate::panel::routines::RoutineForm {
        job: crate::routine::RoutineJob::Workflow { id: recorded().id, values: BTreeMap::new() },
        start_url: String::new(),
        every: crate::panel::routines::Every::Day,
        at: "07:00".into(),
        day: None,
        notify: crate::panel::routines::NotifyChoice::EveryRun,
        key: String::new(),
        limit: String::new(),
        missed: Default::default(),
        on_card: Default::default(),
    };
    assert_eq!(ask(&app, PanelRequest::SaveRoutine { form }), vec![Effect::Redraw(Redraw::View)]);
    let id = app.state.borrow().routines.list[0].id.clone();
    let _ = ask(&app, PanelRequest::PauseRoutine { id: id.clone(), paused: true });
    assert!(app.state.borrow().routines.list[0].paused);
    assert_eq!(
        ask(&app, PanelRequest::RunRoutine { id: id.clone() }),
        vec![Effect::RunRoutine(id.clone())]
    );
    let _ = ask(&app, PanelRequest::DeleteRoutine { id });
    assert!(app.state.borrow().routines.list.is_empty());
}

#[test]
fn recording_arms_and_watches_the_tab_the_user_looks_at_and_stopping_disarms_it() {
    let mem = MemStore::default();
    let app = started(&mem);
    let (host, panels, tabs) =
        (ScriptedHost::default(), CountingPanels::default(), FakeTabs::default());
    let ask = |request| ask_on(&app, &host, &panels, &tabs, request);
    *tabs.target.borrow_mut() = Some((5, "https://shop.example/order".into()));
    assert_eq!(ask(PanelRequest::StartRecording), vec![Effect::Redraw(Redraw::View)]);
    assert_eq!(*tabs.armed.borrow(), vec![(5, true)]);
    assert!(tabs.watching.get());
    assert!(app.state.borrow().workflows.recording.is_some());
    let _ = ask(PanelRequest::CancelRecording);
    assert_eq!(*tabs.armed.borrow(), vec![(5, true), (5, false)]);
    assert!(!tabs.watching.get());
    assert!(app.state.borrow().workflows.recording.is_none());
    assert!(app.state.borrow().workflows.editor.is_none(), "discarded: no draft");
    // A page that does not take it: nothing records, nothing is watched, the panel says why.
    tabs.refuse.set(true);
    let _ = ask(PanelRequest::StartRecording);
    assert!(!tabs.watching.get());
    let error = app.state.borrow().workflows.error.clone().expect("told");
    assert!(error.contains("Could not establish connection"), "{error}");
    // Stop with nothing shown: told, and the tab let go.
    tabs.refuse.set(false);
    let _ = ask(PanelRequest::StartRecording);
    let _ = ask(PanelRequest::StopRecording);
    let error = app.state.borrow().workflows.error.clone().expect("told");
    assert!(error.starts_with("Nothing was recorded"), "{error}");
    assert_eq!(tabs.armed.borrow().last(), Some(&(5, false)));
}
