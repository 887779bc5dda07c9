//! Waymark's end-to-end tests: one binary, one module per area, each test a named trial of the
//! harness in `waymark_tests::trial` (libtest's command line: `-- teach`, `--exact`, `--list`,
//! `--ignored`, `--test-threads`). A test names what it needs (`e2e!(extension, name)`: the
//! built extension, handed to it; `test_hooks`: a build with the test hooks; `chromium`: the
//! browser alone; `plain`: nothing), and the harness checks that before the body runs: a missing
//! build fails naming the command, and a skip the run asked for is reported ignored.
//!
//! A test function not in its module's `trials()` is dead code, which the lints refuse; so is a
//! module's `trials` left out of [`MODULES`]; a file never declared a module is caught by the
//! trial `every_module_file_is_registered`.

use std::process::ExitCode;
use waymark_tests::trial::{self, E2e};

/// `E2e::$kind(stringify!($test), $test)`: a trial named after its function.
macro_rules! e2e {
    ($kind:ident, $test:ident) => {
        waymark_tests::trial::E2e::$kind(stringify!($test), $test)
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

// The tests, one module per area (declared one by one so that rustfmt and clippy see them).
mod agent;
mod agent_bench;
mod attention;
mod clobbered_forms;
mod collect;
mod collect_bench;
mod context_economy;
mod describe;
mod eval_llama;
mod eval_oracle;
mod faults;
mod first_run;
mod harness;
mod hostile;
mod hostile_budget;
mod hostile_effects;
mod hostile_exports;
mod hostile_frames;
mod hostile_handles;
mod hostile_mcp_secrets;
mod hostile_paint;
mod hostile_pinning;
mod hostile_pixels;
mod hostile_secrets;
mod hostile_spellings;
mod hostile_twins;
mod hostile_urls;
mod hostile_variants;
mod install_readme;
mod mcp_bench;
mod mcp_bridge;
mod mcp_collect;
mod mcp_inspect;
mod mcp_run_task;
mod mcp_sdk;
mod network_guard;
mod panel;
mod panel_bench;
mod panel_stream;
mod panics;
mod perception;
mod perception_actions;
mod perception_agent;
mod perception_components;
mod perception_corpus;
mod perception_fields;
mod perception_libzoo;
mod perception_richtext;
mod perception_unseen;
mod perception_unseen3;
mod perception_unseen4a;
mod perception_unseen4b;
mod perception_widgets;
mod pin_bench;
mod prompt_cache;
mod readback;
mod routines;
mod screen_corpus;
mod sessions;
mod skeleton;
mod soak;
mod teach;
mod token_bench;
mod url_differential;
mod waits;
mod workflow_bench;
mod workflows;

/// [`MODULES`]: each module's name and its `trials`.
macro_rules! registered {
    ($($module:ident),* $(,)?) => {
        /// The modules that hold tests, with their trials (a module missing here leaves its
        /// `trials` unused, which the lints refuse).
        const MODULES: &[(&str, fn() -> Vec<E2e>)] = &[$((stringify!($module), $module::trials)),*];
    };
}

registered![
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
    perception_fields,
    perception_libzoo,
    perception_unseen,
    perception_unseen3,
    perception_unseen4a,
    perception_unseen4b,
    perception_richtext,
    perception_widgets,
    pin_bench,
    prompt_cache,
    readback,
    routines,
    screen_corpus,
    sessions,
    skeleton,
    soak,
    teach,
    token_bench,
    url_differential,
    waits,
    workflow_bench,
    workflows,
];

/// Every trial of every module, named `module::test`.
fn all() -> Vec<E2e> {
    let mut trials: Vec<E2e> = MODULES
        .iter()
        .flat_map(|(module, trials)| trials().into_iter().map(|t| t.in_module(module)))
        .collect();
    let canaries = hostile_support::canaries::trials();
    trials.extend(canaries.into_iter().map(|t| t.in_module("hostile_support::canaries")));
    trials.push(E2e::plain("every_module_file_is_registered", every_module_file_is_registered));
    trials
}

fn main() -> ExitCode {
    trial::main(all())
}

/// Every file and folder beside this one is a module of [`MODULES`] or [`SUPPORT`]: a file
/// left out would hold tests that never run.
fn every_module_file_is_registered() {
    let dir = waymark_tests::paths::tests_dir().join("tests").join("e2e");
    let mut unregistered = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the e2e folder") {
        let name = entry.expect("an entry").file_name().to_string_lossy().into_owned();
        let module = name.strip_suffix(".rs").unwrap_or(&name);
        let registered = MODULES.iter().any(|(name, _)| *name == module);
        if module != "main" && !registered && !SUPPORT.contains(&module) {
            unregistered.push(name);
        }
    }
    assert!(unregistered.is_empty(), "not declared in {}/main.rs: {unregistered:?}", dir.display());
}
