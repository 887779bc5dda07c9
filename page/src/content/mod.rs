//! The content script: reads the page and performs actions, inside one frame of a tab.
//!
//! `extension/content.js` loads this crate (real wasm, or the wasm2js build when the page's CSP
//! blocks WebAssembly) in every frame of the tab and forwards each request from the service
//! worker to [`content_handle`]. Each frame keeps its own refs; the service worker merges the
//! frames' observations (`waymark_core::frames`) and addresses a ref's frame by id.

mod act;
mod affordance;
mod collect;
mod console;
mod controls;
mod describe;
mod dialogs;
mod dom;
mod drag;
mod editor;
mod events;
mod extract;
mod facts;
mod forms;
mod hidden;
mod history;
mod keys;
mod order;
mod page_world;
mod passage;
mod read;
mod readback;
mod record;
mod replaced;
mod roles;
mod screen;
mod scroll;
mod select;
mod settle;
mod slider;
mod thumb;
mod typing;
mod unforgeable;
mod usable;
mod wait;
mod widgets;

use crate::action::{ContentRequest, Measurement};
use crate::error::{ContentError, ContentErrorKind};
use crate::observation::Item;
use wasm_bindgen::prelude::*;

/// Handles one request from the service worker; `engine` says which build is running, `log`
/// the worker's console level (see `crate::log`). A request it cannot do throws a JS `Error`
/// whose `name` is the [`ContentErrorKind`]; `content.js` passes name and message on.
#[wasm_bindgen]
pub fn content_handle(
    msg: JsValue,
    engine: String,
    log: Option<String>,
) -> Result<JsValue, JsValue> {
    crate::js::init_console("waymark content script", crate::log::parse_level(log.as_deref()));
    handle(msg, engine).map_err(|e| crate::js::named_error(&e))
}

fn handle(msg: JsValue, engine: String) -> Result<JsValue, ContentError> {
    let request: ContentRequest = serde_wasm_bindgen::from_value(msg).map_err(|e| {
        ContentError::new(
            ContentErrorKind::BadRequest,
            format!("bad request to the content script: {e}"),
        )
    })?;
    match request {
        // The first observation of a document waits for what its loading started (once).
        ContentRequest::Observe if settle::load_pending() => {
            let observing = async move {
                settle::after_load().await;
                let observation = dom::observe(engine).map_err(|e| crate::js::named_error(&e))?;
                reply(&observation).map_err(|e| crate::js::named_error(&e))
            };
            Ok(wasm_bindgen_futures::future_to_promise(observing).into())
        }
        ContentRequest::Observe => reply(&dom::observe(engine)?),
        ContentRequest::Act { action, expect, expect_to, dialog } => {
            // Some actions take time in the page (a drag's moves a frame apart, an editor's
            // redraw): the reply is a promise, which `content.js` awaits.
            let acting = async move {
                if let Some(answer) = &dialog {
                    dialogs::arm(answer);
                }
                forms::acting();
                readback::forget();
                settle::start_action();
                let mut outcome =
                    act::perform(&action, expect.as_deref(), expect_to.as_deref()).await;
                settle::after_action();
                outcome.set_dialogs(dialogs::drain());
                reply(&outcome).map_err(|e| crate::js::named_error(&e))
            };
            Ok(wasm_bindgen_futures::future_to_promise(acting).into())
        }
        ContentRequest::GoBack => reply(&history::go_back()),
        ContentRequest::Settle { window: None } => reply(&settle::settled()),
        ContentRequest::Settle { window: Some(window) } => {
            let waiting = async move {
                reply(&settle::settle(window).await).map_err(|e| crate::js::named_error(&e))
            };
            Ok(wasm_bindgen_futures::future_to_promise(waiting).into())
        }
        ContentRequest::SetFile { ref_id, name, mime, base64 } => {
            forms::acting();
            // The read-back waits for the page's reaction: the reply is a promise.
            let setting = async move {
                reply(&act::set_file(ref_id, &name, &mime, &base64).await)
                    .map_err(|e| crate::js::named_error(&e))
            };
            Ok(wasm_bindgen_futures::future_to_promise(setting).into())
        }
        ContentRequest::Console => reply(&console::entries()),
        ContentRequest::Probe { text } => reply(&wait::probe(text.as_deref())),
        ContentRequest::WaitFor { text, gone, within_ms } => {
            let waiting = async move {
                reply(&wait::wait_for(&text, gone, within_ms).await)
                    .map_err(|e| crate::js::named_error(&e))
            };
            Ok(wasm_bindgen_futures::future_to_promise(waiting).into())
        }
        ContentRequest::WaitQuiet { quiet_ms, within_ms } => {
            let waiting = async move {
                reply(&wait::wait_quiet(quiet_ms, within_ms).await)
                    .map_err(|e| crate::js::named_error(&e))
            };
            Ok(wasm_bindgen_futures::future_to_promise(waiting).into())
        }
        ContentRequest::Measure { runs } => reply(&measure(runs, engine)?),
        ContentRequest::Describe { ref_id } => reply(&describe::describe(ref_id)?),
        ContentRequest::Record { on } => reply(&record::arm(on, engine)),
        ContentRequest::Forms => reply(&forms::snapshot()),
        #[cfg(feature = "test-hooks")]
        ContentRequest::Panic => Ok(wasm_bindgen_futures::future_to_promise(crash_later()).into()),
    }
}

/// Panics once the current task has yielded, as a bug inside an action would (test builds).
#[cfg(feature = "test-hooks")]
async fn crash_later() -> Result<JsValue, JsValue> {
    let tick = js_sys::Promise::resolve(&JsValue::NULL);
    wasm_bindgen_futures::JsFuture::from(tick).await?;
    panic!("forced by a test in the content script (test-hooks)");
}

/// A reply to the worker as one JSON string: the structured clone of one string costs the page
/// a fraction of an object graph's (an observation has hundreds of small objects, which were
/// most of a small page's cost per call), and the worker parses it with `serde_json` instead
/// of walking JS objects. The worker reads both forms.
fn reply<T: serde::Serialize>(value: &T) -> Result<JsValue, ContentError> {
    serde_json::to_string(value)
        .map(|json| JsValue::from_str(&json))
        .map_err(|e| ContentError::new(ContentErrorKind::EncodeFailed, e.to_string()))
}

/// Observes and serialises the whole frame `runs` times (benchmark).
fn measure(runs: u32, engine: String) -> Result<Measurement, ContentError> {
    let window = web_sys::window().ok_or_else(ContentError::no_document)?;
    let mut out = Measurement::default();
    for _ in 0..runs.max(1) {
        let started = dom::now(&window);
        let observation = dom::observe(engine.clone())?;
        let text = observation.to_prompt_with_budget("bench", usize::MAX);
        out.runs_ms.push(dom::now(&window) - started);
        out.visited = observation.visited;
        out.elements =
            observation.items.iter().filter(|i| matches!(i, Item::Element(_))).count() as u32;
        out.text = text;
    }
    Ok(out)
}
