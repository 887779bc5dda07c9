//! The tab the agent works on, reached through the content script.

use super::chrome;
use super::host_port::to_js;
use crate::action::{Action, ActionOutcome, ContentRequest};
use crate::agent::Page;
use crate::observation::Observation;
use serde::de::DeserializeOwned;
use wasm_bindgen_futures::JsFuture;

/// One browser tab.
pub struct TabPage {
    /// Chrome's tab id.
    pub tab_id: i32,
}

impl TabPage {
    async fn call<T: DeserializeOwned>(&self, request: &ContentRequest) -> Result<T, String> {
        let msg = to_js(request)?;
        let reply = JsFuture::from(chrome::run_in_tab(self.tab_id, &msg))
            .await
            .map_err(|e| format!("the tab could not be reached: {}", super::js_message(&e)))?;
        let ok = js_sys::Reflect::get(&reply, &"ok".into()).ok().and_then(|v| v.as_bool());
        if ok != Some(true) {
            let error = js_sys::Reflect::get(&reply, &"error".into())
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_else(|| "the content script did not answer".to_owned());
            return Err(error);
        }
        let value =
            js_sys::Reflect::get(&reply, &"value".into()).map_err(|e| super::js_message(&e))?;
        serde_wasm_bindgen::from_value(value).map_err(|e| format!("bad content reply: {e}"))
    }
}

impl Page for TabPage {
    async fn observe(&self) -> Result<Observation, String> {
        self.call(&ContentRequest::Observe).await
    }

    async fn act(&self, action: &Action) -> Result<ActionOutcome, String> {
        self.call(&ContentRequest::Act { action: action.clone() }).await
    }
}
