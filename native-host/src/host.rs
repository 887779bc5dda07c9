//! The host loop: a reader thread on stdin, a tokio runtime that dispatches requests
//! concurrently, and one writer thread that owns stdout.
//!
//! Threads rather than tokio's stdio: stdin/stdout are long-lived blocking pipes, and a
//! dedicated thread each keeps the runtime's workers free for LLM calls (the same choice the
//! `native_messaging` crate makes). Frames from concurrent requests interleave on stdout, but
//! each request's events always precede its reply because one task sends both, in order.

use std::io::{Read, Write};
use std::sync::Arc;

use tokio::sync::mpsc;
use waymark_protocol::{EventFrame, HostFrame, ReplyFrame};

use crate::config::Config;
use crate::dispatch::Dispatcher;
use crate::framing::{EndReason, INBOUND_CAP, Inbound, encode_frame, read_inbound};

/// Buffered transcript lines are written at least this often, so a reader (`sessions`, MCP)
/// sees a live session without waiting for `flush_every` events.
const TRANSCRIPT_FLUSH_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);

/// Cheap, cloneable handle to the stdout writer.
#[derive(Clone, Debug)]
pub struct Outbox {
    tx: mpsc::UnboundedSender<Vec<u8>>,
}

impl Outbox {
    /// Queues a frame; returns `false` when stdout is gone (the browser closed the port).
    ///
    /// Unbounded so it can be called from synchronous code (retry notifications) and never
    /// blocks a request on a slow reader; frames are small and the browser drains them.
    pub fn send<T: serde::Serialize>(&self, frame: &HostFrame<T>) -> bool {
        self.tx.send(encode_frame(frame)).is_ok()
    }

    /// Queues the reply to a request (see [`Self::send`]).
    pub fn reply<T: serde::Serialize>(&self, frame: ReplyFrame<T>) -> bool {
        self.send(&HostFrame::Reply(frame))
    }

    /// Queues a stream event (see [`Self::send`]).
    pub fn event(&self, frame: EventFrame) -> bool {
        self.send(&HostFrame::<()>::Event(frame))
    }

    /// An outbox whose frames the test reads from the receiver.
    #[cfg(test)]
    pub(crate) fn for_test() -> (Self, mpsc::UnboundedReceiver<Vec<u8>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx }, rx)
    }
}

/// Settings the loop needs besides the config.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// Largest inbound frame accepted.
    pub max_inbound: usize,
    /// Worker threads of the runtime.
    pub workers: usize,
}

impl Default for HostOptions {
    fn default() -> Self {
        Self { max_inbound: INBOUND_CAP, workers: 2 }
    }
}

/// Runs the host on the process's stdin/stdout until the browser closes the port.
pub fn run_stdio(config: Result<Config, String>) -> std::io::Result<EndReason> {
    serve(std::io::stdin(), std::io::stdout(), config, HostOptions::default())
}

/// Runs the host over any byte streams (tests use in-memory pipes). Returns why it stopped.
pub fn serve<R, W>(
    reader: R,
    writer: W,
    config: Result<Config, String>,
    opts: HostOptions,
) -> std::io::Result<EndReason>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(opts.workers.max(1))
        .enable_all()
        .thread_name("waymark-host")
        .build()?;

    let (in_tx, in_rx) = mpsc::channel::<Inbound>(16);
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (gone_tx, gone_rx) = tokio::sync::oneshot::channel::<()>();

    std::thread::Builder::new()
        .name("waymark-stdin".into())
        .spawn(move || reader_loop(reader, in_tx, opts.max_inbound))?;
    let writer_thread = std::thread::Builder::new()
        .name("waymark-stdout".into())
        .spawn(move || writer_loop(writer, out_rx, gone_tx))?;

    let outbox = Outbox { tx: out_tx };
    let end =
        runtime.block_on(dispatch_loop(in_rx, gone_rx, Dispatcher::new(Arc::new(config), outbox)));
    // Every Outbox clone is dropped by now, so the writer flushes what is queued and stops.
    drop(runtime);
    if writer_thread.join().is_err() {
        tracing::error!("the stdout writer panicked");
    }
    Ok(end)
}

async fn dispatch_loop(
    mut in_rx: mpsc::Receiver<Inbound>,
    mut gone_rx: tokio::sync::oneshot::Receiver<()>,
    mut dispatcher: Dispatcher,
) -> EndReason {
    let mut flush = tokio::time::interval(TRANSCRIPT_FLUSH_INTERVAL);
    flush.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let end = loop {
        tokio::select! {
            item = in_rx.recv() => match item {
                Some(Inbound::End(reason)) => break reason,
                Some(item) => dispatcher.handle(item).await,
                None => break EndReason::Io("stdin reader stopped".into()),
            },
            _ = &mut gone_rx => break EndReason::Io("stdout closed".into()),
            _ = flush.tick() => dispatcher.tick(),
        }
    };
    match &end {
        EndReason::Eof => tracing::info!("port closed; exiting"),
        other => tracing::warn!(?other, "input ended abnormally; exiting"),
    }
    dispatcher.shutdown().await;
    end
}

fn reader_loop<R: Read>(mut reader: R, tx: mpsc::Sender<Inbound>, max: usize) {
    loop {
        let item = read_inbound(&mut reader, max);
        let last = matches!(item, Inbound::End(_));
        if tx.blocking_send(item).is_err() || last {
            return;
        }
    }
}

fn writer_loop<W: Write>(
    mut writer: W,
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
    gone: tokio::sync::oneshot::Sender<()>,
) {
    while let Some(frame) = rx.blocking_recv() {
        if frame.is_empty() {
            continue;
        }
        if writer.write_all(&frame).and_then(|()| writer.flush()).is_err() {
            tracing::warn!("stdout closed; the browser went away");
            #[allow(
                clippy::let_underscore_must_use,
                reason = "the dispatch loop may have ended first: no one to tell then"
            )]
            let _ = gone.send(());
            return;
        }
    }
}
