//! Feeds the core's [`RequestLog`] from `chrome.webRequest`'s observe-only events, for the
//! external agents' `network_requests` tool. In memory only: nothing of it is stored.

use serde::Deserialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use waymark_core::bridge::{RequestLog, SeenRequest};
use waymark_core::safety::network::rules::ResourceType;

thread_local! {
    static LOG: RefCell<RequestLog> = RefCell::new(RequestLog::default());
}

/// The fields of `onBeforeRequest`'s details the log reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Started {
    request_id: String,
    url: String,
    method: String,
    #[serde(rename = "type")]
    resource: ResourceType,
    tab_id: i32,
}

/// The fields of `onCompleted`'s and `onErrorOccurred`'s details the log reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Ended {
    request_id: String,
    tab_id: i32,
    #[serde(default)]
    status_code: Option<u16>,
    #[serde(default)]
    error: Option<String>,
}

/// A request began (`netguard` forwards every `onBeforeRequest`).
pub(crate) fn started(details: &JsValue) {
    let Ok(s) = serde_wasm_bindgen::from_value::<Started>(details.clone()) else { return };
    let request = SeenRequest {
        method: s.method,
        url: s.url,
        resource: s.resource,
        status: None,
        error: None,
    };
    LOG.with(|log| log.borrow_mut().started(s.tab_id, &s.request_id, request));
}

/// A request ended, with a response or an error.
pub(crate) fn ended(details: &JsValue) {
    let Ok(e) = serde_wasm_bindgen::from_value::<Ended>(details.clone()) else { return };
    LOG.with(|log| {
        let mut log = log.borrow_mut();
        match (e.status_code, e.error) {
            (_, Some(error)) => log.failed(e.tab_id, &e.request_id, &error),
            (Some(status), None) => log.completed(e.tab_id, &e.request_id, status),
            (None, None) => {}
        }
    });
}

/// `webRequest.onCompleted` (forwarded by `sw.js`).
#[wasm_bindgen]
pub fn sw_request_completed(details: JsValue) {
    ended(&details);
}

/// `tabs.onRemoved` (forwarded by `sw.js`): a closed tab's log goes.
#[wasm_bindgen]
pub fn sw_tab_removed(tab_id: i32) {
    LOG.with(|log| log.borrow_mut().forget(tab_id));
}

/// What `tab` requested since its page loaded.
pub(crate) fn of(tab: i32) -> Vec<SeenRequest> {
    LOG.with(|log| log.borrow().of(tab))
}
