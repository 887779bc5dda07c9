//! The content script's build of Waymark: the DOM walk, the observation model and page
//! actions, and nothing of the agent, sessions, host port or side panel.
//!
//! Why a crate of its own: the content script is injected into every frame of every tab the
//! agent works on, so its wasm must be small and quick to instantiate, while `waymark-core`
//! also carries the agent loop, sessions, the wire protocol and the worker adapters. The
//! sources are waymark-core's own files (one definition of every type and rule), compiled
//! here through `#[path]`; their unit tests run in waymark-core. Only the files the content
//! script needs are listed, so modules added to waymark-core never reach this build unless the
//! content script uses them.

// The modules are left out of this crate's test build (`--all-targets`): their tests live
// next to them and run in waymark-core, whose dev-dependencies they use.
#[cfg(not(test))]
#[rustfmt::skip] // formatted as part of waymark-core (rustfmt mis-resolves its `mod tests`)
#[path = "../../wasm-core/src/action.rs"]
pub mod action;
#[cfg(not(test))]
#[path = "../../wasm-core/src/observation/mod.rs"]
pub mod observation;
#[cfg(not(test))]
pub mod safety;

/// The browser side (wasm only): the content script and the helpers it shares with the core.
#[cfg(all(target_arch = "wasm32", not(test)))]
pub mod browser;
