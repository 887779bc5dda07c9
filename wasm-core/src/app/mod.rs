//! The application behind the side panel, as the worker runs it: what a panel request does to
//! the stored data and to what the panel shows.
//!
//! Why here and not in the worker: these are decisions (when a session may change, what a
//! failed read or write tells the user, what is retried), so they are tested natively against
//! in-memory fakes of the platform (`crate::platform`); the worker only implements those
//! traits and redraws the panel when told to.

mod sessions;
mod workflows;

pub use sessions::{MAX_SUMMARY_CALLS, Redraw, SessionDesk, StoredTurn};
pub use workflows::{HEALS_KEY, PromptRun, WorkflowDesk, WorkflowEffect, bridge_result, new_id};
