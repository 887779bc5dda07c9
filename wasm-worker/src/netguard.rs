//! Installs the network rules of [`waymark_core::safety::network::rules`] for the agent's tab and
//! collects what they blocked. Decides nothing: which rules is `RuleSet::build`'s job.
//!
//! Life of a guard: before each action its permit's rules go in (covering every tab but the
//! user's other tabs, so a popup is covered too); they stay for [`SETTLE_MS`] after the action
//! (a page script may submit late), then the task's tab alone keeps the scope's rules until the
//! next action, unless the user has the page (a card, a pause, a take-over): then nothing is
//! guarded. When the task ends the rules go, again only after the settle window. A new worker
//! removes every session rule first, so a crash never leaves a tab blocked.

use super::chrome;
use serde::Deserialize;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use waymark_core::safety::network::rules::{
    Guarded, Method, RequestFacts, ResourceType, RuleSet, Verdict,
};
use waymark_core::safety::{BlockedRequest, NetworkPermit, RequestBody};
use waymark_page::js::{ToJsError, to_js};

/// At most this many request bodies are kept waiting for their request's end (a page that
/// floods requests cannot grow the worker's memory).
const KEPT_BODIES: usize = 64;

/// How long an action's rules outlive it: a page that submits from a timer after the click
/// (hundreds of milliseconds is common) is still held to the action's permit. A timer is the
/// honest tool here: no event says a page will send nothing more, and the window only keeps
/// the stricter rules longer (the rule updates themselves are awaited on their promises).
pub const SETTLE_MS: u32 = 2_500;

/// `chrome.tabs.TAB_ID_NONE`: requests of no tab (service and shared workers).
const TAB_ID_NONE: i32 = -1;

/// What `net::ERR_BLOCKED_BY_CLIENT` looks like in `webRequest.onErrorOccurred`.
const BLOCKED_ERROR: &str = "net::ERR_BLOCKED_BY_CLIENT";

thread_local! {
    /// The one rule set in force (the worker runs one task at a time; a new action's rules
    /// replace any earlier ones, so two sets never overlap: an older set's allow rules would
    /// override a newer set's blocks).
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// The worker's network rules.
#[derive(Default)]
struct State {
    /// What is installed now, and the set before it (a blocked request is reported after the
    /// fact and may belong to the set just replaced).
    current: Option<Installed>,
    previous: Option<Installed>,
    /// The next free rule id: never reused within a worker's life; a new worker starts from
    /// an empty rule list (see [`clear_stale_rules`]).
    next_id: u32,
    /// Bumped by every change, so a settle timer knows whether it is still the latest.
    generation: u64,
    /// Until when (ms since the epoch) the last action's rules must stay.
    settle_until: f64,
}

/// An installed rule set, what it was built from, and the guard that asked for it.
struct Installed {
    permit: NetworkPermit,
    guarded: Guarded,
    rules: RuleSet,
    owner: Weak<Inner>,
}

fn bump() -> u64 {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.generation += 1;
        s.generation
    })
}

fn generation() -> u64 {
    STATE.with(|s| s.borrow().generation)
}

struct Inner {
    /// The user has the page: between actions nothing is guarded.
    user_control: Cell<bool>,
    /// After the settle window: keep the scope's rules on the tab (a task) or remove all (a
    /// single test action).
    keep_between_actions: bool,
    /// Blocked requests not yet reported, and what was reported already in this task (a page
    /// beaconing every second is told once per destination).
    blocked: RefCell<Vec<BlockedRequest>>,
    reported: RefCell<HashSet<String>>,
    /// Bodies of state-changing requests the rules block, by request id, until the block is
    /// reported (`onBeforeRequest` comes before `onErrorOccurred`).
    bodies: RefCell<HashMap<String, RequestBody>>,
    /// State-changing requests the rules let go, with their bodies, not yet taken.
    sent: RefCell<Vec<BlockedRequest>>,
    /// Main-frame navigations blocked since the last action began: `(tab, url)`.
    navigations: RefCell<Vec<(i32, String)>>,
    /// The user's other tabs when the last action began, and the tab it ran on.
    others: RefCell<Vec<i32>>,
    tab: Cell<i32>,
    /// While an approved request's body is pinned (`pin.rs`), what went out is what the pin
    /// let go, not what `webRequest` saw start (a request the pin fails starts there too).
    pinning: Cell<bool>,
}

/// One page's network guard (shared by clones).
#[derive(Clone)]
pub struct NetGuard(Rc<Inner>);

impl NetGuard {
    /// A guard for a task (`keep_between_actions`: the tab stays in its scope between
    /// actions) or for single test actions (rules go after the settle window).
    pub fn new(keep_between_actions: bool) -> Self {
        Self(Rc::new(Inner {
            user_control: Cell::new(false),
            keep_between_actions,
            blocked: RefCell::new(Vec::new()),
            reported: RefCell::new(HashSet::new()),
            bodies: RefCell::new(HashMap::new()),
            sent: RefCell::new(Vec::new()),
            navigations: RefCell::new(Vec::new()),
            others: RefCell::new(Vec::new()),
            tab: Cell::new(TAB_ID_NONE),
            pinning: Cell::new(false),
        }))
    }

    /// Puts `permit`'s rules in force before an action on `tab` (every tab but `others`);
    /// an error means the action must not run.
    pub async fn arm(&self, permit: &NetworkPermit, others: Vec<i32>) -> Result<(), GuardError> {
        bump();
        self.0.navigations.borrow_mut().clear();
        *self.0.others.borrow_mut() = others.clone();
        self.install(permit.clone(), Guarded::AllBut(others)).await
    }

    /// The action is over: its rules stay as they are for the settle window (every tab but
    /// the user's tabs that were open when it began: a popup the page opens late is covered
    /// too, and so is a tab the user opens in those seconds), then the tab falls back to its
    /// scope (or nothing, see [`NetGuard::new`]). Nothing changes at the end of the action
    /// itself, so the next action with the same permit installs nothing: no rule update on
    /// the critical path of consecutive actions.
    pub fn settle(&self, tab: i32) {
        self.0.tab.set(tab);
        STATE.with(|s| s.borrow_mut().settle_until = js_sys::Date::now() + f64::from(SETTLE_MS));
        let generation = bump();
        let guard = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // The settle window (see `SETTLE_MS`: a window, not a wait for an event).
            chrome::sleep(SETTLE_MS).await;
            guard.after_settle(generation, tab).await;
        });
    }

    /// Narrows the rules in force to `tab`, the tabs opened since the action began (not in
    /// `others`) and requests of no tab, if no newer change (`generation`) came meanwhile; a
    /// failure leaves the wider rules of the action.
    async fn narrow(&self, permit: NetworkPermit, tab: i32, others: &[i32], generation: u64) {
        let Some(tabs) = all_tab_ids().await else { return };
        let mut covered: Vec<i32> = tabs.into_iter().filter(|t| !others.contains(t)).collect();
        covered.extend([tab, TAB_ID_NONE]);
        covered.sort_unstable();
        covered.dedup();
        if self::generation() == generation
            && let Err(e) = self.install(permit, Guarded::Tabs(covered)).await
        {
            // The action's wider-covering rules stay: stricter, never looser.
            tracing::warn!(error = %e, "the network rules could not be narrowed to the task's tab");
        }
    }

    /// The user has the page (`true`: a card, a pause, a take-over) or gave it back.
    pub fn set_user_control(&self, on: bool) {
        if self.0.user_control.replace(on) == on || !on {
            return;
        }
        self.end_after_settle();
    }

    /// The task ended: the rules go once the last action's settle window is over.
    /// Until then the rules narrow at once to the task's tab and its popups: the user may be
    /// about to open a tab of their own.
    pub fn end_after_settle(&self) {
        let generation = bump();
        let until = STATE.with(|s| s.borrow().settle_until);
        let wait = (until - js_sys::Date::now()).max(0.0) as u32;
        let action = STATE.with(|s| {
            s.borrow().current.as_ref().and_then(|c| match &c.guarded {
                Guarded::AllBut(_) => Some(c.permit.clone()),
                Guarded::Tabs(_) => None,
            })
        });
        let (tab, others) = (self.0.tab.get(), self.0.others.borrow().clone());
        let guard = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(permit) = action {
                guard.narrow(permit, tab, &others, generation).await;
            }
            // What is left of the last action's settle window (a window, see `SETTLE_MS`).
            if wait > 0 {
                chrome::sleep(wait).await;
            }
            if self::generation() == generation {
                remove().await;
            }
        });
    }

    /// Whether a navigation of a guarded tab was blocked since the action began.
    pub fn blocked_a_navigation(&self) -> bool {
        !self.0.navigations.borrow().is_empty()
    }

    /// Blocked requests not yet reported (each destination once per guard).
    pub fn take_blocked(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut *self.0.blocked.borrow_mut())
    }

    /// State-changing requests the rules let go since the last call, with their bodies.
    pub fn take_sent(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut *self.0.sent.borrow_mut())
    }

    /// A pin is in force (`true`, see `pin.rs`) or gone.
    pub fn set_pinning(&self, on: bool) {
        self.0.pinning.set(on);
    }

    /// A state-changing request the pin let go, as it went.
    pub fn pinned_sent(&self, request: BlockedRequest) {
        let mut sent = self.0.sent.borrow_mut();
        if sent.len() >= KEPT_BODIES {
            sent.remove(0);
        }
        sent.push(request);
    }

    /// A request the pin failed. At a pinned address (which the rules let go) it is always a
    /// new held request; elsewhere the rules block it too, and it is reported once whichever
    /// of the two reports it first.
    pub fn pinned_held(&self, request: BlockedRequest, at_pinned_address: bool) {
        if !at_pinned_address && !self.0.reported.borrow_mut().insert(report_key(&request)) {
            return;
        }
        self.0.blocked.borrow_mut().push(request);
    }

    /// Whether `tab` now shows the browser's error page for a navigation the rules blocked:
    /// its address is one the rules would not load, or one a blocked navigation went to.
    pub fn on_blocked_page(&self, tab: i32, url: &str) -> bool {
        let blocked_by_rules = STATE.with(|s| {
            s.borrow().current.as_ref().is_some_and(|c| {
                c.guarded.covers(tab)
                    && c.rules.verdict(RequestFacts {
                        url,
                        method: Method::Get,
                        kind: ResourceType::MainFrame,
                        tab_id: tab,
                    }) == Verdict::Block
            })
        });
        blocked_by_rules || self.0.navigations.borrow().iter().any(|(t, u)| *t == tab && u == url)
    }

    async fn after_settle(&self, generation: u64, tab: i32) {
        if self::generation() != generation {
            return;
        }
        let origins = STATE.with(|s| s.borrow().current.as_ref().map(|c| c.permit.origins.clone()));
        match origins {
            Some(origins) if self.0.keep_between_actions && !self.0.user_control.get() => {
                // Between actions the task's tab keeps its scope, and writes only where the
                // last action's budget allowed them.
                let writes = STATE
                    .with(|s| s.borrow().current.as_ref().map(|c| c.permit.write_origins.clone()));
                let idle = NetworkPermit {
                    origins,
                    write_origins: writes.unwrap_or_default(),
                    ..NetworkPermit::default()
                };
                // A failure leaves the action's rules, which are stricter.
                if let Err(e) = self.install(idle, Guarded::Tabs(vec![tab])).await {
                    tracing::warn!(error = %e, "the task's rules between actions were not set");
                }
            }
            _ => remove().await,
        }
    }

    /// Replaces whatever is installed by `permit`'s rules for `guarded`. The state changes
    /// before the browser call (calls run in order), so a concurrent change removes these ids.
    async fn install(&self, permit: NetworkPermit, guarded: Guarded) -> Result<(), GuardError> {
        let update = STATE.with(|s| {
            let mut s = s.borrow_mut();
            if s.current.as_ref().is_some_and(|c| c.permit == permit && c.guarded == guarded) {
                if let Some(c) = s.current.as_mut() {
                    c.owner = Rc::downgrade(&self.0);
                }
                return None;
            }
            let first = s.next_id.max(1);
            let rules = RuleSet::build(&permit, &guarded, first);
            s.next_id = first + rules.rules.len() as u32;
            let add = to_js(&rules.rules);
            let installed = Installed { permit, guarded, rules, owner: Rc::downgrade(&self.0) };
            let before = s.current.replace(installed);
            let old = before.as_ref().map(|b| b.rules.ids()).unwrap_or_default();
            s.previous = before;
            Some((old, add))
        });
        let Some((old, add)) = update else { return Ok(()) };
        let add = add?;
        JsFuture::from(chrome::dnr_update(old, &add))
            .await
            .map(|_| ())
            .map_err(|e| GuardError::Refused(super::js_message(&e)))
    }
}

/// Why the network guard's rules could not be put in force (the action then does not run).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    /// The rules could not be encoded for the browser.
    #[error("the network guard's rules could not be encoded: {0}")]
    Encode(#[from] ToJsError),
    /// The browser refused them (`declarativeNetRequest.updateSessionRules`), in its words.
    #[error("the network guard could not be set up: {0}")]
    Refused(String),
}

/// The ids of every tab.
async fn all_tab_ids() -> Option<Vec<i32>> {
    #[derive(Deserialize)]
    struct Tab {
        id: i32,
    }
    let tabs = JsFuture::from(chrome::tabs_query(&js_sys::Object::new())).await.ok()?;
    let tabs: Vec<Tab> = serde_wasm_bindgen::from_value(tabs).ok()?;
    Some(tabs.into_iter().map(|t| t.id).collect())
}

/// Removes the installed rules.
async fn remove() {
    let ids = STATE.with(|s| {
        let mut s = s.borrow_mut();
        let current = s.current.take()?;
        let ids = current.rules.ids();
        s.previous = Some(current);
        Some(ids)
    });
    if let Some(ids) = ids {
        drop_rules(ids, "the task's network rules").await;
    }
}

/// What a blocked request is reported under: once per method, kind and address without
/// its query.
fn report_key(r: &BlockedRequest) -> String {
    format!(
        "{} {} {}",
        r.method.to_ascii_uppercase(),
        r.kind,
        r.url.split('?').next().unwrap_or("")
    )
}

impl Inner {
    /// Records `error`, which `rules` (covering `guarded`) blocked.
    fn observe(&self, error: &RequestError) {
        let request = BlockedRequest {
            url: error.url.clone(),
            method: error.method.to_ascii_uppercase(),
            kind: error.kind_name.clone(),
            body: None,
        };
        let key = report_key(&request);
        if error.kind == ResourceType::MainFrame {
            self.navigations.borrow_mut().push((error.tab_id, error.url.clone()));
        }
        // Every blocked write is read against the write budget (a second POST to the same
        // cart is a second item); reads and beacons are told once per destination.
        let write =
            !matches!(error.method.to_ascii_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS")
                && error.kind != ResourceType::Ping;
        if !self.reported.borrow_mut().insert(key) && !write {
            return;
        }
        let body = self.bodies.borrow_mut().remove(&error.request_id);
        self.blocked.borrow_mut().push(BlockedRequest { body, ..request });
    }

    /// Keeps what a state-changing request carries: for the card when the rules block it,
    /// for the check against an approved card when they let it go.
    fn started(&self, start: &RequestStart, body: Option<RequestBody>, verdict: Verdict) {
        match verdict {
            Verdict::Block => {
                let mut bodies = self.bodies.borrow_mut();
                if bodies.len() >= KEPT_BODIES {
                    bodies.clear();
                }
                if let Some(body) = body {
                    bodies.insert(start.request_id.clone(), body);
                }
            }
            // While pinning, the pin says what went (see `NetGuard::pinned_sent`).
            Verdict::Allow if self.pinning.get() => {}
            Verdict::Allow => {
                let mut sent = self.sent.borrow_mut();
                if sent.len() >= KEPT_BODIES {
                    sent.remove(0);
                }
                sent.push(BlockedRequest {
                    url: start.url.clone(),
                    method: start.method.to_ascii_uppercase(),
                    kind: start.kind_name.clone(),
                    body,
                });
            }
        }
    }
}

/// The fields of `webRequest.onBeforeRequest`'s details this module reads (the body is read
/// from the details object itself: it holds `ArrayBuffer`s).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestStart {
    request_id: String,
    url: String,
    method: String,
    #[serde(rename = "type")]
    kind_name: String,
    tab_id: i32,
}

/// `webRequest.onBeforeRequest` with `requestBody` (forwarded by `sw.js`, observe only): the
/// body of a state-changing request of a guarded tab, kept for the card that shows what a
/// held request would send and for the check of what an approved one sent. Chrome reports
/// requests its declarativeNetRequest rules block here too, before their error.
#[wasm_bindgen]
pub fn sw_request_started(details: JsValue) {
    crate::request_log::started(&details);
    let Ok(start) = serde_wasm_bindgen::from_value::<RequestStart>(details.clone()) else {
        return;
    };
    let method = Method::parse(&start.method);
    let kind = resource_type(&start.kind_name);
    let reads = matches!(method, Method::Get | Method::Head | Method::Options);
    if !reads {
        crate::worker::recorded_request(start.tab_id, &start.method, &start.url, || {
            request_body(&details)
        });
    }
    if reads && !matches!(kind, ResourceType::Ping | ResourceType::CspReport) {
        return;
    }
    let facts = RequestFacts { url: &start.url, method, kind, tab_id: start.tab_id };
    let found = STATE.with(|s| {
        let s = s.borrow();
        let current = s.current.as_ref().filter(|c| c.guarded.covers(start.tab_id))?;
        Some((current.rules.verdict(facts), current.owner.upgrade()?))
    });
    if let Some((verdict, owner)) = found {
        owner.started(&start, request_body(&details), verdict);
    }
}

/// `details.requestBody` as a [`RequestBody`]: the form fields the browser parsed, else the
/// bytes of its raw parts (files left out).
fn request_body(details: &JsValue) -> Option<RequestBody> {
    let body = js_sys::Reflect::get(details, &"requestBody".into()).ok()?;
    if body.is_undefined() || body.is_null() {
        return None;
    }
    let form = js_sys::Reflect::get(&body, &"formData".into()).ok()?;
    if !form.is_undefined() {
        let fields: BTreeMap<String, Vec<String>> = serde_wasm_bindgen::from_value(form).ok()?;
        return Some(RequestBody::Form { fields });
    }
    let raw = js_sys::Reflect::get(&body, &"raw".into()).ok()?;
    let parts = raw.dyn_into::<js_sys::Array>().ok()?;
    let mut bytes = Vec::new();
    for part in parts.iter() {
        let Ok(data) = js_sys::Reflect::get(&part, &"bytes".into()) else { continue };
        if let Ok(buffer) = data.dyn_into::<js_sys::ArrayBuffer>() {
            bytes.extend(js_sys::Uint8Array::new(&buffer).to_vec());
        }
    }
    Some(RequestBody::Raw { bytes })
}

/// Chrome's resource type name as the rules' type (`other` for names they do not know).
fn resource_type(name: &str) -> ResourceType {
    ResourceType::deserialize(
        serde::de::IntoDeserializer::<serde::de::value::Error>::into_deserializer(name),
    )
    .unwrap_or(ResourceType::Other)
}

/// The fields of `webRequest.onErrorOccurred`'s details this module reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestError {
    url: String,
    method: String,
    #[serde(rename = "type")]
    kind_name: String,
    #[serde(skip)]
    kind: ResourceType,
    tab_id: i32,
    error: String,
    #[serde(default)]
    request_id: String,
}

/// `webRequest.onErrorOccurred` (forwarded by `sw.js`): a request the guard blocked is kept
/// for the page that caused it; every other failure is none of Waymark's business.
#[wasm_bindgen]
pub fn sw_request_error(details: JsValue) {
    crate::request_log::ended(&details);
    let mut error = match serde_wasm_bindgen::from_value::<RequestError>(details) {
        Ok(error) => error,
        Err(e) => {
            // Not one the guard could have blocked (those carry every field); logged for bugs.
            tracing::debug!(error = %e, "a request error without the expected fields");
            return;
        }
    };
    if error.error != BLOCKED_ERROR {
        return;
    }
    error.kind = resource_type(&error.kind_name);
    let facts = RequestFacts {
        url: &error.url,
        method: Method::parse(&error.method),
        kind: error.kind,
        tab_id: error.tab_id,
    };
    // Ours if the set in force, or the one just replaced, blocks it (another extension may
    // block requests too).
    let owner = STATE.with(|s| {
        let s = s.borrow();
        [s.current.as_ref(), s.previous.as_ref()]
            .into_iter()
            .flatten()
            .find(|i| i.guarded.covers(error.tab_id) && i.rules.verdict(facts) == Verdict::Block)
            .and_then(|i| i.owner.upgrade())
    });
    if let Some(owner) = owner {
        owner.observe(&error);
    }
}

/// Removes every session rule: run by a new worker before anything else, so rules a crashed
/// worker left behind never keep a tab blocked.
pub async fn clear_stale_rules() {
    let Ok(ids) = JsFuture::from(chrome::dnr_session_rule_ids()).await else { return };
    let ids: Vec<u32> = serde_wasm_bindgen::from_value(ids).unwrap_or_default();
    if !ids.is_empty() {
        drop_rules(ids, "rules a stopped worker left").await;
    }
}

/// Removes the session rules `ids`; a failure is retried once, then logged (the rules then go
/// when the next worker starts, see [`clear_stale_rules`]).
async fn drop_rules(ids: Vec<u32>, what: &str) {
    for attempt in 1..=2 {
        match JsFuture::from(chrome::dnr_update(ids.clone(), &js_sys::Array::new())).await {
            Ok(_) => return,
            Err(e) if attempt == 1 => {
                tracing::debug!(error = %super::js_message(&e), "removing {what} failed; retrying");
                // A backoff before the one retry: a failed update has no event to wait for.
                chrome::sleep(100).await;
            }
            Err(e) => {
                tracing::error!(error = %super::js_message(&e), "{what} could not be removed");
            }
        }
    }
}
