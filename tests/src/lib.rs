//! End-to-end test harness for Waymark (crate docs are completed as the harness grows).

pub mod cdp;
pub mod chromium;
pub mod fixture_server;
pub mod llm_server;
pub mod paths;
mod serve;
