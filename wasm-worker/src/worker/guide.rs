//! The install command the first-run guide and the settings show: the browser's platform and
//! this extension's id (the guide's steps and progress are the core app's).

use super::Worker;
use std::rc::Rc;
use wasm_bindgen_futures::JsFuture;
use waymark_core::panel::Platform;
use waymark_core::panel::setup::install_command;

use crate::chrome;

/// Works out this machine's install command.
pub(super) async fn load(w: &Rc<Worker>) {
    let platform = match JsFuture::from(chrome::platform_info()).await {
        Ok(info) => serde_wasm_bindgen::from_value::<Platform>(info).ok(),
        Err(e) => {
            tracing::warn!(error = %crate::js_message(&e), "getPlatformInfo failed");
            None
        }
    };
    if let Some(platform) = platform {
        w.app.state.borrow_mut().install = Some(install_command(platform, &chrome::runtime_id()));
    }
}
