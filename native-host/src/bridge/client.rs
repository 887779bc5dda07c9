//! The MCP side of the bridge: finds the browser the user named (or the only one), connects
//! to its socket with the per-install secret, and sends calls one at a time.

use tokio::io::BufReader;
use waymark_protocol::{BridgeCall, BridgeResult};

use super::endpoint::{self, ReadHalf, WriteHalf};
use super::registry::{self, BridgeError};
use super::survey::Survey;
use super::wire::{FromHost, Line, MAX_FROM_HOST_LINE, Rejection, ToHost, read_line, write_msg};
use crate::config::Env;

/// Who connects, and to which browser.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// Part of the browser's label (or its host's pid); `None`: the only one.
    pub browser: Option<String>,
    /// The MCP client's name, shown to the user.
    pub client: String,
    /// Only a check (`doctor`): may ping, is not shown in the panel.
    pub probe: bool,
}

/// How far a call got, as the browser said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// Steps done so far (a task's).
    pub step: u32,
    /// What happened last, in words.
    pub message: String,
    /// The call waits for the user's answer to a card in the side panel.
    pub awaiting_user: bool,
}

/// A call that failed on the way.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// It never reached the browser: sending it again on a new connection is safe.
    #[error("{0}")]
    NotSent(BridgeError),
    /// It was sent, and the connection ended before its answer: it may or may not be done.
    #[error("{0}")]
    Lost(BridgeError),
}

/// An open connection to one browser.
pub struct Connection {
    read: BufReader<ReadHalf>,
    write: WriteHalf,
    next: u64,
    pid: u32,
    /// The browser's label.
    pub browser: String,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("browser", &self.browser).finish()
    }
}

/// Connects to the browser `target` names.
pub async fn connect(env: &(dyn Env + Sync), target: &Target) -> Result<Connection, BridgeError> {
    let survey = Survey::take(env)?;
    let dir = survey.dir.clone();
    let reg = survey.pick(target.browser.as_deref())?;
    let secret = registry::read_secret(&dir)?;
    let (read, mut write) = endpoint::connect(&reg).await?;
    let mut read = BufReader::new(read);
    let hello = ToHost::Hello {
        secret: secret.expose().to_owned(),
        client: target.client.clone(),
        probe: target.probe,
    };
    write_msg(&mut write, &hello)
        .await
        .map_err(|e| BridgeError::Io { what: "sending the hello".into(), source: e })?;
    match next_msg(&mut read).await? {
        FromHost::Welcome { browser } => {
            Ok(Connection { read, write, next: 1, pid: reg.pid, browser })
        }
        FromHost::Rejected { reason: Rejection::SecretMismatch } => {
            Err(BridgeError::SecretMismatch)
        }
        FromHost::Rejected { reason: Rejection::NotOwner } => {
            Err(BridgeError::Refused("this process runs as another user".into()))
        }
        FromHost::Rejected { reason: Rejection::BadHello } => {
            Err(BridgeError::Refused("it did not understand the hello".into()))
        }
        FromHost::Closed { reason } => Err(BridgeError::Ended(reason)),
        other => Err(BridgeError::Protocol(format!("expected a welcome, got {other:?}"))),
    }
}

async fn next_msg(read: &mut BufReader<ReadHalf>) -> Result<FromHost, BridgeError> {
    let gone = || {
        BridgeError::Closed(
            "the browser's Waymark host went away (the browser closed, or its extension \
             restarted); the next call reconnects"
                .into(),
        )
    };
    match read_line(read, MAX_FROM_HOST_LINE).await {
        Ok(Line::Text(t)) => {
            serde_json::from_str(&t).map_err(|e| BridgeError::Protocol(e.to_string()))
        }
        Ok(Line::TooLong) => Err(BridgeError::Protocol("an answer above the size cap".into())),
        Ok(Line::Eof) | Err(_) => Err(gone()),
    }
}

impl Connection {
    /// Whether the browser's host process still runs (a connection to a host that died is
    /// replaced before a call is sent on it).
    pub fn alive(&self) -> bool {
        endpoint::alive(self.pid)
    }

    /// Sends one call and waits for its result.
    pub async fn call(&mut self, request: BridgeCall) -> Result<BridgeResult, CallError> {
        self.call_with_progress(request, &mut |_| {}).await
    }

    /// Sends one call and waits for its result; `on_progress` hears how far it got meanwhile.
    pub async fn call_with_progress(
        &mut self,
        request: BridgeCall,
        on_progress: &mut (dyn FnMut(Progress) + Send),
    ) -> Result<BridgeResult, CallError> {
        // While idle the host may have ended the connection (the user's Disconnect): its last
        // word is already here, and the call is not sent.
        match tokio::time::timeout(std::time::Duration::ZERO, next_msg(&mut self.read)).await {
            Err(_idle) => {}
            Ok(Ok(FromHost::Closed { reason })) => {
                return Err(CallError::NotSent(BridgeError::Ended(reason)));
            }
            Ok(Ok(other)) => tracing::debug!(?other, "unexpected bridge message skipped"),
            Ok(Err(e)) => return Err(CallError::NotSent(e)),
        }
        let id = self.next;
        self.next += 1;
        write_msg(&mut self.write, &ToHost::Call { id, request }).await.map_err(|e| {
            CallError::NotSent(BridgeError::Io { what: "sending the call".into(), source: e })
        })?;
        loop {
            match next_msg(&mut self.read).await.map_err(CallError::Lost)? {
                FromHost::Result { id: got, result } if got == id => return Ok(result),
                FromHost::Progress { id: got, step, message, awaiting_user } if got == id => {
                    on_progress(Progress { step, message, awaiting_user })
                }
                FromHost::Invalid { message, .. } => {
                    return Err(CallError::NotSent(BridgeError::Protocol(message)));
                }
                FromHost::Closed { reason } => {
                    return Err(CallError::Lost(BridgeError::Ended(reason)));
                }
                other => tracing::debug!(?other, "unexpected bridge message skipped"),
            }
        }
    }
}
