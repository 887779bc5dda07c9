//! Reaching a frame's content script with one `executeScript` per request.
//!
//! Why: injecting `content.js` before every request cost a second `chrome.scripting`
//! round trip on every observe and every action (most of the agent's step overhead, see
//! BENCHMARKS.md). The request now goes straight to the installed script; only frames that
//! answer that they have none (a new document, a new frame) get `content.js` injected, and
//! the request is sent to those frames again.

use super::chrome;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Whether a frame's reply says it has no content script yet.
fn absent(reply: &JsValue) -> bool {
    let result = js_sys::Reflect::get(reply, &"result".into()).unwrap_or(JsValue::UNDEFINED);
    result.is_object()
        && js_sys::Reflect::get(&result, &"absent".into()).is_ok_and(|a| a.is_truthy())
}

fn frame_id(reply: &JsValue) -> Option<u32> {
    js_sys::Reflect::get(reply, &"frameId".into()).ok()?.as_f64().map(|f| f as u32)
}

/// A `chrome.scripting` injection target: the frames `frames`, or all of the tab's.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Target<'a> {
    tab_id: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    frame_ids: Option<&'a [u32]>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    all_frames: bool,
}

fn target(tab_id: i32, frames: Option<&[u32]>) -> Result<JsValue, JsValue> {
    let target = Target { tab_id, frame_ids: frames, all_frames: frames.is_none() };
    super::host_port::to_js(&target).map_err(super::js_error)
}

/// Sends `msg` to the frames (all of the tab's when `frames` is `None`), injecting the content
/// script where it is missing; resolves to `[{frameId, result}]` like `executeScript`.
async fn run(
    tab_id: i32,
    frames: Option<&[u32]>,
    msg: &JsValue,
    within: u32,
) -> Result<js_sys::Array, JsValue> {
    // The content scripts log at the worker's level.
    let log = waymark_page::js::console_level().to_string();
    let replies: js_sys::Array =
        JsFuture::from(chrome::call_content(&target(tab_id, frames)?, msg, &log, within))
            .await?
            .unchecked_into();
    let missing: Vec<u32> = replies.iter().filter(absent).filter_map(|r| frame_id(&r)).collect();
    if missing.is_empty() {
        return Ok(replies);
    }
    let only = target(tab_id, Some(&missing))?;
    JsFuture::from(chrome::inject_content(&only)).await?;
    let again: js_sys::Array =
        JsFuture::from(chrome::call_content(&only, msg, &log, within)).await?.unchecked_into();
    // Keep the first pass's answers and replace the frames that had no script.
    let merged: js_sys::Array = replies.iter().filter(|r| !absent(r)).collect();
    for reply in again.iter() {
        merged.push(&reply);
    }
    Ok(merged)
}

/// Every frame of the tab: resolves to `[{frameId, result}]` (frames that cannot be scripted
/// are left out).
pub(super) async fn run_in_frames(tab_id: i32, msg: &JsValue) -> Result<JsValue, JsValue> {
    run(tab_id, None, msg, 0).await.map(Into::into)
}

/// One frame (0 = top): resolves to its reply, or `undefined` (also when it has not answered
/// within `within` ms, unless that is 0).
pub(super) async fn run_in_frame(
    tab_id: i32,
    frame: u32,
    msg: &JsValue,
    within: u32,
) -> Result<JsValue, JsValue> {
    let replies = run(tab_id, Some(&[frame]), msg, within).await?;
    let first = replies.get(0);
    if first.is_undefined() {
        return Ok(JsValue::UNDEFINED);
    }
    js_sys::Reflect::get(&first, &"result".into())
}
