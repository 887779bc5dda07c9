//! One browser tool call as the MCP client lives it: who asks (the client's name from the
//! handshake, or from the request itself on the newest protocol, which has no handshake),
//! progress notifications whose values only grow (sent in order, one at a time), a call that
//! waits at a card saying so, and a wait for the user that ends after the approval timeout
//! the user set (`agents.approval_timeout_secs`) with the card withdrawn.

use std::time::Duration;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};
use tokio::sync::{mpsc, watch};
use waymark_protocol::{BridgeCall, BridgeOutput};

use super::SessionsServer;
use super::link::LinkError;
use crate::bridge::client::Progress;

/// How long a call waits at a card when the user set nothing: a few minutes, long enough to
/// read a card and come back to the browser.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(180);

/// The approval timeout the user set in the config file, else the default.
pub fn approval_timeout(env: &dyn crate::config::Env) -> Duration {
    let file = crate::config::config_dir(env)
        .ok()
        .map(|d| d.join(crate::config::CONFIG_FILE_NAME))
        .and_then(|p| match crate::config::load_file(&p) {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(error = %e, "the config file was not read; default approval timeout");
                None
            }
        });
    file.and_then(|f| f.agents.approval_timeout_secs)
        .map_or(DEFAULT_APPROVAL_TIMEOUT, Duration::from_secs)
}

/// The MCP client's name as the user knows it (`claude-code` → `Claude Code`).
pub fn display_name(name: &str, title: Option<&str>) -> String {
    if let Some(t) = title.map(str::trim).filter(|t| !t.is_empty()) {
        return t.chars().take(60).collect();
    }
    let known = match name.to_lowercase().as_str() {
        "claude-code" | "claude code" => Some("Claude Code"),
        "cursor" | "cursor-vscode" => Some("Cursor"),
        "codex" | "codex-mcp-client" | "codex-cli" => Some("Codex"),
        "claude-ai" | "claude-desktop" => Some("Claude"),
        _ => None,
    };
    match known {
        Some(k) => k.to_owned(),
        None if name.trim().is_empty() => "An external agent".to_owned(),
        None => name.chars().take(60).collect(),
    }
}

/// The name of the client that sent this request: the request's own `clientInfo` (protocol
/// 2026-07-28 and later carry it in every request's `_meta`, with no handshake), else the
/// handshake's.
pub fn client_name(context: &RequestContext<RoleServer>) -> String {
    if let Some(info) = context.meta.client_info() {
        return display_name(&info.name, info.title.as_deref());
    }
    context.peer.peer_info().map_or_else(
        || display_name("", None),
        |info| display_name(&info.client_info.name, info.client_info.title.as_deref()),
    )
}

/// Progress notifications for one call: numbered 1, 2, 3… whatever the browser's step
/// numbers (a card, then the step it guarded, share one), and sent one after the other by a
/// single task, so they arrive in order. Nothing is sent when the client asked for none.
pub struct Reporter {
    next: u32,
    tx: Option<mpsc::UnboundedSender<ProgressNotificationParam>>,
    token: Option<ProgressToken>,
}

impl Reporter {
    /// A reporter for the call `token` names (none: the client asked for no progress).
    pub fn new(peer: &Peer<RoleServer>, token: Option<ProgressToken>) -> Self {
        let tx = token.as_ref().map(|_| {
            let (tx, mut rx) = mpsc::unbounded_channel::<ProgressNotificationParam>();
            let peer = peer.clone();
            tokio::spawn(async move {
                while let Some(param) = rx.recv().await {
                    if let Err(e) = peer.notify_progress(param).await {
                        tracing::debug!(error = %e, "a progress notification was not sent");
                    }
                }
            });
            tx
        });
        Self { next: 0, tx, token }
    }

    /// Sends `message` with the next progress value.
    pub fn report(&mut self, message: String) {
        let (Some(tx), Some(token)) = (&self.tx, &self.token) else { return };
        self.next += 1;
        let param = ProgressNotificationParam::new(token.clone(), f64::from(self.next))
            .with_message(message);
        if tx.send(param).is_err() {
            tracing::debug!("the progress sender stopped");
        }
    }
}

/// Why a call ended without the browser's answer.
#[derive(Debug, thiserror::Error)]
pub enum Unanswered {
    /// The user did not answer the card in time (it was withdrawn: nothing was done).
    #[error(
        "timed out: the user did not answer Waymark's approval card within {} s, so the \
         action was not done and the card was withdrawn; tell the user, and try again when \
         they can watch the Waymark side panel (the wait is the setting \
         agents.approval_timeout_secs)", .0.as_secs()
    )]
    ApprovalTimedOut(Duration),
    /// The client cancelled the call.
    #[error("cancelled: the call was stopped in the browser")]
    Cancelled,
}

/// Resolves once the call has waited at a card for `timeout` without a word in between.
async fn approval_deadline(mut waiting: watch::Receiver<bool>, timeout: Duration) {
    loop {
        while !*waiting.borrow_and_update() {
            if waiting.changed().await.is_err() {
                return std::future::pending().await;
            }
        }
        tokio::select! {
            () = tokio::time::sleep(timeout) => return,
            changed = waiting.changed() => if changed.is_err() {
                return std::future::pending().await;
            },
        }
    }
}

impl SessionsServer {
    /// Sends `call` to the browser as the requesting client, with its progress and the
    /// approval timeout. Dropping the call (timeout, cancel) closes this agent's connection:
    /// the browser withdraws its card and stops a task it asked for.
    pub(super) async fn run_call(
        &self,
        context: &RequestContext<RoleServer>,
        call: BridgeCall,
    ) -> Result<Result<BridgeOutput, LinkError>, Unanswered> {
        let client = client_name(context);
        let mut reporter = Reporter::new(&context.peer, context.meta.get_progress_token());
        let (waiting_tx, waiting_rx) = watch::channel(false);
        let mut on_progress = move |p: Progress| {
            waiting_tx.send_replace(p.awaiting_user);
            reporter.report(p.message);
        };
        let ran = self.link.call_with_progress(&client, call, &mut on_progress);
        let timeout = self.approval_timeout;
        tokio::select! {
            result = ran => Ok(result),
            () = approval_deadline(waiting_rx, timeout) => Err(Unanswered::ApprovalTimedOut(timeout)),
            () = context.ct.cancelled() => Err(Unanswered::Cancelled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_read_as_people_know_them() {
        assert_eq!(display_name("claude-code", None), "Claude Code");
        assert_eq!(display_name("x", Some("My Agent")), "My Agent");
        assert_eq!(display_name("", None), "An external agent");
        assert_eq!(display_name("rmcp", None), "rmcp");
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_counts_only_while_a_card_waits() {
        let (tx, rx) = watch::channel(false);
        let timeout = Duration::from_secs(60);
        let deadline = tokio::spawn(approval_deadline(rx, timeout));
        // No card: time passes, no deadline.
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(!deadline.is_finished());
        // A card; the user answers after 50 s (the task goes on), then a second card.
        tx.send_replace(true);
        tokio::time::sleep(Duration::from_secs(50)).await;
        tx.send_replace(false);
        tokio::time::sleep(Duration::from_secs(50)).await;
        assert!(!deadline.is_finished(), "an answered card stops the clock");
        tx.send_replace(true);
        tokio::time::sleep(Duration::from_secs(59)).await;
        assert!(!deadline.is_finished());
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(deadline.is_finished(), "a card left unanswered for the timeout ends the call");
    }
}
