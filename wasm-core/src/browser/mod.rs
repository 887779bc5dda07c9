//! Browser adapters (wasm only): thin glue between `chrome.*`/the DOM and the core.
//!
//! * [`worker`] runs in the extension's service worker: the agent, the native port, storage.
//! * The content script (reading the DOM, performing actions) is `waymark_page::content`.
//! * [`chrome`] is the one module that names `chrome.*` APIs.

pub mod chrome;
mod host_port;
mod inject;
pub(crate) mod netguard;
mod tab;
pub(crate) mod upload;
pub mod worker;

pub(crate) use waymark_page::js::{js_error, js_message, named_error};
