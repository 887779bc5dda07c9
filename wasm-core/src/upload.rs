//! Uploading a task resource into a file input: which attached file a model's `upload` names,
//! and the file's bytes put back together from the host's `file.chunk` events, size-capped.
//!
//! Only files the user attached to the task (name → path) can ever be uploaded: a page that
//! talks the model into "uploading ~/.ssh/id_rsa" gets a refusal here, before the host is asked,
//! and the host adds its own check (only directories allowed in its config).

use base64::Engine;
use std::collections::BTreeMap;
use waymark_protocol::{ErrorBody, ErrorCode, FileInfo};

/// Largest file the agent puts into a page: the bytes cross the service worker, a
/// `chrome.scripting` message and the page's memory as base64, and forms rarely take more.
/// The host has its own, configurable cap (`files.max_bytes`, 25 MiB by default).
pub const MAX_UPLOAD_BYTES: u64 = 10 * 1024 * 1024;

/// Why a resource could not be uploaded; the text is what the model and the user see.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UploadError {
    /// The task has no resources at all.
    #[error(
        "no file is attached to this task, so nothing can be uploaded; ask the user to attach \
         “{requested}” to the task or to choose the file themselves"
    )]
    NothingAttached {
        /// What the model asked for.
        requested: String,
    },
    /// The name is not one of the task's resources.
    #[error(
        "“{requested}” is not a file attached to this task (attached: {attached}); only those \
         can be uploaded"
    )]
    NotAttached {
        /// What the model asked for.
        requested: String,
        /// The names that would work, comma-separated.
        attached: String,
    },
    /// Above [`MAX_UPLOAD_BYTES`] (or the host's cap).
    #[error("“{name}” is too large to upload: {bytes} bytes, above the {max}-byte limit")]
    TooLarge {
        /// The resource.
        name: String,
        /// Its size (so far, when the cap was crossed while reading).
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// The host refused or failed to read the file.
    #[error("the host could not read “{name}” ({code}): {message}")]
    Host {
        /// The resource.
        name: String,
        /// The host's error code (`file_refused`, `file_failed`, …).
        code: ErrorCode,
        /// The host's explanation.
        message: String,
    },
    /// The chunks did not add up (a bug or a host from another release).
    #[error("the host sent “{name}” incompletely: {detail}")]
    Corrupt {
        /// The resource.
        name: String,
        /// What was wrong.
        detail: String,
    },
}

/// The resource the model's `file` names: `(name, path)`.
///
/// Accepted spellings, all within the attached set: the resource's name (exactly, then
/// ignoring case), its path, or its path's file name. Anything else is refused, never guessed.
pub fn resolve_resource<'a>(
    resources: &'a BTreeMap<String, String>,
    requested: &str,
) -> Result<(&'a str, &'a str), UploadError> {
    let wanted = requested.trim();
    if resources.is_empty() {
        return Err(UploadError::NothingAttached { requested: wanted.to_owned() });
    }
    let file_name = |path: &str| path.rsplit(['/', '\\']).next().unwrap_or(path).to_owned();
    let found = resources
        .iter()
        .find(|(name, _)| name.as_str() == wanted)
        .or_else(|| resources.iter().find(|(name, _)| name.eq_ignore_ascii_case(wanted)))
        .or_else(|| resources.iter().find(|(_, path)| path.as_str() == wanted))
        .or_else(|| {
            resources.iter().find(|(_, path)| !wanted.is_empty() && file_name(path) == wanted)
        });
    match found {
        Some((name, path)) => Ok((name.as_str(), path.as_str())),
        None => Err(UploadError::NotAttached {
            requested: wanted.chars().take(200).collect(),
            attached: resources.keys().map(String::as_str).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// A file ready for the content script's `set_file`.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedFile {
    /// File name the page sees.
    pub name: String,
    /// MIME type the page sees.
    pub mime: String,
    /// The bytes, standard base64.
    pub base64: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// Collects `file.chunk` events in order and checks them against the final [`FileInfo`].
#[derive(Debug)]
pub struct FileAssembler {
    name: String,
    max: u64,
    bytes: Vec<u8>,
    next_seq: u32,
    error: Option<UploadError>,
}

impl FileAssembler {
    /// An assembler for resource `name` that refuses more than `max` bytes.
    pub fn new(name: impl Into<String>, max: u64) -> Self {
        Self { name: name.into(), max, bytes: Vec::new(), next_seq: 0, error: None }
    }

    /// Whether a chunk was refused: the rest of the file is not worth waiting for.
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Adds chunk `seq` (base64). After the first error every chunk is ignored.
    pub fn push(&mut self, seq: u32, data: &str) {
        if self.error.is_some() {
            return;
        }
        if seq != self.next_seq {
            self.error = Some(
                self.corrupt(format!("chunk {seq} came where {} was expected", self.next_seq)),
            );
            return;
        }
        let raw = match base64::engine::general_purpose::STANDARD.decode(data) {
            Ok(raw) => raw,
            Err(e) => {
                self.error = Some(self.corrupt(format!("chunk {seq} is not base64: {e}")));
                return;
            }
        };
        let total = self.bytes.len() as u64 + raw.len() as u64;
        if total > self.max {
            self.error = Some(UploadError::TooLarge {
                name: self.name.clone(),
                bytes: total,
                max: self.max,
            });
            self.bytes = Vec::new();
            return;
        }
        self.bytes.extend_from_slice(&raw);
        self.next_seq += 1;
    }

    /// The file, once the host's reply came: its error, or its info checked against the chunks.
    pub fn finish(self, reply: Result<FileInfo, ErrorBody>) -> Result<PreparedFile, UploadError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let info = match reply {
            Ok(info) => info,
            Err(e) => {
                return Err(UploadError::Host {
                    name: self.name,
                    code: e.code,
                    message: e.message,
                });
            }
        };
        if info.bytes > self.max {
            return Err(UploadError::TooLarge {
                name: self.name,
                bytes: info.bytes,
                max: self.max,
            });
        }
        if info.chunks != self.next_seq || info.bytes != self.bytes.len() as u64 {
            let detail = format!(
                "{} chunk(s) and {} bytes announced, {} chunk(s) and {} bytes received",
                info.chunks,
                info.bytes,
                self.next_seq,
                self.bytes.len()
            );
            return Err(UploadError::Corrupt { name: self.name, detail });
        }
        Ok(PreparedFile {
            base64: base64::engine::general_purpose::STANDARD.encode(&self.bytes),
            bytes: info.bytes,
            name: info.name,
            mime: info.media_type,
        })
    }

    fn corrupt(&self, detail: String) -> UploadError {
        UploadError::Corrupt { name: self.name.clone(), detail }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resources() -> BTreeMap<String, String> {
        BTreeMap::from([
            ("cv".to_owned(), "/home/u/uploads/cv.pdf".to_owned()),
            ("notes".to_owned(), "notes.txt".to_owned()),
        ])
    }

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn info(bytes: u64, chunks: u32) -> FileInfo {
        FileInfo {
            path: "/home/u/uploads/notes.txt".into(),
            name: "notes.txt".into(),
            bytes,
            chunks,
            media_type: "text/plain".into(),
        }
    }

    #[test]
    fn only_attached_resources_resolve() {
        let r = resources();
        assert_eq!(resolve_resource(&r, "cv").expect("name"), ("cv", "/home/u/uploads/cv.pdf"));
        assert_eq!(resolve_resource(&r, " CV ").expect("case").0, "cv");
        assert_eq!(resolve_resource(&r, "cv.pdf").expect("file name").0, "cv");
        assert_eq!(resolve_resource(&r, "/home/u/uploads/cv.pdf").expect("path").0, "cv");
        assert_eq!(resolve_resource(&r, "notes.txt").expect("relative path").0, "notes");
        for bad in ["~/.ssh/id_rsa", "/etc/passwd", "uploads/cv.pdf", "", "../cv.pdf"] {
            let e = resolve_resource(&r, bad).expect_err(bad);
            assert!(matches!(e, UploadError::NotAttached { .. }), "{bad}: {e}");
            assert!(e.to_string().contains("attached: cv, notes"), "{e}");
        }
        let e = resolve_resource(&BTreeMap::new(), "cv").expect_err("nothing attached");
        assert!(e.to_string().starts_with("no file is attached"), "{e}");
    }

    #[test]
    fn chunks_are_joined_and_checked_against_the_reply() {
        // Chunks of a length not divisible by 3: their base64 texts cannot simply be joined.
        let mut a = FileAssembler::new("notes", 100);
        a.push(0, &b64(b"hello"));
        a.push(1, &b64(b" waymark"));
        let file = a.finish(Ok(info(13, 2))).expect("file");
        assert_eq!(file.base64, b64(b"hello waymark"));
        assert_eq!(
            (file.name.as_str(), file.mime.as_str(), file.bytes),
            ("notes.txt", "text/plain", 13)
        );

        let mut a = FileAssembler::new("notes", 100);
        a.push(0, &b64(b"hello"));
        let e = a.finish(Ok(info(13, 2))).expect_err("a chunk is missing");
        assert!(matches!(e, UploadError::Corrupt { .. }), "{e}");

        let mut a = FileAssembler::new("notes", 100);
        a.push(1, &b64(b"x"));
        assert!(a.failed());
        let mut a = FileAssembler::new("notes", 100);
        a.push(0, "not base64!");
        assert!(a.failed());
    }

    #[test]
    fn the_size_cap_stops_assembly_with_a_clear_error() {
        let mut a = FileAssembler::new("big", 8);
        a.push(0, &b64(b"12345"));
        assert!(!a.failed());
        a.push(1, &b64(b"6789"));
        assert!(a.failed());
        a.push(2, &b64(b"0"));
        let e = a.finish(Ok(info(10, 3))).expect_err("too large");
        assert_eq!(e, UploadError::TooLarge { name: "big".into(), bytes: 9, max: 8 });
        assert!(e.to_string().contains("above the 8-byte limit"), "{e}");
    }

    #[test]
    fn host_refusals_are_passed_on_with_their_code() {
        let a = FileAssembler::new("cv", 100);
        let refused =
            ErrorBody::new(ErrorCode::FileRefused, "/x/cv.pdf is outside the allowed directories");
        let e = a.finish(Err(refused)).expect_err("refused");
        let text = e.to_string();
        assert!(text.contains("file_refused") && text.contains("outside the allowed"), "{text}");
    }
}
