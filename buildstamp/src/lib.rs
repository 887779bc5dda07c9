//! The hash of the sources a build of the extension and the host is made from.
//!
//! Why: `cargo xtask build` writes it into the build marker and the end-to-end tests compare it
//! with the tree they run in, so a test never passes against an extension built from other
//! sources (an edit followed by `cargo test` without a rebuild fails, naming the command).
//! Both sides call this one function; neither spells the list of inputs.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Files and folders (relative to the workspace root) whose contents go into a build. Tests,
/// benchmarks and the build tool itself are left out: editing them does not change what runs.
pub const INPUTS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "protocol",
    "page",
    "wasm-core",
    "wasm-worker",
    "wasm-content",
    "native-host",
    "extension",
    "manifest",
];

/// Folder names never read: build outputs inside the inputs (the extension's generated
/// `pkg*` folders, a crate's own `target`, installed npm packages).
fn skipped(name: &str) -> bool {
    name == "target" || name == "node_modules" || name.starts_with("pkg")
}

/// Why the sources could not be hashed.
#[derive(Debug, thiserror::Error)]
#[error("reading {} for the build's source hash: {source}", path.display())]
pub struct StampError {
    /// The file or folder that could not be read.
    pub path: PathBuf,
    /// What the file system said.
    pub source: std::io::Error,
}

/// The hex SHA-256 over every input file's relative path and contents, in path order. A
/// missing input (a trimmed checkout) counts as empty rather than failing.
pub fn source_hash(root: &Path) -> Result<String, StampError> {
    let mut files = Vec::new();
    for input in INPUTS {
        collect(&root.join(input), &mut files)?;
    }
    files.sort();
    let mut hasher = Sha256::new();
    for file in &files {
        let rel = file.strip_prefix(root).unwrap_or(file);
        let bytes =
            std::fs::read(file).map_err(|source| StampError { path: file.clone(), source })?;
        // Lengths first: no two different trees give the same byte stream.
        let name = rel.to_string_lossy();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Adds `path` (a file, or every file below a folder) to `files`.
fn collect(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), StampError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(StampError { path: path.to_path_buf(), source }),
    };
    if meta.is_file() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    if !meta.is_dir() {
        return Ok(());
    }
    let entries = std::fs::read_dir(path)
        .map_err(|source| StampError { path: path.to_path_buf(), source })?;
    for entry in entries {
        let entry = entry.map_err(|source| StampError { path: path.to_path_buf(), source })?;
        let child = entry.path();
        let name = entry.file_name();
        if child.is_dir() && skipped(&name.to_string_lossy()) {
            continue;
        }
        collect(&child, files)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn an_edit_to_a_source_changes_the_hash_and_an_output_does_not() {
        let dir = tempfile::tempdir().expect("dir");
        let root = dir.path();
        write(root, "page/src/lib.rs", "fn a() {}");
        write(root, "extension/sw.js", "import x;");
        let first = source_hash(root).expect("hash");
        assert_eq!(first.len(), 64);
        assert_eq!(source_hash(root).expect("again"), first, "stable");

        write(root, "extension/pkg/waymark_worker_bg.wasm", "built");
        write(root, "wasm-core/target/debug/x", "built");
        write(root, "tests/tests/new.rs", "a test");
        assert_eq!(source_hash(root).expect("outputs"), first, "outputs and tests are not inputs");

        write(root, "page/src/lib.rs", "fn b() {}");
        let edited = source_hash(root).expect("edited");
        assert_ne!(edited, first, "a source edit");

        // The scripts the wasm crates import (`#[wasm_bindgen(module)]`) are sources too.
        write(root, "page/js/facts.js", "export function f() {}");
        assert_ne!(source_hash(root).expect("page js"), edited, "a content script import");
        let with_page_js = source_hash(root).expect("again");
        write(root, "wasm-worker/js/chrome.js", "export function g() {}");
        assert_ne!(source_hash(root).expect("worker js"), with_page_js, "a worker import");
    }

    #[test]
    fn moving_bytes_between_files_changes_the_hash() {
        let one = tempfile::tempdir().expect("dir");
        write(one.path(), "page/a", "xy");
        write(one.path(), "page/b", "");
        let two = tempfile::tempdir().expect("dir");
        write(two.path(), "page/a", "x");
        write(two.path(), "page/b", "y");
        assert_ne!(source_hash(one.path()).expect("one"), source_hash(two.path()).expect("two"));
    }
}
