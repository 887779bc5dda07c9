//! The parts of waymark-core's safety module the content script uses: what an action's
//! target is (the `describe` request) and whether text is visible to a person.

#[path = "../../wasm-core/src/safety/risk.rs"]
pub mod risk;
#[path = "../../wasm-core/src/safety/scope.rs"]
pub mod scope;
#[path = "../../wasm-core/src/safety/visibility.rs"]
pub mod visibility;

pub use risk::ActionTarget;
