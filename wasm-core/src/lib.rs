//! Waymark's core: everything that decides, compiled both natively (tests, the host) and to
//! WebAssembly (the extension's service worker, side panel and content scripts).
//!
//! Only [`browser`] (wasm only) touches `wasm_bindgen`/`web_sys`; it holds adapters, not
//! decisions.

pub mod action;
pub mod agent;
pub mod frames;
pub mod host_retry;
pub mod observation;
pub mod panel;
pub mod protocol;
pub mod safety;
pub mod session;
pub mod tabs;
pub mod text;
pub mod upload;

#[cfg(target_arch = "wasm32")]
pub mod browser;

// The browser adapter's reading of Chrome's error messages is plain Rust: compiled natively too,
// so its unit tests run under `cargo test` (the rest of `browser` needs wasm).
#[cfg(all(test, not(target_arch = "wasm32")))]
#[path = "browser/chrome_error.rs"]
mod chrome_error;
