//! The service worker's and side panel's wasm: thin adapters between `chrome.*` and the core
//! (`waymark-core`), which decides everything. Only the reading of Chrome's error wording and
//! the exports' error kinds are plain Rust (tested natively); the rest is wasm only.
//!
//! * `worker` runs in the extension's service worker: the agent, the native port, storage.
//! * The content script (reading the DOM, performing actions) is `waymark_page::content`.
//! * `chrome` is the one module that names `chrome.*` APIs.

pub mod chrome_error;
// Which documents a content-script request goes to, and what their answers mean.
pub mod frames;
pub mod glue;

#[cfg(target_arch = "wasm32")]
pub mod chrome;
#[cfg(target_arch = "wasm32")]
mod content_port;
#[cfg(target_arch = "wasm32")]
mod host_port;
#[cfg(target_arch = "wasm32")]
mod inject;
#[cfg(target_arch = "wasm32")]
pub(crate) mod netguard;
// Pins an approved request's body during its redo (chrome.debugger + CDP Fetch).
#[cfg(target_arch = "wasm32")]
pub(crate) mod pin;
#[cfg(target_arch = "wasm32")]
mod request_log;
// Routines' alarms.
#[cfg(target_arch = "wasm32")]
mod alarms;
#[cfg(target_arch = "wasm32")]
mod tab;
#[cfg(target_arch = "wasm32")]
pub(crate) mod upload;
#[cfg(target_arch = "wasm32")]
pub mod worker;

#[cfg(target_arch = "wasm32")]
pub(crate) use waymark_page::js::{js_error, js_message};
