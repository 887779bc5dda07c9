//! Frame envelopes: requests, replies and stream events, and the one list of request types.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{
    BridgeAck, BridgeAnswer, BridgeCall, BridgeClose, BridgeClosed, BridgeDisconnect, BridgeOpen,
    BridgeProgress, ConfigSet, DoctorReport, ErrorBody, ErrorCode, ExportWrite, ExportWritten,
    FileInfo, FileRead, HelloData, HostSettings, LlmCompletion, LlmRequest, PROTOCOL_VERSION,
    TranscriptRecord, TranscriptRecorded,
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
    pub fn new(id: u64, body: impl Into<RequestBody>) -> Self {
        Self { v: PROTOCOL_VERSION, id, body: body.into() }
    }
}

/// A request payload, tied to the type of data its successful reply carries, so a caller
/// cannot read a reply as anything else.
pub trait HostRequest: Into<RequestBody> {
    /// The request's wire `type`.
    const TYPE: RequestType;
    /// The data of an `ok` reply.
    type Reply: Serialize + DeserializeOwned;
}

/// Declares every request once: its wire name, payload, reply type and the error codes it may
/// answer with. The request enum, the type list announced in `hello`, the [`HostRequest`]
/// impls and the host README's table all come from this one list.
macro_rules! requests {
    ($(
        $(#[doc = $doc:literal])*
        $wire:literal => $variant:ident($payload:ty) -> $reply:ty, errors [$($code:ident),*];
    )*) => {
        /// Every request the host understands, tagged by `type`. Append-only.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "type")]
        pub enum RequestBody {
            $( $(#[doc = $doc])* #[serde(rename = $wire)] $variant($payload), )*
        }

        /// The `type` of a request, without its payload (logs, capability lists).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum RequestType {
            $( $(#[doc = $doc])* #[serde(rename = $wire)] $variant, )*
            /// A type this build does not know (announced by a newer peer).
            #[serde(other)]
            Unknown,
        }

        impl RequestType {
            /// Every request type, in declaration order.
            pub const ALL: &[RequestType] = &[$(RequestType::$variant),*];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Self::$variant => $wire, )*
                    Self::Unknown => "unknown",
                }
            }

            /// What the request is for (its doc comment), for generated documentation.
            pub fn purpose(self) -> &'static str {
                match self {
                    $( Self::$variant => concat!($($doc),*), )*
                    Self::Unknown => "",
                }
            }

            /// The Rust types of the payload and of the reply data.
            pub fn types(self) -> (&'static str, &'static str) {
                match self {
                    $( Self::$variant => (stringify!($payload), stringify!($reply)), )*
                    Self::Unknown => ("", ""),
                }
            }

            /// The error codes this request may answer with, besides the envelope's own
            /// (`bad_json`, `bad_request`, `version_mismatch`, `frame_too_large`,
            /// `reply_too_large`, `internal`).
            pub fn errors(self) -> &'static [ErrorCode] {
                match self {
                    $( Self::$variant => &[$(ErrorCode::$code),*], )*
                    Self::Unknown => &[],
                }
            }
        }

        impl RequestBody {
            /// The type of this request.
            pub fn request_type(&self) -> RequestType {
                match self {
                    $( Self::$variant(_) => RequestType::$variant, )*
                }
            }
        }

        $(
            impl From<$payload> for RequestBody {
                fn from(payload: $payload) -> Self {
                    Self::$variant(payload)
                }
            }

            impl HostRequest for $payload {
                const TYPE: RequestType = RequestType::$variant;
                type Reply = $reply;
            }
        )*
    };
}

requests! {
    /// Version and capability exchange, sent first on every port.
    "hello" => Hello(Hello) -> HelloData, errors [];
    /// Returns its text unchanged; lets tests and `doctor` check the framing.
    "echo" => Echo(Echo) -> Echo, errors [];
    /// One chat completion; `llm.delta` events first when `stream` is set, an `llm.retry`
    /// event before each retry.
    "llm.complete" => LlmComplete(LlmRequest) -> LlmCompletion, errors [
        NotConfigured, LlmUnreachable, LlmAuth, LlmModelNotFound, LlmRateLimited, LlmHttp,
        LlmBadResponse, Cancelled
    ];
    /// Abandons an `llm.complete` still in flight: the host drops the upstream request and
    /// answers the target with a `cancelled` error.
    "llm.cancel" => LlmCancel(LlmCancel) -> LlmCancelled, errors [];
    /// Writes an exported file into the export directory.
    "export.write" => ExportWrite(ExportWrite) -> ExportWritten, errors [ExportFailed];
    /// The host's settings without any secret (keys appear only as "set" flags).
    "config.get" => ConfigGet(ConfigGet) -> HostSettings, errors [];
    /// Changes host settings from the side panel, all or nothing; keys are write-only. A name
    /// or value that does not parse (or a name given twice) is `bad_request`; valid settings
    /// the host cannot use together, or a failed save, `config_invalid`.
    "config.set" => ConfigSet(ConfigSet) -> HostSettings, errors [BadRequest, ConfigInvalid];
    /// Appends events to a session's transcript (when capture is on).
    "transcript.record" => TranscriptRecord(TranscriptRecord) -> TranscriptRecorded,
        errors [TranscriptFailed];
    /// Reads a file under an allowed directory: `file.chunk` events, then the file's info.
    "file.read" => FileRead(FileRead) -> FileInfo, errors [
        NotConfigured, FileRefused, FileTooLarge, FileFailed
    ];
    /// Runs the set-up checks of `waymark-host doctor`.
    "doctor" => Doctor(Doctor) -> DoctorReport, errors [];
    /// Lets external agents (MCP clients) reach this browser through a socket only the user
    /// can open; `bridge.client` and `bridge.call` events follow until the reply, which comes
    /// when the bridge closes (`bridge.close`, or the port goes).
    "bridge.open" => BridgeOpen(BridgeOpen) -> BridgeClosed, errors [BridgeFailed];
    /// The worker's answer to one `bridge.call` event.
    "bridge.answer" => BridgeAnswer(BridgeAnswer) -> BridgeAck, errors [BridgeGone];
    /// How far a long call got (`run_task`); the external agent sees it as MCP progress.
    "bridge.progress" => BridgeProgress(BridgeProgress) -> BridgeAck, errors [BridgeGone];
    /// Ends one external agent's connection (the panel's Disconnect).
    "bridge.disconnect" => BridgeDisconnect(BridgeDisconnect) -> BridgeAck, errors [BridgeGone];
    /// Closes the bridge: every external agent is disconnected and the socket removed.
    "bridge.close" => BridgeClose(BridgeClose) -> BridgeAck, errors [];
}

impl std::fmt::Display for RequestType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Payload of `hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// Version of the extension that connects.
    pub extension_version: String,
}

/// Payload and reply of `echo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Echo {
    /// Any text; the reply carries it back unchanged.
    pub payload: String,
}

/// Payload of `llm.cancel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmCancel {
    /// The id of the `llm.complete` to cancel.
    pub target: u64,
}

/// Reply of `llm.cancel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmCancelled {
    /// Whether the call was still in flight (it then ends with a `cancelled` error reply).
    pub cancelled: bool,
}

/// Payload of `config.get` (nothing to say).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigGet {}

/// Payload of `doctor` (nothing to say).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Doctor {}

/// A frame from the host: either a stream event or the final reply to a request whose data
/// is a `T`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[serde(bound(deserialize = "T: DeserializeOwned"))]
pub enum HostFrame<T> {
    /// Zero or more of these precede a reply.
    Event(EventFrame),
    /// Ends a request.
    Reply(ReplyFrame<T>),
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

impl EventFrame {
    /// An event for request `id` at the current protocol version.
    pub fn new(id: u64, event: HostEvent) -> Self {
        Self { v: PROTOCOL_VERSION, id, event }
    }
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
        /// What kind of failure the previous attempt had (`llm_rate_limited`, …), so the
        /// side panel can say "rate limited" without reading the prose.
        #[serde(default = "other_code")]
        code: ErrorCode,
        /// Why the previous attempt failed, for people.
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
    /// An external agent connected to the bridge, or went away.
    #[serde(rename = "bridge.client")]
    BridgeClient {
        /// The connection's id (for `bridge.disconnect`).
        client: u64,
        /// The MCP client's name from its `initialize` (`Claude Code`).
        name: String,
        /// Connected now (`false`: it went away).
        connected: bool,
    },
    /// An external agent's tool call, for the worker to answer with `bridge.answer`.
    #[serde(rename = "bridge.call")]
    BridgeCall {
        /// The call's id.
        call: u64,
        /// Which client asks.
        client: u64,
        /// What it asks.
        request: BridgeCall,
    },
}

fn other_code() -> ErrorCode {
    ErrorCode::Other
}

/// The final answer to a request whose reply data is a `T`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawReplyFrame<T>")]
#[serde(bound(deserialize = "T: DeserializeOwned"))]
pub struct ReplyFrame<T> {
    /// Protocol version of the host.
    pub v: u32,
    /// The request answered; 0 when the request could not be read at all.
    pub id: u64,
    /// Success with data, or an error.
    #[serde(flatten)]
    pub reply: Reply<T>,
}

impl<T> ReplyFrame<T> {
    /// A success reply carrying `data`.
    pub fn ok(id: u64, data: T) -> Self {
        Self { v: PROTOCOL_VERSION, id, reply: Reply::Ok { ok: True, data } }
    }

    /// An error reply.
    pub fn err(id: u64, code: ErrorCode, message: impl Into<String>) -> Self {
        Self::error(id, ErrorBody::new(code, message))
    }

    /// An error reply with a prepared body (hint included).
    pub fn error(id: u64, error: ErrorBody) -> Self {
        Self { v: PROTOCOL_VERSION, id, reply: Reply::Err { ok: False, error } }
    }

    /// The error, when this reply is one.
    pub fn error_body(&self) -> Option<&ErrorBody> {
        match &self.reply {
            Reply::Ok { .. } => None,
            Reply::Err { error, .. } => Some(error),
        }
    }
}

/// `ok: true` with data, or `ok: false` with an error.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply<T> {
    /// The request succeeded.
    Ok {
        /// Always `true`.
        ok: True,
        /// The request's result.
        data: T,
    },
    /// The request failed.
    Err {
        /// Always `false`.
        ok: False,
        /// What went wrong.
        error: ErrorBody,
    },
}

impl<T> Reply<T> {
    /// The data, or the error.
    pub fn into_result(self) -> Result<T, ErrorBody> {
        match self {
            Self::Ok { data, .. } => Ok(data),
            Self::Err { error, .. } => Err(error),
        }
    }
}

/// How a reply frame is read: `ok` first, then the one field it calls for, so a reply whose
/// data is not a `T` fails with the reason (an untagged enum would only say "no variant").
#[derive(Deserialize)]
struct RawReplyFrame<T> {
    v: u32,
    id: u64,
    ok: bool,
    #[serde(default = "Option::default")]
    data: Option<T>,
    #[serde(default)]
    error: Option<ErrorBody>,
}

impl<T> TryFrom<RawReplyFrame<T>> for ReplyFrame<T> {
    type Error = String;

    fn try_from(raw: RawReplyFrame<T>) -> Result<Self, String> {
        let reply = match (raw.ok, raw.data, raw.error) {
            (true, Some(data), _) => Reply::Ok { ok: True, data },
            (true, None, _) => return Err("an ok reply without data".into()),
            (false, _, Some(error)) => Reply::Err { ok: False, error },
            (false, _, None) => return Err("an error reply without error".into()),
        };
        Ok(Self { v: raw.v, id: raw.id, reply })
    }
}

/// The JSON literal `true`; makes `Reply` serialise with the right `ok`.
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
