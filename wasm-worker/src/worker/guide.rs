//! The first-run guide and the install command: the guide's progress in `chrome.storage.local`,
//! the browser's platform for the command, the guide's model form sent to the host. Decisions
//! live in `waymark_core::panel::{guide, setup}`.

use super::{Worker, settings, storage, storage_result};
use std::rc::Rc;
use wasm_bindgen_futures::{JsFuture, spawn_local};
use waymark_core::panel::setup::install_command;
use waymark_core::panel::{Guide, GuideAction, GuideModelForm, Platform};
use waymark_core::protocol::ConfigSet;

use crate::chrome;

const GUIDE_KEY: &str = "panel:guide";

/// Loads the guide's progress and works out this machine's install command.
pub(super) async fn load(w: &Rc<Worker>) {
    let stored = storage::load_json::<Guide>(GUIDE_KEY).await;
    let earlier_tasks = stored.is_none()
        && waymark_core::session::SessionStore::new(storage::ChromeStore)
            .list()
            .await
            .is_ok_and(|l| l.metas.iter().any(|m| m.turns > 0));
    let guide = Guide::on_load(stored, earlier_tasks);
    let platform = match JsFuture::from(chrome::platform_info()).await {
        Ok(info) => serde_wasm_bindgen::from_value::<Platform>(info).ok(),
        Err(e) => {
            tracing::warn!(error = %crate::js_message(&e), "getPlatformInfo failed");
            None
        }
    };
    let mut state = w.app.state.borrow_mut();
    state.guide = guide;
    if let Some(platform) = platform {
        state.install = Some(install_command(platform, &chrome::runtime_id()));
    }
    drop(state);
    if stored.is_none() && guide.done {
        save(w);
    }
}

fn save(w: &Rc<Worker>) {
    let guide = w.app.state.borrow().guide;
    let w = w.clone();
    spawn_local(async move {
        let saved = storage::save_json(GUIDE_KEY, &guide).await;
        storage_result(&w, "the first-run guide's progress", saved);
    });
}

/// A guide button: next, back or skip.
pub(super) fn act(w: &Rc<Worker>, action: GuideAction) {
    w.app.state.borrow_mut().guide.apply(action);
    save(w);
    w.broadcast();
    if action == GuideAction::Next {
        // Each step shows the host's state as it is now (the user may just have installed it).
        let host = w.host.clone();
        spawn_local(async move { host.refresh().await });
    }
}

/// The sample task starts: the guide is done.
pub(super) fn finish(w: &Rc<Worker>) {
    w.app.state.borrow_mut().guide.finish();
    save(w);
}

/// Saves the guide's model as the host's default endpoint, then tests it with the doctor.
pub(super) async fn model(w: Rc<Worker>, form: GuideModelForm) {
    let settings = match form.settings() {
        Ok(s) => s,
        Err(e) => {
            w.app.state.borrow_mut().guide_error = Some(e);
            w.broadcast();
            return;
        }
    };
    w.app.state.borrow_mut().guide_error = None;
    w.broadcast();
    if let Err(e) = w.host.request(ConfigSet { settings }).await {
        w.app.state.borrow_mut().guide_error = Some(e.message);
        w.broadcast();
        return;
    }
    w.host.refresh().await;
    settings::check_setup(w).await;
}
