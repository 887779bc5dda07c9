//! Teach by showing, in the worker: arms the content script of the recorded tab (again after
//! each load), takes its reports only from that tab's top frame, follows the loads the user
//! starts and the writes the tab's requests make, and opens the workflow editor with the draft
//! when the user stops. What a step is, and what the draft holds, is decided in
//! `waymark_core::workflow::Demonstration`; this module moves data between it, Chrome,
//! storage and the panel.

use super::env::BrowserEnv;
use super::{Worker, storage, workflows};
use crate::tab::{self, TabPage};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use waymark_core::agent::Env;
use waymark_core::locate::UrlPattern;
use waymark_core::panel::recording::view;
use waymark_core::panel::workflows::DraftSource;
use waymark_core::safety::RequestBody;
use waymark_core::workflow::{Demonstration, LoadCause};
use waymark_page::action::ContentRequest;
use waymark_page::demonstration::{
    DEMONSTRATED, Demonstrated, DemonstratedMessage, RecordingArmed,
};

/// Where a recording in progress is kept (a restart of the worker goes on with it).
const RECORDING_KEY: &str = "recording";

// `webNavigation` listeners only while recording: registered at the top of `sw.js` they would
// wake the worker for every page load of every tab.
#[wasm_bindgen(inline_js = r#"
let watching = null;
export function watch_loads(committed, loaded) {
  unwatch_loads();
  const onCommitted = (d) => committed(d.tabId, d.frameId, d.url, d.transitionType ?? '', d.transitionQualifiers ?? []);
  const onLoaded = (d) => loaded(d.tabId, d.frameId);
  chrome.webNavigation.onCommitted.addListener(onCommitted);
  chrome.webNavigation.onDOMContentLoaded.addListener(onLoaded);
  watching = { onCommitted, onLoaded };
}
export function unwatch_loads() {
  if (!watching) return;
  chrome.webNavigation.onCommitted.removeListener(watching.onCommitted);
  chrome.webNavigation.onDOMContentLoaded.removeListener(watching.onLoaded);
  watching = null;
}
"#)]
extern "C" {
    fn watch_loads(
        committed: &Closure<dyn FnMut(i32, i32, String, String, JsValue)>,
        loaded: &Closure<dyn FnMut(i32, i32)>,
    );
    fn unwatch_loads();
}

/// The listeners while recording (Chrome calls them until `unwatch_loads`).
struct Watch {
    _committed: Closure<dyn FnMut(i32, i32, String, String, JsValue)>,
    _loaded: Closure<dyn FnMut(i32, i32)>,
}

/// The worker's recording, if one is in progress.
#[derive(Default)]
pub(super) struct RecordingState {
    demo: RefCell<Option<Demonstration>>,
    /// The page the tab shows reports the user's steps (not yet while a new one loads).
    ready: Cell<bool>,
    watch: RefCell<Option<Watch>>,
}

/// The tab being recorded, if any.
pub(super) fn recorded_tab(w: &Worker) -> Option<i32> {
    w.recording.demo.borrow().as_ref().map(|d| d.tab)
}

fn show(w: &Rc<Worker>) {
    let ready = w.recording.ready.get();
    let view = w.recording.demo.borrow().as_ref().map(|demo| view(demo, ready));
    w.app.state.borrow_mut().workflows.recording = view;
    w.broadcast();
}

fn set_error(w: &Rc<Worker>, message: String) {
    let mut state = w.app.state.borrow_mut();
    state.workflows.error = Some(message);
    state.workflows.notice = None;
    drop(state);
    w.broadcast();
}

/// Keeps the recording in storage after each change (a failed write is logged: the
/// recording goes on in memory).
fn persist(w: &Rc<Worker>) {
    let demo = w.recording.demo.borrow().clone();
    spawn_local(async move {
        if let Err(e) = storage::save_json(RECORDING_KEY, &demo).await {
            tracing::warn!(error = %e, "the recording could not be stored");
        }
    });
}

/// Starts recording the tab the user is looking at.
pub(super) async fn start(w: Rc<Worker>) {
    if recorded_tab(&w).is_some() {
        return;
    }
    if w.app.controls.borrow().is_some() {
        return set_error(
            &w,
            "A task is running: wait for it to end, or stop it, then record.".into(),
        );
    }
    let Some(tab) = tab::target_tab().await else {
        return set_error(&w, "There is no tab to record: open the page you want to show.".into());
    };
    let url = tab::tab_url(tab).await.unwrap_or_default();
    if UrlPattern::of_page(&url).is_none() {
        return set_error(
            &w,
            "Waymark can record only on web pages: open the page where you want to start, then \
             press Record."
                .into(),
        );
    }
    *w.recording.demo.borrow_mut() = Some(Demonstration::start(tab, &url, BrowserEnv.now_ms()));
    persist(&w);
    watch(&w);
    if let Err(e) = arm(tab, true).await {
        stop_watching(&w);
        *w.recording.demo.borrow_mut() = None;
        persist(&w);
        return set_error(&w, format!("Waymark cannot record on this page ({e})."));
    }
    w.recording.ready.set(true);
    {
        let mut state = w.app.state.borrow_mut();
        state.workflows.error = None;
        state.workflows.notice = None;
    }
    show(&w);
}

/// Goes on with a recording a stopped worker left (at start).
pub(super) async fn load(w: &Rc<Worker>) {
    let Some(Some(demo)) = storage::load_json::<Option<Demonstration>>(RECORDING_KEY).await else {
        return;
    };
    let tab = demo.tab;
    *w.recording.demo.borrow_mut() = Some(demo);
    watch(w);
    match arm(tab, true).await {
        Ok(()) => w.recording.ready.set(true),
        Err(e) => tracing::warn!(error = %e, "the recorded tab could not be armed again"),
    }
    show(w);
}

/// Ends the recording: the editor opens with the draft (or says why there is none).
pub(super) async fn stop(w: Rc<Worker>, keep: bool) {
    let Some(demo) = w.recording.demo.borrow_mut().take() else { return };
    w.recording.ready.set(false);
    stop_watching(&w);
    persist(&w);
    if let Err(e) = arm(demo.tab, false).await {
        tracing::debug!(error = %e, "the recorded tab could not be disarmed (closed?)");
    }
    show(&w);
    if !keep {
        return;
    }
    let skipped = demo.skipped;
    match demo.finish(workflows::new_id(), BrowserEnv.now_ms()) {
        Ok(draft) => {
            workflows::open_editor(&w, draft, DraftSource::Shown);
            if skipped > 0 {
                w.app.state.borrow_mut().workflows.notice = Some(format!(
                    "{} of what you did could not be recorded (see the steps).",
                    waymark_core::text::counted(skipped, "step")
                ));
            }
            w.broadcast();
        }
        Err(e) => set_error(&w, format!("Nothing was recorded: {e}.")),
    }
}

/// Starts or stops the content script's reports in the tab's top frame.
async fn arm(tab: i32, on: bool) -> Result<(), String> {
    let armed: RecordingArmed = TabPage::new(tab)
        .content(0, &ContentRequest::Record { on })
        .await
        .map_err(|e| e.to_string())?;
    if armed.recording != on {
        return Err("the page did not take the recording".into());
    }
    Ok(())
}

fn watch(w: &Rc<Worker>) {
    let weak = Rc::downgrade(w);
    let committed = Closure::<dyn FnMut(i32, i32, String, String, JsValue)>::new(
        move |tab: i32, frame: i32, url: String, transition: String, qualifiers: JsValue| {
            let Some(w) = weak.upgrade() else { return };
            if frame != 0 || recorded_tab(&w) != Some(tab) {
                return;
            }
            let qualifiers: Vec<String> =
                serde_wasm_bindgen::from_value(qualifiers).unwrap_or_default();
            let cause = LoadCause::of(&transition, &qualifiers);
            w.recording.ready.set(false);
            if let Some(demo) = w.recording.demo.borrow_mut().as_mut()
                && let Err(e) = demo.committed(&url, cause)
            {
                tracing::debug!(error = %e, "a load was not recorded");
            }
            persist(&w);
            show(&w);
        },
    );
    let weak = Rc::downgrade(w);
    let loaded = Closure::<dyn FnMut(i32, i32)>::new(move |tab: i32, frame: i32| {
        let Some(w) = weak.upgrade() else { return };
        if frame != 0 || recorded_tab(&w) != Some(tab) {
            return;
        }
        spawn_local(async move {
            match arm(tab, true).await {
                // Still the same recording (not stopped meanwhile).
                Ok(()) if recorded_tab(&w) == Some(tab) => {
                    w.recording.ready.set(true);
                    show(&w);
                }
                Ok(()) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "a new page of the recorded tab could not be armed")
                }
            }
        });
    });
    watch_loads(&committed, &loaded);
    *w.recording.watch.borrow_mut() = Some(Watch { _committed: committed, _loaded: loaded });
}

fn stop_watching(w: &Rc<Worker>) {
    unwatch_loads();
    // Dropped after this call returns: never while Chrome is inside one of them.
    let watch = w.recording.watch.borrow_mut().take();
    spawn_local(async move { drop(watch) });
}

/// A message a content script sent (`chrome.runtime.sendMessage`): a step of the recording
/// when it comes from the top frame of the recorded tab; anything else is ignored.
pub(super) fn message(w: &Rc<Worker>, msg: JsValue, tab: i32, frame: i32) {
    if frame != 0 || recorded_tab(w) != Some(tab) {
        return;
    }
    let Ok(msg) = serde_wasm_bindgen::from_value::<DemonstratedMessage>(msg) else { return };
    if msg.waymark != DEMONSTRATED {
        return;
    }
    let shown: Demonstrated = match serde_json::from_str(&msg.step) {
        Ok(shown) => shown,
        Err(e) => return tracing::warn!(error = %e, "an unreadable recorded step"),
    };
    if let Some(demo) = w.recording.demo.borrow_mut().as_mut()
        && let Err(e) = demo.add(&shown)
    {
        tracing::debug!(error = %e, "a step was not recorded");
    }
    persist(w);
    show(w);
}

/// A state-changing request of the recorded tab (the caller checked the tab): what the
/// demonstration wrote.
pub(super) fn request(w: &Rc<Worker>, method: &str, url: &str, body: Option<&RequestBody>) {
    let effect = waymark_core::safety::writes::classify(method, url, body);
    if let Some(demo) = w.recording.demo.borrow_mut().as_mut() {
        demo.request(&effect);
    }
    persist(w);
}
