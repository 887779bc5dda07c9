//! Runs an axum router on a free 127.0.0.1 port, on its own thread with its own Tokio runtime.
//!
//! Why: the servers must keep answering while a sync test blocks on the browser, and tests must
//! not need an async runtime of their own.

use std::net::{SocketAddr, TcpListener};
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use axum::Router;
use tokio::sync::oneshot;

/// Binds `127.0.0.1:0` synchronously (so the port is known on return), then serves `app` on a
/// thread named `name` until the returned sender fires or is dropped. Dropping the runtime then
/// aborts in-flight connections, which is what a test's end wants.
pub(crate) fn spawn_server(
    name: &str,
    app: Router,
) -> Result<(SocketAddr, oneshot::Sender<()>, JoinHandle<()>)> {
    let listener = TcpListener::bind("127.0.0.1:0").context("bind 127.0.0.1:0")?;
    listener.set_nonblocking(true).context("set listener non-blocking")?;
    let addr = listener.local_addr().context("listener address")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("build tokio runtime")?;
    let (tx, rx) = oneshot::channel::<()>();
    let thread_name = name.to_owned();
    let thread = std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => l,
                    Err(e) => {
                        eprintln!("{thread_name}: cannot adopt listener: {e}");
                        return;
                    }
                };
                tokio::select! {
                    res = axum::serve(listener, app) => {
                        if let Err(e) = res {
                            eprintln!("{thread_name}: server stopped: {e}");
                        }
                    }
                    _ = rx => {}
                }
            });
            runtime.shutdown_background();
        })
        .context("spawn server thread")?;
    Ok((addr, tx, thread))
}
