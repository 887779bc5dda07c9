//! Entry point: host mode when a browser starts us, the command line otherwise.
//!
//! Chrome runs `waymark-host chrome-extension://<id>/` (on Windows maybe followed by
//! `--parent-window=N`), which clap must not see; any other first argument is a subcommand.

use std::process::ExitCode;

use clap::Parser;
use tracing::level_filters::LevelFilter;
use waymark_host::cli::{self, Cli};
use waymark_host::config::Config;
use waymark_host::framing::EndReason;
use waymark_host::host;

fn main() -> ExitCode {
    let first = std::env::args_os().nth(1);
    let host_mode =
        first.as_ref().is_some_and(|a| a.to_string_lossy().starts_with("chrome-extension://"));
    init_tracing(LevelFilter::WARN);
    let result = if host_mode {
        run_host(&first.map(|a| a.to_string_lossy().into_owned()).unwrap_or_default())
    } else {
        cli::run(Cli::parse())
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("waymark-host: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run_host(origin: &str) -> anyhow::Result<ExitCode> {
    tracing::info!(origin, version = waymark_host::HOST_VERSION, "host starting");
    let config = Config::load().map_err(|e| {
        tracing::error!(%e, "configuration is invalid; LLM and export requests will fail");
        format!("{e} (run `waymark-host doctor`)")
    });
    match host::run_stdio(config)? {
        // A truncated frame cannot be re-synchronised, but it is still the browser going away.
        EndReason::Eof | EndReason::Truncated => Ok(ExitCode::SUCCESS),
        EndReason::Io(e) => {
            tracing::warn!(%e, "stdio failed");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Logs go to stderr only (stdout carries frames); `WAYMARK_LOG` sets the level
/// (`error`, `warn`, `info`, `debug`, `trace`; default `warn`).
fn init_tracing(default: LevelFilter) {
    let level = std::env::var("WAYMARK_LOG").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    #[allow(
        clippy::let_underscore_must_use,
        reason = "fails only when a subscriber is set already (tests), which then logs"
    )]
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}
