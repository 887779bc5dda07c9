//! Installs the network rules of [`crate::safety::network::rules`] for the agent's tab and
//! collects what they blocked. Decides nothing: which rules is `RuleSet::build`'s job.
//!
//! Life of a guard: before each action its permit's rules go in (covering every tab but the
//! user's other tabs, so a popup is covered too); they stay for [`SETTLE_MS`] after the action
//! (a page script may submit late), then the task's tab alone keeps the scope's rules until the
//! next action, unless the user has the page (a card, a pause, a take-over): then nothing is
//! guarded. When the task ends the rules go, again only after the settle window. A new worker
//! removes every session rule first, so a crash never leaves a tab blocked.

use super::chrome;
use super::host_port::to_js;
use crate::safety::network::rules::{
    Guarded, Method, RequestFacts, ResourceType, RuleSet, Verdict,
};
use crate::safety::{BlockedRequest, NetworkPermit};
use serde::Deserialize;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// How long an action's rules outlive it: a page that submits from a timer after the click
/// (hundreds of milliseconds is common) is still held to the action's permit.
pub const SETTLE_MS: u32 = 2_500;

/// What `net::ERR_BLOCKED_BY_CLIENT` looks like in `webRequest.onErrorOccurred`.
const BLOCKED_ERROR: &str = "net::ERR_BLOCKED_BY_CLIENT";

thread_local! {
    /// The next free rule id: ids are never reused within a worker's life, and a new worker
    /// starts from an empty rule list (see [`clear_stale_rules`]).
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
    /// Every live guard, for routing blocked requests to the page that caused them.
    static GUARDS: RefCell<Vec<Weak<Inner>>> = const { RefCell::new(Vec::new()) };
}

/// What is installed: the permit and tabs it was built from, and the rules.
struct Installed {
    permit: NetworkPermit,
    guarded: Guarded,
    rules: RuleSet,
}

struct Inner {
    /// The rules in force, and the set before them (a blocked request is reported after the
    /// fact and may belong to the set just replaced).
    current: RefCell<Option<Installed>>,
    previous: RefCell<Option<RuleSet>>,
    /// Bumped by every change, so a settle timer knows whether it is still the latest.
    generation: Cell<u64>,
    /// Until when (page clock, ms) the last action's rules must stay.
    settle_until: Cell<f64>,
    /// The user has the page: between actions nothing is guarded.
    user_control: Cell<bool>,
    /// After the settle window: keep the scope's rules on the tab (a task) or remove all (a
    /// single test action).
    keep_between_actions: bool,
    /// Blocked requests not yet reported, and what was reported already in this task (a page
    /// beaconing every second is told once per destination).
    blocked: RefCell<Vec<BlockedRequest>>,
    reported: RefCell<HashSet<String>>,
    /// Main-frame navigations blocked since the last action began: `(tab, url)`.
    navigations: RefCell<Vec<(i32, String)>>,
}

/// One page's network guard (shared by clones).
#[derive(Clone)]
pub struct NetGuard(Rc<Inner>);

impl NetGuard {
    /// A guard for a task (`keep_between_actions`: the tab stays in its scope between
    /// actions) or for single test actions (rules go after the settle window).
    pub fn new(keep_between_actions: bool) -> Self {
        let inner = Rc::new(Inner {
            current: RefCell::new(None),
            previous: RefCell::new(None),
            generation: Cell::new(0),
            settle_until: Cell::new(0.0),
            user_control: Cell::new(false),
            keep_between_actions,
            blocked: RefCell::new(Vec::new()),
            reported: RefCell::new(HashSet::new()),
            navigations: RefCell::new(Vec::new()),
        });
        GUARDS.with(|g| {
            let mut guards = g.borrow_mut();
            guards.retain(|w| w.strong_count() > 0);
            guards.push(Rc::downgrade(&inner));
        });
        Self(inner)
    }

    /// Puts `permit`'s rules in force before an action on `tab` (every tab but `others`);
    /// an error means the action must not run.
    pub async fn arm(&self, permit: &NetworkPermit, others: Vec<i32>) -> Result<(), String> {
        self.0.bump();
        self.0.navigations.borrow_mut().clear();
        self.install(permit.clone(), Guarded::AllBut(others)).await
    }

    /// The action is over: its rules stay for the settle window, then the tab falls back to
    /// its scope (or nothing, see [`NetGuard::new`]).
    pub fn settle(&self, tab: i32) {
        self.0.settle_until.set(js_sys::Date::now() + f64::from(SETTLE_MS));
        let generation = self.0.bump();
        let guard = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let _ = JsFuture::from(chrome::sleep_ms(SETTLE_MS)).await;
            guard.after_settle(generation, tab).await;
        });
    }

    /// The user has the page (`true`: a card, a pause, a take-over) or gave it back.
    pub fn set_user_control(&self, on: bool) {
        if self.0.user_control.replace(on) == on || !on {
            return;
        }
        self.end_after_settle();
    }

    /// The task ended: the rules go once the last action's settle window is over.
    pub fn end_after_settle(&self) {
        let generation = self.0.bump();
        let wait = (self.0.settle_until.get() - js_sys::Date::now()).max(0.0) as u32;
        let guard = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            if wait > 0 {
                let _ = JsFuture::from(chrome::sleep_ms(wait)).await;
            }
            if guard.0.generation.get() == generation {
                guard.remove().await;
            }
        });
    }

    /// Blocked requests not yet reported (each destination once per guard).
    pub fn take_blocked(&self) -> Vec<BlockedRequest> {
        std::mem::take(&mut *self.0.blocked.borrow_mut())
    }

    /// Whether `tab` now shows the browser's error page for a navigation the rules blocked:
    /// its address is one the rules would not load, or one a blocked navigation went to.
    pub fn on_blocked_page(&self, tab: i32, url: &str) -> bool {
        let blocked_by_rules = self.0.current.borrow().as_ref().is_some_and(|c| {
            c.guarded.covers(tab)
                && c.rules.verdict(RequestFacts {
                    url,
                    method: Method::Get,
                    kind: ResourceType::MainFrame,
                    tab_id: tab,
                }) == Verdict::Block
        });
        blocked_by_rules || self.0.navigations.borrow().iter().any(|(t, u)| *t == tab && u == url)
    }

    async fn after_settle(&self, generation: u64, tab: i32) {
        if self.0.generation.get() != generation {
            return;
        }
        let permit = self.0.current.borrow().as_ref().map(|c| c.permit.origins.clone());
        match permit {
            Some(origins) if self.0.keep_between_actions && !self.0.user_control.get() => {
                let idle = NetworkPermit { origins, approved_destination: None };
                // A failure leaves the action's rules, which are stricter.
                let _ = self.install(idle, Guarded::Tabs(vec![tab])).await;
            }
            _ => self.remove().await,
        }
    }

    async fn install(&self, permit: NetworkPermit, guarded: Guarded) -> Result<(), String> {
        let same = self
            .0
            .current
            .borrow()
            .as_ref()
            .is_some_and(|c| c.permit == permit && c.guarded == guarded);
        if same {
            return Ok(());
        }
        let first = NEXT_ID.with(|n| n.get());
        let rules = RuleSet::build(&permit, &guarded, first);
        NEXT_ID.with(|n| n.set(first + rules.rules.len() as u32));
        let old = self.0.current.borrow().as_ref().map(|c| c.rules.ids()).unwrap_or_default();
        let add = to_js(&rules.rules)?;
        JsFuture::from(chrome::dnr_update(old, &add)).await.map_err(|e| {
            format!("the network guard could not be set up: {}", super::js_message(&e))
        })?;
        let before = self.0.current.replace(Some(Installed { permit, guarded, rules }));
        *self.0.previous.borrow_mut() = before.map(|b| b.rules);
        Ok(())
    }

    async fn remove(&self) {
        let Some(current) = self.0.current.take() else { return };
        let _ =
            JsFuture::from(chrome::dnr_update(current.rules.ids(), &js_sys::Array::new())).await;
        *self.0.previous.borrow_mut() = Some(current.rules);
    }
}

impl Inner {
    fn bump(&self) -> u64 {
        let next = self.generation.get() + 1;
        self.generation.set(next);
        next
    }

    /// Records `error` if one of this guard's rule sets blocked it.
    fn observe(&self, error: &RequestError) {
        let facts = RequestFacts {
            url: &error.url,
            method: Method::parse(&error.method),
            kind: error.kind,
            tab_id: error.tab_id,
        };
        let covered = |rules: &RuleSet, guarded: Option<&Guarded>| {
            guarded.is_none_or(|g| g.covers(error.tab_id)) && rules.verdict(facts) == Verdict::Block
        };
        let ours =
            self.current.borrow().as_ref().is_some_and(|c| covered(&c.rules, Some(&c.guarded)))
                || self.previous.borrow().as_ref().is_some_and(|r| covered(r, None));
        if !ours {
            return;
        }
        if error.kind == ResourceType::MainFrame {
            self.navigations.borrow_mut().push((error.tab_id, error.url.clone()));
        }
        let key = format!(
            "{} {:?} {}",
            error.method,
            error.kind,
            error.url.split('?').next().unwrap_or("")
        );
        if !self.reported.borrow_mut().insert(key) {
            return;
        }
        self.blocked.borrow_mut().push(BlockedRequest {
            url: error.url.clone(),
            method: error.method.to_ascii_uppercase(),
            kind: error.kind_name.clone(),
        });
    }
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
}

/// `webRequest.onErrorOccurred` (forwarded by `sw.js`): a request the guard blocked is kept
/// for the page that caused it; every other failure is none of Waymark's business.
#[wasm_bindgen]
pub fn sw_request_error(details: JsValue) {
    let Ok(mut error) = serde_wasm_bindgen::from_value::<RequestError>(details) else { return };
    if error.error != BLOCKED_ERROR {
        return;
    }
    error.kind = serde_json::from_value(serde_json::Value::String(error.kind_name.clone()))
        .unwrap_or(ResourceType::Other);
    let guards: Vec<Rc<Inner>> =
        GUARDS.with(|g| g.borrow().iter().filter_map(Weak::upgrade).collect());
    for guard in guards {
        guard.observe(&error);
    }
}

/// Removes every session rule: run by a new worker before anything else, so rules a crashed
/// worker left behind never keep a tab blocked.
pub async fn clear_stale_rules() {
    let Ok(ids) = JsFuture::from(chrome::dnr_session_rule_ids()).await else { return };
    let ids: Vec<u32> = serde_wasm_bindgen::from_value(ids).unwrap_or_default();
    if !ids.is_empty() {
        let _ = JsFuture::from(chrome::dnr_update(ids, &js_sys::Array::new())).await;
    }
}
