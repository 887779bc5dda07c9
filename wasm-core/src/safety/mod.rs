//! The safety policy: deterministic code around risky actions, so that a model that obeys any
//! text a page shows it still cannot do anything dangerous behind the user's back.
//!
//! Three independent layers, each target-independent and unit-tested:
//! * [`scope`]: the agent acts only on origins the user allowed for this task; sensitive
//!   categories (banking, payments, crypto, health, government identity) need an explicit grant.
//! * [`risk`]: every proposed action is classified from the element, its form's action URL,
//!   the page and the URL — never from the model's own claim — into free, confirm, or never.
//! * [`outbound`]: every value the task saw is tracked with its source (a page's origin, the
//!   user's own words, an attached file, a session note); an action may not carry it where
//!   that source does not allow, in any spelling, partly, or in pieces.

pub mod network;
pub mod outbound;
pub mod risk;
pub mod scope;
pub mod surface;
pub mod visibility;

pub use network::{BlockedRequest, NetworkPermit};
pub use outbound::{OutboundBlock, Provenance, Spelling, TaintLedger, TaintSource, UserText};
pub use risk::{ActionKind, ActionTarget, Risk, classify};
pub use scope::{ScopeError, SiteScope, origin_of};
pub use surface::is_panel_port;
