//! Sending an LLM call again when the native host process went away mid-call.
//!
//! Chrome starts one host process per native port; it can crash, be killed, or be replaced by
//! an update while a call is in flight. The worker then gets `host_unavailable` for that call.
//! Nothing reached the page during the lost call, so sending it again repeats no side effect;
//! the host itself retries the endpoint's own failures (429, 5xx, timeouts).

use waymark_protocol::{ErrorBody, ErrorCode};

/// How often a call is sent again after the host went away: once is the common case, a second
/// covers a crash on the retried call; more would hide a host that dies on every request.
pub const MAX_HOST_RECONNECTS: u32 = 2;

/// The host connection as the retry needs it (the service worker's native port, or a fake).
#[allow(async_fn_in_trait, reason = "single-threaded: wasm and the native tests need no Send")]
pub trait Reconnect {
    /// Starts a new host process and checks it answers; `false` when none can be started
    /// (not installed, misconfigured): retrying is then pointless.
    async fn reconnect(&self) -> bool;
    /// Tells the user that a call is being sent again, and why.
    fn note(&self, text: String);
}

/// Runs `call` and, while it fails because the host went away, reconnects and runs it again
/// (at most [`MAX_HOST_RECONNECTS`] times). Any other error is returned as it is. `what` names
/// the call for the user ("a model call", "reading “cv”").
pub async fn with_reconnect<T, H, F, Fut>(host: &H, what: &str, mut call: F) -> Result<T, ErrorBody>
where
    H: Reconnect,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, ErrorBody>>,
{
    let mut reconnects = 0;
    loop {
        match call().await {
            Err(e) if e.code == ErrorCode::HostUnavailable && reconnects < MAX_HOST_RECONNECTS => {
                reconnects += 1;
                if !host.reconnect().await {
                    return Err(e);
                }
                host.note(format!(
                    "The Waymark host stopped during {what} ({}); a new host process was \
                     started and the request is sent again (retry {reconnects} of \
                     {MAX_HOST_RECONNECTS}).",
                    e.message
                ));
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use std::cell::{Cell, RefCell};

    struct FakeHost {
        starts: bool,
        reconnects: Cell<u32>,
        notes: RefCell<Vec<String>>,
    }

    impl FakeHost {
        fn new(starts: bool) -> Self {
            Self { starts, reconnects: Cell::new(0), notes: RefCell::default() }
        }
    }

    impl Reconnect for FakeHost {
        async fn reconnect(&self) -> bool {
            self.reconnects.set(self.reconnects.get() + 1);
            self.starts
        }
        fn note(&self, text: String) {
            self.notes.borrow_mut().push(text);
        }
    }

    fn err(code: ErrorCode) -> ErrorBody {
        ErrorBody::new(code, "Native host has exited.")
    }

    /// A call that fails with `failures` in order, then succeeds.
    fn run(host: &FakeHost, failures: &[ErrorCode]) -> (Result<u32, ErrorBody>, u32) {
        let calls = Cell::new(0u32);
        let result = block_on(with_reconnect(host, "a model call", || {
            let n = calls.get();
            calls.set(n + 1);
            let outcome = failures.get(n as usize).map_or(Ok(n), |c| Err(err(*c)));
            async move { outcome }
        }));
        (result, calls.get())
    }

    #[test]
    fn a_lost_call_is_sent_again_on_a_new_host_and_the_user_is_told() {
        let host = FakeHost::new(true);
        let (result, calls) = run(&host, &[ErrorCode::HostUnavailable]);
        assert_eq!((result, calls), (Ok(1), 2));
        assert_eq!(host.reconnects.get(), 1);
        let notes = host.notes.borrow();
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("The Waymark host stopped during a model call"),
            "{}",
            notes[0]
        );
        assert!(notes[0].contains("Native host has exited.") && notes[0].contains("retry 1 of 2"));
    }

    #[test]
    fn a_host_that_dies_on_every_call_is_given_up_after_the_limit() {
        let host = FakeHost::new(true);
        let (result, calls) = run(&host, &[ErrorCode::HostUnavailable; 5]);
        assert_eq!(result.map_err(|e| e.code), Err(ErrorCode::HostUnavailable));
        assert_eq!(calls, 1 + MAX_HOST_RECONNECTS);
    }

    #[test]
    fn a_host_that_cannot_start_and_other_errors_are_not_retried() {
        let host = FakeHost::new(false);
        let (result, calls) = run(&host, &[ErrorCode::HostUnavailable]);
        assert_eq!((result.map_err(|e| e.code), calls), (Err(ErrorCode::HostUnavailable), 1));
        assert!(host.notes.borrow().is_empty());

        let host = FakeHost::new(true);
        for code in [ErrorCode::LlmRateLimited, ErrorCode::LlmHttp, ErrorCode::Cancelled] {
            let (result, calls) = run(&host, &[code]);
            assert_eq!((result.map_err(|e| e.code), calls), (Err(code), 1), "{code}");
        }
        assert_eq!(host.reconnects.get(), 0);
    }
}
