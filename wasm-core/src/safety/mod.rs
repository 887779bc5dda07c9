//! The safety policy: deterministic code around risky actions, so that a model that obeys any
//! text a page shows it still cannot do anything dangerous behind the user's back.
//!
//! Three independent layers, each target-independent and unit-tested:
//! * [`scope`]: the agent acts only on origins the user allowed for this task; sensitive
//!   categories (banking, payments, crypto, health, government identity) need an explicit grant.
//! * [`risk`]: every proposed action is classified from the element, its form's action URL,
//!   the page and the URL — never from the model's own claim — into free, confirm, or never;
//!   [`meaning`] reads what a click means (money, message, deletion, account) from the live
//!   name and the form, [`target`] holds the live element's facts.
//! * [`weburl`]: the one URL parser (WHATWG, as Chrome parses): every URL judgement above goes
//!   through it, and the browser is sent the canonical string that was judged.
//! * [`budget`]: the writes the user's own words grant a task; during an action every
//!   state-changing request outside it is held at the network layer ([`network`]) and put to
//!   the user with what it would really send.
//!   [`writes`] reads what each such request does (its method, path and fields), and
//!   [`spend`] holds it to the kinds, sites, recipients and counts the words granted.
//! * [`outbound`]: every value the task saw is tracked with its source (a page's origin, the
//!   user's own words, an attached file, a session note); an action may not carry it where
//!   that source does not allow, in any spelling, partly, or in pieces.

pub mod baseline;
pub mod budget;
pub mod effects;
pub mod meaning;
pub mod network;
pub mod outbound;
pub mod risk;
pub mod scope;
pub mod spend;
pub mod surface;
pub use waymark_page::{target, visibility};
pub mod weburl;
pub mod writes;

pub use baseline::{Baseline, BaselineState};
pub use budget::{Count, Grant, WriteBudget, WriteKind};
pub use network::{BlockedRequest, NetworkPermit, RequestBody};
pub use outbound::{OutboundBlock, Provenance, Spelling, TaintLedger, TaintSource, UserText};
pub use risk::{ActionKind, ConfirmClass, Risk, classify, document_origin};
pub use scope::{ScopeError, SiteScope};
pub use spend::{Fit, Spend, Spent};
pub use surface::is_panel_port;
pub use target::{ActionTarget, DocumentOrigin};
pub use weburl::{UrlRefusal, WebUrl, browser_origin, origin_of};
pub use writes::{Effect, EffectKind};

#[cfg(test)]
mod fuzz_tests;
