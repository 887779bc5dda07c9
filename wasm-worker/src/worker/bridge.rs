//! External agents in this browser (the worker's thin side of the bridge): `bridge.open` on
//! the host with its events handed to the core's external desk (`waymark_core::app`), which
//! decides who may call, when to retry and what the panel says; the browser's tabs for the
//! calls; each answer's call run in the background.

use super::{Worker, WorkerPlatform};
use crate::chrome;
use crate::tab::TabPage;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::{JsFuture, spawn_local};
use waymark_core::agent::PageError;
use waymark_core::app::BridgePlatform;
use waymark_core::bridge::{Browser, BrowserTab, SeenRequest};
use waymark_page::action::ContentRequest;
use waymark_page::console::ConsoleEntry;
use waymark_protocol::{BridgeClosed, BridgeOpen, BridgeProgress, ErrorBody};

/// Reads the switch at start-up; the bridge opens (in the background) when it is on.
pub(super) async fn start(w: &Rc<Worker>) {
    if w.app.load_external_agents().await {
        open(w);
    }
}

/// External agents were switched on: the bridge stays open.
pub(super) fn open(w: &Rc<Worker>) {
    let w = w.clone();
    spawn_local(async move {
        let p = WorkerPlatform::of(&w);
        w.app.keep_bridge_open(&p).await;
    });
}

impl BridgePlatform for WorkerPlatform {
    type Browser = Tabs;

    fn browser(&self) -> &Tabs {
        &self.browser
    }

    async fn open_bridge(&self) -> Result<BridgeClosed, ErrorBody> {
        let w = self.worker.clone();
        let on_event = move |event| {
            let p = WorkerPlatform::of(&w);
            if let Some(call) = w.app.bridge_event(&p, event) {
                let w = w.clone();
                spawn_local(async move { w.app.answer_call(&p, call).await });
            }
        };
        self.worker.host.request_with_events(BridgeOpen::default(), on_event).await
    }

    async fn sleep(&self, ms: u32) {
        chrome::sleep(ms).await;
    }

    fn progress(&self) -> Rc<dyn Fn(BridgeProgress)> {
        let host = self.worker.host.clone();
        Rc::new(move |progress| {
            let host = host.clone();
            spawn_local(async move {
                if let Err(e) = host.request(progress).await {
                    tracing::debug!(code = %e.code, "progress not delivered: {}", e.message);
                }
            });
        })
    }
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
        let resources = self.w.app.upload_resources();
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
