//! `file.read`: an upload resource the task names, read by the host from an allowed directory.

use serde::{Deserialize, Serialize};

/// Raw bytes per `file.chunk` event: 256 KiB, about 342 KiB once base64-encoded, far below
/// the 1 MiB host-to-browser frame cap.
pub const MAX_FILE_CHUNK_BYTES: usize = 256 * 1024;

/// Payload of `file.read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRead {
    /// Absolute path, or a path relative to the first allowed directory that holds it.
    pub path: String,
}

/// Data of a successful `file.read` reply, sent after every `file.chunk` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileInfo {
    /// The resolved absolute path that was read.
    pub path: String,
    /// The file name alone, for an upload field.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// How many `file.chunk` events carried the content.
    pub chunks: u32,
    /// MIME type guessed from the extension (`application/octet-stream` when unknown).
    pub media_type: String,
}
