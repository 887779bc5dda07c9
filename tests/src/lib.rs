//! End-to-end test harness for Waymark (crate docs are completed as the harness grows).

pub mod llm_server;
mod serve;
