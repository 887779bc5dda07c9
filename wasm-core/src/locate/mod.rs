//! Where things are, in terms that outlive a page's refs: a page's URL pattern, an element's
//! locator (role, name, heading, position within its frames) and the templates their texts
//! are kept as.
//!
//! Why a module of its own: the agent records actions in these terms, workflows replay them and
//! sessions store them; here they depend on none of those, so the core's modules form no circle.

mod locator;
mod pattern;
mod template;

pub use locator::{Locator, Resolution};
pub use pattern::{PatternError, UrlPattern};
pub use template::{Template, is_param_name, param_name_from, unique_param_name};
