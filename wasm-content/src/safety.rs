//! The parts of waymark-core's safety module the content script uses: what an action's
//! target is (the `describe` request) and whether text is visible to a person. The policy and
//! its URL parser (with the IDNA tables) stay in the core: the content script only reports facts.

#[path = "../../wasm-core/src/safety/target.rs"]
pub mod target;
#[path = "../../wasm-core/src/safety/visibility.rs"]
pub mod visibility;

pub use target::{ActionTarget, DocumentOrigin};
