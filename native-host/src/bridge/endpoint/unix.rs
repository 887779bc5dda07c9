//! The Unix socket: 0600 in the user's private 0700 directory; peers of another user are
//! refused (`SO_PEERCRED` / `getpeereid`).

use std::os::unix::fs::PermissionsExt;

use super::{Accepted, ReadHalf, WriteHalf, unreachable};
use crate::bridge::registry::{self, BridgeError, Registration};

/// Unix sockets need no name beyond their path.
pub fn pipe_name(_pid: u32, _seq: u64) -> Option<String> {
    None
}

/// A bound socket.
pub struct Listener(tokio::net::UnixListener);

impl Listener {
    /// Binds the socket of `reg` (a stale one left by a host that died is replaced) and
    /// restricts it to this user.
    pub fn bind(reg: &Registration) -> Result<Self, BridgeError> {
        let socket = &reg.socket;
        // A socket left by a host that died: nobody listens on it any more.
        if socket.exists()
            && let Err(e) = std::fs::remove_file(socket)
        {
            return Err(BridgeError::Io {
                what: format!("removing {}", socket.display()),
                source: e,
            });
        }
        // Bound under a name beside it, restricted, then moved into place: the socket never
        // appears at its path with the umask's wider mode, not even for an instant.
        let mut fresh = socket.as_os_str().to_owned();
        fresh.push(".n");
        let fresh = std::path::PathBuf::from(fresh);
        if fresh.exists() {
            let _ignored = std::fs::remove_file(&fresh).inspect_err(|e| {
                tracing::debug!(error = %e, "a half-made socket could not be removed");
            });
        }
        let listener = tokio::net::UnixListener::bind(&fresh).map_err(|e| BridgeError::Io {
            what: format!("creating the socket {}", fresh.display()),
            source: e,
        })?;
        std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o600)).map_err(|e| {
            BridgeError::Io { what: format!("restricting {}", fresh.display()), source: e }
        })?;
        std::fs::rename(&fresh, socket).map_err(|e| BridgeError::Io {
            what: format!("moving the socket to {}", socket.display()),
            source: e,
        })?;
        Ok(Self(listener))
    }

    /// The next client.
    pub async fn accept(&mut self) -> std::io::Result<Accepted> {
        let (stream, _) = self.0.accept().await?;
        let same_user = stream.peer_cred().is_ok_and(|c| c.uid() == registry::uid());
        let (read, write) = stream.into_split();
        Ok(Accepted { read: Box::new(read), write: Box::new(write), same_user })
    }
}

/// Opens the socket of `reg`.
pub async fn connect(reg: &Registration) -> Result<(ReadHalf, WriteHalf), BridgeError> {
    let stream =
        tokio::net::UnixStream::connect(&reg.socket).await.map_err(|e| unreachable(reg, &e))?;
    let (read, write) = stream.into_split();
    Ok((Box::new(read), Box::new(write)))
}
