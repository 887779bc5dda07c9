//! `export.write`: atomic, never-overwriting writes into the export directory.

pub mod name;

use std::io::Write;
use std::path::{Path, PathBuf};

use waymark_protocol::{ExportWrite, ExportWritten};

/// Most numbered variants tried before giving up (`name-1` … `name-999`).
const MAX_COLLISIONS: u32 = 1000;

/// Why an export could not be written; the message goes to the user as `export_failed`.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Creating, writing, syncing or renaming failed.
    #[error("cannot write export in {dir}: {source}")]
    Io {
        /// The export directory.
        dir: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Every candidate name was taken.
    #[error("too many files named {stem}.* in {dir}; move or delete some")]
    NoFreeName {
        /// The export directory.
        dir: PathBuf,
        /// The stem that kept colliding.
        stem: String,
    },
}

/// Writes `req.content` into `dir` under a name derived from the hint and returns where.
///
/// The content goes to a temporary file in the same directory, is synced, and is then linked
/// in place without replacing anything (`persist_noclobber`), so a reader never sees a partial
/// file and an existing export is never overwritten.
pub fn write_export(dir: &Path, req: &ExportWrite) -> Result<ExportWritten, ExportError> {
    let io = |source| ExportError::Io { dir: dir.to_path_buf(), source };
    std::fs::create_dir_all(dir).map_err(io)?;
    let dir = dir.canonicalize().map_err(io)?;
    let io = |source| ExportError::Io { dir: dir.clone(), source };

    let ext = req.format.extension();
    let stem = req
        .name_hint
        .as_deref()
        .and_then(|h| name::sanitize_stem(h, ext))
        .unwrap_or_else(|| name::default_stem(chrono::Local::now()));

    let mut tmp = tempfile::Builder::new()
        .prefix(".waymark-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(io)?;
    tmp.write_all(req.content.as_bytes()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;

    for n in 0..MAX_COLLISIONS {
        let path = dir.join(name::candidate(&stem, ext, n));
        match tmp.persist_noclobber(&path) {
            Ok(_) => {
                sync_dir(&dir);
                return Ok(ExportWritten {
                    path: path.to_string_lossy().into_owned(),
                    bytes: req.content.len() as u64,
                });
            }
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => tmp = e.file,
            Err(e) => return Err(io(e.error)),
        }
    }
    Err(ExportError::NoFreeName { dir, stem })
}

/// Makes the rename durable; best effort (not every file system supports it).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        #[allow(
            clippy::let_underscore_must_use,
            reason = "best effort: not every file system syncs a directory"
        )]
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;
    use waymark_protocol::ExportFormat;

    fn req(hint: Option<&str>, content: &str) -> ExportWrite {
        ExportWrite {
            name_hint: hint.map(str::to_owned),
            format: ExportFormat::Md,
            content: content.into(),
        }
    }

    #[test]
    fn writes_and_never_overwrites() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = write_export(dir.path(), &req(Some("trip"), "one")).expect("first");
        let b = write_export(dir.path(), &req(Some("trip"), "two")).expect("second");
        let c = write_export(dir.path(), &req(Some("trip.md"), "three")).expect("third");
        assert!(a.path.ends_with("trip.md"));
        assert!(b.path.ends_with("trip-1.md"));
        assert!(c.path.ends_with("trip-2.md"));
        assert_eq!(std::fs::read_to_string(&a.path).expect("read"), "one");
        assert_eq!(std::fs::read_to_string(&b.path).expect("read"), "two");
        assert_eq!(b.bytes, 3);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn hostile_hints_land_inside_the_dir() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canon");
        let long = "x".repeat(10 * 1024);
        for hint in ["../x", "/etc/passwd", "C:\\x", "NUL", long.as_str(), "", "..", "a/../../b"] {
            let w = write_export(dir.path(), &req(Some(hint), "c")).expect("write");
            let p = PathBuf::from(&w.path);
            assert_eq!(p.parent(), Some(root.as_path()), "{hint:?} -> {}", w.path);
            assert!(p.file_name().is_some_and(|n| n.len() < 100));
        }
        assert!(!dir.path().parent().expect("parent").join("x.md").exists());
    }

    #[test]
    fn missing_hint_uses_the_session_default_and_jsonl_extension() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut r = req(None, "{}\n");
        r.format = ExportFormat::Jsonl;
        let w = write_export(&dir.path().join("new"), &r).expect("write");
        let name = Path::new(&w.path).file_name().expect("name").to_string_lossy().into_owned();
        assert!(name.starts_with("browse-session-") && name.ends_with(".jsonl"), "{name}");
    }

    #[cfg(unix)]
    #[test]
    fn unwritable_dir_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("file");
        std::fs::write(&file, "x").expect("write");
        let err = write_export(&file.join("sub"), &req(Some("a"), "b")).expect_err("must fail");
        assert!(err.to_string().contains("cannot write export"));
    }
}
