//! Waymark's end-to-end tests: one binary, one module per area, each test a named trial of the
//! harness in `waymark_tests::trial` (libtest's command line: `-- teach`, `--exact`, `--list`,
//! `--ignored`, `--test-threads`). A test names what it needs (`e2e!(extension, name)`: the
//! built extension, handed to it; `test_hooks`: a build with the test hooks; `chromium`: the
//! browser alone; `plain`: nothing), and the harness checks that before the body runs: a missing
//! build fails naming the command, and a skip the run asked for is reported ignored.
//!
//! A test function not in its module's `trials()` is dead code, which the lints refuse; a module
//! not in [`modules!`] below is caught by `harness::every_module_file_is_registered`.

use std::process::ExitCode;
use waymark_tests::trial::{self, E2e};

/// `E2e::$kind(stringify!($test), $test)`: a trial named after its function.
macro_rules! e2e {
    ($kind:ident, $test:ident) => {
        waymark_tests::trial::E2e::$kind(stringify!($test), $test)
    };
}

/// Declares the modules that hold tests, and [`all`] of their trials, named `module::test`.
macro_rules! modules {
    ($($module:ident),* $(,)?) => {
        $(mod $module;)*

        /// The modules that hold tests.
        const MODULES: &[&str] = &[$(stringify!($module)),*];

        /// Every trial of every module.
        fn all() -> Vec<E2e> {
            let mut trials = Vec::new();
            $(trials.extend($module::trials().into_iter().map(|t| t.in_module(stringify!($module))));)*
            trials
        }
    };
}

// Shared set-up, not tests.
mod common;
#[macro_use]
mod hostile_support;
mod mcp_support;
mod perception_support;
mod soak_support;

/// The modules above that hold no tests.
const SUPPORT: &[&str] =
    &["common", "hostile_support", "mcp_support", "perception_support", "soak_support"];

modules![
    agent,
    agent_bench,
    attention,
    clobbered_forms,
    collect,
    collect_bench,
    context_economy,
    describe,
    eval_llama,
    eval_oracle,
    faults,
    first_run,
    harness,
    hostile,
    hostile_budget,
    hostile_effects,
    hostile_exports,
    hostile_frames,
    hostile_handles,
    hostile_mcp_secrets,
    hostile_paint,
    hostile_pinning,
    hostile_pixels,
    hostile_secrets,
    hostile_spellings,
    hostile_twins,
    hostile_urls,
    hostile_variants,
    install_readme,
    mcp_bench,
    mcp_bridge,
    mcp_collect,
    mcp_inspect,
    mcp_run_task,
    mcp_sdk,
    network_guard,
    panel,
    panel_bench,
    panel_stream,
    panics,
    perception,
    perception_actions,
    perception_agent,
    perception_components,
    perception_corpus,
    perception_libzoo,
    perception_richtext,
    perception_widgets,
    pin_bench,
    prompt_cache,
    routines,
    screen_corpus,
    sessions,
    skeleton,
    soak,
    teach,
    token_bench,
    url_differential,
    workflow_bench,
    workflows,
];

fn main() -> ExitCode {
    let mut trials = all();
    let canaries = hostile_support::canaries::trials();
    trials.extend(canaries.into_iter().map(|t| t.in_module("hostile_support::canaries")));
    trials.push(E2e::plain("every_module_file_is_registered", every_module_file_is_registered));
    trial::main(trials)
}

/// Every file and folder beside this one is a module of [`modules!`] or [`SUPPORT`]: a file
/// left out would hold tests that never run.
fn every_module_file_is_registered() {
    let dir = waymark_tests::paths::tests_dir().join("tests").join("e2e");
    let mut unregistered = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the e2e folder") {
        let name = entry.expect("an entry").file_name().to_string_lossy().into_owned();
        let module = name.strip_suffix(".rs").unwrap_or(&name);
        if module != "main" && !MODULES.contains(&module) && !SUPPORT.contains(&module) {
            unregistered.push(name);
        }
    }
    assert!(unregistered.is_empty(), "not declared in {}/main.rs: {unregistered:?}", dir.display());
}
