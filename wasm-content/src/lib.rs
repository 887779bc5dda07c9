//! The content script's wasm: `waymark_page::content` and nothing of the agent, sessions, host
//! port or side panel.
//!
//! Why a crate of its own: the content script is injected into every frame of every tab the
//! agent works on, so its wasm must be small and quick to instantiate. This crate only links
//! `waymark-page` with its `content-script` feature on; the exported `content_handle` comes
//! from there.

#[cfg(target_arch = "wasm32")]
pub use waymark_page::content::content_handle;
