//! The external agents' desk against fakes: the bridge's retry loop and what the panel says,
//! clients coming and going, who may call when, and a whole task an agent asks for.

use super::*;
use crate::app::tasks::fakes::{QuietPage, World, app};
use crate::bridge::{BrowserTab, SeenRequest};
use crate::platform::memory::MemStore;
use futures::executor::block_on;
use waymark_page::PageError;
use waymark_page::console::ConsoleEntry;
use waymark_protocol::{
    BridgeCall, BridgeFailure, BridgeFailureKind, BridgeOutput, HostEvent, RequestBody,
};

/// One tab, the user's: a quiet page.
pub(crate) struct OneTab;

impl Browser for OneTab {
    type Page = QuietPage;
    async fn tabs(&self) -> Result<Vec<BrowserTab>, PageError> {
        Ok(vec![BrowserTab {
            id: 5,
            title: "Example".into(),
            url: "https://example.com/".into(),
            active: true,
        }])
    }
    async fn user_tab(&self) -> Option<i32> {
        Some(5)
    }
    fn page(&self, _tab: i32) -> QuietPage {
        QuietPage
    }
    fn tab_of(&self, _page: &QuietPage) -> i32 {
        5
    }
    async fn resize(&self, _tab: i32, width: u32, height: u32) -> Result<(u32, u32), PageError> {
        Ok((width, height))
    }
    async fn requests(&self, _tab: i32) -> Result<Vec<SeenRequest>, PageError> {
        Ok(vec![])
    }
    async fn console(&self, _tab: i32) -> Result<Vec<ConsoleEntry>, PageError> {
        Ok(vec![])
    }
}

impl BridgePlatform for World {
    type Browser = OneTab;
    fn browser(&self) -> &OneTab {
        &OneTab
    }
    async fn open_bridge(&self) -> Result<BridgeClosed, ErrorBody> {
        self.opens.borrow_mut().pop_front().unwrap_or_else(|| {
            Err(ErrorBody::new(ErrorCode::BadRequest, "this host has no bridge"))
        })
    }
    async fn sleep(&self, ms: u32) {
        self.slept.borrow_mut().push(ms);
    }
    fn progress(&self) -> Rc<dyn Fn(BridgeProgress)> {
        let sent = self.progress.clone();
        Rc::new(move |progress| sent.borrow_mut().push(progress))
    }
}

fn unavailable() -> Result<BridgeClosed, ErrorBody> {
    Err(ErrorBody::new(ErrorCode::HostUnavailable, "Specified native messaging host not found."))
}

/// The app with external agents switched on.
fn on<'a>(mem: &'a MemStore, world: &World) -> App<&'a MemStore> {
    let app = app(mem, world);
    app.state.borrow_mut().external.enabled = true;
    app
}

fn connect(app: &App<&MemStore>, world: &World, client: u64, name: &str) {
    let event = HostEvent::BridgeClient { client, name: name.into(), connected: true };
    assert!(app.bridge_event(world, event).is_none());
}

fn call(
    app: &App<&MemStore>,
    world: &World,
    client: u64,
    request: BridgeCall,
) -> Result<BridgeOutput, BridgeFailure> {
    block_on(app.bridge_call(world, 1, client, request)).0
}

#[test]
fn the_bridge_opens_again_after_a_growing_pause_and_stops_at_an_error_it_cannot_fix() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = on(&mem, &world);
    let closed = Ok(BridgeClosed { reason: "host restarted".into() });
    world.opens.borrow_mut().extend([unavailable(), unavailable(), closed, unavailable()]);
    block_on(app.keep_bridge_open(&world));
    // Doubling while the host is missing, from the start again after a clean close.
    assert_eq!(*world.slept.borrow(), [250, 500, 250, 500]);
    let error = app.state.borrow().external.error.clone().expect("told");
    assert!(
        error.starts_with("External agents cannot connect: this host has no bridge"),
        "{error}"
    );
    assert!(error.ends_with("Switch external agents off and on again once fixed."), "{error}");
    // The loop ended: a new one may start.
    assert!(!app.external.opening.get());
}

#[test]
fn a_missing_host_is_told_while_the_bridge_keeps_trying() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = on(&mem, &world);
    world.opens.borrow_mut().extend([unavailable()]);
    let redraws = world.panels.0.get();
    // The first failure is told before the pause (the fake host then refuses for good).
    block_on(app.keep_bridge_open(&world));
    assert!(world.panels.0.get() > redraws);
    assert_eq!(*world.slept.borrow(), [250]);
    assert_eq!(next_retry(4000), MAX_RETRY_MS);
    assert_eq!(next_retry(MAX_RETRY_MS), MAX_RETRY_MS);
}

#[test]
fn with_external_agents_off_the_bridge_does_not_open() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = on(&mem, &world);
    app.state.borrow_mut().external.enabled = false;
    world.opens.borrow_mut().extend([unavailable()]);
    block_on(app.keep_bridge_open(&world));
    assert_eq!(world.opens.borrow().len(), 1, "never asked");
    // A loop already running: a second one returns at once.
    app.state.borrow_mut().external.enabled = true;
    app.external.opening.set(true);
    block_on(app.keep_bridge_open(&world));
    assert_eq!(world.opens.borrow().len(), 1);
}

#[test]
fn a_connected_agent_gets_the_timeline_and_the_last_one_gone_gives_it_back() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = on(&mem, &world);
    connect(&app, &world, 1, "Claude Code");
    let prompt = app.state.borrow().task.as_ref().map(|t| t.prompt.clone());
    assert_eq!(prompt.as_deref(), Some("Claude Code is using this browser through Waymark"));
    let ours = app.external.controls.borrow().clone().expect("controls for the cards");
    assert!(app.controls.borrow().as_ref().is_some_and(|c| Rc::ptr_eq(c, &ours)));
    connect(&app, &world, 2, "Cursor");
    assert_eq!(app.state.borrow().external.clients.len(), 2);
    let gone = |client| HostEvent::BridgeClient { client, name: String::new(), connected: false };
    assert!(app.bridge_event(&world, gone(1)).is_none());
    assert!(app.controls.borrow().is_some(), "one is still connected");
    assert!(app.bridge_event(&world, gone(2)).is_none());
    assert!(app.controls.borrow().is_none());
    let task = app.state.borrow().task.clone().expect("shown");
    assert_eq!(task.heading, "Cursor disconnected.");
    assert!(!task.running);
}

#[test]
fn switching_external_agents_off_closes_the_bridge_and_says_so() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = on(&mem, &world);
    connect(&app, &world, 1, "Claude Code");
    block_on(app.close_bridge(&world));
    assert!(world.host.seen.borrow().iter().any(|r| matches!(r, RequestBody::BridgeClose(_))));
    assert!(app.state.borrow().external.clients.is_empty());
    let heading = app.state.borrow().task.as_ref().map(|t| t.heading.clone());
    assert_eq!(heading.as_deref(), Some("External agents were switched off."));
    block_on(app.disconnect_external(&world, 1));
    assert!(world.host.seen.borrow().iter().any(|r| matches!(r, RequestBody::BridgeDisconnect(_))));
}

#[test]
fn who_may_call_when() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = on(&mem, &world);
    assert_eq!(call(&app, &world, 9, BridgeCall::Ping).map(|o| o.text), Ok("pong".into()));
    // A client the bridge does not know (it went away).
    let failure = call(&app, &world, 9, BridgeCall::ListTabs).expect_err("gone");
    assert_eq!(failure.kind, BridgeFailureKind::Stopped);
    connect(&app, &world, 1, "Claude Code");
    assert!(call(&app, &world, 1, BridgeCall::ListTabs).is_ok());
    // Waymark's own task holds the panel.
    *app.controls.borrow_mut() = Some(Controls::new(Default::default(), false));
    let failure = call(&app, &world, 1, BridgeCall::ListTabs).expect_err("busy");
    assert_eq!(failure.kind, BridgeFailureKind::Busy);
    assert!(failure.message.starts_with("Waymark's own agent is running a task"));
    // A task an agent asked for runs: every other call is told at once.
    *app.external.task.borrow_mut() = Some(ClientTask {
        client: 1,
        name: "Claude Code".into(),
        controls: Controls::new(Default::default(), false),
    });
    let failure = call(&app, &world, 1, BridgeCall::ListTabs).expect_err("busy");
    assert!(failure.message.contains("running a task for Claude Code"), "{}", failure.message);
    // Switched off.
    app.state.borrow_mut().external.enabled = false;
    let failure = call(&app, &world, 1, BridgeCall::ListTabs).expect_err("off");
    assert_eq!(failure.kind, BridgeFailureKind::Off);
}

#[test]
fn an_agents_task_runs_in_a_new_session_and_reports_what_it_found() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = on(&mem, &world);
    connect(&app, &world, 1, "Claude Code");
    let before = app.sessions.current().id.clone();
    let run = |prompt: &str, session: Option<&str>| BridgeCall::RunTask {
        prompt: prompt.into(),
        session: session.map(str::to_owned),
    };
    let failure = call(&app, &world, 1, run("  ", None)).expect_err("no task");
    assert_eq!(failure.kind, BridgeFailureKind::BadArguments);
    let failure = call(&app, &world, 1, run("find it", Some("nope"))).expect_err("no such session");
    assert!(failure.message.starts_with("there is no session nope"), "{}", failure.message);
    let incoming = IncomingCall { call: 7, client: 1, request: run("find the price", None) };
    block_on(app.answer_call(&world, incoming));
    let answered = world.host.seen.borrow().iter().find_map(|r| match r {
        RequestBody::BridgeAnswer(a) => Some(a.clone()),
        _ => None,
    });
    let answered = answered.expect("the host was answered");
    assert_eq!(answered.call, 7);
    let text = format!("{:?}", answered.result);
    assert!(text.contains("Found it."), "{text}");
    let session = app.sessions.current();
    assert_ne!(session.id, before, "a new session");
    assert_eq!(session.records.len(), 1);
    assert_eq!(session.records[0].asked_by.as_deref(), Some("Claude Code"));
    // It acted on nothing: no step to tell the waiting agent of.
    assert!(world.progress.borrow().is_empty());
    assert!(app.external.task.borrow().is_none());
}

#[test]
fn an_agents_workflow_run_needs_a_saved_workflow() {
    let (mem, world) = (MemStore::default(), World::default());
    let app = on(&mem, &world);
    connect(&app, &world, 1, "Claude Code");
    let request =
        BridgeCall::RunWorkflow { name: "nothing saved".into(), values: Default::default() };
    let failure = call(&app, &world, 1, request).expect_err("unknown");
    assert_eq!(failure.kind, BridgeFailureKind::BadArguments);
    // Waymark's own task holds the panel: busy.
    *app.controls.borrow_mut() = Some(Controls::new(Default::default(), false));
    let request = BridgeCall::RunWorkflow { name: "x".into(), values: Default::default() };
    let failure = call(&app, &world, 1, request).expect_err("busy");
    assert_eq!(failure.kind, BridgeFailureKind::Busy);
}
