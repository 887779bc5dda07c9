//! The release check that a Linux host is fully static: it asks the system for no loader and
//! no shared library, so no distribution's glibc (or its absence) can keep it from starting.

use anyhow::{Context, Result, bail};
use object::elf;
use object::read::elf::{Dyn, ElfFile64, FileHeader, ProgramHeader};
use std::path::Path;

/// Fails, naming what the binary asks for, when `path` has a program interpreter
/// (`PT_INTERP`: the dynamic loader) or needs a shared library (`DT_NEEDED`).
pub fn require_static(path: &Path) -> Result<()> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let needs = dynamic_needs(&data).with_context(|| format!("reading ELF {}", path.display()))?;
    if !needs.is_empty() {
        bail!(
            "{} is not a static binary: it needs {} (a Linux host must start without the \
             system's libc)",
            path.display(),
            needs.join(", ")
        );
    }
    Ok(())
}

/// What a 64-bit ELF file asks the system for at start: its loader and its shared libraries.
fn dynamic_needs(data: &[u8]) -> Result<Vec<String>> {
    let file = ElfFile64::<object::Endianness>::parse(data)?;
    let endian = file.endian();
    let header = file.elf_header();
    let mut needs = Vec::new();
    for segment in header.program_headers(endian, data)? {
        if segment.p_type(endian) == elf::PT_INTERP {
            let loader = segment.interpreter(endian, data)?.unwrap_or_default();
            needs.push(format!("the loader {}", String::from_utf8_lossy(loader)));
        }
        if let Some(entries) = segment.dynamic(endian, data)? {
            let count =
                entries.iter().filter(|entry| entry.tag32(endian) == Some(elf::DT_NEEDED)).count();
            if count > 0 {
                needs
                    .push(format!("{count} shared librar{}", if count == 1 { "y" } else { "ies" }));
            }
        }
    }
    Ok(needs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dynamically_linked_program_is_refused_with_its_loader_named() {
        // The test binary itself is linked against the build machine's glibc.
        let me = std::env::current_exe().expect("current exe");
        let e = require_static(&me).expect_err("dynamic");
        let text = format!("{e:#}");
        assert!(text.contains("the loader") && text.contains("shared librar"), "{text}");
    }

    #[test]
    fn what_is_not_elf_is_an_error_not_a_pass() {
        assert!(dynamic_needs(b"#!/bin/sh\necho hi\n").is_err());
    }
}
