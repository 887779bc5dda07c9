//! Raw Chrome DevTools Protocol over a pair of pipes (`--remote-debugging-pipe`).
//!
//! Why: the browser reads NUL-terminated JSON commands from its fd 3 and writes NUL-terminated
//! JSON replies and events to its fd 4. That is all a test harness needs: one writer, one reader
//! thread that routes replies to callers by `id` (with the `sessionId` of flattened target
//! sessions carried along) and buffers events, and serde_json. No WebSocket, no port, no client
//! library to keep in step with the browser.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use serde_json::{Value, json};

/// Default bound for one CDP call: generous, since a 2-core machine running two browsers can
/// stall for seconds; it is a failure bound, never a timing assertion.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Events kept before the oldest are dropped (console-heavy pages must not grow memory forever).
const MAX_BUFFERED_EVENTS: usize = 20_000;

/// One CDP event (a message without `id`).
///
/// Why: tests wait for events (page loads, console messages, targets appearing) and inspect them.
#[derive(Debug, Clone)]
pub struct CdpEvent {
    /// Event name, e.g. `Page.loadEventFired`.
    pub method: String,
    /// Event parameters.
    pub params: Value,
    /// Flattened session the event belongs to; `None` for browser-level events.
    pub session_id: Option<String>,
}

/// Produces extra context (e.g. the tail of the browser's log) appended to transport errors.
pub type ErrorContext = Arc<dyn Fn() -> String + Send + Sync>;

/// A CDP connection; cheap to clone (all clones share the pipe).
///
/// Why: pages, workers and the browser object all issue commands on the same pipe, each with
/// their own session id.
#[derive(Clone)]
pub struct Cdp {
    inner: Arc<Inner>,
}

struct Inner {
    writer: Mutex<Box<dyn Write + Send>>,
    next_id: AtomicU64,
    state: Mutex<State>,
    changed: Condvar,
    context: Option<ErrorContext>,
}

#[derive(Default)]
struct State {
    waiting: HashSet<u64>,
    replies: HashMap<u64, Value>,
    events: VecDeque<CdpEvent>,
    closed: Option<String>,
}

impl Cdp {
    /// Wraps a pipe pair: `reader` is the browser's fd 4 (replies and events), `writer` its fd 3.
    /// Spawns the reader thread, which ends when the browser closes its end.
    pub fn new(
        reader: impl Read + Send + 'static,
        writer: impl Write + Send + 'static,
        context: Option<ErrorContext>,
    ) -> Result<Cdp> {
        let inner = Arc::new(Inner {
            writer: Mutex::new(Box::new(writer)),
            next_id: AtomicU64::new(1),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            context,
        });
        let reader_inner = inner.clone();
        std::thread::Builder::new()
            .name("cdp-reader".to_owned())
            .spawn(move || read_loop(reader, &reader_inner))
            .map_err(|e| anyhow!("spawn CDP reader thread: {e}"))?;
        Ok(Cdp { inner })
    }

    /// Sends a browser-level command and waits (up to [`DEFAULT_CALL_TIMEOUT`]) for its result.
    pub fn call(&self, method: &str, params: Value) -> Result<Value> {
        self.call_in(None, method, params, DEFAULT_CALL_TIMEOUT)
    }

    /// Sends a command, in the flattened session `session_id` if given, and waits up to `timeout`
    /// for its `result`. A CDP error reply becomes an error quoting its code, message and data.
    pub fn call_in(
        &self,
        session_id: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session_id {
            msg["sessionId"] = Value::String(s.to_owned());
        }
        let mut bytes = serde_json::to_vec(&msg)?;
        bytes.push(0);
        {
            let mut st = self.lock();
            if let Some(reason) = &st.closed {
                let reason = reason.clone();
                drop(st);
                bail!("CDP {method}: {reason}{}", self.context());
            }
            st.waiting.insert(id);
        }
        let write = {
            let mut w = self.inner.writer.lock().unwrap_or_else(PoisonError::into_inner);
            w.write_all(&bytes).and_then(|()| w.flush())
        };
        if let Err(e) = write {
            self.lock().waiting.remove(&id);
            bail!("CDP {method}: cannot write to the browser pipe: {e}{}", self.context());
        }
        let deadline = Instant::now() + timeout;
        let mut st = self.lock();
        loop {
            if let Some(reply) = st.replies.remove(&id) {
                st.waiting.remove(&id);
                drop(st);
                return match reply.get("error") {
                    Some(err) => Err(anyhow!(
                        "CDP {method} failed: {} (code {}){}{}",
                        err.get("message").and_then(Value::as_str).unwrap_or("?"),
                        err.get("code").map(Value::to_string).unwrap_or_default(),
                        err.get("data")
                            .and_then(Value::as_str)
                            .map(|d| format!(": {d}"))
                            .unwrap_or_default(),
                        session_id.map(|s| format!(" [session {s}]")).unwrap_or_default(),
                    )),
                    None => Ok(reply.get("result").cloned().unwrap_or(Value::Null)),
                };
            }
            if let Some(reason) = &st.closed {
                let reason = reason.clone();
                st.waiting.remove(&id);
                drop(st);
                bail!("CDP {method}: {reason}{}", self.context());
            }
            let now = Instant::now();
            if now >= deadline {
                st.waiting.remove(&id);
                drop(st);
                bail!("CDP {method} timed out after {timeout:?} (no reply){}", self.context());
            }
            st = self
                .inner
                .changed
                .wait_timeout(st, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Removes and returns the first buffered event matching `pred`, waiting up to `timeout` for
    /// one to arrive.
    pub fn wait_event(
        &self,
        timeout: Duration,
        pred: impl Fn(&CdpEvent) -> bool,
    ) -> Result<CdpEvent> {
        let deadline = Instant::now() + timeout;
        let mut st = self.lock();
        loop {
            if let Some(pos) = st.events.iter().position(&pred)
                && let Some(ev) = st.events.remove(pos)
            {
                return Ok(ev);
            }
            if let Some(reason) = &st.closed {
                let reason = reason.clone();
                drop(st);
                bail!("waiting for a CDP event: {reason}{}", self.context());
            }
            let now = Instant::now();
            if now >= deadline {
                bail!("no matching CDP event within {timeout:?}");
            }
            st = self
                .inner
                .changed
                .wait_timeout(st, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Copies of the buffered events matching `pred`, oldest first (the buffer is unchanged).
    pub fn events(&self, pred: impl Fn(&CdpEvent) -> bool) -> Vec<CdpEvent> {
        self.lock().events.iter().filter(|e| pred(e)).cloned().collect()
    }

    /// Removes and returns the buffered events matching `pred`, oldest first.
    pub fn drain_events(&self, pred: impl Fn(&CdpEvent) -> bool) -> Vec<CdpEvent> {
        let mut st = self.lock();
        let (taken, kept): (VecDeque<_>, VecDeque<_>) =
            std::mem::take(&mut st.events).into_iter().partition(&pred);
        st.events = kept;
        taken.into()
    }

    /// Why the connection closed, if it has (browser exited or crashed).
    pub fn closed_reason(&self) -> Option<String> {
        self.lock().closed.clone()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn context(&self) -> String {
        self.inner
            .context
            .as_ref()
            .map(|f| f())
            .filter(|s| !s.is_empty())
            .map(|s| format!("\n{s}"))
            .unwrap_or_default()
    }
}

fn read_loop(reader: impl Read, inner: &Inner) {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let mut buf = Vec::new();
    let reason = loop {
        buf.clear();
        match reader.read_until(0, &mut buf) {
            Ok(0) => break "the browser closed the CDP pipe (exited or crashed)".to_owned(),
            Ok(_) => {}
            Err(e) => break format!("reading the CDP pipe failed: {e}"),
        }
        if buf.last() == Some(&0) {
            buf.pop();
        }
        let msg: Value = match serde_json::from_slice(&buf) {
            Ok(v) => v,
            Err(e) => {
                eprintln!(
                    "cdp: unparsable message ({e}): {}",
                    String::from_utf8_lossy(&buf[..buf.len().min(200)])
                );
                continue;
            }
        };
        let mut st = inner.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(id) = msg.get("id").and_then(Value::as_u64) {
            // Replies to calls that already timed out are dropped.
            if st.waiting.contains(&id) {
                st.replies.insert(id, msg);
            }
        } else if let Some(method) = msg.get("method").and_then(Value::as_str) {
            let event = CdpEvent {
                method: method.to_owned(),
                session_id: msg.get("sessionId").and_then(Value::as_str).map(str::to_owned),
                params: msg.get("params").cloned().unwrap_or(Value::Null),
            };
            if st.events.len() >= MAX_BUFFERED_EVENTS {
                st.events.pop_front();
            }
            st.events.push_back(event);
        }
        drop(st);
        inner.changed.notify_all();
    };
    let mut st = inner.state.lock().unwrap_or_else(PoisonError::into_inner);
    st.closed = Some(reason);
    drop(st);
    inner.changed.notify_all();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A writer that discards everything (the fake "browser" never answers).
    struct Sink;
    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn events_are_buffered_and_close_is_reported() {
        let input = b"{\"method\":\"A.b\",\"params\":{\"x\":1}}\0{\"method\":\"C.d\",\"sessionId\":\"S\",\"params\":{}}\0".to_vec();
        let cdp = Cdp::new(Cursor::new(input), Sink, None).expect("cdp");
        let ev = cdp.wait_event(Duration::from_secs(5), |e| e.method == "C.d").expect("event");
        assert_eq!(ev.session_id.as_deref(), Some("S"));
        assert_eq!(cdp.events(|e| e.method == "A.b").len(), 1);
        // The cursor is exhausted, so the connection reports closed and calls fail fast.
        let start = Instant::now();
        let err = loop {
            match cdp.call_in(None, "X.y", json!({}), Duration::from_secs(5)) {
                Err(e) if cdp.closed_reason().is_some() => break e,
                _ if start.elapsed() > Duration::from_secs(5) => panic!("never closed"),
                _ => std::thread::sleep(Duration::from_millis(10)),
            }
        };
        assert!(err.to_string().contains("closed"), "{err}");
    }
}
