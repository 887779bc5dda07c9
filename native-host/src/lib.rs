//! `waymark-host`: the native-messaging host of Waymark.
//!
//! It is the only part of Waymark that holds secrets, talks to the network and writes files:
//! the extension sends framed JSON requests over stdio ([`host`]), the host calls the configured
//! LLM endpoint ([`llm`]), writes exports ([`export`]) and, from the command line, installs its
//! browser manifest ([`install`]) and checks the whole set-up ([`doctor`]).
//!
//! The crate is a library plus a thin `main.rs` so the pieces are unit-tested and benchmarked
//! without spawning a process.

pub mod bridge;
pub mod cli;
pub mod config;
pub mod dispatch;
pub mod doctor;
pub mod doctor_bridge;
pub mod export;
pub mod files;
pub mod framing;
#[cfg(test)]
mod fuzz_tests;
pub mod host;
pub mod install;
pub mod llm;
pub mod mcp;
pub mod settings;
pub mod transcript;

/// Version of this host, reported by `hello` and `--version`.
pub const HOST_VERSION: &str = env!("CARGO_PKG_VERSION");
