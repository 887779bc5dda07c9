//! The LLM as the panel sees it: the host's model with its call events, for the core's
//! [`Meter`](waymark_core::app::Meter) (which decides what a call's usage, retries and streamed
//! words change), and the session's stored usage loaded as the session changes.

use super::{Worker, chrome};
use crate::host_port::HostClient;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use waymark_core::app::{MeterLink, StreamingLlm};
use waymark_core::platform::Env;
use waymark_protocol::{ErrorBody, HostEvent, LlmCompletion, LlmRequest};

/// The host's model.
pub(super) struct HostLlm(pub Rc<HostClient>);

impl StreamingLlm for HostLlm {
    async fn complete_streaming(
        &self,
        request: LlmRequest,
        on_event: Rc<dyn Fn(HostEvent)>,
    ) -> Result<LlmCompletion, ErrorBody> {
        self.0.complete_with_events(request, on_event).await
    }
}

/// What a metered call reaches: this worker.
#[derive(Clone)]
pub(super) struct WorkerMeter(pub Rc<Worker>);

impl MeterLink for WorkerMeter {
    type Store = super::storage::ChromeStore;

    fn app(&self) -> &waymark_core::app::App<Self::Store> {
        &self.0.app
    }

    fn now_ms(&self) -> f64 {
        super::env::BrowserEnv.now_ms()
    }

    fn show(&self) {
        self.0.broadcast();
    }

    fn after(&self, ms: u32, then: Box<dyn FnOnce()>) {
        spawn_local(async move {
            chrome::sleep(ms).await;
            then();
        });
    }
}

/// Keeps the session's usage with the current session: when it changed, loads the new one's.
pub(super) fn follow_session(w: &Rc<Worker>) {
    let Some(id) = w.app.follow_usage() else { return };
    let w = w.clone();
    spawn_local(async move {
        if w.app.load_usage(&id).await {
            w.broadcast();
        }
    });
}
