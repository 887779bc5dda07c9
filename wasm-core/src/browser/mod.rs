//! Browser adapters (wasm only): thin glue between `chrome.*`/the DOM and the core.
//!
//! * [`worker`] runs in the extension's service worker: the agent, the native port, storage.
//! * [`content`] runs in a tab's content script: reads the DOM and performs actions.
//! * [`chrome`] is the one module that names `chrome.*` APIs.

pub mod chrome;
pub(crate) mod chrome_error;
pub mod content;
mod host_port;
mod inject;
pub(crate) mod netguard;
mod tab;
pub(crate) mod upload;
pub mod worker;

mod js;
pub(crate) use js::{js_error, js_message};
