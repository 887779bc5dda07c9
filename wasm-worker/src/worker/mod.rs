//! The service worker: owns the agent, the native host, the session and the side panels.
//! `extension/sw.js` forwards Chrome's events here and decides nothing.

mod bridge;
mod env;
mod guide;
mod interventions;
mod recording;
mod routines;
mod sessions;
mod snapshot;
mod status;
mod storage;
mod task;
mod workflows;

use super::chrome::{self, Port};
use super::host_port::HostClient;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use waymark_core::app::Effect;
use waymark_core::panel::PanelRequest;
use waymark_page::js::to_js;

/// The worker's state: one per service-worker lifetime.
struct Worker {
    host: Rc<HostClient>,
    panels: RefCell<Vec<Port>>,
    /// What the panels show, the sessions, the workflows, the running task's controls: the
    /// core's app decides; this worker carries out its effects.
    app: waymark_core::app::App<storage::ChromeStore>,
    /// Teach by showing: the recording in progress.
    recording: recording::RecordingState,
}

thread_local! {
    static WORKER: RefCell<Option<Rc<Worker>>> = const { RefCell::new(None) };
}

fn worker() -> Rc<Worker> {
    WORKER.with(|w| {
        w.borrow_mut()
            .get_or_insert_with(|| {
                let host = HostClient::new();
                let worker = Rc::new(Worker {
                    host: host.clone(),
                    panels: RefCell::new(Vec::new()),
                    app: waymark_core::app::App::new(storage::ChromeStore),
                    recording: recording::RecordingState::default(),
                });
                let weak = Rc::downgrade(&worker);
                host.set_on_status(move || {
                    if let Some(w) = weak.upgrade() {
                        let status = w.host.status();
                        w.app.state.borrow_mut().host = status;
                        w.broadcast();
                    }
                });
                let weak = Rc::downgrade(&worker);
                host.set_on_retry(move |text| {
                    if let Some(w) = weak.upgrade() {
                        let view = task::TaskEventSink(w);
                        waymark_core::agent::TaskEvents::emit(
                            &view,
                            waymark_core::agent::TaskEvent::Noted { text },
                        );
                    }
                });
                worker
            })
            .clone()
    })
}

/// Starts the worker: loads the current session from storage.
#[wasm_bindgen]
pub async fn sw_start() -> Result<(), JsValue> {
    start(None).await
}

/// Starts a fresh instance after the previous one crashed (a panic traps the wasm and leaves
/// it unusable; `sw.js` starts a new instance and calls this). `message` and `location` are
/// what the crashed instance's panic hook said (or the trap's message). The task that was
/// running is recorded as interrupted and never run again; the panel tells the user and
/// offers a report.
#[wasm_bindgen]
pub async fn sw_recover(message: String, location: Option<String>) -> Result<(), JsValue> {
    start(Some(waymark_core::crash::Crash { message, location })).await
}

async fn start(crash: Option<waymark_core::crash::Crash>) -> Result<(), JsValue> {
    #[cfg(feature = "test-hooks")]
    let wasm_ms = super::tab::test_hooks::worker_now();
    // Panics and warnings reach the worker's console from here on; a developer's level
    // (`log_level` in `chrome.storage.local`) follows once read, off the start's path.
    waymark_page::js::init_console("waymark worker", waymark_page::log::DEFAULT_LEVEL);
    spawn_local(async {
        let level: Option<String> = storage::load_json(waymark_page::log::LEVEL_KEY).await;
        let level = waymark_page::log::parse_level(level.as_deref());
        waymark_page::js::init_console("waymark worker", level);
    });
    close_host_on_panic();
    // A debugger a stopped instance left pinning a tab goes first (off the start's path): its
    // paused requests go on once it is detached.
    spawn_local(super::pin::clear_stale());
    if let Some(crash) = &crash {
        tracing::error!(message = %crash.message, location = ?crash.location, "restarted after a crash");
    }
    let w = worker();
    // The extension's settings and the prompt history load alongside the session (the panel's
    // first state needs only the session; they follow in the next one).
    let loading = w.clone();
    spawn_local(async move {
        loading.app.load_settings().await;
        loading.app.load_history().await;
        guide::load(&loading).await;
        loading.broadcast();
    });
    let shown = w.app.start(&env::BrowserEnv).await;
    sessions::redraw(&w, shown);
    // Routines after the workflows they run (before an alarm that woke the worker is
    // handled); a missed run goes on in the background.
    routines::load(&w).await;
    // A recording a stopped worker left goes on (its tab is armed again).
    recording::load(&w).await;
    // Rules a crashed worker left behind go first: no tab may stay blocked by them.
    super::netguard::clear_stale_rules().await;
    // External agents come back in if the user allows them (this keeps the native port open).
    bridge::start(&w).await;
    // A task the previous worker left unfinished goes on (or is recorded after a crash).
    spawn_local(task::recover(w, crash));
    #[cfg(feature = "test-hooks")]
    super::tab::test_hooks::register(wasm_ms);
    Ok(())
}

/// A routine's alarm fired: it runs (in the background; the worker stays awake while it does).
pub(crate) fn routine_alarm(id: String) {
    spawn_local(routines::run(worker(), id));
}

/// A message from a content script (`chrome.runtime.sendMessage`, forwarded by `sw.js` with
/// its sender's tab and frame): the steps of a recording.
#[wasm_bindgen]
pub fn sw_content_message(msg: JsValue, tab: i32, frame: i32) {
    recording::message(&worker(), msg, tab, frame);
}

/// A state-changing request (from the network layer): counted when its tab is being recorded;
/// `body` is read only then.
pub(crate) fn recorded_request(
    tab: i32,
    method: &str,
    url: &str,
    body: impl FnOnce() -> Option<waymark_core::safety::RequestBody>,
) {
    let w = worker();
    if w.app.recording.tab() == Some(tab) {
        recording::request(&w, method, url, body().as_ref());
    }
}

/// After the console's panic hook (which tells the glue), a panic also closes this
/// instance's native port: the crashed instance can no longer answer it, and its host process
/// would otherwise stay until the worker stops.
fn close_host_on_panic() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let console = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            console(info);
            let host = WORKER
                .try_with(|w| w.try_borrow().ok().and_then(|w| w.as_ref().map(|w| w.host.clone())))
                .ok()
                .flatten();
            if let Some(host) = host {
                host.close_now();
            }
        }));
    });
}

/// A side panel connected. Ports from anything but our own panel page are ignored: content
/// scripts can connect too, and must never drive the agent.
#[wasm_bindgen]
pub fn sw_panel_connected(port: Port) {
    if !is_own_panel(&port) {
        return;
    }
    let w = worker();
    w.panels.borrow_mut().push(port);
    w.broadcast();
}

/// A side panel went away.
#[wasm_bindgen]
pub fn sw_panel_disconnected(port: Port) {
    let w = worker();
    w.panels.borrow_mut().retain(|p| !JsValue::from(p.clone()).loose_eq(&port.clone().into()));
}

/// A message from a side panel.
#[wasm_bindgen]
pub fn sw_panel_message(port: Port, msg: JsValue) {
    if !is_own_panel(&port) {
        return;
    }
    let w = worker();
    let decoded = serde_wasm_bindgen::from_value::<PanelRequest>(msg)
        .map_err(|e| waymark_core::panel::UnreadableMessage(e.to_string()));
    if let Err(e) = &decoded {
        tracing::warn!(error = %e, "a side panel message could not be read");
    }
    let received = w.app.state.borrow_mut().receive(decoded);
    if received.redraw {
        w.broadcast();
    }
    let Some(request) = received.request else { return };
    spawn_local(async move {
        let platform = WorkerPlatform::of(&w);
        let effects = w.app.handle(&platform, request).await;
        for effect in effects {
            carry_out(&w, effect).await;
        }
    });
}

/// The platform the core's app runs on in this worker.
struct WorkerPlatform {
    worker: Rc<Worker>,
    host: crate::host_port::HostLink,
    panels: sessions::WorkerPanels,
    tabs: recording::ChromeTabs,
    events: task::TaskEventSink,
    browser: bridge::Tabs,
}

impl WorkerPlatform {
    fn of(w: &Rc<Worker>) -> Self {
        Self {
            worker: w.clone(),
            host: crate::host_port::HostLink(w.host.clone()),
            panels: sessions::WorkerPanels(w.clone()),
            tabs: recording::ChromeTabs(w.clone()),
            events: task::TaskEventSink(w.clone()),
            browser: bridge::Tabs { w: w.clone() },
        }
    }
}

impl waymark_core::platform::Platform for WorkerPlatform {
    type Env = env::BrowserEnv;
    type Host = crate::host_port::HostLink;
    type Panels = sessions::WorkerPanels;
    type Alarms = routines::ChromeAlarms;
    type Tabs = recording::ChromeTabs;
    fn env(&self) -> &env::BrowserEnv {
        &env::BrowserEnv
    }
    fn host(&self) -> &Self::Host {
        &self.host
    }
    fn panels(&self) -> &Self::Panels {
        &self.panels
    }
    fn alarms(&self) -> &Self::Alarms {
        &routines::ChromeAlarms
    }
    fn tabs(&self) -> &Self::Tabs {
        &self.tabs
    }
}

/// Does what the app asked for after a request.
async fn carry_out(w: &Rc<Worker>, effect: Effect) {
    match effect {
        Effect::Redraw(shown) => sessions::redraw(w, shown),
        Effect::RefreshHost => {
            let host = w.host.clone();
            spawn_local(async move { host.refresh().await });
        }
        Effect::StartTask(start) => {
            spawn_local(task::run(w.clone(), waymark_core::app::TaskRun::of(*start)));
        }
        Effect::StartRun { run, mode } => workflows::start_run(w, *run, mode),
        Effect::EndedAtStart(outcome) => {
            let view = task::TaskEventSink(w.clone());
            waymark_core::agent::TaskEvents::emit(
                &view,
                waymark_core::agent::TaskEvent::Finished(outcome),
            );
        }
        Effect::RunRoutine(id) => spawn_local(routines::run(w.clone(), id)),
        Effect::ExportWorkflow { name, write } => {
            let written = w.host.request(write.clone()).await;
            w.app.workflows.exported(&w.app.state, name, write, written);
            w.broadcast();
        }
        Effect::OpenBridge => bridge::open(w),
        Effect::CloseBridge => w.app.close_bridge(&WorkerPlatform::of(w)).await,
        Effect::DisconnectExternal(client) => {
            w.app.disconnect_external(&WorkerPlatform::of(w), client).await;
        }
    }
}

fn is_own_panel(port: &Port) -> bool {
    let url = js_sys::Reflect::get(&port.sender(), &"url".into())
        .ok()
        .and_then(|u| u.as_string())
        .unwrap_or_default();
    waymark_core::safety::is_panel_port(
        &port.name(),
        &url,
        &chrome::extension_url("sidepanel.html"),
    )
}

impl Worker {
    fn broadcast(&self) {
        let Ok(msg) = to_js(&self.app.state.borrow().view()) else { return };
        self.panels.borrow_mut().retain(|p| p.post_message(&msg).is_ok());
    }
}
