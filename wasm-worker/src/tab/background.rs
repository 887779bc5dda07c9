//! A tab of the user's browser that does not take focus, for a routine's run.

use super::{ChromeTab, TabPage, bad_reply, check_url, encode, promise};
use crate::chrome;
use waymark_core::agent::PageError;

/// What `chrome.tabs.create` is asked for.
#[derive(serde::Serialize)]
struct NewTab<'a> {
    url: &'a str,
    active: bool,
}

/// How long the start page may take to load before the run goes on with what is there.
const LOAD_WAIT_MS: f64 = 15_000.0;

/// Opens `url` in a new background tab of the window the user used last and waits (bounded)
/// until it has loaded; the tab's id.
pub async fn open_background(url: &str) -> Result<i32, PageError> {
    check_url(url)?;
    let created = promise(chrome::tabs_create(&encode(&NewTab { url, active: false })?)).await?;
    let tab: ChromeTab =
        serde_wasm_bindgen::from_value(created).map_err(bad_reply("the new tab"))?;
    TabPage::new(tab.id).settle(LOAD_WAIT_MS).await;
    Ok(tab.id)
}

/// Closes a routine's tab once its run ended, unless the user is looking at it now (they
/// opened it to answer a card, say): a routine that runs hourly must not leave a tab a run.
pub async fn close_background(tab_id: i32) {
    let page = TabPage::new(tab_id);
    match page.tab(tab_id).await {
        Ok(tab) if !tab.active => {
            if let Err(e) = promise(chrome::tabs_remove(tab_id)).await {
                tracing::debug!(error = %e, "a routine's tab could not be closed");
            }
        }
        _ => {}
    }
}
