//! Reaching the content script of one frame, or of every frame of a tab.
//!
//! Each request goes on the document's port (`content_port`); a document with no script yet
//! (a new document, a new frame) gets `content.js` injected, and the request is sent to it
//! again — it was never read there (`frames::Answer`). Which frames an all-frames request goes
//! to comes from `chrome.webNavigation` (the browser's list: nothing runs in the page), less
//! the documents that could not be scripted.

use super::chrome;
use super::content_port;
use super::frames::{self, Next, Unreachable, WebFrame};
use std::cell::RefCell;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

thread_local! {
    /// Documents `content.js` could not be injected into (error pages, other extensions').
    static UNREACHABLE: RefCell<Unreachable> = RefCell::default();
}

/// Why a document could not be reached.
enum Unreached {
    /// `content.js` could not be injected (the document cannot be scripted, or has gone).
    Injection(JsValue),
    /// The tab could not be reached, or the script did not start after its injection.
    Other(JsValue),
}

impl From<Unreached> for JsValue {
    fn from(e: Unreached) -> Self {
        match e {
            Unreached::Injection(e) | Unreached::Other(e) => e,
        }
    }
}

/// A `chrome.scripting` injection target: one document of the tab.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Target<'a> {
    tab_id: i32,
    document_ids: [&'a str; 1],
}

/// Sends `msg` to `frame`'s document, injecting `content.js` there first if it has none:
/// its reply, or `None` when it went away or did not answer within `within` ms (0: no bound).
async fn reach(
    tab_id: i32,
    frame: &WebFrame,
    msg: &JsValue,
    within: u32,
) -> Result<Option<JsValue>, Unreached> {
    // The content scripts log at the worker's level.
    let log = waymark_page::js::console_level().to_string();
    let mut injected = false;
    loop {
        let answer =
            content_port::ask(tab_id, frame.frame_id, &frame.document_id, msg, &log, within)
                .await
                .map_err(Unreached::Other)?;
        match answer.next(injected) {
            Next::Reply | Next::NoAnswer => return Ok(answer.into_reply()),
            Next::NotStarted => {
                return Err(Unreached::Other(JsValue::from_str(
                    "the content script did not start in the frame",
                )));
            }
            Next::Inject => {
                let target = Target { tab_id, document_ids: [&frame.document_id] };
                let target = waymark_page::js::to_js(&target)
                    .map_err(|e| Unreached::Other(super::js_error(e)))?;
                JsFuture::from(chrome::inject_content(&target))
                    .await
                    .map_err(Unreached::Injection)?;
                injected = true;
            }
        }
    }
}

/// The document frame `frame` of the tab holds now.
async fn current(tab_id: i32, frame: u32) -> Result<WebFrame, JsValue> {
    let found = JsFuture::from(chrome::tab_frame(tab_id, frame)).await?;
    if found.is_null() || found.is_undefined() {
        return Err(JsValue::from_str(&format!("no frame {frame} in the tab")));
    }
    let found: WebFrame = serde_wasm_bindgen::from_value(found)
        .map_err(|e| JsValue::from_str(&format!("the frame: {e}")))?;
    Ok(WebFrame { frame_id: frame, ..found })
}

/// Whether `frame` holds another document than `document` now: it navigated between the
/// look-up and the request (a request bound to the old document fails), so trying once more
/// reaches the page the frame shows, as a request to the frame did before ports.
async fn moved_on(tab_id: i32, frame: u32, document: &str) -> bool {
    current(tab_id, frame).await.is_ok_and(|now| now.document_id != document)
}

/// Every frame of the tab: each reachable frame's id and reply (frames that cannot be
/// scripted, or that went away meanwhile, are left out). Fails when the tab is gone or its
/// top frame cannot be scripted.
pub(super) async fn run_in_frames(
    tab_id: i32,
    msg: &JsValue,
) -> Result<Vec<(u32, JsValue)>, JsValue> {
    let (top, first) = frames_once(tab_id, msg).await;
    match (first, top) {
        (Err(_), Some(top)) if moved_on(tab_id, 0, &top).await => frames_once(tab_id, msg).await.1,
        (result, _) => result,
    }
}

/// [`run_in_frames`] on the frames listed now; also gives the top frame's document as listed.
async fn frames_once(
    tab_id: i32,
    msg: &JsValue,
) -> (Option<String>, Result<Vec<(u32, JsValue)>, JsValue>) {
    let listed = match JsFuture::from(chrome::tab_frames(tab_id)).await {
        Ok(listed) => serde_wasm_bindgen::from_value::<Vec<WebFrame>>(listed)
            .map_err(|e| JsValue::from_str(&format!("the tab's frames: {e}"))),
        Err(e) => Err(e),
    };
    let targets = match listed {
        Ok(listed) => UNREACHABLE.with(|u| frames::targets(listed, &u.borrow())),
        Err(e) => return (None, Err(e)),
    };
    let top = targets.first().filter(|f| f.frame_id == 0).map(|f| f.document_id.clone());
    (top, ask_all(tab_id, targets, msg).await)
}

/// Asks every frame of `targets` at once.
async fn ask_all(
    tab_id: i32,
    targets: Vec<WebFrame>,
    msg: &JsValue,
) -> Result<Vec<(u32, JsValue)>, JsValue> {
    // Every frame is asked at once; each answers as soon as its walk is done.
    let asks = js_sys::Array::new();
    for frame in targets.iter().cloned() {
        let msg = msg.clone();
        asks.push(&wasm_bindgen_futures::future_to_promise(async move {
            let reply = reach(tab_id, &frame, &msg, 0).await;
            if let Err(Unreached::Injection(_)) = &reply
                && frame.frame_id != 0
            {
                UNREACHABLE.with(|u| u.borrow_mut().insert(&frame.document_id));
            }
            match reply {
                Ok(reply) => Ok(reply.unwrap_or(JsValue::UNDEFINED)),
                // A subframe that cannot be reached is left out; the top frame's failure is
                // the request's.
                Err(_) if frame.frame_id != 0 => Ok(JsValue::UNDEFINED),
                Err(e) => Err(e.into()),
            }
        }));
    }
    let replies = JsFuture::from(js_sys::Promise::all(&asks)).await?;
    let replies = js_sys::Array::from(&replies);
    Ok(targets
        .iter()
        .zip(replies.iter())
        .filter(|(_, reply)| !reply.is_undefined())
        .map(|(frame, reply)| (frame.frame_id, reply))
        .collect())
}

/// One frame (0 = top): resolves to its reply, or `undefined` when it went away or did not
/// answer within `within` ms (0: no bound). Fails when the frame does not exist or cannot be
/// scripted.
pub(super) async fn run_in_frame(
    tab_id: i32,
    frame: u32,
    msg: &JsValue,
    within: u32,
) -> Result<JsValue, JsValue> {
    let found = current(tab_id, frame).await?;
    let reply = match reach(tab_id, &found, msg, within).await {
        Err(_) if moved_on(tab_id, frame, &found.document_id).await => {
            reach(tab_id, &current(tab_id, frame).await?, msg, within).await
        }
        reply => reply,
    };
    Ok(reply?.unwrap_or(JsValue::UNDEFINED))
}
