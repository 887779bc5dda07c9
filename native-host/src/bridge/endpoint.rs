//! The bridge's local endpoint, per platform: a Unix socket (0600, in a 0700 directory, peers
//! checked with `SO_PEERCRED`) or a Windows named pipe (a DACL for this user alone, remote
//! clients rejected, the first instance ours, peers checked by their token's user). Never
//! TCP. Both give the server and the client a byte stream; the rest of the bridge is the same.

use tokio::io::{AsyncRead, AsyncWrite};

use super::registry::{BridgeError, Registration};

/// The reading half of a connection.
pub type ReadHalf = Box<dyn AsyncRead + Unpin + Send>;
/// The writing half of a connection.
pub type WriteHalf = Box<dyn AsyncWrite + Unpin + Send>;

/// A connection the server accepted.
pub struct Accepted {
    /// What the client sends.
    pub read: ReadHalf,
    /// What goes to the client.
    pub write: WriteHalf,
    /// Whether the client runs as this user (checked by the operating system).
    pub same_user: bool,
}

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{Listener, connect, pipe_name};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{Listener, connect, pipe_name};

/// Whether the host process `pid` of a registration still runs (a host that was killed
/// leaves its registration behind).
pub fn alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    }
    #[cfg(windows)]
    {
        windows::alive(pid)
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        let _ = pid;
        true
    }
}

/// The error for a registration whose endpoint cannot be opened.
fn unreachable(reg: &Registration, e: &std::io::Error) -> BridgeError {
    BridgeError::Closed(format!(
        "the browser “{}” registered {} but it cannot be opened ({e}): the browser was \
         probably closed; open it again",
        reg.label,
        reg.pipe.clone().unwrap_or_else(|| reg.socket.display().to_string())
    ))
}
