//! Frame envelopes: requests, replies and stream events.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    ConfigSet, ErrorBody, ErrorCode, ExportWrite, FileRead, LlmRequest, PROTOCOL_VERSION,
    TranscriptRecord,
};

/// A request from the extension to the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Protocol version of the sender.
    pub v: u32,
    /// Correlates replies and events with this request; unique per port.
    pub id: u64,
    /// What is asked, tagged by `type`.
    #[serde(flatten)]
    pub body: RequestBody,
}

impl Request {
    /// A request at the current protocol version.
    pub fn new(id: u64, body: RequestBody) -> Self {
        Self { v: PROTOCOL_VERSION, id, body }
    }
}

/// Every request type the host understands. Append-only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum RequestBody {
    /// Version and capability exchange, sent first on every port.
    #[serde(rename = "hello")]
    Hello {
        /// Version of the extension that connects.
        extension_version: String,
    },
    /// Returns its payload unchanged; lets tests and `doctor` check the framing.
    #[serde(rename = "echo")]
    Echo {
        /// Anything JSON.
        payload: Value,
    },
    /// One chat completion, streamed back as `llm.delta` events then a reply.
    #[serde(rename = "llm.complete")]
    LlmComplete(LlmRequest),
    /// Abandon an `llm.complete` still in flight.
    #[serde(rename = "llm.cancel")]
    LlmCancel {
        /// The id of the request to cancel.
        target: u64,
    },
    /// Write an exported file into the export directory.
    #[serde(rename = "export.write")]
    ExportWrite(ExportWrite),
    /// The host's settings without any secret (keys appear only as "set" flags).
    #[serde(rename = "config.get")]
    ConfigGet {},
    /// Change host settings from the side panel; keys are write-only. Replies like `config.get`.
    #[serde(rename = "config.set")]
    ConfigSet(ConfigSet),
    /// Append events to a session's transcript (when capture is on).
    #[serde(rename = "transcript.record")]
    TranscriptRecord(TranscriptRecord),
    /// Read a file under an allowed directory; `file.chunk` events then a `FileInfo` reply.
    #[serde(rename = "file.read")]
    FileRead(FileRead),
    /// Run the set-up checks of `waymark-host doctor`; replies a `DoctorReport`.
    #[serde(rename = "doctor")]
    Doctor {},
}

impl RequestBody {
    /// The `type` string of this request, for logs and capability lists.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Hello { .. } => "hello",
            Self::Echo { .. } => "echo",
            Self::LlmComplete(_) => "llm.complete",
            Self::LlmCancel { .. } => "llm.cancel",
            Self::ExportWrite(_) => "export.write",
            Self::ConfigGet {} => "config.get",
            Self::ConfigSet(_) => "config.set",
            Self::TranscriptRecord(_) => "transcript.record",
            Self::FileRead(_) => "file.read",
            Self::Doctor {} => "doctor",
        }
    }
}

/// A frame from the host: either a stream event or the final reply to a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum HostFrame {
    /// Zero or more of these precede a reply.
    Event(EventFrame),
    /// Ends a request.
    Reply(ReplyFrame),
}

/// A stream event for a request still in flight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventFrame {
    /// Protocol version of the host.
    pub v: u32,
    /// The request this event belongs to.
    pub id: u64,
    /// The event, tagged by `event`.
    #[serde(flatten)]
    pub event: HostEvent,
}

/// Stream events. Append-only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event")]
pub enum HostEvent {
    /// A piece of the model's text as it streams in (at most [`super::MAX_DELTA_BYTES`]).
    #[serde(rename = "llm.delta")]
    LlmDelta {
        /// The new text.
        text: String,
    },
    /// The host is waiting before retrying a failed LLM call.
    #[serde(rename = "llm.retry")]
    LlmRetry {
        /// Which attempt comes next (2 = first retry).
        attempt: u32,
        /// How long the host waits first.
        delay_ms: u64,
        /// Why the previous attempt failed.
        reason: String,
    },
    /// One piece of a file being read by `file.read`, in order.
    #[serde(rename = "file.chunk")]
    FileChunk {
        /// 0-based position of this chunk.
        seq: u32,
        /// Standard base64 of at most [`super::MAX_FILE_CHUNK_BYTES`] raw bytes.
        data: String,
    },
}

/// The final answer to a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplyFrame {
    /// Protocol version of the host.
    pub v: u32,
    /// The request answered; 0 when the request could not be read at all.
    pub id: u64,
    /// Success with data, or an error.
    #[serde(flatten)]
    pub reply: Reply,
}

impl ReplyFrame {
    /// A success reply carrying `data`.
    pub fn ok(id: u64, data: Value) -> Self {
        Self { v: PROTOCOL_VERSION, id, reply: Reply::Ok { ok: True, data } }
    }

    /// An error reply.
    pub fn err(id: u64, code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            v: PROTOCOL_VERSION,
            id,
            reply: Reply::Err { ok: False, error: ErrorBody { code, message: message.into() } },
        }
    }
}

/// `ok: true` with data, or `ok: false` with an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reply {
    /// The request succeeded.
    Ok {
        /// Always `true`.
        ok: True,
        /// Request-specific result.
        data: Value,
    },
    /// The request failed.
    Err {
        /// Always `false`.
        ok: False,
        /// What went wrong.
        error: ErrorBody,
    },
}

impl Reply {
    /// The data, or the error.
    pub fn into_result(self) -> Result<Value, ErrorBody> {
        match self {
            Self::Ok { data, .. } => Ok(data),
            Self::Err { error, .. } => Err(error),
        }
    }
}

/// The JSON literal `true`; makes `Reply` deserialise by the value of `ok`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct True;

/// The JSON literal `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct False;

macro_rules! bool_literal {
    ($ty:ident, $value:literal) => {
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bool($value)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                if bool::deserialize(d)? == $value {
                    Ok($ty)
                } else {
                    Err(serde::de::Error::custom(concat!("expected ", stringify!($value))))
                }
            }
        }
    };
}
bool_literal!(True, true);
bool_literal!(False, false);
