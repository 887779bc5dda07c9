//! The socket's messages between `waymark-host mcp` (the client) and the host Chrome started
//! (the server): one JSON object per line, each line capped.

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use waymark_protocol::{BridgeCall, BridgeResult};

/// Longest line the server reads (a call carries at most 64 KiB of text).
pub const MAX_TO_HOST_LINE: usize = 1024 * 1024;

/// Longest line the client reads (a screenshot in base64).
pub const MAX_FROM_HOST_LINE: usize = 64 * 1024 * 1024;

/// Client → server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToHost {
    /// First line: who asks, with the per-install secret.
    Hello {
        /// The secret from the config directory.
        secret: String,
        /// The MCP client's name (`Claude Code`), shown to the user.
        client: String,
        /// A check (`doctor`): may only ping, and is not announced in the panel.
        #[serde(default)]
        probe: bool,
    },
    /// One tool call.
    Call {
        /// Chosen by the client; the result carries it back.
        id: u64,
        /// What is asked.
        request: BridgeCall,
    },
}

/// Why the server refused a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// The secret did not match.
    SecretMismatch,
    /// The peer is another user.
    NotOwner,
    /// The first line was not a hello.
    BadHello,
}

/// Why the server ended a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    /// The user pressed Disconnect in the side panel.
    Disconnected,
    /// The user switched external agents off.
    SwitchedOff,
}

impl CloseReason {
    /// For the agent: what happened and what to do.
    pub fn explain(self) -> &'static str {
        match self {
            Self::Disconnected => {
                "the user disconnected this agent in Waymark's side panel; ask them before \
                 using the browser again"
            }
            Self::SwitchedOff => {
                "the user switched external agents off in Waymark's side panel (Settings → \
                 External agents)"
            }
        }
    }
}

/// Server → client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromHost {
    /// The hello was accepted.
    Welcome {
        /// The browser's label.
        browser: String,
    },
    /// The hello was refused; the connection closes.
    Rejected {
        /// Why.
        reason: Rejection,
    },
    /// The answer to a call.
    Result {
        /// The call's id.
        id: u64,
        /// Its result.
        result: BridgeResult,
    },
    /// How far a long call got (`run_task`, or a card it waits at), before its result.
    Progress {
        /// The call's id.
        id: u64,
        /// Steps done so far.
        step: u32,
        /// What happened last.
        message: String,
        /// It waits for the user's answer to a card.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        awaiting_user: bool,
    },
    /// A line that was not a call (the connection goes on).
    Invalid {
        /// The call's id when it could be read, else 0.
        id: u64,
        /// What was wrong.
        message: String,
    },
    /// The server ends the connection.
    Closed {
        /// Why.
        reason: CloseReason,
    },
}

/// One line read with a cap.
#[derive(Debug)]
pub enum Line {
    /// A complete line (without its newline).
    Text(String),
    /// A line above the cap, skipped up to its newline.
    TooLong,
    /// The stream ended.
    Eof,
}

/// Reads one line of at most `max` bytes; a longer one is drained and reported, so the stream
/// stays in step.
pub async fn read_line<R: AsyncBufRead + Unpin>(r: &mut R, max: usize) -> std::io::Result<Line> {
    let mut buf = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = r.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if buf.is_empty() && !too_long { Line::Eof } else { Line::TooLong });
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            buf.extend_from_slice(&chunk[..take]);
            if buf.len() > max + 1 {
                too_long = true;
                buf = Vec::new();
            }
        }
        r.consume(take);
        if done {
            if too_long {
                return Ok(Line::TooLong);
            }
            buf.pop();
            return Ok(Line::Text(String::from_utf8_lossy(&buf).into_owned()));
        }
    }
}

/// Writes one message as a line.
pub async fn write_msg<W: AsyncWrite + Unpin, T: Serialize>(
    w: &mut W,
    msg: &T,
) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(msg).map_err(std::io::Error::other)?;
    line.push(b'\n');
    w.write_all(&line).await?;
    w.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_skipped_and_the_next_one_read() {
        let text = format!("{}\nshort\n", "x".repeat(100));
        let mut r = tokio::io::BufReader::with_capacity(8, text.as_bytes());
        assert!(matches!(read_line(&mut r, 10).await.expect("read"), Line::TooLong));
        assert!(
            matches!(read_line(&mut r, 10).await.expect("read"), Line::Text(t) if t == "short")
        );
        assert!(matches!(read_line(&mut r, 10).await.expect("read"), Line::Eof));
    }
}
