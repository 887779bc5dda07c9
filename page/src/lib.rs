//! The page: what Waymark sees of a tab and what it can do there.
//!
//! * [`observation`] and [`action`]: the observation model the agent reads and the actions it
//!   asks for, with the requests the service worker sends a frame's content script. Target-
//!   independent, so the core's agent and tests use them natively.
//! * [`target`] and [`visibility`]: the facts the safety policy judges about the live element,
//!   and the one definition of "a person can see this".
//! * [`error`]: the page's errors by kind, and [`log`]: `tracing` to the console, both shared
//!   by the content script and the worker.
//! * `content` (feature `content-script`, wasm only): the content script itself, which walks
//!   the DOM and performs actions inside one frame. Only `wasm-content` turns it on, so the
//!   service worker's wasm never carries the page-reading code.

pub mod act_error;
pub mod action;
pub mod collect;
pub mod console;
pub mod demonstration;
pub mod dialog;
pub mod error;
pub mod formats;
pub mod log;
pub mod observation;
pub mod target;
pub mod visibility;

#[cfg(target_arch = "wasm32")]
pub mod js;

#[cfg(all(target_arch = "wasm32", feature = "content-script"))]
pub mod content;

#[cfg(test)]
mod fuzz_tests;

pub use error::{ContentError, ContentErrorKind, NamedError, PageError};
pub use target::{ActionTarget, DocumentOrigin};
