//! A static fixture site on `127.0.0.1:0`.
//!
//! Why: Waymark's content script must run on real `http://` pages (extensions cannot script
//! `file://` without a user toggle), some tests need response headers such as a strict
//! `Content-Security-Policy` on one page only, and tests assert on which pages the browser fetched.
//! A second origin is simply a second server.
//!
//! ```no_run
//! use waymark_tests::fixture_server::FixtureServer;
//! let site = FixtureServer::builder(waymark_tests::paths::fixtures_dir())
//!     .with_header("/csp/", "Content-Security-Policy", "script-src 'self'")
//!     .with_page("/inline.html", "<!doctype html><title>inline</title>")
//!     .start()
//!     .expect("fixture server");
//! let url = site.url("/form.html");
//! # let _ = url;
//! ```

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use tokio::sync::oneshot;

/// One request the fixture site received.
///
/// Why: tests check what the browser (or the extension) fetched, and what a form posted.
#[derive(Debug, Clone)]
pub struct FixtureRequest {
    /// HTTP method.
    pub method: String,
    /// Path without the query, e.g. `/form.html`.
    pub path: String,
    /// Query string without `?`, if any.
    pub query: Option<String>,
    /// Headers with lower-cased names.
    pub headers: Vec<(String, String)>,
    /// Request body (lossy UTF-8), e.g. a posted form.
    pub body: String,
}

impl FixtureRequest {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
}

#[derive(Clone)]
struct ExtraHeader {
    prefix: String,
    name: HeaderName,
    value: HeaderValue,
}

struct Shared {
    root: PathBuf,
    headers: Vec<ExtraHeader>,
    pages: Mutex<HashMap<String, Vec<u8>>>,
    /// Paths that redirect (any method) to their `to` query parameter, with this status.
    redirects: Mutex<HashMap<String, u16>>,
    log: Mutex<Vec<FixtureRequest>>,
    /// Signalled on every request logged, for [`FixtureServer::wait_for_requests`].
    logged: Condvar,
}

/// Configures a [`FixtureServer`] before it starts.
///
/// Why: per-path headers (CSP on one page) and in-memory pages are part of a test's set-up.
pub struct FixtureServerBuilder {
    root: PathBuf,
    headers: Vec<(String, String, String)>,
    pages: HashMap<String, Vec<u8>>,
}

impl FixtureServerBuilder {
    /// Adds response header `name: value` to every response whose path starts with `path_prefix`
    /// (`"/"` for all). Several may match; all apply.
    pub fn with_header(
        mut self,
        path_prefix: impl Into<String>,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        self.headers.push((path_prefix.into(), name.into(), value.into()));
        self
    }

    /// Serves `body` at exactly `path` (taking precedence over files); content type from the
    /// extension. Lets a test write a one-off page inline.
    pub fn with_page(mut self, path: impl Into<String>, body: impl Into<Vec<u8>>) -> Self {
        self.pages.insert(path.into(), body.into());
        self
    }

    /// Binds a free 127.0.0.1 port and starts serving.
    pub fn start(self) -> Result<FixtureServer> {
        let mut headers = Vec::new();
        for (prefix, name, value) in self.headers {
            headers.push(ExtraHeader {
                prefix,
                name: HeaderName::from_bytes(name.as_bytes())
                    .map_err(|e| anyhow::anyhow!("bad header name {name:?}: {e}"))?,
                value: HeaderValue::from_str(&value)
                    .map_err(|e| anyhow::anyhow!("bad header value {value:?}: {e}"))?,
            });
        }
        let shared = Arc::new(Shared {
            root: self.root,
            headers,
            pages: Mutex::new(self.pages),
            redirects: Mutex::new(HashMap::new()),
            log: Mutex::new(Vec::new()),
            logged: Condvar::new(),
        });
        let app = Router::new()
            .fallback(handle)
            .layer(DefaultBodyLimit::max(64 << 20))
            .with_state(shared.clone());
        let (addr, shutdown, thread) = crate::serve::spawn_server("fixture-server", app)?;
        Ok(FixtureServer { addr, shared, shutdown: Some(shutdown), thread: Some(thread) })
    }
}

/// A running static site; stops when dropped.
///
/// Why: each test gets its own origin (free port) and request log.
pub struct FixtureServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FixtureServer {
    /// Starts a server for the files under `root` with no extra headers.
    pub fn start(root: impl Into<PathBuf>) -> Result<FixtureServer> {
        Self::builder(root).start()
    }

    /// A builder for a server of the files under `root` (which need not exist if every page is
    /// added with [`FixtureServerBuilder::with_page`]).
    pub fn builder(root: impl Into<PathBuf>) -> FixtureServerBuilder {
        FixtureServerBuilder { root: root.into(), headers: Vec::new(), pages: HashMap::new() }
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Absolute URL of `path` (leading `/` optional).
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.origin(), path.trim_start_matches('/'))
    }

    /// The bound socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Adds or replaces an in-memory page while running.
    pub fn add_page(&self, path: impl Into<String>, body: impl Into<Vec<u8>>) {
        self.shared
            .pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.into(), body.into());
    }

    /// Makes `path` redirect (any method, status `status`, e.g. 302 or 303) to the URL in its
    /// `to` query parameter: an open redirect, or the redirect after a form post.
    pub fn add_redirect(&self, path: impl Into<String>, status: u16) {
        self.shared
            .redirects
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.into(), status);
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<FixtureRequest> {
        self.shared.log.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The bodies POSTed to `path` so far, oldest first (what a form or a page sent there).
    pub fn posts(&self, path: &str) -> Vec<String> {
        bodies_posted(&self.requests(), path)
    }

    /// [`Self::posts`] once there are at least `n`; fails after `timeout` (a failure bound)
    /// saying what it waited for.
    pub fn wait_posts(&self, path: &str, n: usize, timeout: Duration) -> Result<Vec<String>> {
        let what = format!("{n} POST {path}");
        let log =
            self.wait_for_requests(&what, timeout, |log| bodies_posted(log, path).len() >= n)?;
        Ok(bodies_posted(&log, path))
    }

    /// Waits until the request log satisfies `done` (checked on every request that arrives) and
    /// returns the log; fails after `timeout` (a failure bound, not a timing assertion) naming
    /// `what`. Why: a test that waits for the page or the browser to send something waits for
    /// that request itself, not for a guessed delay.
    pub fn wait_for_requests(
        &self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&[FixtureRequest]) -> bool,
    ) -> Result<Vec<FixtureRequest>> {
        let deadline = Instant::now() + timeout;
        let mut log = self.shared.log.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if done(&log) {
                return Ok(log.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                let paths: Vec<String> = log
                    .iter()
                    .rev()
                    .take(20)
                    .map(|r| {
                        format!("{} {}?{}", r.method, r.path, r.query.as_deref().unwrap_or(""))
                    })
                    .collect();
                bail!("fixture site: waited {timeout:?} for {what}; latest requests: {paths:?}");
            }
            log = self
                .shared
                .logged
                .wait_timeout(log, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Paths requested so far (without queries), in order.
    pub fn requested_paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.path).collect()
    }
}

impl Drop for FixtureServer {
    #[allow(
        clippy::let_underscore_must_use,
        reason = "cleanup: what is being stopped may be gone already"
    )]
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Content type for a file name, by extension; `application/octet-stream` when unknown.
pub fn content_type_for(path: &str) -> &'static str {
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "txt" | "md" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "wasm" => "application/wasm",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// Maps a URL path to a file under `root`, refusing anything that could escape it.
fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(url_path)?;
    let mut out = root.to_path_buf();
    for comp in Path::new(decoded.trim_start_matches('/')).components() {
        match comp {
            Component::Normal(c) => out.push(c),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn bodies_posted(log: &[FixtureRequest], path: &str) -> Vec<String> {
    log.iter().filter(|r| r.method == "POST" && r.path == path).map(|r| r.body.clone()).collect()
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 64 << 20).await.unwrap_or_default();
    let path = parts.uri.path().to_owned();
    shared.log.lock().unwrap_or_else(PoisonError::into_inner).push(FixtureRequest {
        method: parts.method.to_string(),
        path: path.clone(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned())
            })
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    shared.logged.notify_all();

    let redirect =
        shared.redirects.lock().unwrap_or_else(PoisonError::into_inner).get(&path).copied();
    let target = parts
        .uri
        .query()
        .and_then(|q| q.split('&').find_map(|p| p.strip_prefix("to=")).and_then(percent_decode));
    let mut resp = if let (Some(status), Some(to)) = (redirect, target) {
        let mut resp = Response::new(Body::empty());
        *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::FOUND);
        if let Ok(location) = HeaderValue::from_str(&to) {
            resp.headers_mut().insert(header::LOCATION, location);
        }
        resp
    } else if parts.method == Method::GET || parts.method == Method::HEAD {
        let page = shared.pages.lock().unwrap_or_else(PoisonError::into_inner).get(&path).cloned();
        match page {
            Some(bytes) => file_response(&path, bytes),
            None => match resolve(&shared.root, &path) {
                Some(file) => match tokio::fs::read(&file).await {
                    Ok(bytes) => file_response(&file.to_string_lossy(), bytes),
                    Err(_) => status_response(StatusCode::NOT_FOUND, "not found"),
                },
                None => status_response(StatusCode::FORBIDDEN, "forbidden path"),
            },
        }
    } else {
        // Forms and fetches posting to the fixture site: recorded above, acknowledged here.
        status_response(StatusCode::OK, "ok")
    };
    for h in &shared.headers {
        if path.starts_with(&h.prefix) {
            resp.headers_mut().append(h.name.clone(), h.value.clone());
        }
    }
    resp
}

fn file_response(name: &str, bytes: Vec<u8>) -> Response {
    let mut resp = Response::new(Body::from(bytes));
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type_for(name)));
    resp.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

fn status_response(status: StatusCode, text: &'static str) -> Response {
    let mut resp = Response::new(Body::from(text));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_refuses_escapes() {
        let root = Path::new("/srv/root");
        assert_eq!(resolve(root, "/a/b.html"), Some(PathBuf::from("/srv/root/a/b.html")));
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(resolve(root, "/a/%2e%2e/%2e%2e/x"), None);
        assert_eq!(
            resolve(root, "/with%20space.html"),
            Some(PathBuf::from("/srv/root/with space.html"))
        );
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type_for("/x/a.HTML"), "text/html; charset=utf-8");
        assert_eq!(content_type_for("a.wasm"), "application/wasm");
        assert_eq!(content_type_for("a.mjs"), "text/javascript; charset=utf-8");
        assert_eq!(content_type_for("noext"), "application/octet-stream");
    }
}
