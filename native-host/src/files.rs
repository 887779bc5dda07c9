//! `file.read`: upload resources the task names, read only from directories the user allowed
//! in the config, size capped, and sent back in base64 chunks far below the frame cap.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use base64::Engine;
use waymark_protocol::{ErrorCode, FileInfo, MAX_FILE_CHUNK_BYTES};

use crate::config::FilesConfig;

/// Why a file was not returned; each maps to a stable error code.
#[derive(Debug, thiserror::Error)]
pub enum FileReadError {
    /// Outside every allowed directory (or none is configured).
    #[error("{0}")]
    Refused(String),
    /// Above the size cap.
    #[error("{path} is {bytes} bytes, above the {max}-byte limit (files.max_bytes)")]
    TooLarge {
        /// The file.
        path: String,
        /// Its size.
        bytes: u64,
        /// The cap.
        max: u64,
    },
    /// Missing, not a regular file, unreadable.
    #[error("cannot read {path}: {reason}")]
    Failed {
        /// What was asked for.
        path: String,
        /// Why.
        reason: String,
    },
}

impl FileReadError {
    /// The protocol error code for this failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Refused(_) => ErrorCode::FileRefused,
            Self::TooLarge { .. } => ErrorCode::FileTooLarge,
            Self::Failed { .. } => ErrorCode::FileFailed,
        }
    }
}

/// Resolves `requested` to a canonical path inside an allowed directory.
///
/// Absolute paths must canonicalise (symlinks and `..` resolved) to somewhere under an allowed
/// directory; relative paths must be plain (no `..`, no root, no drive prefix) and are looked
/// up in each allowed directory in order.
pub fn resolve(requested: &str, cfg: &FilesConfig) -> Result<PathBuf, FileReadError> {
    let show: String = requested.chars().take(200).collect();
    let allowed: Vec<PathBuf> =
        cfg.allowed_dirs.iter().filter_map(|d| d.canonicalize().ok()).collect();
    if allowed.is_empty() {
        return Err(FileReadError::Refused(
            "no upload directory is allowed; add one to files.allowed_dirs in the host config \
             (`waymark-host config set files.allowed_dirs /path/to/dir`)"
                .into(),
        ));
    }
    let failed = |reason: String| FileReadError::Failed { path: show.clone(), reason };
    let refused =
        || FileReadError::Refused(format!("{show} is outside the allowed directories {allowed:?}"));
    if requested.is_empty() || requested.contains('\0') {
        return Err(refused());
    }
    let req = Path::new(requested);
    let candidates: Vec<PathBuf> = if req.is_absolute() {
        vec![req.to_path_buf()]
    } else if req.components().all(|c| matches!(c, Component::Normal(_)))
        && !requested.contains(':')
        && !requested.contains('\\')
    {
        allowed.iter().map(|d| d.join(req)).collect()
    } else {
        return Err(refused());
    };
    let mut last_err = None;
    for c in candidates {
        match c.canonicalize() {
            Ok(real) if allowed.iter().any(|d| real.starts_with(d)) => return Ok(real),
            Ok(_) => return Err(refused()),
            Err(e) => last_err = Some(e),
        }
    }
    Err(failed(last_err.map_or_else(|| "not found".into(), |e| e.to_string())))
}

/// Reads the file at `requested` and hands each chunk (base64) to `chunk`; returns its info.
pub fn read_chunked(
    requested: &str,
    cfg: &FilesConfig,
    mut chunk: impl FnMut(u32, String),
) -> Result<FileInfo, FileReadError> {
    let path = resolve(requested, cfg)?;
    let shown = path.to_string_lossy().into_owned();
    let failed = |reason: String| FileReadError::Failed { path: shown.clone(), reason };
    let mut file = std::fs::File::open(&path).map_err(|e| failed(e.to_string()))?;
    let meta = file.metadata().map_err(|e| failed(e.to_string()))?;
    if !meta.is_file() {
        return Err(failed("not a regular file".into()));
    }
    if meta.len() > cfg.max_bytes {
        return Err(FileReadError::TooLarge { path: shown, bytes: meta.len(), max: cfg.max_bytes });
    }
    let mut buf = vec![0u8; MAX_FILE_CHUNK_BYTES];
    let (mut seq, mut total) = (0u32, 0u64);
    loop {
        let n = read_full(&mut file, &mut buf).map_err(|e| failed(e.to_string()))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > cfg.max_bytes {
            // The file grew while we read it.
            return Err(FileReadError::TooLarge { path: shown, bytes: total, max: cfg.max_bytes });
        }
        chunk(seq, base64::engine::general_purpose::STANDARD.encode(&buf[..n]));
        seq += 1;
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(FileInfo {
        media_type: media_type(&name).into(),
        path: shown,
        name,
        bytes: total,
        chunks: seq,
    })
}

/// Fills `buf` as far as the file allows (short reads are retried).
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A MIME type from the extension, for the upload field.
pub fn media_type(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "txt" | "log" => "text/plain",
        "md" => "text/markdown",
        "csv" => "text/csv",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "zip" => "application/zip",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
#[allow(
    clippy::string_slice,
    reason = "assertions cut prompts and fixtures at ASCII markers the test itself found"
)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, FilesConfig) {
        let dir = tempfile::tempdir().expect("tempdir");
        let allowed = dir.path().join("uploads");
        std::fs::create_dir_all(allowed.join("sub")).expect("mkdir");
        std::fs::write(allowed.join("cv.pdf"), b"%PDF-1.4 hello").expect("write");
        std::fs::write(allowed.join("sub/big.bin"), vec![7u8; 600 * 1024]).expect("write");
        std::fs::write(dir.path().join("secret.txt"), "no").expect("write");
        let cfg = FilesConfig { allowed_dirs: vec![allowed], max_bytes: 1024 * 1024 };
        (dir, cfg)
    }

    #[test]
    fn reads_in_chunks_under_the_frame_cap() {
        let (_dir, cfg) = setup();
        let mut chunks = Vec::new();
        let info =
            read_chunked("sub/big.bin", &cfg, |seq, data| chunks.push((seq, data))).expect("read");
        assert_eq!(info.bytes, 600 * 1024);
        assert_eq!(info.chunks, 3);
        assert!(chunks.iter().all(|(_, d)| d.len() < 512 * 1024));
        let mut all = Vec::new();
        for (_, d) in &chunks {
            all.extend(base64::engine::general_purpose::STANDARD.decode(d).expect("b64"));
        }
        assert_eq!(all, vec![7u8; 600 * 1024]);
        let info = read_chunked("cv.pdf", &cfg, |_, _| {}).expect("relative");
        assert_eq!((info.name.as_str(), info.media_type.as_str()), ("cv.pdf", "application/pdf"));
    }

    #[test]
    fn traversal_and_foreign_paths_are_refused() {
        let (dir, cfg) = setup();
        let outside = dir.path().join("secret.txt").to_string_lossy().into_owned();
        let dotdot = format!("{}/../secret.txt", cfg.allowed_dirs[0].display());
        let long = "x".repeat(10 * 1024);
        for (p, code) in [
            ("../secret.txt", ErrorCode::FileRefused),
            ("sub/../../secret.txt", ErrorCode::FileRefused),
            (outside.as_str(), ErrorCode::FileRefused),
            (dotdot.as_str(), ErrorCode::FileRefused),
            ("/etc/passwd", ErrorCode::FileRefused),
            ("C:\\x", ErrorCode::FileRefused),
            ("", ErrorCode::FileRefused),
            ("NUL", ErrorCode::FileFailed),
            ("missing.pdf", ErrorCode::FileFailed),
            ("sub", ErrorCode::FileFailed),
            (long.as_str(), ErrorCode::FileFailed),
        ] {
            let err = read_chunked(p, &cfg, |_, _| panic!("no data for {p}")).expect_err(p);
            assert_eq!(err.code(), code, "{}: {err}", &p[..p.len().min(40)]);
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_allowed_dir_are_refused() {
        let (dir, cfg) = setup();
        let link = cfg.allowed_dirs[0].join("link.txt");
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), &link).expect("symlink");
        let err = read_chunked("link.txt", &cfg, |_, _| {}).expect_err("refused");
        assert_eq!(err.code(), ErrorCode::FileRefused);
    }

    #[test]
    fn size_cap_and_no_allowed_dirs() {
        let (_dir, mut cfg) = setup();
        cfg.max_bytes = 100;
        let err = read_chunked("sub/big.bin", &cfg, |_, _| {}).expect_err("too big");
        assert_eq!(err.code(), ErrorCode::FileTooLarge);
        cfg.allowed_dirs.clear();
        let err = read_chunked("cv.pdf", &cfg, |_, _| {}).expect_err("none allowed");
        assert_eq!(err.code(), ErrorCode::FileRefused);
    }
}
