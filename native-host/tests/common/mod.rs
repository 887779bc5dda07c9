//! Spawns the built `waymark-host` in host mode with a private config and export directory and
//! speaks framed stdio to it.

#![allow(dead_code, reason = "each test binary uses a different subset of the helpers")]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use waymark_protocol::{EXTENSION_ID, HostFrame};

/// Path of the binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_waymark-host");

/// A failure bound for waiting on frames, not a timing assertion.
pub const WAIT: Duration = Duration::from_secs(20);

/// Raw bytes of one frame around `payload`.
pub fn frame_bytes(payload: &[u8]) -> Vec<u8> {
    let mut v = u32::try_from(payload.len()).expect("len").to_ne_bytes().to_vec();
    v.extend_from_slice(payload);
    v
}

/// A running host process.
pub struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<Result<Vec<u8>, String>>,
    stderr: Receiver<String>,
    /// Temp dir holding config/ and exports/ (removed on drop).
    pub dir: tempfile::TempDir,
}

/// Builder for [`Host`].
pub struct HostBuilder {
    env: Vec<(String, String)>,
}

impl HostBuilder {
    /// Sets an environment variable for the host.
    pub fn env(mut self, k: &str, v: impl Into<String>) -> Self {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Points the host at an LLM base URL with fast retries.
    pub fn llm(self, base_url: &str) -> Self {
        self.env("WAYMARK_LLM_BASE_URL", base_url)
            .env("WAYMARK_LLM_MODEL", "test-model")
            .env("WAYMARK_LLM_RETRY_BASE_MS", "10")
    }

    /// Starts the process.
    pub fn spawn(self) -> Host {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cmd = Command::new(BIN);
        cmd.arg(format!("chrome-extension://{EXTENSION_ID}/"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", dir.path())
            .env("WAYMARK_CONFIG_DIR", dir.path().join("config"))
            .env("WAYMARK_EXPORT_DIR", dir.path().join("exports"))
            // Nothing answers on port 9 of loopback: a safe default endpoint.
            .env("WAYMARK_LLM_BASE_URL", "http://127.0.0.1:9/v1")
            .env("WAYMARK_LOG", "debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn waymark-host");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, frames) = channel();
        std::thread::spawn(move || read_frames(stdout, &tx));
        let (etx, stderr_rx) = channel();
        std::thread::spawn(move || {
            let mut s = String::new();
            let mut stderr = stderr;
            #[allow(
                clippy::let_underscore_must_use,
                reason = "what was read before an error is still worth showing"
            )]
            let _ = stderr.read_to_string(&mut s);
            #[allow(
                clippy::let_underscore_must_use,
                reason = "the test may be over: no one reads stderr then"
            )]
            let _ = etx.send(s);
        });
        let stdin = child.stdin.take();
        Host { child, stdin, frames, stderr: stderr_rx, dir }
    }
}

fn read_frames(mut out: impl Read, tx: &std::sync::mpsc::Sender<Result<Vec<u8>, String>>) {
    loop {
        let mut len = [0u8; 4];
        match out.read_exact(&mut len) {
            Ok(()) => {}
            Err(_) => return,
        }
        let n = u32::from_ne_bytes(len) as usize;
        if n > 1024 * 1024 {
            #[allow(
                clippy::let_underscore_must_use,
                reason = "the test may be over: no one reads frames then"
            )]
            let _ = tx.send(Err(format!("frame of {n} bytes exceeds 1 MiB")));
            return;
        }
        let mut buf = vec![0; n];
        if out.read_exact(&mut buf).is_err() {
            #[allow(
                clippy::let_underscore_must_use,
                reason = "the test may be over: no one reads frames then"
            )]
            let _ = tx.send(Err(format!("stdout ended inside a frame of {n} bytes")));
            return;
        }
        if tx.send(Ok(buf)).is_err() {
            return;
        }
    }
}

impl Host {
    /// A host with a private config and export dir.
    pub fn builder() -> HostBuilder {
        HostBuilder { env: Vec::new() }
    }

    /// `Host::builder().spawn()`.
    pub fn spawn() -> Host {
        Self::builder().spawn()
    }

    /// The export directory the host writes to.
    pub fn export_dir(&self) -> PathBuf {
        self.dir.path().join("exports")
    }

    /// Writes raw bytes to stdin.
    pub fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write stdin");
        stdin.flush().expect("flush");
    }

    /// Sends one JSON value as a frame.
    pub fn send(&mut self, v: &Value) {
        self.write_raw(&frame_bytes(v.to_string().as_bytes()));
    }

    /// Sends a request `{v:1, id, type, ...fields}`.
    pub fn request(&mut self, id: u64, kind: &str, fields: Value) {
        let mut v = json!({"v": 1, "id": id, "type": kind});
        if let (Some(obj), Value::Object(extra)) = (v.as_object_mut(), fields) {
            obj.extend(extra);
        }
        self.send(&v);
    }

    /// The next frame as JSON; panics after [`WAIT`] or on a malformed frame.
    pub fn next(&self) -> Value {
        self.try_next(WAIT).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The next frame, or why there is none.
    pub fn try_next(&self, wait: Duration) -> Result<Value, String> {
        match self.frames.recv_timeout(wait) {
            Ok(Ok(bytes)) => {
                let text = String::from_utf8(bytes).map_err(|e| format!("frame not UTF-8: {e}"))?;
                let v: Value =
                    serde_json::from_str(&text).map_err(|e| format!("frame not JSON: {e}"))?;
                serde_json::from_value::<HostFrame<Value>>(v.clone())
                    .map_err(|e| format!("not a host frame ({e}): {text}"))?;
                Ok(v)
            }
            Ok(Err(e)) => Err(e),
            Err(RecvTimeoutError::Timeout) => Err(format!("no frame within {wait:?}")),
            Err(RecvTimeoutError::Disconnected) => Err("stdout closed".into()),
        }
    }

    /// Frames until (and including) the reply to `id`; events of `id` and other frames are kept.
    pub fn until_reply(&self, id: u64) -> Vec<Value> {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self
                .try_next(left)
                .unwrap_or_else(|e| panic!("waiting for reply {id}: {e}; seen {seen:?}"));
            let done = v["id"] == id && v.get("ok").is_some();
            seen.push(v);
            if done {
                return seen;
            }
        }
    }

    /// The reply to `id`, skipping its events.
    pub fn reply(&self, id: u64) -> Value {
        self.until_reply(id).pop().expect("reply")
    }

    /// Closes stdin (the browser closing the port).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for exit; returns the status and stderr.
    pub fn wait_exit(&mut self) -> (ExitStatus, String) {
        self.close_stdin();
        let deadline = Instant::now() + WAIT;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if Instant::now() > deadline {
                #[allow(
                    clippy::let_underscore_must_use,
                    reason = "the host may have exited already"
                )]
                let _ = self.child.kill();
                panic!("host did not exit after stdin closed");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let stderr = self.stderr.recv_timeout(WAIT).unwrap_or_default();
        (status, stderr)
    }

    /// Remaining frames after exit (all must be well formed).
    pub fn drain(&self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Ok(v) = self.try_next(Duration::from_millis(200)) {
            out.push(v);
        }
        out
    }
}

impl Drop for Host {
    #[allow(
        clippy::let_underscore_must_use,
        reason = "cleanup: what is being stopped may be gone already"
    )]
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The error code of a reply (panics if it is a success).
pub fn err_code(reply: &Value) -> &str {
    assert_eq!(reply["ok"], false, "expected an error: {reply}");
    reply["error"]["code"].as_str().expect("code")
}

/// The error message of a reply, with the host's hint after "; " as a person reads both.
pub fn err_message(reply: &Value) -> String {
    let error = &reply["error"];
    let message = error["message"].as_str().unwrap_or_default();
    match error["hint"].as_str() {
        Some(hint) => format!("{message}; {hint}"),
        None => message.to_owned(),
    }
}

/// Whether `p` lies directly in `dir`.
pub fn directly_in(p: &Path, dir: &Path) -> bool {
    p.parent().and_then(|d| d.canonicalize().ok()) == dir.canonicalize().ok()
}
