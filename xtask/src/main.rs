//! `cargo xtask …`: the only build orchestration of Waymark.
//!
//! * `setup` installs what is missing: the wasm target, the pinned wasm-bindgen-cli, npm
//!   binaryen, Debian Chromium.
//! * `build [--release] [--test-hooks]` builds the worker and content wasm (web + wasm2js), the host and the
//!   unpacked extension in `extension/`; `--test-hooks` adds what the end-to-end tests drive
//!   (waymark-worker's `test-hooks` feature), which `test` and `bench` always add.
//! * `test` = setup + build + JS type check and lint + fmt check + clippy + every test (end-to-end in
//!   real Chromium).
//! * `check-js` = setup + the TypeScript compiler, then ESLint, over every hand-written script
//!   (needs a build; see `checkjs.rs`).
//! * `fuzz [--cases N] [--filter X] [--release]` = only the property tests over hostile text,
//!   N cases each (see `fuzz.rs`); `test` runs them with 256.
//! * `test-windows` = the bridge's named pipe for real: the host's bridge test cross-built for
//!   Windows and run under Wine (see `windows.rs`).
//! * `bench step` = the agent's own overhead per step (see `bench.rs`).
//! * `bench panel` = the side panel's start-up on a 200-task session (see `bench.rs`).
//! * `bench tokens` = tokens per task and session memory (see `bench.rs`).
//! * `bench mcp` = the bridge's overhead on an external agent's read and click (see `bench.rs`).
//! * `bench workflow` = a saved workflow's replay against the live run (see `bench.rs`).
//! * `bench collect` = `collect` on a 10-page listing against a model call per page.
//! * `bench dom` = build + the DOM observation benchmark (BENCHMARKS.md).
//! * `bench sessions`, `bench host`: see their modules.
//! * `eval --suite NAME …` = setup + build + the evaluation harness (see `eval.rs`).
//! * `dist [--sourcemaps] [--skip-hosts]` = the release artifacts in `dist/` (see `dist.rs`).
//! * `run` = setup + build (release) + host install into a dedicated profile + Chromium
//!   with the extension on a demo page.

mod bench;
mod bench_dom;
mod bench_host;
mod bench_sessions;
mod build;
mod checkjs;
mod demo_server;
mod dist;
mod elf;
mod eval;
mod fuzz;
mod libzoo;
mod panel;
mod python;
mod run;
mod setup;
mod util;
mod windows;

use anyhow::{Result, bail};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    match args.first().map(String::as_str) {
        Some("setup") => {
            setup::all(setup::Need { chromium: !flag("--no-chromium"), eval: flag("--eval") })
        }
        Some("build") => {
            setup::all(setup::Need { chromium: false, eval: false })?;
            build::all(build::Options {
                release: flag("--release"),
                test_hooks: flag("--test-hooks"),
            })
            .map(|_| ())
        }
        Some("test") => run::test(),
        Some("check-js") => {
            setup::all(setup::Need { chromium: false, eval: false })?;
            checkjs::run()
        }
        Some("test-windows") => windows::test(),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("bench") if args.get(1).is_some_and(|a| a == "sessions") => bench_sessions::run(),
        Some("bench") if args.get(1).is_some_and(|a| a == "dom") => bench_dom::dom(),
        Some("bench") if args.get(1).is_some_and(|a| a == "host") => bench_host::run(),
        Some("bench") => bench::run(args.get(1).map(String::as_str)),
        Some("dist") => dist::run_dist(&dist::Options {
            sourcemaps: flag("--sourcemaps"),
            skip_hosts: flag("--skip-hosts"),
        }),
        Some("run") => run::run(flag("--headless")),
        Some("eval") => eval::eval(&args[1..]),
        Some("help") | None => {
            println!(
                "usage: cargo xtask <setup [--eval]|build [--release] [--test-hooks]|test|check-js|fuzz [--cases N] [--filter X] [--release]|test-windows|bench <step|panel|tokens|mcp|workflow|collect|dom|sessions|host>|dist [--sourcemaps] [--skip-hosts]|run [--headless]|eval --suite sites,miniwob,widgets,libs [--tasks a,b] [--runs N] [--role-model ROLE=MODEL] [--oracle|--llama|--base-url URL --model M]>"
            );
            Ok(())
        }
        Some(other) => bail!("unknown xtask command `{other}`; try `cargo xtask help`"),
    }
}
