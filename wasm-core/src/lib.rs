//! Waymark's core: everything that decides, compiled both natively (tests, the host) and to
//! WebAssembly (the extension's service worker, side panel and content scripts).
//!
//! Only [`browser`] touches `wasm_bindgen`/`web_sys`; it holds adapters, not decisions.

pub mod protocol;

#[cfg(target_arch = "wasm32")]
pub mod browser;
