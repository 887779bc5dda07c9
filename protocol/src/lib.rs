//! The wire protocol between the extension and the native host.
//!
//! This crate is the one definition of every message: the service worker (compiled to wasm)
//! and `waymark-host` (native) both use these types, so the two sides cannot drift apart.
//! Frames carry UTF-8 JSON; the envelope is:
//!
//! * request: `{"v":1,"id":7,"type":"llm.complete", …payload}`
//! * reply: `{"v":1,"id":7,"ok":true,"data":{…}}` or
//!   `{"v":1,"id":7,"ok":false,"error":{"code":"llm_unreachable","message":"…"}}`
//! * stream event: `{"v":1,"id":7,"event":"llm.delta","text":"…"}` (zero or more before the reply)

/// Declares a fieldless enum and `ALL`, the list of its variants in order, from one list (so
/// the list cannot miss one): the keys of the bridge's and the actions' tables.
#[macro_export]
macro_rules! with_all {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$doc:meta])* $variant:ident,)* }) => {
        $(#[$meta])*
        pub enum $name {
            $($(#[$doc])* $variant,)*
        }

        impl $name {
            /// Every variant, in order.
            pub const ALL: &'static [$name] = &[$(Self::$variant,)*];
        }
    };
}

mod bridge;
mod doctor;
mod envelope;
mod error;
mod export;
mod file;
mod llm;
mod settings;
mod table;
mod transcript;
mod version;

pub use bridge::{
    BridgeAck, BridgeAnswer, BridgeCall, BridgeClose, BridgeClosed, BridgeColumn, BridgeDisconnect,
    BridgeFailure, BridgeFailureKind, BridgeImage, BridgeOpen, BridgeOutput, BridgeProgress,
    BridgeResult, BridgeTab, BridgeTaskReport, BridgeTaskStatus, BridgeTool, ConsoleLevel,
    MAX_BRIDGE_TEXT, ScrollWay,
};
pub use doctor::{DoctorCheck, DoctorReport};
pub use envelope::{
    ConfigGet, Doctor, Echo, EventFrame, Hello, HostEvent, HostFrame, HostRequest, LlmCancel,
    LlmCancelled, Reply, ReplyFrame, Request, RequestBody, RequestType,
};
pub use error::{ErrorBody, ErrorCode};
pub use export::{ExportFormat, ExportWrite, ExportWritten, TrackedValues};
pub use file::{FileInfo, FileRead, MAX_FILE_CHUNK_BYTES};
pub use llm::{
    CallCost, ChatMessage, ChatRole, ImageInput, LlmCompletion, LlmRequest, LlmRole, MaxTokens,
    MaxTokensOutOfRange, TokenUsage, ToolCall, ToolSpec, UnknownRole,
};
pub use settings::{
    ConfigSet, EndpointField, EndpointValue, HostSettings, ModelPrice, PriceSide, PriceSource,
    Provider, Setting, SettingError, SettingKey, TranscriptSettings,
};
pub use table::{Table, TableEnd, TableRow};
pub use transcript::{TranscriptEvent, TranscriptRecord, TranscriptRecorded};
pub use version::{Compatibility, Release, compatibility};

/// Protocol version carried in every frame; bumped only on incompatible changes.
pub const PROTOCOL_VERSION: u32 = 1;

/// Name under which the host registers with the browser (`chrome.runtime.connectNative`).
pub const HOST_NAME: &str = "com.waymark.host";

/// The extension's fixed ID, derived from the `key` in `extension/manifest.json`.
pub const EXTENSION_ID: &str = "ogjdpjphojlionhjhkgahnohakjimaoo";

/// Largest frame the host may send to the browser (Chrome closes the port above 1 MiB).
pub const MAX_HOST_TO_BROWSER: usize = 1024 * 1024;

/// Largest frame the browser may send to the host.
pub const MAX_BROWSER_TO_HOST: usize = 64 * 1024 * 1024;

/// Streamed text deltas are cut to at most this many bytes so a frame stays far below the cap.
pub const MAX_DELTA_BYTES: usize = 16 * 1024;

/// Host capabilities announced in the `hello` reply.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HelloData {
    /// `waymark-host` crate version.
    pub host_version: String,
    /// Protocol version the host speaks.
    pub protocol: u32,
    /// Request types the host understands (types from a newer host read as `Unknown`).
    pub capabilities: Vec<RequestType>,
    /// Whether an LLM endpoint is configured, and which, without secrets.
    pub llm: LlmStatus,
    /// Configuration problems the side panel should show (empty when all is well).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// What the host knows about its LLM configuration (never the key itself).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LlmStatus {
    /// Wire format of the endpoint (`openai` today).
    pub provider: String,
    /// Base URL of the endpoint, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Model name sent with each request.
    pub model: String,
    /// Whether an API key is set (its value never leaves the host).
    pub has_key: bool,
    /// The user's limit on one reply's tokens, when set (`None`: each role's own default);
    /// absent from older hosts.
    #[serde(default)]
    pub max_tokens: Option<MaxTokens>,
}

#[cfg(test)]
mod tests;
