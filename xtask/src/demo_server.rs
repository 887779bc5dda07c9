//! A tiny static file server on 127.0.0.1 for `cargo xtask run`'s demo page (std only, so the
//! xtask stays quick to build).

use anyhow::{Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// A running server.
pub struct DemoServer {
    /// `http://127.0.0.1:PORT`.
    pub origin: String,
}

/// Serves `root` on a free loopback port from a background thread.
pub fn start(root: PathBuf) -> Result<DemoServer> {
    let listener = TcpListener::bind("127.0.0.1:0").context("binding 127.0.0.1")?;
    let origin = format!("http://{}", listener.local_addr()?);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            std::thread::spawn(move || {
                #[allow(
                    clippy::let_underscore_must_use,
                    reason = "a browser that closes a connection early is no error of the demo server"
                )]
                let _ = serve(stream, &root);
            });
        }
    });
    Ok(DemoServer { origin })
}

fn serve(mut stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut line = String::new();
    BufReader::new(stream.try_clone()?).read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split('?').next().unwrap_or("/").trim_start_matches('/');
    let safe = Path::new(path).components().all(|c| matches!(c, Component::Normal(_)));
    let file = root.join(if path.is_empty() { "form.html" } else { path });
    let (status, body) = match (safe, std::fs::read(&file)) {
        (true, Ok(body)) => ("200 OK", body),
        _ => ("404 Not Found", b"not found".to_vec()),
    };
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        _ => "application/octet-stream",
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)
}
