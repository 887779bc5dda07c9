//! The service worker: owns the agent, the native host, the session and the side panels.
//! `extension/sw.js` forwards Chrome's events here and decides nothing.

use super::chrome::{self, Port};
use super::host_port::{HostClient, to_js};
use super::tab::TabPage;
use crate::agent::{self, Env, TaskEvent, TaskEvents};
use crate::panel::{ExportView, PanelRequest, PanelState, TaskView};
use crate::protocol::{ExportFormat, ExportWrite, ExportWritten, RequestBody};
use crate::session::{self, Session, TaskRecord};
use crate::tabs::{TabInfo, pick_target_tab};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, spawn_local};

struct Worker {
    host: Rc<HostClient>,
    panels: RefCell<Vec<Port>>,
    state: RefCell<PanelState>,
    session: RefCell<Session>,
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
                    state: RefCell::new(PanelState::default()),
                    session: RefCell::new(Session::default()),
                });
                let weak = Rc::downgrade(&worker);
                host.set_on_status(move || {
                    if let Some(w) = weak.upgrade() {
                        let status = w.host.status();
                        w.state.borrow_mut().host = status;
                        w.broadcast();
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
    let w = worker();
    let session = load_session().await.unwrap_or_else(new_session);
    w.state.borrow_mut().turns = session.records.len() as u32;
    *w.session.borrow_mut() = session;
    Ok(())
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
    let request: PanelRequest = match serde_wasm_bindgen::from_value(msg) {
        Ok(r) => r,
        Err(_) => return,
    };
    let w = worker();
    match request {
        PanelRequest::Hello => {
            w.broadcast();
            let host = w.host.clone();
            spawn_local(async move {
                let _ = host.hello().await;
            });
        }
        PanelRequest::StartTask { prompt } => {
            let running = w.state.borrow().task.as_ref().is_some_and(|t| t.running);
            if !running && !prompt.trim().is_empty() {
                w.state.borrow_mut().task = Some(TaskView::started(&prompt));
                w.broadcast();
                spawn_local(run(w, prompt));
            }
        }
        PanelRequest::Export => spawn_local(export(w)),
    }
}

fn is_own_panel(port: &Port) -> bool {
    let url = js_sys::Reflect::get(&port.sender(), &"url".into())
        .ok()
        .and_then(|u| u.as_string())
        .unwrap_or_default();
    let own = format!("chrome-extension://{}/sidepanel.html", chrome::extension_id());
    port.name() == "panel" && url.starts_with(&own)
}

impl Worker {
    fn broadcast(&self) {
        let Ok(msg) = to_js(&*self.state.borrow()) else { return };
        self.panels.borrow_mut().retain(|p| p.post_message(&msg).is_ok());
    }
}

struct BrowserEnv;

impl Env for BrowserEnv {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn random_u64(&self) -> u64 {
        let part = || (js_sys::Math::random() * 4_294_967_296.0) as u64;
        (part() << 32) | part()
    }
}

impl TaskEvents for Rc<Worker> {
    fn emit(&self, event: TaskEvent) {
        if let Some(task) = self.state.borrow_mut().task.as_mut() {
            task.apply(&event);
        }
        self.broadcast();
    }
}

async fn run(w: Rc<Worker>, prompt: String) {
    let Some(tab_id) = target_tab().await else {
        let outcome = agent::TaskOutcome {
            answer: "Open a web page (http or https) in a tab first: Waymark works on the tab \
                     you are looking at."
                .into(),
            success: false,
            error: Some("no web page tab".into()),
            steps: vec![],
            step_count: 0,
            elapsed_ms: 0.0,
        };
        w.emit(TaskEvent::Finished(outcome));
        return;
    };
    if !matches!(w.host.status(), crate::panel::HostStatus::Connected { .. }) {
        let _ = w.host.hello().await;
    }
    let page = TabPage { tab_id };
    let outcome =
        agent::run_task(&prompt, agent::DEFAULT_MAX_STEPS, &w.host, &page, &BrowserEnv, &w).await;
    let turn = w.session.borrow().records.len() as u32 + 1;
    let record = TaskRecord::from_outcome(turn, &prompt, &outcome, BrowserEnv.now_ms());
    w.session.borrow_mut().records.push(record.clone());
    w.state.borrow_mut().turns = turn;
    w.broadcast();
    let session = w.session.borrow().clone();
    let _ = save_turn(&session, &record).await;
}

async fn export(w: Rc<Worker>) {
    let now = BrowserEnv.now_ms();
    let content = session::to_markdown(&w.session.borrow(), now);
    let body = RequestBody::ExportWrite(ExportWrite {
        name_hint: Some(session::export_name_hint(now)),
        format: ExportFormat::Md,
        content,
    });
    let view = match w.host.request(body).await {
        Ok(data) => match serde_json::from_value::<ExportWritten>(data) {
            Ok(written) => ExportView::Written { path: written.path },
            Err(e) => ExportView::Failed { message: format!("unexpected reply: {e}") },
        },
        Err(e) => ExportView::Failed { message: e.to_string() },
    };
    w.state.borrow_mut().export = Some(view);
    w.broadcast();
}

async fn target_tab() -> Option<i32> {
    let tabs = JsFuture::from(chrome::tabs_query(&js_sys::Object::new())).await.ok()?;
    let tabs: Vec<TabInfo> = serde_wasm_bindgen::from_value(tabs).ok()?;
    pick_target_tab(&tabs)
}

const CURRENT_SESSION_KEY: &str = "current_session";

fn new_session() -> Session {
    let id = format!("{:x}{:08x}", js_sys::Date::now() as u64, BrowserEnv.random_u64() as u32);
    Session { id, title: String::new(), created_ms: js_sys::Date::now(), records: Vec::new() }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct SessionMeta {
    id: String,
    title: String,
    created_ms: f64,
    turns: u32,
}

async fn storage_get(key: &str) -> Option<JsValue> {
    let got = JsFuture::from(chrome::storage_get(&JsValue::from_str(key))).await.ok()?;
    let value = js_sys::Reflect::get(&got, &JsValue::from_str(key)).ok()?;
    (!value.is_undefined()).then_some(value)
}

async fn load_session() -> Option<Session> {
    let id = storage_get(CURRENT_SESSION_KEY).await?.as_string()?;
    let meta: SessionMeta =
        serde_wasm_bindgen::from_value(storage_get(&Session::meta_key(&id)).await?).ok()?;
    let mut records = Vec::with_capacity(meta.turns as usize);
    for turn in 1..=meta.turns {
        if let Some(v) = storage_get(&Session::turn_key(&id, turn)).await
            && let Ok(record) = serde_wasm_bindgen::from_value::<TaskRecord>(v)
        {
            records.push(record);
        }
    }
    Some(Session { id: meta.id, title: meta.title, created_ms: meta.created_ms, records })
}

/// Writes one turn and the small session header: cost proportional to the turn.
async fn save_turn(session: &Session, record: &TaskRecord) -> Result<(), JsValue> {
    let items = js_sys::Object::new();
    let meta = SessionMeta {
        id: session.id.clone(),
        title: session.title.clone(),
        created_ms: session.created_ms,
        turns: record.turn,
    };
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&items, &JsValue::from_str(k), &v);
    set(CURRENT_SESSION_KEY, JsValue::from_str(&session.id))?;
    set(&Session::meta_key(&session.id), to_js(&meta).map_err(super::js_error)?)?;
    set(&Session::turn_key(&session.id, record.turn), to_js(record).map_err(super::js_error)?)?;
    JsFuture::from(chrome::storage_set(&items)).await?;
    Ok(())
}
