//! `cargo xtask check-js`: the TypeScript compiler type-checks the extension's hand-written JS
//! (`checkJs`; the settings and the files are in `extension/jsconfig.json`). `cargo xtask test`
//! runs it right after the build, so CI does too.

use crate::util;
use anyhow::{Context, Result, bail};
use std::process::Command;

/// The command that reproduces a failure of this check.
const REPRODUCE: &str = "cargo xtask check-js";

/// Runs `tsc` over the extension's JS. Needs a build: `sw.js` imports the service worker's wasm
/// exports, typed by the `.d.ts` wasm-bindgen writes into `extension/pkg/`.
pub fn run() -> Result<()> {
    let extension = util::root().join("extension");
    let exports = extension.join("pkg").join("waymark_worker.d.ts");
    if !exports.exists() {
        bail!(
            "{} is missing: the JS check types sw.js's imports of the wasm with it; run \
             `cargo xtask build` first, then `{REPRODUCE}`",
            exports.display()
        );
    }
    let mut tsc = Command::new(util::tsc_bin());
    tsc.arg("--project")
        .arg(extension.join("jsconfig.json"))
        .arg("--typeRoots")
        .arg(util::tsc_type_roots());
    util::run(&mut tsc).with_context(|| {
        format!(
            "the extension's JS does not type-check (tsc's errors are above; fix them with \
             JSDoc types, see extension/jsconfig.json); reproduce with `{REPRODUCE}`"
        )
    })
}
