//! Teach by showing, in the worker: arms the content script of the recorded tab (again after
//! each load), takes its reports only from that tab's top frame, follows the loads the user
//! starts and the writes the tab's requests make. When a recording may start, what it keeps
//! and what stopping gives the user are decided in `waymark_core::app` (`RecordingDesk`).

use super::Worker;
use crate::tab::{self, TabPage};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use waymark_core::platform::{TabError, Tabs};
use waymark_core::safety::RequestBody;
use waymark_core::workflow::LoadCause;
use waymark_page::action::ContentRequest;
use waymark_page::demonstration::{DemonstratedMessage, RecordingArmed};

// `webNavigation` listeners only while recording: registered at the top of `sw.js` they would
// wake the worker for every page load of every tab.
#[wasm_bindgen(module = "/js/recording.js")]
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

/// The worker's listeners for the recorded tab's loads, while a recording runs.
#[derive(Default)]
pub(super) struct RecordingState {
    watch: RefCell<Option<Watch>>,
}

/// The user's tabs as the core's app uses them (a recording).
pub(super) struct ChromeTabs(pub Rc<Worker>);

impl Tabs for ChromeTabs {
    async fn target(&self) -> Option<(i32, String)> {
        let tab = tab::target_tab().await?;
        Some((tab, tab::tab_url(tab).await.unwrap_or_default()))
    }

    async fn arm_recording(&self, tab: i32, on: bool) -> Result<bool, TabError> {
        arm(tab, on).await
    }

    fn watch_loads(&self, on: bool) {
        if on { watch(&self.0) } else { stop_watching(&self.0) }
    }
}

/// Goes on with a recording a stopped worker left (at start).
pub(super) async fn load(w: &Rc<Worker>) {
    let Some(tab) = w.app.recording.load(&w.app.state).await else { return };
    watch(w);
    w.app.recording.rearmed(&w.app.state, tab, arm(tab, true).await);
    w.broadcast();
}

/// Starts or stops the content script's reports in the tab's top frame; whether it reports.
async fn arm(tab: i32, on: bool) -> Result<bool, TabError> {
    let armed: RecordingArmed = TabPage::new(tab)
        .content(0, &ContentRequest::Record { on })
        .await
        .map_err(|e| TabError(e.to_string()))?;
    Ok(armed.recording)
}

fn watch(w: &Rc<Worker>) {
    let weak = Rc::downgrade(w);
    let committed = Closure::<dyn FnMut(i32, i32, String, String, JsValue)>::new(
        move |tab: i32, frame: i32, url: String, transition: String, qualifiers: JsValue| {
            let Some(w) = weak.upgrade() else { return };
            if !w.app.recording.follows(tab, frame) {
                return;
            }
            let qualifiers: Vec<String> =
                serde_wasm_bindgen::from_value(qualifiers).unwrap_or_default();
            let cause = LoadCause::of(&transition, &qualifiers);
            spawn_local(async move {
                w.app.recording.committed(&w.app.state, &url, cause).await;
                w.broadcast();
            });
        },
    );
    let weak = Rc::downgrade(w);
    let loaded = Closure::<dyn FnMut(i32, i32)>::new(move |tab: i32, frame: i32| {
        let Some(w) = weak.upgrade() else { return };
        if !w.app.recording.follows(tab, frame) {
            return;
        }
        spawn_local(async move {
            w.app.recording.rearmed(&w.app.state, tab, arm(tab, true).await);
            w.broadcast();
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
    let Ok(msg) = serde_wasm_bindgen::from_value::<DemonstratedMessage>(msg) else { return };
    let Some(shown) = w.app.recording.step_from(tab, frame, &msg) else { return };
    let w = w.clone();
    spawn_local(async move {
        w.app.recording.step(&w.app.state, &shown).await;
        w.broadcast();
    });
}

/// A state-changing request of the recorded tab (the caller checked the tab): what the
/// demonstration wrote.
pub(super) fn request(w: &Rc<Worker>, method: &str, url: &str, body: Option<&RequestBody>) {
    let effect = waymark_core::safety::writes::classify(method, url, body);
    let w = w.clone();
    spawn_local(async move { w.app.recording.request(&effect).await });
}
