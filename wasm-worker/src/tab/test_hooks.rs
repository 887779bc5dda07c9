//! The end-to-end tests' and benchmarks' direct line to [`TabPage`]: `globalThis.
//! waymarkPageRequest(tabId, request)` in the service worker runs one page request through the
//! agent's own tab code, minus the model. Compiled only with the `test-hooks` feature, which
//! `cargo xtask test` and `cargo xtask bench …` turn on and shipped builds never do: a global
//! that performs page actions on any tab has no place in a user's browser, and `sw.js` neither
//! knows nor imports it.

use super::TabPage;
use crate::glue::ExportError;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use waymark_core::agent::Page;
use waymark_core::safety::NetworkPermit;
use waymark_page::action::{Action, ActionOutcome, ContentRequest};
use waymark_page::js::to_js;
use waymark_page::observation::Observation;

/// The global the tests call (`tests/tests/perception_support`, `describe.rs`,
/// `network_guard.rs`, `tests/examples/bench_dom.rs`).
const HOOK: &str = "waymarkPageRequest";

/// The global that forces a panic.
const PANIC_HOOK: &str = "waymarkForcePanic";

/// Requests of the hook.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum PageRequest {
    /// Observe all frames; reply with the observation and its prompt text.
    Observe {
        #[serde(default)]
        budget: Option<usize>,
    },
    /// Perform an action exactly as the agent loop does; with a `permit`, under its network
    /// rules (which go after the settle window).
    Act {
        action: Action,
        #[serde(default)]
        permit: Option<NetworkPermit>,
    },
    /// Send a raw request to one frame (e.g. `set_file`, whose bytes the host will supply).
    Content { frame: u32, request: ContentRequest },
}

#[derive(Serialize)]
struct ObserveReply {
    prompt: String,
    observation: Observation,
}

/// Sets `globalThis.waymarkPageRequest` (returns a promise of the reply) and
/// `globalThis.waymarkStartup` (the worker's start-up phases, ms since the worker's time
/// origin, read by `cargo xtask bench panel`). Called once the worker has started, so a test
/// that sees the hook knows the worker is ready.
pub(crate) fn register(wasm_ms: f64) {
    let global = js_sys::global();
    let hook = Closure::<dyn Fn(i32, JsValue) -> js_sys::Promise>::new(|tab, request| {
        wasm_bindgen_futures::future_to_promise(async move {
            page_request(tab, request).await.map_err(|e| waymark_page::js::named_error(&e))
        })
    });
    let startup = js_sys::Object::new();
    let set = |target: &JsValue, key: &str, value: &JsValue| {
        // Setting a property of a plain object or the global does not throw; a test that
        // misses the hook says so itself.
        if let Err(e) = js_sys::Reflect::set(target, &JsValue::from_str(key), value) {
            tracing::error!(error = %crate::js_message(&e), "test hook {key} not set");
        }
    };
    set(&startup, "wasm_ms", &JsValue::from_f64(wasm_ms));
    set(&startup, "started_ms", &JsValue::from_f64(worker_now()));
    set(&global, "waymarkStartup", &startup);
    set(&global, HOOK, hook.as_ref());
    // The hook lives as long as the worker.
    hook.forget();
    // `globalThis.waymarkForcePanic(where)`: a panic in this wasm, as a bug would cause one —
    // at once (`"now"`), or inside a spawned future as most of the worker's work runs
    // (`"task"`), for the crash-recovery tests (`tests/tests/panics.rs`).
    let panic = Closure::<dyn Fn(JsValue)>::new(|at: JsValue| {
        if at.as_string().as_deref() == Some("task") {
            wasm_bindgen_futures::spawn_local(async {
                crate::chrome::sleep(0).await;
                panic!("forced by a test inside a future (test-hooks)");
            });
        } else {
            panic!("forced by a test (test-hooks)");
        }
    });
    set(&global, PANIC_HOOK, panic.as_ref());
    panic.forget();
}

/// `performance.now()` of the worker: ms since its time origin (the worker's start).
pub(crate) fn worker_now() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or(0.0, |p| p.now())
}

/// Runs one page request on a tab through the same [`TabPage`] the agent uses: the tests
/// cover every action without scripting an LLM conversation per action. Its errors keep
/// their kind (the hook throws them as named JS errors).
async fn page_request(tab_id: i32, request: JsValue) -> Result<JsValue, ExportError> {
    let request: PageRequest = serde_wasm_bindgen::from_value(request)
        .map_err(|e| ExportError::BadRequest(format!("bad page request: {e}")))?;
    let page = TabPage::new(tab_id);
    let reply = match request {
        PageRequest::Observe { budget } => {
            let observation = page.observe_frames().await?;
            let prompt = observation.to_prompt_with_budget(
                "test",
                budget.unwrap_or(waymark_page::observation::DEFAULT_TOKEN_BUDGET),
            );
            to_js(&ObserveReply { prompt, observation })
        }
        PageRequest::Act { action, permit } => {
            let outcome = match permit {
                Some(permit) => page.act(&action, &permit).await,
                None => match page.all_tabs().await {
                    Ok(tabs) => page.act_inner(&action, tabs).await,
                    Err(e) => Err(e),
                },
            };
            let outcome = outcome.unwrap_or_else(|e| ActionOutcome::failed(e.to_string()));
            to_js(&serde_json::json!({ "outcome": outcome, "tab": page.tab_id() }))
        }
        PageRequest::Content { frame, request } => {
            let value: serde_json::Value = page.content(frame, &request).await?;
            to_js(&value)
        }
    };
    reply.map_err(|e| ExportError::EncodeFailed(e.to_string()))
}
