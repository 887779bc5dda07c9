//! External agents in this browser (the worker's thin side of the bridge): keeps `bridge.open`
//! in flight while the user allows external agents (which keeps the native port, and so this
//! worker, alive), hands each `bridge.call` to the core's [`ExternalSession`] with the tabs,
//! the panel's controls and the timeline, and answers with `bridge.answer`. Everything an
//! action may do is decided in the core, by the agent's own policy.

use super::Worker;
use super::env::BrowserEnv;
use super::task::TaskEventSink;
use crate::chrome;
use crate::tab::TabPage;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::{JsFuture, spawn_local};
use waymark_core::agent::{Controls, PageError, Reply};
use waymark_core::bridge::{
    Browser, BrowserTab, ExternalOperator, ExternalSession, OnCard, SeenRequest, awaiting_user,
};
use waymark_core::panel::TaskView;
use waymark_page::action::ContentRequest;
use waymark_page::console::ConsoleEntry;
use waymark_protocol::{
    BridgeAnswer, BridgeCall, BridgeClose, BridgeDisconnect, BridgeFailure, BridgeFailureKind,
    BridgeOpen, BridgeOutput, BridgeProgress, ErrorCode, HostEvent,
};

/// Longest pause before opening the bridge again after the host went away.
const MAX_RETRY_MS: u32 = 5_000;

/// The bridge's state in this worker.
#[derive(Default)]
pub(super) struct BridgeState {
    /// Each connected agent's session, by client id.
    sessions: RefCell<HashMap<u64, ExternalSession>>,
    /// The controls cards go through while external agents are connected.
    controls: RefCell<Option<Rc<Controls>>>,
    /// A `bridge.open` is in flight (or being retried).
    opening: Cell<bool>,
    /// One call at a time: the page is one.
    busy: Cell<bool>,
    waiting: RefCell<VecDeque<js_sys::Function>>,
    /// The task an external agent asked for, while it runs.
    task: RefCell<Option<ClientTask>>,
    /// The client whose call holds the turn (its card is withdrawn when it goes away).
    in_turn: Cell<Option<u64>>,
}

/// A running task an external agent asked for.
struct ClientTask {
    /// The client that asked.
    client: u64,
    /// Its name.
    name: String,
    /// The task's controls (the client going away stops it).
    controls: Rc<Controls>,
}

impl BridgeState {
    /// A task client `client` asked for started, with `controls`.
    pub(super) fn task_started(&self, client: u64, name: &str, controls: &Rc<Controls>) {
        *self.task.borrow_mut() =
            Some(ClientTask { client, name: name.to_owned(), controls: controls.clone() });
    }

    /// That task ended.
    pub(super) fn task_ended(&self) {
        self.task.borrow_mut().take();
    }

    /// Stops the task client `client` asked for, if it runs (the client went away).
    fn stop_task_of(&self, client: u64) {
        if let Some(task) = self.task.borrow().as_ref().filter(|t| t.client == client) {
            task.controls.stop();
        }
    }

    /// Waits for this call's turn.
    async fn acquire(&self) {
        if !self.busy.replace(true) {
            return;
        }
        let mut slot = None;
        let promise = js_sys::Promise::new(&mut |resolve, _| slot = Some(resolve));
        if let Some(resolve) = slot {
            self.waiting.borrow_mut().push_back(resolve);
        }
        if let Err(e) = JsFuture::from(promise).await {
            tracing::warn!(error = %crate::js_message(&e), "a bridge call's turn failed");
        }
    }

    /// Hands the turn to the next waiting call.
    fn release(&self) {
        match self.waiting.borrow_mut().pop_front() {
            Some(next) => {
                if let Err(e) = next.call0(&wasm_bindgen::JsValue::NULL) {
                    tracing::error!(error = %crate::js_message(&e), "a bridge call was not woken");
                }
            }
            None => self.busy.set(false),
        }
    }
}

/// Reads the switch at start-up and opens the bridge when it is on.
pub(super) async fn start(w: &Rc<Worker>) {
    if w.app.load_external_agents().await {
        spawn_local(keep_open(w.clone()));
    }
}

/// External agents were switched on: the bridge stays open.
pub(super) fn open(w: &Rc<Worker>) {
    spawn_local(keep_open(w.clone()));
}

/// External agents were switched off: a card open for one is answered Stop, the bridge closes.
pub(super) async fn close(w: &Rc<Worker>) {
    stop_card(w);
    if let Err(e) = w.host.request(BridgeClose {}).await {
        tracing::warn!(code = %e.code, "bridge.close failed: {}", e.message);
    }
    all_gone(w, "External agents were switched off.");
}

/// The panel's Disconnect.
pub(super) async fn disconnect(w: &Rc<Worker>, client: u64) {
    stop_card(w);
    if let Err(e) = w.host.request(BridgeDisconnect { client }).await {
        tracing::debug!(code = %e.code, "disconnect: {}", e.message);
    }
}

/// A card open for an external agent is answered with Stop (it is then not done).
fn stop_card(w: &Rc<Worker>) {
    if let Some(c) = w.bridge.controls.borrow().as_ref()
        && c.snapshot().card.is_some()
    {
        c.answer(Reply::stop());
    }
}

/// Keeps `bridge.open` in flight while the switch is on: the host streams clients and calls
/// on it; when the host goes away the bridge opens again on a new one.
async fn keep_open(w: Rc<Worker>) {
    if w.bridge.opening.replace(true) {
        return;
    }
    let mut delay = 250;
    while w.app.state.borrow().external.enabled {
        all_gone(&w, "");
        let listener = w.clone();
        let result = w
            .host
            .request_with_events(BridgeOpen::default(), move |event| on_event(&listener, event))
            .await;
        match result {
            Ok(closed) => {
                tracing::info!(reason = %closed.reason, "the bridge closed");
                delay = 250;
            }
            Err(e) if e.code == ErrorCode::HostUnavailable => {
                w.app.state.borrow_mut().external.error = Some(format!(
                    "The Waymark host is not running ({}); Waymark tries again. If this stays, \
                     run `waymark-host doctor` in a terminal.",
                    e.message
                ));
                w.broadcast();
            }
            Err(e) => {
                w.app.state.borrow_mut().external.error = Some(format!(
                    "External agents cannot connect: {}. Switch external agents off and on \
                     again once fixed.",
                    e.with_advice()
                ));
                all_gone(&w, "");
                break;
            }
        }
        if !w.app.state.borrow().external.enabled {
            break;
        }
        chrome::sleep(delay).await;
        delay = (delay * 2).min(MAX_RETRY_MS);
    }
    w.bridge.opening.set(false);
}

/// Every client is gone (the bridge closed): the panel says so.
fn all_gone(w: &Rc<Worker>, note: &str) {
    let names: Vec<u64> = w.app.state.borrow().external.clients.iter().map(|c| c.id).collect();
    for id in names {
        client_gone(w, id, note);
    }
}

fn on_event(w: &Rc<Worker>, event: HostEvent) {
    match event {
        HostEvent::BridgeClient { client, name, connected: true } => {
            client_connected(w, client, &name)
        }
        HostEvent::BridgeClient { client, connected: false, .. } => {
            client_gone(w, client, "");
        }
        HostEvent::BridgeCall { call, client, request } => {
            spawn_local(answer(w.clone(), call, client, request));
        }
        other => tracing::debug!(?other, "an event the bridge does not use"),
    }
}

fn client_connected(w: &Rc<Worker>, client: u64, name: &str) {
    let (sites, files) = {
        let state = w.app.state.borrow();
        let files = state.attachments.iter().map(|a| (a.name.clone(), a.path.clone())).collect();
        (state.settings.agent.allowed_sites.clone(), files)
    };
    w.bridge.sessions.borrow_mut().insert(client, ExternalSession::new(name, sites, files));
    w.app.state.borrow_mut().external.connected(client, name);
    ensure_controls(w, name);
    w.broadcast();
}

/// The controls the external agents' cards go through: made (with a timeline of their own)
/// when none are, unless Waymark's own task holds the panel (`None`: the caller is busy).
fn ensure_controls(w: &Rc<Worker>, name: &str) -> Option<Rc<Controls>> {
    let ours = w.bridge.controls.borrow().clone();
    let current = w.app.controls.borrow().clone();
    match (ours, current) {
        (Some(ours), Some(current)) if Rc::ptr_eq(&ours, &current) => Some(ours),
        (_, Some(_)) => None,
        (_, None) => {
            // The timeline shows the external agent's actions like a task's; cards go through
            // the same controls the panel answers.
            w.app.state.borrow_mut().task =
                Some(TaskView::started(&format!("{name} is using this browser through Waymark")));
            let p = super::WorkerPlatform::of(w);
            let controls = w.app.attach_controls(&p, false, None);
            *w.bridge.controls.borrow_mut() = Some(controls.clone());
            Some(controls)
        }
    }
}

fn client_gone(w: &Rc<Worker>, client: u64, note: &str) {
    // A task it asked for stops with it, and a card it waits at is withdrawn (answered with
    // Stop: not done): no one waits for its answer (its MCP server gave up waiting).
    w.bridge.stop_task_of(client);
    if w.bridge.in_turn.get() == Some(client) {
        stop_card(w);
    }
    let name = w.app.state.borrow().external.name_of(client).map(str::to_owned);
    w.bridge.sessions.borrow_mut().remove(&client);
    w.app.state.borrow_mut().external.gone(client);
    let last = w.app.state.borrow().external.clients.is_empty();
    if last && let Some(ours) = w.bridge.controls.borrow_mut().take() {
        let mine = w.app.controls.borrow().as_ref().is_some_and(|c| Rc::ptr_eq(c, &ours));
        if mine {
            *w.app.controls.borrow_mut() = None;
        }
        if let Some(task) = w.app.state.borrow_mut().task.as_mut().filter(|_| mine) {
            task.running = false;
            let who = name.unwrap_or_else(|| "The external agent".into());
            let words =
                if note.is_empty() { format!("{who} disconnected.") } else { note.to_owned() };
            task.answer = Some(words.clone());
            task.heading = words;
            task.controls = Default::default();
        }
    }
    w.broadcast();
}

/// Answers one call (the host waits for it).
async fn answer(w: Rc<Worker>, call: u64, client: u64, request: BridgeCall) {
    let result = handle(&w, call, client, request).await;
    if let Err(e) = w.host.request(BridgeAnswer { call, result: result.into() }).await {
        tracing::warn!(code = %e.code, "a bridge answer was not delivered: {}", e.message);
    }
}

async fn handle(
    w: &Rc<Worker>,
    call: u64,
    client: u64,
    request: BridgeCall,
) -> Result<BridgeOutput, BridgeFailure> {
    if request == BridgeCall::Ping {
        return Ok(BridgeOutput { text: "pong".into(), ..BridgeOutput::default() });
    }
    if !w.app.state.borrow().external.enabled {
        return Err(BridgeFailure::new(
            BridgeFailureKind::Off,
            "the user switched external agents off in Waymark's settings",
        ));
    }
    if let Some(task) = w.bridge.task.borrow().as_ref() {
        // A task runs for hours at worst: the other calls are told at once instead of waiting.
        return Err(BridgeFailure::new(
            BridgeFailureKind::Busy,
            format!(
                "Waymark's agent is running a task for {} in this browser; try again when it \
                 is done",
                task.name
            ),
        ));
    }
    if let BridgeCall::RunWorkflow { name, values } = request {
        return run_workflow(w, &name, values).await;
    }
    w.bridge.acquire().await;
    let result = handle_in_turn(w, call, client, request).await;
    w.bridge.release();
    result
}

/// A saved workflow run for an external agent: Waymark's own task, which the panel shows and
/// whose cards only the panel answers; the external agents' controls take the panel again
/// after it. Busy while Waymark's own task runs.
async fn run_workflow(
    w: &Rc<Worker>,
    name: &str,
    values: std::collections::BTreeMap<String, String>,
) -> Result<BridgeOutput, BridgeFailure> {
    let ours = w.bridge.controls.borrow().clone();
    let current = w.app.controls.borrow().clone();
    let own_task = match (&ours, &current) {
        (Some(ours), Some(current)) => !Rc::ptr_eq(ours, current),
        (None, current) => current.is_some(),
        (Some(_), None) => false,
    };
    if own_task {
        return Err(BridgeFailure::new(
            BridgeFailureKind::Busy,
            "Waymark's own agent is running a task in this browser; try again when it is done",
        ));
    }
    let result = super::workflows::run_for_bridge(w, name, values).await;
    if let Some(ours) = ours
        && w.app.controls.borrow().is_none()
        && !w.app.state.borrow().external.clients.is_empty()
    {
        *w.app.controls.borrow_mut() = Some(ours);
    }
    result
}

async fn handle_in_turn(
    w: &Rc<Worker>,
    call: u64,
    client: u64,
    request: BridgeCall,
) -> Result<BridgeOutput, BridgeFailure> {
    let Some(name) = w.app.state.borrow().external.name_of(client).map(str::to_owned) else {
        return Err(BridgeFailure::new(BridgeFailureKind::Stopped, "this agent was disconnected"));
    };
    // The external agents' controls (made again after a task of theirs ended), unless
    // Waymark's own task holds the panel.
    let Some(controls) = ensure_controls(w, &name) else {
        return Err(BridgeFailure::new(
            BridgeFailureKind::Busy,
            "Waymark's own agent is running a task in this browser; try again when it is done",
        ));
    };
    let Some(mut session) = w.bridge.sessions.borrow_mut().remove(&client) else {
        return Err(BridgeFailure::new(BridgeFailureKind::Stopped, "this agent was disconnected"));
    };
    let progress = w.host.clone();
    let on_card: OnCard = Box::new(move |card| send_progress(&progress, awaiting_user(call, card)));
    let operator = ExternalOperator::new(controls, session.client()).with_on_card(on_card);
    w.bridge.in_turn.set(Some(client));
    let result = match request {
        BridgeCall::RunTask { prompt, session: id } => {
            super::client_task::run(w, call, client, &mut session, prompt, id).await
        }
        request => {
            let browser = Tabs { w: w.clone() };
            let events = TaskEventSink(w.clone());
            session.handle(request, &browser, &BrowserEnv, &events, &operator).await
        }
    };
    w.bridge.in_turn.set(None);
    if w.app.state.borrow().external.name_of(client).is_some() {
        w.bridge.sessions.borrow_mut().insert(client, session);
    }
    if operator.stopped() {
        let w = w.clone();
        spawn_local(async move { disconnect(&w, client).await });
    }
    result
}

/// Tells the agent waiting for a call how far it got (a card it waits at).
pub(super) fn send_progress(host: &Rc<crate::host_port::HostClient>, progress: BridgeProgress) {
    let host = host.clone();
    spawn_local(async move {
        if let Err(e) = host.request(progress).await {
            tracing::debug!(code = %e.code, "progress not delivered: {}", e.message);
        }
    });
}

/// The browser's tabs, for the core.
pub(super) struct Tabs {
    pub w: Rc<Worker>,
}

/// What `chrome.tabs.query` says about a tab (the fields the bridge lists).
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct QueriedTab {
    id: i32,
    title: String,
    url: String,
    active: bool,
}

/// The window a tab is in (`chrome.tabs.get`).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct WindowOf {
    window_id: i32,
}

/// What `chrome.windows.update` is asked to set (a struct: a plain object in JS, where a map
/// would become a `Map` Chrome ignores).
#[derive(serde::Serialize)]
struct WindowBounds {
    state: &'static str,
    width: u32,
    height: u32,
}

/// A window's size (`chrome.windows.update`'s answer).
#[derive(serde::Deserialize)]
struct WindowSize {
    width: u32,
    height: u32,
}

impl Browser for Tabs {
    type Page = TabPage;

    async fn tabs(&self) -> Result<Vec<BrowserTab>, PageError> {
        let value = JsFuture::from(chrome::tabs_query(&js_sys::Object::new()))
            .await
            .map_err(|e| PageError::Browser(crate::js_message(&e)))?;
        let tabs: Vec<QueriedTab> = serde_wasm_bindgen::from_value(value)
            .map_err(|e| PageError::BadReply(format!("the tab list: {e}")))?;
        Ok(tabs
            .into_iter()
            .map(|t| BrowserTab { id: t.id, title: t.title, url: t.url, active: t.active })
            .collect())
    }

    async fn user_tab(&self) -> Option<i32> {
        crate::tab::target_tab().await
    }

    fn page(&self, tab: i32) -> TabPage {
        let resources = self
            .w
            .app
            .state
            .borrow()
            .attachments
            .iter()
            .map(|a| (a.name.clone(), a.path.clone()))
            .collect();
        let uploads = crate::upload::Uploads { resources, host: self.w.host.clone() };
        TabPage::new(tab).with_uploads(uploads)
    }

    fn tab_of(&self, page: &TabPage) -> i32 {
        page.tab_id()
    }

    async fn resize(&self, tab: i32, width: u32, height: u32) -> Result<(u32, u32), PageError> {
        let browser = |e: JsValue| PageError::Browser(crate::js_message(&e));
        let got = JsFuture::from(chrome::tabs_get(tab).map_err(browser)?)
            .await
            .map_err(|_| PageError::TabClosed { tab, during: String::new() })?;
        let window: WindowOf = serde_wasm_bindgen::from_value(got)
            .map_err(|e| PageError::BadReply(format!("the tab's window: {e}")))?;
        // A maximised or full-screen window keeps its size: it is made normal first.
        let bounds = WindowBounds { state: "normal", width, height };
        let props = serde_wasm_bindgen::to_value(&bounds)
            .map_err(|e| PageError::BadReply(e.to_string()))?;
        let updated =
            JsFuture::from(chrome::windows_update(window.window_id, &props).map_err(browser)?)
                .await
                .map_err(browser)?;
        let size: WindowSize = serde_wasm_bindgen::from_value(updated)
            .map_err(|e| PageError::BadReply(format!("the window's new size: {e}")))?;
        Ok((size.width, size.height))
    }

    async fn requests(&self, tab: i32) -> Result<Vec<SeenRequest>, PageError> {
        Ok(crate::request_log::of(tab))
    }

    async fn console(&self, tab: i32) -> Result<Vec<ConsoleEntry>, PageError> {
        TabPage::new(tab).content(0, &ContentRequest::Console).await
    }
}
