//! Running one task: picks the tab, drives the agent loop, records the turn.

use super::env::BrowserEnv;
use super::{Worker, chrome, sessions};
use crate::agent::{self, TaskEvent, TaskEvents};
use crate::browser::tab::TabPage;
use crate::session;
use crate::tabs::{TabInfo, pick_target_tab};
use std::rc::Rc;
use wasm_bindgen_futures::JsFuture;

impl TaskEvents for Rc<Worker> {
    fn emit(&self, event: TaskEvent) {
        if let Some(task) = self.state.borrow_mut().task.as_mut() {
            task.apply(&event);
        }
        self.broadcast();
    }
}

/// Runs `prompt` as a new task on the tab the user looked at last.
pub(super) async fn run(w: Rc<Worker>, prompt: String) {
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
    // The session context (earlier tasks' findings) goes first, then "New task: …".
    let context = sessions::context_for_next_task(&w).unwrap_or_default();
    let task = session::task_with_context(&context, &prompt);
    let outcome =
        agent::run_task(&task, agent::DEFAULT_MAX_STEPS, &w.host, &page, &BrowserEnv, &w).await;
    sessions::record_task(&w, &prompt, &outcome).await;
}

async fn target_tab() -> Option<i32> {
    let tabs = JsFuture::from(chrome::tabs_query(&js_sys::Object::new())).await.ok()?;
    let tabs: Vec<TabInfo> = serde_wasm_bindgen::from_value(tabs).ok()?;
    pick_target_tab(&tabs)
}
