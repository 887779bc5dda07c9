//! What the MCP end-to-end tests and the bridge benchmark share: rmcp's own MCP client on a
//! spawned `waymark-host mcp`, the bridge's socket directory, the panel's switch.

use crate::common::{Panel, TASK_TIMEOUT, Waymark};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, NumberOrString,
    ProgressNotificationParam, ProgressToken, RequestMetaObject,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use waymark_tests::paths;

/// Polls `f` until it returns `Some`, within the failure bound.
pub fn wait_until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < TASK_TIMEOUT, "timed out waiting for {what}");
        std::thread::yield_now();
        std::thread::park_timeout(Duration::from_millis(20));
    }
}

/// The client's side of the protocol: its name, and the progress notifications it hears.
#[derive(Clone)]
pub struct Handler {
    info: ClientConfig,
    progress: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let line = format!("{}: {}", params.progress, params.message.unwrap_or_default());
        self.progress.lock().unwrap_or_else(|p| p.into_inner()).push(line);
    }
}

/// An MCP client (rmcp's) that spawned `waymark-host mcp` with the test's directories.
pub struct Client {
    rt: tokio::runtime::Runtime,
    service: Option<RunningService<RoleClient, Handler>>,
    progress: Arc<Mutex<Vec<String>>>,
}

impl Client {
    pub fn spawn(w: &Waymark, name: &str) -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let mut cmd = tokio::process::Command::new(paths::host_binary());
        cmd.arg("mcp")
            .env("WAYMARK_CONFIG_DIR", w.work.path().join("config"))
            .env("WAYMARK_DATA_DIR", w.work.path().join("data"))
            .env("WAYMARK_RUNTIME_DIR", runtime_dir(w))
            .stderr(std::process::Stdio::null());
        let info =
            ClientConfig::new(ClientCapabilities::default(), Implementation::new(name, "1.0"));
        let progress = Arc::new(Mutex::new(Vec::new()));
        let handler = Handler { info, progress: progress.clone() };
        let service = rt.block_on(async {
            handler
                .serve(TokioChildProcess::new(cmd).expect("spawn mcp"))
                .await
                .expect("initialize")
        });
        Self { rt, service: Some(service), progress }
    }

    fn service(&self) -> &RunningService<RoleClient, Handler> {
        self.service.as_ref().expect("running")
    }

    /// Calls a tool: (is an error, all its text).
    pub fn tool(&self, name: &'static str, args: Value) -> (bool, String) {
        let peer = self.service().peer().clone();
        let handle = self.rt.spawn(call(peer, name, args, false));
        self.rt.block_on(handle).expect("call task")
    }

    /// Starts a call that will wait (for a card); `finish` collects it.
    pub fn start(
        &self,
        name: &'static str,
        args: Value,
    ) -> tokio::task::JoinHandle<(bool, String)> {
        let peer = self.service().peer().clone();
        self.rt.spawn(call(peer, name, args, false))
    }

    /// Starts a call that asks for progress notifications (see [`Self::progress`]).
    pub fn start_with_progress(
        &self,
        name: &'static str,
        args: Value,
    ) -> tokio::task::JoinHandle<(bool, String)> {
        let peer = self.service().peer().clone();
        self.rt.spawn(call(peer, name, args, true))
    }

    /// The progress notifications heard so far, as `progress: message`.
    pub fn progress(&self) -> Vec<String> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn finish(&self, handle: tokio::task::JoinHandle<(bool, String)>) -> (bool, String) {
        self.rt.block_on(handle).expect("call task")
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Some(service) = self.service.take()
            && let Err(e) = self.rt.block_on(service.cancel())
        {
            eprintln!("mcp client did not stop cleanly: {e}");
        }
    }
}

async fn call(
    peer: rmcp::Peer<RoleClient>,
    name: &'static str,
    args: Value,
    progress: bool,
) -> (bool, String) {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    let mut params = CallToolRequestParams::new(name).with_arguments(args);
    if progress {
        let mut meta = RequestMetaObject::new();
        meta.set_progress_token(ProgressToken(NumberOrString::Number(7)));
        params.meta = Some(meta);
    }
    let result = peer.call_tool(params).await.unwrap_or_else(|e| panic!("{name}: {e}"));
    // Text as is; an image as `[image MIME N base64 bytes]`.
    let text: Vec<String> = result
        .content
        .iter()
        .filter_map(|c| {
            c.as_text().map(|t| t.text.clone()).or_else(|| {
                c.as_image()
                    .map(|i| format!("[image {} {} base64 bytes]", i.mime_type, i.data.len()))
            })
        })
        .collect();
    (result.is_error.unwrap_or(false), text.join("\n"))
}

pub fn runtime_dir(w: &Waymark) -> PathBuf {
    w.work.path().join("runtime")
}

pub fn sockets(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "sock"))
                .collect()
        })
        .unwrap_or_default()
}

pub fn set_external(panel: &Panel, on: bool) {
    panel
        .page
        .eval(&format!(
            "(() => {{ const b = document.getElementById('external-agents'); b.checked = {on}; \
             b.dispatchEvent(new Event('change', {{ bubbles: true }})); return true; }})()"
        ))
        .expect("switch");
}

pub fn switched_on(w: &Waymark, panel: &Panel) {
    set_external(panel, true);
    let dir = runtime_dir(w);
    wait_until("the bridge socket", || sockets(&dir).into_iter().next());
}
