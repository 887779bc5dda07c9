//! Running one task: picks the tab, drives the agent loop, records the turn.

use super::env::BrowserEnv;
use super::{Worker, chrome, storage};
use crate::agent::{self, Env, TaskEvent, TaskEvents};
use crate::browser::tab::TabPage;
use crate::session::TaskRecord;
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
    let page = TabPage::new(tab_id);
    let outcome =
        agent::run_task(&prompt, agent::DEFAULT_MAX_STEPS, &w.host, &page, &BrowserEnv, &w).await;
    let turn = w.session.borrow().records.len() as u32 + 1;
    let record = TaskRecord::from_outcome(turn, &prompt, &outcome, BrowserEnv.now_ms());
    w.session.borrow_mut().records.push(record.clone());
    w.state.borrow_mut().turns = turn;
    w.broadcast();
    let session = w.session.borrow().clone();
    let _ = storage::save_turn(&session, &record).await;
}

async fn target_tab() -> Option<i32> {
    let tabs = JsFuture::from(chrome::tabs_query(&js_sys::Object::new())).await.ok()?;
    let tabs: Vec<TabInfo> = serde_wasm_bindgen::from_value(tabs).ok()?;
    pick_target_tab(&tabs)
}
