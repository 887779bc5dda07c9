//! `cargo xtask check-js`: the TypeScript compiler type-checks every hand-written script
//! (`checkJs`, no `any` left implicit), then ESLint lints them. Three projects, one per place the
//! scripts run: `extension/jsconfig.json` (the side panel, the worker's and the content script's
//! glue, typed against the declarations `wasm-core/src/panel/types.rs` generates),
//! `page/js/jsconfig.json` (what the content wasm imports: the page's DOM) and
//! `wasm-worker/js/jsconfig.json` (what the worker's wasm imports: Chrome's APIs in a service
//! worker). `cargo xtask test` runs it right after the build, so CI does too.

use crate::util;
use anyhow::{Context, Result, bail};
use std::process::Command;

/// The command that reproduces a failure of this check.
const REPRODUCE: &str = "cargo xtask check-js";

/// The TypeScript projects, relative to the workspace root.
const PROJECTS: [&str; 3] =
    ["extension/jsconfig.json", "page/js/jsconfig.json", "wasm-worker/js/jsconfig.json"];

/// What ESLint reads (`eslint.config.mjs` says which rules and globals apply where).
const LINTED: [&str; 4] = ["extension", "page/js", "wasm-worker/js", "eslint.config.mjs"];

/// Runs `tsc` over each project, then ESLint over every script. Needs a build: `sw.js` and
/// `content.js` import the wasm's exports, typed by the `.d.ts` files wasm-bindgen writes into
/// `extension/pkg*/`.
pub fn run() -> Result<()> {
    let root = util::root();
    let exports = root.join("extension").join("pkg").join("waymark_worker.d.ts");
    if !exports.exists() {
        bail!(
            "{} is missing: the JS check types sw.js's imports of the wasm with it; run \
             `cargo xtask build` first, then `{REPRODUCE}`",
            exports.display()
        );
    }
    for project in PROJECTS {
        let mut tsc = Command::new(util::tsc_bin());
        tsc.arg("--project").arg(root.join(project)).arg("--typeRoots").arg(util::tsc_type_roots());
        util::run(&mut tsc).with_context(|| {
            format!(
                "the scripts of {project} do not type-check (tsc's errors are above; fix them \
                 with JSDoc types); reproduce with `{REPRODUCE}`"
            )
        })?;
    }
    let mut eslint = Command::new(util::eslint_bin());
    eslint
        .current_dir(&root)
        .env("WAYMARK_ESLINT_MODULES", util::eslint_modules())
        .args(["--max-warnings", "0", "--no-warn-ignored"])
        .args(LINTED);
    util::run(&mut eslint).with_context(|| {
        format!(
            "ESLint found problems in the scripts (listed above; the rules are in \
             eslint.config.mjs); reproduce with `{REPRODUCE}`"
        )
    })
}
