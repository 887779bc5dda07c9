//! Transcript capture: one JSON line per event under `<data dir>/sessions/<session_id>.jsonl`.
//!
//! Events are redacted ([`redact`]) before they are buffered, buffered per session, and
//! written at least every `flush_every` events, every couple of seconds, at a session's end
//! and when the host exits. Each flush is a single `write_all` of whole lines on a file
//! opened with `O_APPEND` while holding an exclusive advisory lock, so two host processes (a
//! killed service worker can leave one behind) never interleave partial lines. Files are
//! created with mode 0600; files untouched for `retention_days` are pruned.

pub mod read;
pub mod redact;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use waymark_protocol::TranscriptEvent;

use crate::config::TranscriptConfig;
use redact::Redactor;

/// Longest tool output kept, in characters; the rest is replaced by a marker.
pub const MAX_TOOL_OUTPUT_CHARS: usize = 2000;
/// Longest session id accepted.
pub const MAX_SESSION_ID: usize = 128;

/// Why a transcript could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// The id would not make a safe file name.
    #[error("invalid session id {0:?}: use 1-128 of A-Z a-z 0-9 _ -")]
    BadSessionId(String),
    /// The session has no transcript.
    #[error("no transcript for session {0}")]
    NotFound(String),
    /// File system failure.
    #[error("transcript I/O on {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Checks that `id` is a safe single file-name component.
pub fn check_session_id(id: &str) -> Result<(), TranscriptError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_SESSION_ID
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok { Ok(()) } else { Err(TranscriptError::BadSessionId(id.chars().take(40).collect())) }
}

/// Path of a session's transcript inside `dir`.
pub fn session_path(dir: &Path, id: &str) -> Result<PathBuf, TranscriptError> {
    check_session_id(id)?;
    Ok(dir.join(format!("{id}.jsonl")))
}

/// The host's buffered transcript writer.
#[derive(Debug)]
pub struct TranscriptStore {
    cfg: TranscriptConfig,
    redactor: Redactor,
    buffers: HashMap<String, Vec<String>>,
    pending: usize,
    pruned: bool,
}

impl TranscriptStore {
    /// A store for `cfg` (nothing touches the disk until the first event).
    pub fn new(cfg: TranscriptConfig) -> Self {
        let redactor = Redactor::new(cfg.redact.iter().cloned());
        Self { cfg, redactor, buffers: HashMap::new(), pending: 0, pruned: false }
    }

    /// Whether capture is on.
    pub fn enabled(&self) -> bool {
        self.cfg.enabled
    }

    /// Redacts and buffers `events`; flushes when enough are pending or a session ended.
    /// Returns how many events were accepted (0 when capture is off).
    pub fn record(
        &mut self,
        session_id: &str,
        events: Vec<TranscriptEvent>,
    ) -> Result<u32, TranscriptError> {
        check_session_id(session_id)?;
        if !self.cfg.enabled {
            return Ok(0);
        }
        if !self.pruned {
            self.pruned = true;
            if let Err(e) = prune(&self.cfg.dir, self.cfg.retention_days, SystemTime::now()) {
                tracing::warn!(%e, "pruning old transcripts failed");
            }
        }
        let mut ended = false;
        let mut accepted = 0u32;
        for event in events {
            ended |= matches!(event, TranscriptEvent::SessionEnd { .. });
            let line = self.line(session_id, event);
            self.buffers.entry(session_id.to_owned()).or_default().push(line);
            self.pending += 1;
            accepted += 1;
        }
        if ended || self.pending >= self.cfg.flush_every as usize {
            self.flush()?;
        }
        Ok(accepted)
    }

    /// Writes every buffered line. Lines stay buffered for a session whose write failed.
    pub fn flush(&mut self) -> Result<(), TranscriptError> {
        let mut first_err = None;
        for (id, lines) in std::mem::take(&mut self.buffers) {
            if lines.is_empty() {
                continue;
            }
            match append_lines(&self.cfg.dir, &id, &lines) {
                Ok(()) => self.pending -= lines.len(),
                Err(e) => {
                    tracing::warn!(%e, "transcript write failed");
                    self.buffers.insert(id, lines);
                    first_err.get_or_insert(e);
                }
            }
        }
        first_err.map_or(Ok(()), Err)
    }

    /// Whether any line waits to be written.
    pub fn has_pending(&self) -> bool {
        self.pending > 0
    }

    fn line(&self, session_id: &str, event: TranscriptEvent) -> String {
        let mut event = event;
        if let TranscriptEvent::Tool { output, .. } = &mut event {
            truncate_chars(output, MAX_TOOL_OUTPUT_CHARS);
        }
        let mut v = serde_json::to_value(&event).unwrap_or(Value::Null);
        self.redactor.value(&mut v);
        let mut line = json!({
            "ts": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "session_id": session_id,
        });
        if let (Some(obj), Value::Object(fields)) = (line.as_object_mut(), v) {
            obj.extend(fields);
        }
        if let (Some(obj), true) =
            (line.as_object_mut(), matches!(event, TranscriptEvent::SessionEnd { .. }))
        {
            obj.insert("host_version".into(), json!(crate::HOST_VERSION));
        }
        line.to_string()
    }
}

impl Drop for TranscriptStore {
    fn drop(&mut self) {
        if self.has_pending()
            && let Err(e) = self.flush()
        {
            tracing::warn!(error = %e, "transcript lines lost as the host stops");
        }
    }
}

/// Cuts `s` to `max` characters, noting how much was dropped.
fn truncate_chars(s: &mut String, max: usize) {
    if let Some((cut, _)) = s.char_indices().nth(max) {
        let dropped = s.get(cut..).map_or(0, |rest| rest.chars().count());
        s.truncate(cut);
        s.push_str(&format!("… [{dropped} more characters]"));
    }
}

/// Appends whole lines under an exclusive lock; a new file first gets a `session_start`
/// metadata line unless the extension's own start event comes first.
fn append_lines(dir: &Path, id: &str, lines: &[String]) -> Result<(), TranscriptError> {
    let path = session_path(dir, id)?;
    let io = |source| TranscriptError::Io { path: path.clone(), source };
    create_private_dir(dir).map_err(|source| TranscriptError::Io { path: dir.into(), source })?;
    let file = open_append(&path).map_err(io)?;
    file.lock().map_err(io)?;
    let result = (|| {
        let mut buf = String::new();
        let is_new = file.metadata()?.len() == 0;
        let starts_itself = lines.first().is_some_and(|l| l.contains(r#""kind":"session_start""#));
        if is_new && !starts_itself {
            let meta = json!({
                "ts": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                "session_id": id,
                "kind": "session_start",
                "meta": {"host_version": crate::HOST_VERSION, "note": "opened by the host"},
            });
            buf.push_str(&meta.to_string());
            buf.push('\n');
        }
        for l in lines {
            buf.push_str(l);
            buf.push('\n');
        }
        let mut f = &file;
        f.write_all(buf.as_bytes())?;
        f.flush()
    })();
    if let Err(e) = file.unlock() {
        // Closing the file releases the lock anyway.
        tracing::debug!(error = %e, "transcript unlock failed");
    }
    result.map_err(io)
}

#[cfg(unix)]
fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().append(true).create(true).mode(0o600).open(path)
}

#[cfg(not(unix))]
fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new().append(true).create(true).open(path)
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Deletes transcripts last modified more than `days` days before `now`; 0 keeps all.
/// Returns the ids removed.
pub fn prune(dir: &Path, days: u32, now: SystemTime) -> Result<Vec<String>, TranscriptError> {
    if days == 0 {
        return Ok(Vec::new());
    }
    let io = |source| TranscriptError::Io { path: dir.to_path_buf(), source };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(e)),
    };
    let max_age = Duration::from_secs(u64::from(days) * 86_400);
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".jsonl") else { continue };
        if check_session_id(id).is_err() {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > max_age);
        if old && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(id.to_owned());
        }
    }
    removed.sort();
    Ok(removed)
}

#[cfg(test)]
mod tests;
