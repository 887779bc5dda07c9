//! Waymark's core: everything that decides, compiled natively (tests, benchmarks) and to
//! WebAssembly (the extension's service worker and side panel). The wire types come from
//! `waymark-protocol`, the page model from `waymark-page`.
//!
//! Nothing here names `wasm_bindgen`, `web_sys` or `chrome.*`: the platform comes in through
//! traits (`agent::{Llm, Page, Journal, Env}`, …) that `waymark-worker` implements in the
//! browser and the tests implement with in-memory fakes.

pub use waymark_page::action;
pub use waymark_page::collect;
pub use waymark_page::console;
pub use waymark_page::dialog;
pub mod agent;
pub mod app;
pub mod bridge;
pub mod crash;
pub mod frames;
pub mod host_retry;
pub mod locate;
pub use waymark_page::observation;
pub mod panel;
pub mod platform;
pub mod record;
pub mod routine;
pub use waymark_protocol as protocol;
pub mod safety;
pub mod session;
pub mod tabs;
pub mod text;
pub mod upload;
pub mod workflow;
