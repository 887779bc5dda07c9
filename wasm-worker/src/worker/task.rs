//! Running one task in this worker: the core's task desk (`waymark_core::app::tasks`) decides
//! the lifecycle; this file gives it the tab's page, the metered model, the panel's timeline
//! and the controls' wiring, and spawns the background summary calls it hands back.

use super::interventions::ChromeSignals;
use super::status::{HostLlm, WorkerMeter};
use super::{Worker, WorkerPlatform};
use crate::tab::TabPage;
use std::rc::{Rc, Weak};
use wasm_bindgen_futures::JsFuture;
use waymark_core::agent::{Controls, TaskEvent, TaskEvents, TaskSpec};
use waymark_core::app::{Meter, StoredTurn, TaskPlatform, TaskRun, user_holds_page};

thread_local! {
    static BROADCAST_PENDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The worker as the agent's progress view: events update the task's panel state.
pub(super) struct TaskEventSink(pub Rc<Worker>);

impl TaskEvents for TaskEventSink {
    fn emit(&self, event: TaskEvent) {
        self.0.app.task_event(&event);
        // Several events of one step make one panel update, sent while the agent waits for
        // the page: serialising the whole panel state stays off the step's critical path.
        if BROADCAST_PENDING.with(|p| p.replace(true)) {
            return;
        }
        let w = self.0.clone();
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = JsFuture::from(super::env::next_tick()).await {
                // The update goes out now instead of after the step's other events.
                tracing::warn!(error = %crate::js_message(&e), "next_tick failed");
            }
            BROADCAST_PENDING.with(|p| p.set(false));
            w.broadcast();
        });
    }
}

/// Runs `run` to its end (its summary call in the background).
pub(super) async fn run(w: Rc<Worker>, run: TaskRun) {
    run_to_end(w, run).await;
}

/// [`run`], returning how the task ended (once it is recorded).
pub(super) async fn run_to_end(w: Rc<Worker>, run: TaskRun) -> waymark_core::record::TaskOutcome {
    let p = WorkerPlatform::of(&w);
    let end = w.app.run_task(&p, run).await;
    summarise_later(&w, end.summary);
    end.outcome
}

/// Runs a stored turn's summary call in the background.
pub(super) fn summarise_later(w: &Rc<Worker>, turn: Option<StoredTurn>) {
    let Some(turn) = turn else { return };
    let w = w.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let p = WorkerPlatform::of(&w);
        w.app.summarise(&p, turn).await;
    });
}

/// A task the previous instance left unfinished: resumed, or recorded after a `crash`.
pub(super) async fn recover(w: Rc<Worker>, crash: Option<waymark_core::crash::Crash>) {
    let p = WorkerPlatform::of(&w);
    let turn = w.app.recover_task(&p, crash).await;
    summarise_later(&w, turn);
}

impl TaskPlatform for WorkerPlatform {
    type Page = TabPage;
    type Llm = Meter<HostLlm, WorkerMeter>;
    type Events = TaskEventSink;
    type Signals = ChromeSignals;

    async fn user_tab(&self) -> Option<i32> {
        crate::tab::target_tab().await
    }

    fn task_page(&self, tab: i32, spec: &TaskSpec) -> TabPage {
        let uploads = crate::upload::Uploads {
            resources: spec.resources.clone(),
            host: self.worker.host.clone(),
        };
        let page = TabPage::for_task(tab).with_uploads(uploads);
        if spec.workflow.is_some() { page.replaying() } else { page }
    }

    fn release_page(&self, page: &TabPage) {
        page.guard().end_after_settle();
    }

    fn llm(&self, for_task: bool) -> Self::Llm {
        let w = &self.worker;
        Meter::new(HostLlm(w.host.clone()), WorkerMeter(w.clone()), for_task)
    }

    fn events(&self) -> &TaskEventSink {
        &self.events
    }

    fn signals(&self) -> &ChromeSignals {
        &ChromeSignals
    }

    fn watch_controls(&self, controls: &Rc<Controls>, page: Option<&TabPage>) {
        let guard = page.map_or_else(|| crate::netguard::NetGuard::new(false), TabPage::guard);
        let weak_w: Weak<Worker> = Rc::downgrade(&self.worker);
        let weak_c = Rc::downgrade(controls);
        controls.set_on_change(move || {
            let (Some(w), Some(c)) = (weak_w.upgrade(), weak_c.upgrade()) else { return };
            let now = c.snapshot();
            guard.set_user_control(user_holds_page(&now));
            let panel_open = !w.panels.borrow().is_empty();
            if w.app.controls_changed(&ChromeSignals, now, panel_open) {
                w.broadcast();
            }
        });
    }

    async fn tab_url(&self, tab: i32) -> Option<String> {
        crate::tab::tab_url(tab).await
    }

    fn version(&self) -> String {
        crate::chrome::extension_version()
    }

    fn summarise_later(&self, turn: StoredTurn) {
        summarise_later(&self.worker, Some(turn));
    }
}
