//! The MCP process's link to the browser: one bridge connection, opened on the first browser
//! tool call and again after the browser's host went away; a call that may have run is never
//! sent twice.

use tokio::sync::Mutex;
use waymark_protocol::{BridgeCall, BridgeFailure, BridgeOutput};

use crate::bridge::BridgeError;
use crate::bridge::client::{self, CallError, Connection, Progress, Target};
use crate::bridge::wire::CloseReason;
use crate::config::ProcessEnv;

/// Why a browser tool call failed, in words for the agent.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// A link between here and the page is broken (each says which, and the fix).
    #[error("{0}")]
    Bridge(BridgeError),
    /// The call reached the browser and failed there (denied, refused, tab gone…).
    #[error("{}: {}", kind_words(.0), .0.message)]
    Failed(BridgeFailure),
    /// The connection ended while the call was out.
    #[error("{0} — the call was sent and may or may not have been done; take a snapshot to check")]
    Lost(BridgeError),
    /// The user disconnected this agent; it stays disconnected.
    #[error(
        "the user disconnected this agent in Waymark's side panel; it stays disconnected until \
         this MCP server is restarted (ask the user first)"
    )]
    Disconnected,
}

fn kind_words(f: &BridgeFailure) -> &'static str {
    use waymark_protocol::BridgeFailureKind as K;
    match f.kind {
        K::Denied => "denied by the user",
        K::Refused => "refused by Waymark's safety policy",
        K::TakeOver => "left to the user",
        K::Stopped => "stopped by the user",
        K::TabGone => "tab gone",
        K::NoWebPage => "not a web page",
        K::StaleRef => "unknown ref",
        K::BadArguments => "invalid arguments",
        K::PageFailed => "the page failed",
        K::Busy => "browser busy",
        K::Off => "external agents are off",
        K::Unsupported => "unsupported",
    }
}

/// One browser, connected on demand.
#[derive(Debug)]
pub struct Link {
    browser: Option<String>,
    conn: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    conn: Option<Connection>,
    disconnected: bool,
}

/// How long a link that had a browser waits for it to register again: Chrome stops an idle
/// extension's service worker, and the host it started goes with it; the next one registers
/// moments later.
const REREGISTER_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
/// Between looks at the registrations meanwhile.
const REREGISTER_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Connects to `target`; when the link `had` a browser, waits up to [`REREGISTER_WAIT`] while
/// no browser is registered or the registered one's host has ended.
async fn connect_again(target: &Target, had: bool) -> Result<Connection, LinkError> {
    let deadline = tokio::time::Instant::now() + REREGISTER_WAIT;
    loop {
        match client::connect(&ProcessEnv, target).await {
            Err(BridgeError::NotRegistered(_) | BridgeError::BrowserGone { .. })
                if had && tokio::time::Instant::now() < deadline =>
            {
                tokio::time::sleep(REREGISTER_POLL).await;
            }
            other => return other.map_err(LinkError::Bridge),
        }
    }
}

/// Calls that change nothing on a site (a resize only sets the window's size again): sent
/// again on a new connection after a lost answer.
fn read_only(call: &BridgeCall) -> bool {
    matches!(
        call,
        BridgeCall::Ping
            | BridgeCall::ListTabs
            | BridgeCall::Snapshot
            | BridgeCall::Extract { .. }
            | BridgeCall::Collect { .. }
            | BridgeCall::Screenshot
            | BridgeCall::WaitFor { .. }
            | BridgeCall::NetworkRequests { .. }
            | BridgeCall::ConsoleMessages { .. }
            | BridgeCall::Resize { .. }
    )
}

impl Link {
    /// A link to the browser whose label contains `browser` (or the only one).
    pub fn new(browser: Option<String>) -> Self {
        Self { browser, conn: Mutex::new(State::default()) }
    }

    /// Sends one call as `client` (the MCP client's name the user sees).
    pub async fn call(&self, client: &str, call: BridgeCall) -> Result<BridgeOutput, LinkError> {
        self.call_with_progress(client, call, &mut |_| {}).await
    }

    /// Sends one call as `client`; `on_progress` hears how far it got meanwhile (steps done,
    /// what happened last).
    pub async fn call_with_progress(
        &self,
        client: &str,
        call: BridgeCall,
        on_progress: &mut (dyn FnMut(Progress) + Send),
    ) -> Result<BridgeOutput, LinkError> {
        if call.longest_text() > waymark_protocol::MAX_BRIDGE_TEXT {
            return Err(LinkError::Failed(BridgeFailure::new(
                waymark_protocol::BridgeFailureKind::BadArguments,
                format!(
                    "a text above {} bytes is not sent to the browser",
                    waymark_protocol::MAX_BRIDGE_TEXT
                ),
            )));
        }
        let mut state = self.conn.lock().await;
        if state.disconnected {
            return Err(LinkError::Disconnected);
        }
        for attempt in 0..2 {
            // While the call is out the connection is held here, not in the state: a call
            // whose future is dropped (the MCP client cancelled it) closes the connection, so
            // the browser hears that the agent went away (and stops a task it asked for)
            // instead of answering no one.
            // A link that had a browser (or just lost it) is seeing that browser's host restart.
            let had = state.conn.is_some() || attempt > 0;
            let mut conn = match state.conn.take() {
                Some(c) if c.alive() => c,
                _ => {
                    let target = Target {
                        browser: self.browser.clone(),
                        client: client.to_owned(),
                        probe: false,
                    };
                    connect_again(&target, had).await?
                }
            };
            match conn.call_with_progress(call.clone(), on_progress).await {
                Ok(result) => {
                    state.conn = Some(conn);
                    return result.into_result().map_err(LinkError::Failed);
                }
                Err(
                    CallError::NotSent(BridgeError::Ended(CloseReason::Disconnected))
                    | CallError::Lost(BridgeError::Ended(CloseReason::Disconnected)),
                ) => {
                    state.disconnected = true;
                    return Err(LinkError::Disconnected);
                }
                Err(CallError::NotSent(e)) => {
                    if attempt == 1 {
                        return Err(LinkError::Bridge(e));
                    }
                }
                Err(CallError::Lost(e)) => {
                    if !read_only(&call) || attempt == 1 {
                        return Err(LinkError::Lost(e));
                    }
                }
            }
        }
        Err(LinkError::Bridge(BridgeError::Closed(
            "the browser's Waymark host went away twice in a row; the call was not sent".into(),
        )))
    }
}
