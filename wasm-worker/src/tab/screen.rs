//! The screen check's adapter: one capture of the visible tab, as raw pixels, for the text the
//! content script could not settle from styles (`waymark_page::observation::screen` judges).
//!
//! `chrome.tabs.captureVisibleTab` shows only the active tab of a window, so a tab in the
//! background (or a minimised window, or a capture refused) is not captured: the observation
//! keeps what the style rules kept and says it was not checked against the screen. The tab
//! must still be the active one after the capture, or the pixels might be another page's.

use super::TabPage;
use super::chrome::sleep;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use waymark_page::observation::Observation;
use waymark_page::observation::screen::Shot;

#[wasm_bindgen(module = "/js/screen.js")]
extern "C" {
    /// `captureVisibleTab` of the window as PNG, decoded by the browser to RGBA:
    /// `{width, height, rgba: Uint8ClampedArray}`.
    fn capture_pixels(window_id: i32) -> js_sys::Promise;
}

/// Chrome allows two captures a second per extension: captures are spaced by
/// [`CAPTURE_GAP_MS`], and a refusal for that (or any other failed capture) is retried.
const QUOTA: &str = "MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND";

/// The least time between two captures (Chrome's quota is two a second).
const CAPTURE_GAP_MS: f64 = 550.0;

/// Attempts at one capture before its text is left to the style rules.
const CAPTURE_ATTEMPTS: u32 = 4;

thread_local! {
    /// When the last capture was asked for (`Date.now()`).
    static LAST_CAPTURE: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// One capture of `window_id`, spaced from the previous one so that Chrome's quota is kept.
async fn paced_capture(window_id: i32) -> Result<JsValue, JsValue> {
    let since = js_sys::Date::now() - LAST_CAPTURE.with(std::cell::Cell::get);
    // A rate limit, not a wait for an event: Chrome refuses a third capture within a second.
    if since < CAPTURE_GAP_MS {
        sleep((CAPTURE_GAP_MS - since).ceil() as u32).await;
    }
    LAST_CAPTURE.with(|last| last.set(js_sys::Date::now()));
    JsFuture::from(capture_pixels(window_id)).await
}

/// A decoded capture.
struct Capture {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

/// Settles the observation's text checks against the screen (see the module doc).
pub(super) async fn confirm(page: &TabPage, observation: &mut Observation) {
    if observation.checks.is_empty() {
        return;
    }
    let capture = capture(page).await;
    let shot = capture.as_ref().map(|c| Shot {
        width: c.width,
        height: c.height,
        rgba: &c.rgba,
        scale: if observation.viewport.width > 0.0 {
            f64::from(c.width) / observation.viewport.width
        } else {
            1.0
        },
    });
    observation.confirm_on_screen(shot.as_ref());
}

/// The tab's pixels, when it is the active tab of its window before and after the capture.
async fn capture(page: &TabPage) -> Option<Capture> {
    let tab = page.tab(page.tab_id()).await.ok()?;
    if !tab.active {
        tracing::debug!(tab = tab.id, "not the active tab: text not checked against the screen");
        return None;
    }
    let mut value = paced_capture(tab.window_id).await;
    for _ in 1..CAPTURE_ATTEMPTS {
        let Err(e) = &value else { break };
        let why = super::js(e.clone());
        tracing::debug!(quota = why.contains(QUOTA), error = %why, "a capture failed; again");
        // A backoff before trying again: a refused capture has no event to wait for.
        sleep(if why.contains(QUOTA) { 600 } else { 150 }).await;
        value = paced_capture(tab.window_id).await;
    }
    let value = match value {
        Ok(value) => value,
        Err(e) => {
            tracing::info!(error = %super::js(e), "the tab could not be captured");
            return None;
        }
    };
    let still = page.tab(page.tab_id()).await.ok()?;
    if !still.active || still.window_id != tab.window_id {
        return None;
    }
    let get = |key: &str| js_sys::Reflect::get(&value, &JsValue::from_str(key)).ok();
    let number = |key: &str| get(key).and_then(|v| v.as_f64()).map(|n| n as u32);
    let rgba = get("rgba")?.dyn_into::<js_sys::Uint8ClampedArray>().ok()?.to_vec();
    Some(Capture { width: number("width")?, height: number("height")?, rgba })
}
