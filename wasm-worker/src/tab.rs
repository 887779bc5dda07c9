//! The tab the agent works on: page actions go to the content script of the ref's frame; tab
//! actions (navigation, tabs, waits, screenshots, find) are done here with `chrome.tabs`.

use super::chrome;

// A routine's tab, opened without taking focus.
mod background;
pub use background::{close_background, open_background};
// Uploads of task resources and the page's faults (tab closed, navigated under a wait).
mod faults;
// `back` through the page's own history.
mod history;
// Settling after an action.
mod settle;
// The `wait` tool.
mod wait;
// Text in view confirmed against a capture of the tab.
mod screen;
// What a tab does after a call that may move it, on `chrome.tabs` events.
mod watch;
use watch::Watch;
// The end-to-end tests' and benchmarks' direct line to this module (never in shipped builds).
#[cfg(feature = "test-hooks")]
pub(super) mod test_hooks;
use super::netguard::NetGuard;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use waymark_core::agent::{Page, PageError};
use waymark_core::frames::{FrameObservation, merge};
use waymark_core::safety::{ActionTarget, BlockedRequest, NetworkPermit};
use waymark_core::tabs::{TabInfo, pick_target_tab};
use waymark_page::action::{Action, ActionOutcome, ContentRequest};
use waymark_page::js::to_js;
use waymark_page::observation::{Observation, Ref, TabSummary};

thread_local! {
    /// The latest observation of each tab, to tell the content script what the model saw.
    static LAST: std::cell::RefCell<std::collections::HashMap<i32, Observation>> = Default::default();
}

/// Upper bound for a page to finish loading after a navigation (then we observe anyway).
const LOAD_WAIT_MS: f64 = 10_000.0;
/// How long a click or key press gets to start a navigation or open a tab before the tab is
/// checked for it (script handlers often navigate a task later, not synchronously). The wait
/// ends at the tab's event; only an action that moves nothing waits it out.
const REACTION_MS: f64 = 150.0;
/// Longest wait for a navigation the worker asked for (`tabs.update`, `goBack`…) to start:
/// until then the tab still reports its old page as loaded.
const START_WAIT_MS: f64 = 1_000.0;
/// Upper bound before reading a page that is still loading: real pages often keep a tracker
/// or an ad loading for ever, and what has rendered is worth reading.
const OBSERVE_WAIT_MS: f64 = 3_000.0;

/// One browser tab (the agent may move to another with open/switch/close tab).
pub struct TabPage {
    tab_id: Cell<i32>,
    /// The task's upload resources and the host that reads them (none: uploads fail).
    uploads: Option<super::upload::Uploads>,
    /// Holds the tab to each action's network permit.
    guard: NetGuard,
    /// A workflow replay: actions settle for [`Action::replay_settle_window`] only.
    replaying: bool,
    /// Why the last action's approved request could not be pinned, until asked.
    unpinned: RefCell<Option<String>>,
    /// How the dialogs its actions open are answered (`None`: by the user).
    dialogs: RefCell<Option<waymark_page::dialog::DialogAnswer>>,
}

/// What `chrome.tabs` tells about a tab (the fields used here).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct ChromeTab {
    id: i32,
    url: String,
    title: String,
    status: String,
    window_id: i32,
    active: bool,
    opener_tab_id: Option<i32>,
}

/// `content.js`'s envelope: `{ok, value}` or `{ok: false, name, error}`, where `name` is the
/// thrown error's (a [`waymark_page::ContentErrorKind`] for the content script's own errors).
#[derive(Deserialize)]
struct ContentReply {
    ok: bool,
    #[serde(default)]
    value: serde_json::Value,
    #[serde(default)]
    name: String,
    #[serde(default)]
    error: Option<String>,
}

fn js(e: JsValue) -> String {
    super::js_message(&e)
}

/// A `chrome.tabs` call; its failure is a [`PageError::Browser`] (what it means for the task
/// is decided by [`TabPage::diagnose`], from the tab's state, not from Chrome's words).
async fn promise(p: Result<js_sys::Promise, JsValue>) -> Result<JsValue, PageError> {
    let browser = |e| PageError::Browser(js(e));
    JsFuture::from(p.map_err(browser)?).await.map_err(browser)
}

fn props(value: serde_json::Value) -> Result<JsValue, PageError> {
    encode(&value)
}

/// A request as a plain JS object (encoding plain data cannot fail short of a bug).
fn encode<T: Serialize>(value: &T) -> Result<JsValue, PageError> {
    to_js(value).map_err(|e| PageError::Browser(format!("could not encode the request: {e}")))
}

/// A decoding failure of something Chrome or the content script answered.
fn bad_reply(what: &str) -> impl Fn(serde_wasm_bindgen::Error) -> PageError + '_ {
    move |e| PageError::BadReply(format!("{what}: {e}"))
}

/// One frame's reply: its value, or its error with the kind it was thrown with.
fn unwrap_reply<T: DeserializeOwned>(
    frame: u32,
    reply: Option<ContentReply>,
) -> Result<T, PageError> {
    // No result for the frame: it went away (navigated, removed) while the request ran.
    let reply = reply.ok_or(PageError::FrameGone { frame })?;
    if !reply.ok {
        let message = reply.error.unwrap_or_else(|| "the content script failed".to_owned());
        let error = waymark_page::ContentError::from_parts(&reply.name, message);
        return Err(PageError::from_content(frame, error));
    }
    // The content script answers with one JSON string (an older one with the value itself).
    let parsed = match reply.value {
        serde_json::Value::String(json) => serde_json::from_str(&json),
        value => serde_json::from_value(value),
    };
    parsed.map_err(|e| PageError::BadReply(format!("the content script's answer: {e}")))
}

impl TabPage {
    /// The agent starts on `tab_id`. Its network rules go after each action's settle window
    /// (single actions); a task's page keeps them between actions, see [`TabPage::for_task`].
    pub fn new(tab_id: i32) -> Self {
        Self {
            tab_id: Cell::new(tab_id),
            uploads: None,
            guard: NetGuard::new(false),
            replaying: false,
            unpinned: RefCell::new(None),
            dialogs: RefCell::new(None),
        }
    }

    /// The page of a task: between actions its tab stays within the task's scope.
    pub fn for_task(tab_id: i32) -> Self {
        Self { guard: NetGuard::new(true), ..Self::new(tab_id) }
    }

    /// The page of a workflow replay (see [`Action::replay_settle_window`]).
    pub fn replaying(self) -> Self {
        Self { replaying: true, ..self }
    }

    /// The network guard, for the task's controls (the user taking the page) and its end.
    pub fn guard(&self) -> NetGuard {
        self.guard.clone()
    }

    /// Every tab of every window.
    async fn all_tabs(&self) -> Result<Vec<ChromeTab>, PageError> {
        let value = promise(Ok(chrome::tabs_query(&js_sys::Object::new()))).await?;
        serde_wasm_bindgen::from_value(value).map_err(bad_reply("the tab list"))
    }

    /// One action under its network permit: the rules go in before it (fail closed) and stay
    /// for the settle window after it.
    async fn guarded_act(
        &self,
        action: &Action,
        permit: &NetworkPermit,
    ) -> Result<ActionOutcome, PageError> {
        let tabs = self.all_tabs().await?;
        let me = self.tab_id();
        let started_on = tabs.iter().find(|t| t.id == me).map(|t| t.url.clone());
        let others = tabs.iter().filter(|t| t.id != me).map(|t| t.id).collect();
        self.guard.arm(permit, others).await.map_err(|e| PageError::Browser(e.to_string()))?;
        // An approved request's body is pinned while its action is done again; when the
        // debugger cannot attach the redo runs under the rules alone, and says so.
        let unpinned = super::pin::arm(&self.guard, me, permit).await.err();
        let mut outcome = self.act_inner(action, tabs).await;
        if let Ok(outcome) = outcome.as_mut()
            && (outcome.navigated || self.guard.blocked_a_navigation())
        {
            self.leave_blocked_page(outcome, started_on.as_deref()).await;
        }
        *self.unpinned.borrow_mut() =
            unpinned.map(|e| e.to_string()).or_else(super::pin::take_lost);
        self.guard.settle(self.tab_id());
        super::pin::settle();
        outcome
    }

    /// A blocked navigation leaves the browser's error page in the tab, which no content
    /// script can read: the tab goes back to the page the action started on. History first
    /// (the page keeps its state); when the error page took no entry of its own (a blocked
    /// redirect hop), going back lands elsewhere, and the page is loaded again instead.
    async fn leave_blocked_page(&self, outcome: &mut ActionOutcome, started_on: Option<&str>) {
        let Ok(tab) = self.tab(self.tab_id()).await else { return };
        if !self.guard.on_blocked_page(tab.id, &tab.url) {
            return;
        }
        if self.moving(chrome::tabs_go_back(tab.id)).await.is_ok() {
            self.settle(LOAD_WAIT_MS).await;
            let landed = self.tab(tab.id).await.map(|t| t.url).unwrap_or_default();
            if let Some(page) = started_on.filter(|p| *p != landed && check_url(p).is_ok()) {
                let load = props(serde_json::json!({ "url": page }));
                if let Ok(load) = load
                    && self.moving(chrome::tabs_update(tab.id, &load)).await.is_ok()
                {
                    self.settle(LOAD_WAIT_MS).await;
                }
            }
            outcome.navigated = true;
            let note = "the blocked navigation left an error page; went back to the page before";
            outcome.text = Some(match outcome.text.take() {
                Some(before) => format!("{before}\n{note}"),
                None => note.to_owned(),
            });
        }
    }

    /// The tab the agent currently works on.
    pub fn tab_id(&self) -> i32 {
        self.tab_id.get()
    }

    async fn tab(&self, id: i32) -> Result<ChromeTab, PageError> {
        let value = promise(chrome::tabs_get(id)).await?;
        serde_wasm_bindgen::from_value(value).map_err(bad_reply("the tab"))
    }

    async fn window_tabs(&self, window_id: i32) -> Result<Vec<ChromeTab>, PageError> {
        let query = props(serde_json::json!({ "windowId": window_id }))?;
        let value = promise(Ok(chrome::tabs_query(&query))).await?;
        serde_wasm_bindgen::from_value(value).map_err(bad_reply("the tab list"))
    }

    /// Runs a `chrome.tabs` call that moves the tab and waits (at most [`START_WAIT_MS`]) for
    /// the move to start, so that [`TabPage::settle`] waits for the new page, not the old one.
    async fn moving(&self, call: Result<js_sys::Promise, JsValue>) -> Result<JsValue, PageError> {
        let watch = Watch::new(self.tab_id());
        let done = promise(call).await?;
        watch.first(START_WAIT_MS, |_| true).await;
        Ok(done)
    }

    /// Waits (at most `limit_ms`) until the tab has finished loading: on the browser's tab
    /// events, so a load that ends is seen when it ends (a poll saw it up to 100 ms late).
    async fn settle(&self, limit_ms: f64) {
        if let Err(e) = JsFuture::from(chrome::tab_loaded(self.tab_id(), limit_ms)).await {
            tracing::debug!(error = %js(e), "waiting for the tab to load");
        }
    }

    /// Sends one request to one frame's content script.
    pub async fn content<T: DeserializeOwned>(
        &self,
        frame: u32,
        request: &ContentRequest,
    ) -> Result<T, PageError> {
        self.content_within(frame, request, 0).await
    }

    /// [`TabPage::content`] for a request the page may leave unanswered by navigating while
    /// it waits: no answer within `within` ms (0: no bound) is [`PageError::FrameGone`].
    pub(super) async fn content_within<T: DeserializeOwned>(
        &self,
        frame: u32,
        request: &ContentRequest,
        within: u32,
    ) -> Result<T, PageError> {
        let msg = encode(request)?;
        let reply = match super::inject::run_in_frame(self.tab_id(), frame, &msg, within).await {
            Ok(reply) => reply,
            // The tab is there (else `diagnose` tells) but Chrome could not reach the frame:
            // a subframe has navigated away or been removed.
            Err(_) if frame != 0 && self.tab(self.tab_id()).await.is_ok() => {
                return Err(PageError::FrameGone { frame });
            }
            Err(e) => return Err(self.diagnose(PageError::InjectionFailed(js(e)), "").await),
        };
        let reply: Option<ContentReply> =
            serde_wasm_bindgen::from_value(reply).map_err(bad_reply("the frame's answer"))?;
        unwrap_reply(frame, reply)
    }

    /// One request to every frame of the tab; each frame's answer read as `T`, or why not.
    async fn ask_frames<T: DeserializeOwned>(
        &self,
        request: &ContentRequest,
    ) -> Result<Vec<(u32, Result<T, PageError>)>, PageError> {
        let msg = encode(request)?;
        let replies = super::inject::run_in_frames(self.tab_id(), &msg)
            .await
            .map_err(|e| PageError::InjectionFailed(js(e)))?;
        Ok(replies
            .into_iter()
            .map(|(frame_id, reply)| {
                let read = serde_wasm_bindgen::from_value(reply)
                    .map_err(bad_reply("the frame's answer"))
                    .and_then(|reply| unwrap_reply::<T>(frame_id, reply));
                (frame_id, read)
            })
            .collect())
    }

    async fn observe_frames(&self) -> Result<Observation, PageError> {
        self.settle(OBSERVE_WAIT_MS).await;
        let replies = match self.ask_frames::<Observation>(&ContentRequest::Observe).await {
            Ok(replies) => replies,
            Err(e) => return Err(self.diagnose(e, "").await),
        };
        let mut frames = Vec::with_capacity(replies.len());
        let mut top_error = None;
        for (frame_id, read) in replies {
            match read {
                Ok(observation) => frames.push(FrameObservation { frame_id, observation }),
                Err(e) if frame_id == 0 => top_error = Some(e),
                // A subframe that cannot be read is left out of the page, as it would be if
                // it were not scriptable; the model reads the rest.
                Err(e) => tracing::debug!(frame = frame_id, error = %e, "frame not read"),
            }
        }
        let mut observation =
            merge(frames).ok_or_else(|| top_error.unwrap_or(PageError::FrameGone { frame: 0 }))?;
        screen::confirm(self, &mut observation).await;
        LAST.with(|l| l.borrow_mut().insert(self.tab_id(), observation.clone()));
        if let Ok(tab) = self.tab(self.tab_id()).await
            && let Ok(tabs) = self.window_tabs(tab.window_id).await
        {
            observation.tabs = tabs
                .into_iter()
                .filter(|t| {
                    t.id == tab.id || t.url.starts_with("http://") || t.url.starts_with("https://")
                })
                .map(|t| TabSummary {
                    current: t.id == tab.id,
                    id: t.id,
                    title: t.title,
                    url: t.url,
                })
                .collect();
        }
        Ok(observation)
    }

    /// Performs `action`; `tabs` are every tab just before it (for its effects).
    async fn act_inner(
        &self,
        action: &Action,
        tabs: Vec<ChromeTab>,
    ) -> Result<ActionOutcome, PageError> {
        let before = match tabs.iter().find(|t| t.id == self.tab_id()) {
            Some(tab) => tab.clone(),
            None => self.tab(self.tab_id()).await?,
        };
        let before_ids: Vec<i32> =
            tabs.iter().filter(|t| t.window_id == before.window_id).map(|t| t.id).collect();
        // Listening before the action: a navigation or a new tab it causes is seen when it
        // happens.
        let watch =
            (action.runs_in_page() && action.may_navigate()).then(|| Watch::new(self.tab_id()));
        let mut outcome = match action {
            a if a.runs_in_page() => {
                let frame = a.target_ref().map(|r| r.frame).unwrap_or(0);
                let seen = |r: Ref| {
                    LAST.with(|l| {
                        l.borrow()
                            .get(&self.tab_id())
                            .and_then(|o| o.element(r))
                            .map(|e| e.expectation())
                    })
                };
                match a.drop_ref() {
                    // One content script performs a drag: both ends live in its frame.
                    Some(to) if to.frame != frame => ActionOutcome::failed(
                        "a drag from one frame into another cannot be done here: both elements \
                         must be in the same frame",
                    ),
                    _ => {
                        let expect = a.target_ref().and_then(seen);
                        let expect_to = a.drop_ref().and_then(seen);
                        let dialog = self.dialogs.borrow().clone();
                        let request =
                            ContentRequest::Act { action: a.clone(), expect, expect_to, dialog };
                        self.content(frame, &request).await?
                    }
                }
            }
            Action::Upload { ref_id, file } => self.upload(*ref_id, file).await?,
            Action::Navigate { url } => {
                check_url(url)?;
                self.moving(chrome::tabs_update(
                    self.tab_id(),
                    &props(serde_json::json!({ "url": url }))?,
                ))
                .await?;
                ActionOutcome { navigated: true, ..ActionOutcome::done() }
            }
            Action::Back => self.go_back().await?,
            Action::Forward => {
                let watch = Watch::new(self.tab_id());
                let outcome = history(chrome::tabs_go_forward(self.tab_id()), "forward").await?;
                if outcome.ok {
                    watch.first(START_WAIT_MS, |_| true).await;
                }
                outcome
            }
            Action::Reload => {
                self.moving(chrome::tabs_reload(self.tab_id())).await?;
                ActionOutcome { navigated: true, ..ActionOutcome::done() }
            }
            Action::OpenTab { url } => {
                check_url(url)?;
                // The tab exists (blank, so under the rules already in force for every new
                // tab) before the page loads: its first request is guarded.
                let tab = promise(chrome::tabs_create(&props(
                    serde_json::json!({ "url": "about:blank", "active": true }),
                )?))
                .await?;
                let tab: ChromeTab =
                    serde_wasm_bindgen::from_value(tab).map_err(bad_reply("the new tab"))?;
                self.tab_id.set(tab.id);
                promise(chrome::tabs_update(tab.id, &props(serde_json::json!({ "url": url }))?))
                    .await?;
                ActionOutcome { opened_tab: Some(tab.id), navigated: true, ..ActionOutcome::done() }
            }
            Action::SwitchTab { tab } => {
                let target = self
                    .tab(*tab)
                    .await
                    .map_err(|_| PageError::Refused(format!("there is no tab {tab}")))?;
                promise(chrome::tabs_update(
                    target.id,
                    &props(serde_json::json!({ "active": true }))?,
                ))
                .await?;
                self.tab_id.set(target.id);
                ActionOutcome { navigated: true, ..ActionOutcome::done() }
            }
            Action::CloseTab { tab } => {
                self.close_tab(tab.unwrap_or(self.tab_id()), before.window_id).await?
            }
            Action::Wait { text, seconds, gone } => {
                let mut outcome = self.wait(text.as_deref(), *seconds, *gone).await?;
                self.note_navigation(&before, &mut outcome).await;
                outcome
            }
            Action::Find { query } => {
                let observation = self.observe_frames().await?;
                let found = observation.find_read(query, 20);
                if found.is_empty() {
                    ActionOutcome::failed(format!("nothing on the page matches “{query}”"))
                } else {
                    ActionOutcome::read_in(found)
                }
            }
            Action::Screenshot => {
                let options = props(serde_json::json!({ "format": "jpeg", "quality": 70 }))?;
                let url = promise(chrome::tabs_capture_visible(before.window_id, &options)).await?;
                ActionOutcome { image: url.as_string(), ..ActionOutcome::done() }
            }
            other => ActionOutcome::failed(format!("{} is not a page action", other.name())),
        };
        if outcome.ok && action.runs_in_page() {
            let frame = action.target_ref().map(|r| r.frame).unwrap_or(0);
            let window =
                if self.replaying { action.replay_settle_window() } else { action.settle_window() };
            let settled = match window {
                Some(window) => self.settle_frame(frame, window, settle::SETTLE_CAP_MS).await,
                None => None,
            };
            // No report (the document went, or no window), or the top document is being
            // left: the tab's own event tells when the navigation (or a new tab) has started.
            let leaving = settled.is_none_or(|s| s.navigating && frame == 0);
            if leaving && let Some(watch) = &watch {
                watch.first(REACTION_MS, |_| true).await;
            }
            self.notice_effects(&before, &before_ids, &mut outcome).await;
            if let Some(settled) = settled {
                outcome.judge_effect(action, &settled);
            }
        }
        if outcome.navigated {
            self.settle(LOAD_WAIT_MS).await;
        }
        Ok(outcome)
    }

    /// After a page action: did the tab navigate, or did the page open a new tab?
    async fn notice_effects(
        &self,
        before: &ChromeTab,
        before_ids: &[i32],
        outcome: &mut ActionOutcome,
    ) {
        if let Ok(after) = self.tab(self.tab_id()).await {
            outcome.navigated |= after.status == "loading" || after.url != before.url;
        }
        let Ok(tabs) = self.window_tabs(before.window_id).await else { return };
        if let Some(new) =
            tabs.iter().find(|t| !before_ids.contains(&t.id) && t.opener_tab_id == Some(before.id))
        {
            outcome.opened_tab = Some(new.id);
            if new.active {
                self.tab_id.set(new.id);
            }
        }
    }

    async fn close_tab(&self, id: i32, window_id: i32) -> Result<ActionOutcome, PageError> {
        promise(chrome::tabs_remove(id))
            .await
            .map_err(|_| PageError::Refused(format!("there is no tab {id}")))?;
        if id != self.tab_id() {
            return Ok(ActionOutcome::done());
        }
        let tabs = self.window_tabs(window_id).await?;
        let next = tabs.iter().find(|t| t.active).or_else(|| tabs.first());
        let Some(next) = next else {
            return Ok(ActionOutcome::with_text("closed the last tab of the window"));
        };
        self.tab_id.set(next.id);
        Ok(ActionOutcome {
            navigated: true,
            ..ActionOutcome::with_text(format!("now on tab {}", next.id))
        })
    }
}

fn check_url(url: &str) -> Result<(), PageError> {
    if url.starts_with("http://") || url.starts_with("https://") {
        Ok(())
    } else {
        Err(PageError::Refused(format!("only http and https addresses can be opened, not “{url}”")))
    }
}

/// The browser's own history move (`chrome.tabs.goBack` / `goForward`).
async fn history(
    p: Result<js_sys::Promise, JsValue>,
    way: &str,
) -> Result<ActionOutcome, PageError> {
    match promise(p).await {
        Ok(_) => Ok(ActionOutcome { navigated: true, ..ActionOutcome::done() }),
        Err(e) => Ok(ActionOutcome::failed(format!("cannot go {way}: {e}"))),
    }
}

/// The tab the user is looking at: the active web page of the window they used last (the
/// side panel's own page is not one).
pub async fn target_tab() -> Option<i32> {
    let tabs = JsFuture::from(chrome::tabs_query(&js_sys::Object::new())).await.ok()?;
    let tabs: Vec<TabInfo> = serde_wasm_bindgen::from_value(tabs).ok()?;
    pick_target_tab(&tabs)
}

/// The address of tab `tab_id`, if it is still open (the crash report names its origin).
pub async fn tab_url(tab_id: i32) -> Option<String> {
    TabPage::new(tab_id).tab(tab_id).await.ok().map(|tab| tab.url)
}

impl Page for TabPage {
    async fn observe(&self) -> Result<Observation, PageError> {
        match self.observe_frames().await {
            Err(e) => Err(self.diagnose(e, "").await),
            ok => ok,
        }
    }

    async fn adopt_active_tab(&self) -> Result<String, PageError> {
        let id = target_tab().await.ok_or(PageError::NoPage)?;
        let tab = self.tab(id).await?;
        self.tab_id.set(id);
        Ok(tab.url)
    }

    async fn act(
        &self,
        action: &Action,
        permit: &NetworkPermit,
    ) -> Result<ActionOutcome, PageError> {
        match self.guarded_act(action, permit).await {
            Err(e) => Err(self.diagnose(e, " during the action").await),
            ok => ok,
        }
    }

    async fn describe(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
        self.describe_target(target).await
    }

    async fn blocked_requests(&self) -> Vec<BlockedRequest> {
        self.guard.take_blocked()
    }

    async fn sent_requests(&self) -> Vec<BlockedRequest> {
        self.guard.take_sent()
    }

    async fn unpinned(&self) -> Option<String> {
        self.unpinned.borrow_mut().take()
    }

    async fn forms(&self) -> waymark_core::safety::target::PageBaseline {
        // Every frame's forms and fields: a form in a frame posts to its own action address,
        // judged like the top frame's. Unreadable forms give no baseline: every field of
        // their writes is judged.
        let replies = self
            .ask_frames::<waymark_core::safety::target::PageBaseline>(&ContentRequest::Forms)
            .await
            .unwrap_or_default();
        let mut page = waymark_core::safety::target::PageBaseline::default();
        for (frame_id, read) in replies {
            match read {
                Ok(found) => {
                    page.forms.extend(found.forms);
                    page.controls.extend(found.controls);
                }
                Err(e) => tracing::debug!(frame = frame_id, error = %e, "forms not read"),
            }
        }
        page
    }

    fn answer_dialogs(&self, answer: Option<waymark_page::dialog::DialogAnswer>) {
        *self.dialogs.borrow_mut() = answer;
    }
}

impl TabPage {
    /// The live facts of a ref's element (the top frame's focused element for `None`), from
    /// the content script of the ref's frame, for the safety policy.
    pub async fn describe_target(&self, target: Option<Ref>) -> Result<ActionTarget, PageError> {
        let frame = target.map_or(0, |r| r.frame);
        self.content(frame, &ContentRequest::Describe { ref_id: target }).await
    }
}
