//! The bridge in the host process Chrome started: a Unix socket that external agents'
//! `waymark-host mcp` processes connect to, whose calls become `bridge.call` events for the
//! worker and whose answers come back as `bridge.answer` requests.
//!
//! The host decides nothing about a call: it checks who connects (same user, the secret) and
//! carries calls and answers. Every call is answered by the worker, which runs the safety
//! policy and asks the user.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};
use waymark_protocol::{
    BridgeCall, BridgeClosed, BridgeFailure, BridgeFailureKind, BridgeProgress, BridgeResult,
    ErrorCode, EventFrame, HostEvent, MAX_BRIDGE_TEXT, ReplyFrame,
};

use super::endpoint::{self, Accepted, Listener, ReadHalf, WriteHalf};
use super::registry::{self, BridgeError, Registration, Secret};
use super::wire::{
    CloseReason, FromHost, Line, MAX_TO_HOST_LINE, Rejection, ToHost, read_line, write_msg,
};
use crate::config::Env;
use crate::host::Outbox;

/// The bridge of one host process: at most one open at a time (a second `bridge.open` ends
/// the first).
#[derive(Clone, Default)]
pub struct Bridge {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    next: AtomicU64,
    /// Calls waiting for the worker's answer, by call id.
    pending: Mutex<HashMap<u64, Pending>>,
    /// Connected clients: id → how to end them.
    clients: Mutex<HashMap<u64, watch::Sender<Option<CloseReason>>>>,
    /// The open bridge: how to close it.
    open: Mutex<Option<watch::Sender<Option<CloseReason>>>>,
    /// Where the last bridge registered, and its label (for the switched-off marker).
    last: Mutex<Option<(std::path::PathBuf, String)>>,
    /// The marker saying the user switched external agents off, while they are.
    off: Mutex<Option<Registered>>,
}

/// One call waiting for the worker's answer.
struct Pending {
    /// The client that asked.
    client: u64,
    /// Where the answer goes.
    answer: oneshot::Sender<BridgeResult>,
    /// Where its progress goes.
    progress: mpsc::UnboundedSender<BridgeProgress>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes the socket and its description when the bridge ends, however it ends (the
/// dispatcher's tasks are aborted when the browser closes the port); also the switched-off
/// marker (then `socket` is empty).
struct Registered {
    socket: std::path::PathBuf,
    info: std::path::PathBuf,
}

impl Drop for Registered {
    fn drop(&mut self) {
        for path in [&self.socket, &self.info].into_iter().filter(|p| !p.as_os_str().is_empty()) {
            if let Err(e) = std::fs::remove_file(path)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!(path = %path.display(), error = %e, "bridge file not removed");
            }
        }
    }
}

impl Bridge {
    /// Opens the bridge for request `id`: binds the socket and returns the task that serves it
    /// until `bridge.close` (it then replies to `id`). Fails when the socket cannot be made.
    pub fn open(
        &self,
        id: u64,
        label: &str,
        outbox: Outbox,
        env: &dyn Env,
    ) -> Result<impl std::future::Future<Output = ()> + Send + 'static, BridgeError> {
        let dir = registry::runtime_dir(env)?;
        registry::private_dir(&dir)?;
        let secret = registry::load_or_create_secret(&dir)?;
        // Switched on again: the marker goes.
        drop(lock(&self.inner.off).take());
        let pid = std::process::id();
        let seq = self.next_id();
        let (socket, info) = registry::paths_for(&dir, pid, seq);
        let label = if label.trim().is_empty() { registry::default_label() } else { label.into() };
        let pipe = endpoint::pipe_name(pid, seq);
        let reg = Registration { pid, label: label.clone(), pipe, socket: socket.clone() };
        let listener = Listener::bind(&reg)?;
        let guard = Registered { socket, info: info.clone() };
        let text = serde_json::to_string(&reg).map_err(|e| BridgeError::Protocol(e.to_string()))?;
        write_private(&info, &text)?;
        *lock(&self.inner.last) = Some((dir, label.clone()));
        let (close_tx, close_rx) = watch::channel(None);
        if let Some(old) = lock(&self.inner.open).replace(close_tx) {
            // A second open (a worker restarted on the same port): the first one ends.
            old.send_replace(Some(CloseReason::SwitchedOff));
        }
        tracing::info!(%label, "bridge open for external agents");
        let bridge = self.clone();
        Ok(async move {
            let events = Events { outbox: outbox.clone(), id };
            let reason = bridge.accept(listener, secret, label, events, close_rx).await;
            drop(guard);
            outbox.reply(ReplyFrame::ok(id, BridgeClosed { reason }));
        })
    }

    /// Closes the open bridge (`bridge.close`: the user switched external agents off): every
    /// client is told, the socket goes, and a marker says so to the clients that come later
    /// (until the bridge opens again or this process ends).
    pub fn close(&self) -> bool {
        if let Some((dir, label)) = lock(&self.inner.last).clone() {
            let path = registry::off_path(&dir, std::process::id());
            let reg = Registration {
                pid: std::process::id(),
                label,
                pipe: None,
                socket: std::path::PathBuf::new(),
            };
            match serde_json::to_string(&reg) {
                Ok(text) => match write_private(&path, &text) {
                    Ok(()) => {
                        let marker = Registered { socket: std::path::PathBuf::new(), info: path };
                        *lock(&self.inner.off) = Some(marker);
                    }
                    Err(e) => tracing::warn!(error = %e, "the switched-off marker was not written"),
                },
                Err(e) => tracing::warn!(error = %e, "the switched-off marker was not made"),
            }
        }
        match lock(&self.inner.open).take() {
            Some(tx) => {
                tx.send_replace(Some(CloseReason::SwitchedOff));
                true
            }
            None => false,
        }
    }

    /// Delivers the worker's answer to call `call`; `false` when no one waits for it.
    pub fn answer(&self, call: u64, result: BridgeResult) -> bool {
        match lock(&self.inner.pending).remove(&call) {
            Some(pending) => pending.answer.send(result).is_ok(),
            None => false,
        }
    }

    /// Passes the worker's progress of call `call` on to its client; `false` when no one
    /// waits for it.
    pub fn progress(&self, progress: BridgeProgress) -> bool {
        match lock(&self.inner.pending).get(&progress.call) {
            Some(pending) => pending.progress.send(progress).is_ok(),
            None => false,
        }
    }

    /// Ends client `client`'s connection (`bridge.disconnect`); `false` when it is gone.
    pub fn disconnect(&self, client: u64) -> bool {
        match lock(&self.inner.clients).get(&client) {
            Some(tx) => {
                tx.send_replace(Some(CloseReason::Disconnected));
                true
            }
            None => false,
        }
    }

    fn next_id(&self) -> u64 {
        self.inner.next.fetch_add(1, Ordering::Relaxed) + 1
    }

    async fn accept(
        &self,
        mut listener: Listener,
        secret: Secret,
        label: String,
        outbox: Events,
        mut close: watch::Receiver<Option<CloseReason>>,
    ) -> String {
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(client) => {
                        let bridge = self.clone();
                        let (secret, label, outbox) = (secret.clone(), label.clone(), outbox.clone());
                        let close = close.clone();
                        tokio::spawn(async move {
                            bridge.serve_client(client, secret, label, outbox, close).await;
                        });
                    }
                    Err(e) => tracing::warn!(error = %e, "bridge accept failed"),
                },
                changed = close.changed() => {
                    if changed.is_err() || close.borrow().is_some() {
                        return "the bridge was closed".into();
                    }
                }
            }
        }
    }

    async fn serve_client(
        &self,
        client: Accepted,
        secret: Secret,
        label: String,
        outbox: Events,
        mut closing: watch::Receiver<Option<CloseReason>>,
    ) {
        let Accepted { read, mut write, same_user } = client;
        let mut read = BufReader::new(read);
        let hello = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            read_line(&mut read, MAX_TO_HOST_LINE),
        )
        .await;
        let parsed = match hello {
            Ok(Ok(Line::Text(t))) => serde_json::from_str::<ToHost>(&t).ok(),
            _ => None,
        };
        let (name, probe) = match parsed {
            _ if !same_user => return reject(&mut write, Rejection::NotOwner).await,
            Some(ToHost::Hello { secret: sent, client, probe }) => {
                if !secret.matches(&Secret::from_sent(sent)) {
                    tracing::warn!("bridge client with a wrong secret refused");
                    return reject(&mut write, Rejection::SecretMismatch).await;
                }
                (client.chars().take(80).collect::<String>(), probe)
            }
            _ => return reject(&mut write, Rejection::BadHello).await,
        };
        if write_msg(&mut write, &FromHost::Welcome { browser: label }).await.is_err() {
            return;
        }
        let client = self.next_id();
        let (tx, mut mine) = watch::channel(None);
        lock(&self.inner.clients).insert(client, tx);
        let name = if name.trim().is_empty() { "An external agent".to_owned() } else { name };
        if !probe {
            outbox.send(HostEvent::BridgeClient { client, name: name.clone(), connected: true });
        }
        let ended = loop {
            let line = tokio::select! {
                line = read_line(&mut read, MAX_TO_HOST_LINE) => line,
                _ = mine.changed() => break *mine.borrow(),
                _ = closing.changed() => break *closing.borrow(),
            };
            let text = match line {
                Ok(Line::Text(t)) => t,
                Ok(Line::TooLong) => {
                    let msg = format!("a line above {MAX_TO_HOST_LINE} bytes was skipped");
                    if write_msg(&mut write, &FromHost::Invalid { id: 0, message: msg })
                        .await
                        .is_err()
                    {
                        break None;
                    }
                    continue;
                }
                Ok(Line::Eof) | Err(_) => break None,
            };
            let (id, request) = match serde_json::from_str::<ToHost>(&text) {
                Ok(ToHost::Call { id, request }) => (id, request),
                Ok(ToHost::Hello { .. }) | Err(_) => {
                    let message = "expected a call".to_owned();
                    if write_msg(&mut write, &FromHost::Invalid { id: 0, message }).await.is_err() {
                        break None;
                    }
                    continue;
                }
            };
            let result = if probe && request != BridgeCall::Ping {
                failure(BridgeFailureKind::BadArguments, "a probe may only ping")
            } else if request.longest_text() > MAX_BRIDGE_TEXT {
                failure(
                    BridgeFailureKind::BadArguments,
                    format!("a text above {MAX_BRIDGE_TEXT} bytes is not sent to the browser"),
                )
            } else {
                let asked = Asked { client, id, request };
                let conn = Conn { read: &mut read, write: &mut write };
                match self.ask_worker(asked, &outbox, &mut mine, &mut closing, conn).await {
                    Ok(result) => result,
                    Err(reason) => break reason,
                }
            };
            if write_msg(&mut write, &FromHost::Result { id, result }).await.is_err() {
                break None;
            }
        };
        if let Some(reason) = ended
            && let Err(e) = write_msg(&mut write, &FromHost::Closed { reason }).await
        {
            tracing::debug!(error = %e, "the client went before being told the bridge closed");
        }
        lock(&self.inner.clients).remove(&client);
        lock(&self.inner.pending).retain(|_, p| p.client != client);
        if !probe {
            outbox.send(HostEvent::BridgeClient { client, name, connected: false });
        }
    }

    /// Sends one call to the worker and waits for its answer (passing its progress on to the
    /// client), or for the connection's end (`Err` with why; `Err(None)`: the client went, and
    /// the worker hears it at once, so a task it asked for stops).
    async fn ask_worker(
        &self,
        asked: Asked,
        outbox: &Events,
        mine: &mut watch::Receiver<Option<CloseReason>>,
        closing: &mut watch::Receiver<Option<CloseReason>>,
        conn: Conn<'_>,
    ) -> Result<BridgeResult, Option<CloseReason>> {
        let Asked { client, id, request } = asked;
        let Conn { read, write } = conn;
        let call = self.next_id();
        let (tx, mut rx) = oneshot::channel();
        let (progress, mut progressed) = mpsc::unbounded_channel();
        lock(&self.inner.pending).insert(call, Pending { client, answer: tx, progress });
        tracing::debug!(call, client, tool = request.name(), "bridge call");
        outbox.send(HostEvent::BridgeCall { call, client, request });
        // A client sends one call at a time; a line ahead of its turn waits for this answer.
        let mut watching = true;
        loop {
            tokio::select! {
                answer = &mut rx => return Ok(answer.unwrap_or_else(|_| failure(
                    BridgeFailureKind::PageFailed,
                    "the browser did not answer (its extension restarted?); read the page to \
                     see whether it was done",
                ))),
                Some(p) = progressed.recv() => {
                    let line = FromHost::Progress {
                        id,
                        step: p.step,
                        message: p.message,
                        awaiting_user: p.awaiting_user,
                    };
                    if write_msg(write, &line).await.is_err() {
                        lock(&self.inner.pending).remove(&call);
                        return Err(None);
                    }
                }
                ended = async { read.fill_buf().await.map(|b| b.is_empty()) }, if watching => {
                    match ended {
                        Ok(false) => watching = false,
                        Ok(true) | Err(_) => {
                            lock(&self.inner.pending).remove(&call);
                            return Err(None);
                        }
                    }
                }
                _ = mine.changed() => return Err(*mine.borrow()),
                _ = closing.changed() => return Err(*closing.borrow()),
            }
        }
    }
}

/// A client's connection, while one of its calls is out.
struct Conn<'a> {
    /// What it sends (watched for its end).
    read: &'a mut BufReader<ReadHalf>,
    /// What goes to it.
    write: &'a mut WriteHalf,
}

/// One call a client sent.
struct Asked {
    /// The client.
    client: u64,
    /// The client's id for the call.
    id: u64,
    /// What it asks.
    request: BridgeCall,
}

/// Where the bridge's events go: the `bridge.open` request they belong to.
#[derive(Clone)]
struct Events {
    outbox: Outbox,
    id: u64,
}

impl Events {
    fn send(&self, event: HostEvent) {
        if !self.outbox.event(EventFrame::new(self.id, event)) {
            tracing::debug!("bridge event not sent: the browser is gone");
        }
    }
}

fn failure(kind: BridgeFailureKind, message: impl Into<String>) -> BridgeResult {
    BridgeResult::Failed(BridgeFailure::new(kind, message))
}

async fn reject(write: &mut WriteHalf, reason: Rejection) {
    if let Err(e) = write_msg(write, &FromHost::Rejected { reason }).await {
        tracing::debug!(error = %e, "a refused client went first");
    }
}

fn write_private(path: &std::path::Path, text: &str) -> Result<(), BridgeError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| BridgeError::Io { what: format!("writing {}", path.display()), source: e })
}

/// The error reply of a `bridge.open` that could not start.
pub fn open_failed(id: u64, e: &BridgeError) -> ReplyFrame<()> {
    ReplyFrame::err(id, ErrorCode::BridgeFailed, e.to_string())
}
