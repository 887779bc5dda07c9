//! Pins an approved request's body: while an action is done again after the user approved a
//! held request, `chrome.debugger` is attached to the task's tab with CDP `Fetch.enable` at
//! the request stage, and every paused request is continued or failed as
//! [`waymark_core::safety::network::pin`] rules. Decides nothing itself.
//!
//! Life of a pin: attached before the redo (after the network rules, which stay the first
//! layer), detached when the redo's settle window ends, when the next action pins nothing,
//! when the task ends, or when Chrome detaches it (the user closed the infobar, the tab
//! closed). A starting worker detaches whatever a crashed one left. Ordinary actions never
//! attach a debugger.

use super::chrome;
use super::netguard::{NetGuard, SETTLE_MS};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use waymark_core::safety::NetworkPermit;
use waymark_core::safety::network::pin::{PausedRequest, PinVerdict, Pinning};

/// `Fetch.enable`'s parameters: every request of the tab, paused before it is sent.
const FETCH_PATTERNS: &str = r#"{"patterns":[{"urlPattern":"*","requestStage":"Request"}]}"#;

thread_local! {
    /// The one pin in force (one task at a time).
    static ACTIVE: RefCell<Option<Active>> = const { RefCell::new(None) };
    /// Why Chrome ended a pin before its redo was over, until the redo's outcome says so.
    static LOST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A debugger attached to `tab`, the verdicts of the redo it serves, and the guard that
/// reports what it held.
struct Active {
    tab: i32,
    pinning: Pinning,
    guard: NetGuard,
    /// Bumped by every new pin, so a settle timer knows whether it is still the latest.
    generation: u64,
}

/// Why a pin could not be put in force (the redo then runs under the network rules alone
/// and what was sent is checked after the fact).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotPinned(String);

/// Puts `permit`'s pins in force on `tab` before an action: attaches the debugger when the
/// permit pins an approved request, detaches it otherwise.
pub async fn arm(guard: &NetGuard, tab: i32, permit: &NetworkPermit) -> Result<(), NotPinned> {
    LOST.with(|l| l.borrow_mut().take());
    let Some(pinning) = Pinning::new(permit) else {
        release().await;
        return Ok(());
    };
    let same_tab = ACTIVE.with(|a| a.borrow().as_ref().is_some_and(|a| a.tab == tab));
    if !same_tab {
        release().await;
        let attach = JsFuture::from(chrome::debugger_attach(tab)).await;
        if let Err(e) = attach {
            return Err(NotPinned(super::js_message(&e)));
        }
        let params = js_sys::JSON::parse(FETCH_PATTERNS).unwrap_or(JsValue::UNDEFINED);
        if let Err(e) = JsFuture::from(chrome::debugger_send(tab, "Fetch.enable", &params)).await {
            detach(tab).await;
            return Err(NotPinned(super::js_message(&e)));
        }
    }
    guard.set_pinning(true);
    ACTIVE.with(|a| {
        let mut a = a.borrow_mut();
        let generation = a.as_ref().map_or(0, |a| a.generation + 1);
        *a = Some(Active { tab, pinning, guard: guard.clone(), generation });
    });
    Ok(())
}

/// The redo is over: the pin stays for the settle window (a page may send late), then goes.
pub fn settle() {
    let Some(generation) = ACTIVE.with(|a| a.borrow().as_ref().map(|a| a.generation)) else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        // The network guard's settle window: no event says the page will send nothing more.
        chrome::sleep(SETTLE_MS).await;
        if ACTIVE.with(|a| a.borrow().as_ref().map(|a| a.generation)) == Some(generation) {
            release().await;
        }
    });
}

/// Detaches the debugger, if one is attached.
pub async fn release() {
    let Some(active) = ACTIVE.with(|a| a.borrow_mut().take()) else { return };
    active.guard.set_pinning(false);
    detach(active.tab).await;
}

async fn detach(tab: i32) {
    if let Err(e) = JsFuture::from(chrome::debugger_detach(tab)).await {
        tracing::debug!(error = %super::js_message(&e), tab, "the debugger was already detached");
    }
}

/// Detaches debuggers a stopped worker left on tabs (a debugger of another client is not
/// this extension's to detach: Chrome refuses, which is ignored).
pub async fn clear_stale() {
    let Ok(tabs) = JsFuture::from(chrome::debugger_attached_tabs()).await else { return };
    let tabs: Vec<i32> = serde_wasm_bindgen::from_value(tabs).unwrap_or_default();
    for tab in tabs {
        detach(tab).await;
    }
}

/// `chrome.debugger.onEvent` (forwarded by `sw.js`): a paused request is continued or failed
/// as the pin rules. A request paused without a pin in force (a late event) goes on.
#[wasm_bindgen]
pub fn sw_debugger_event(tab: i32, method: String, params: JsValue) {
    if method != "Fetch.requestPaused" {
        return;
    }
    let paused: PausedRequest = match serde_wasm_bindgen::from_value(params) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %e, "a paused request without the expected fields");
            return;
        }
    };
    let ruled = ACTIVE.with(|a| {
        let mut a = a.borrow_mut();
        let active = a.as_mut().filter(|a| a.tab == tab)?;
        let verdict = active.pinning.judge(&paused);
        Some((verdict, active.guard.clone(), active.pinning.permit().clone()))
    });
    let fail = match ruled {
        Some((PinVerdict::Fail(held), guard, permit)) => {
            let at_pin = permit.pins(&held.url);
            guard.pinned_held(*held, at_pin);
            true
        }
        Some((PinVerdict::Continue, guard, _)) => {
            let sent = waymark_core::safety::network::pin::as_sent(&paused);
            if sent.changes_state() {
                guard.pinned_sent(sent);
            }
            false
        }
        None => false,
    };
    let id = paused.request_id;
    wasm_bindgen_futures::spawn_local(async move {
        let (command, params) = if fail {
            (
                "Fetch.failRequest",
                serde_json::json!({"requestId": id, "errorReason": "BlockedByClient"}),
            )
        } else {
            ("Fetch.continueRequest", serde_json::json!({"requestId": id}))
        };
        let params = waymark_page::js::to_js(&params).unwrap_or(JsValue::UNDEFINED);
        if let Err(e) = JsFuture::from(chrome::debugger_send(tab, command, &params)).await {
            tracing::debug!(error = %super::js_message(&e), "a paused request was already gone");
        }
    });
}

/// `chrome.debugger.onDetach` (forwarded by `sw.js`): Chrome ended the pin (the user closed
/// the infobar, the tab closed, DevTools took it). The redo's requests are then checked after
/// the fact, and the guard is told why.
#[wasm_bindgen]
pub fn sw_debugger_detached(tab: i32, reason: String) {
    let gone = ACTIVE.with(|a| {
        let mut a = a.borrow_mut();
        if a.as_ref().is_some_and(|a| a.tab == tab) { a.take() } else { None }
    });
    if let Some(active) = gone {
        active.guard.set_pinning(false);
        LOST.with(|l| *l.borrow_mut() = Some(format!("Chrome ended it: {reason}")));
        tracing::warn!(tab, reason, "Chrome ended the pin of an approved request");
    }
}

/// Why the pin of the action just done ended early, once (see [`sw_debugger_detached`]).
pub fn take_lost() -> Option<String> {
    LOST.with(|l| l.borrow_mut().take())
}
