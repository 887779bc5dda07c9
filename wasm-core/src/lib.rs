//! Waymark's core: everything that decides, compiled natively (tests, benchmarks) and to
//! WebAssembly (the extension's service worker and side panel). The wire types come from
//! `waymark-protocol`, the page model from `waymark-page`.
//!
//! Nothing here names `wasm_bindgen`, `web_sys` or `chrome.*`: the platform comes in through
//! traits (`platform::{Store, Host, Env, Llm, Panels, Alarms, Tabs}`, `agent::{Page, Journal}`)
//! that `waymark-worker` implements in the browser and the tests implement with in-memory fakes.
//! The modules form no circle: `text`, `platform`, `locate`, `record` and `safety` below,
//! `session`, `workflow`, then `agent`, `bridge`, `routine`, `panel`, and `app` on top.

pub mod agent;
pub mod app;
pub mod bridge;
pub mod crash;
pub mod frames;
pub mod host_retry;
pub mod locate;
pub mod panel;
pub mod platform;
pub mod record;
pub mod routine;
pub mod safety;
pub mod session;
pub mod tabs;
pub mod text;
pub mod upload;
pub mod workflow;
