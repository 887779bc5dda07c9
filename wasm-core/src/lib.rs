//! Waymark's core: everything that decides, compiled both natively (tests, the host) and to
//! WebAssembly (the extension's service worker, side panel and content scripts).
//!
//! Only [`browser`] (wasm only) touches `wasm_bindgen`/`web_sys`; it holds adapters, not
//! decisions.

pub use waymark_page::action;
pub mod agent;
pub mod frames;
pub mod glue;
pub mod host_retry;
pub use waymark_page::observation;
pub mod panel;
pub use waymark_protocol as protocol;
pub mod safety;
pub mod session;
pub mod tabs;
pub mod text;
pub mod upload;

#[cfg(target_arch = "wasm32")]
pub mod browser;
