//! The routines side of the worker: Chrome's alarms and background tabs for the core's
//! routine desk (`waymark_core::app`), which decides when a routine runs, what it records and
//! what it tells.

use super::{Worker, WorkerPlatform};
use crate::chrome;
use std::rc::Rc;
use waymark_core::agent::PageError;
use waymark_core::app::RoutinePlatform;
use waymark_core::platform::Alarms;

/// `chrome.alarms` and the browser's clock.
pub(super) struct ChromeAlarms;

impl Alarms for ChromeAlarms {
    fn at(&self, name: &str, when_ms: f64) {
        chrome::alarm_at(name, when_ms);
    }
    fn clear(&self, name: &str) {
        chrome::alarm_clear(name);
    }
    fn utc_offset_minutes(&self) -> i32 {
        chrome::utc_offset_minutes()
    }
}

impl RoutinePlatform for WorkerPlatform {
    async fn open_background(&self, url: &str) -> Result<i32, PageError> {
        crate::tab::open_background(url).await
    }
    async fn close_background(&self, tab: i32) {
        crate::tab::close_background(tab).await;
    }
    fn notify(&self, id: &str, title: &str, message: &str) {
        chrome::notify(id, title, message);
    }
}

/// Loads the routines at worker start, sets their alarms, and runs those whose time passed
/// while the browser was closed (once each, as each one says).
pub(super) async fn load(w: &Rc<Worker>) {
    let due = w.app.load_routines(&super::env::BrowserEnv, &ChromeAlarms).await;
    w.broadcast();
    for id in due {
        wasm_bindgen_futures::spawn_local(run(w.clone(), id));
    }
}

/// Runs routine `id` now (its alarm fired, or the user asked), as the core decides.
pub(super) async fn run(w: Rc<Worker>, id: String) {
    let p = WorkerPlatform::of(&w);
    w.app.run_routine(&p, &id).await;
}
