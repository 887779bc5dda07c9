//! The task's tab closed under the agent (the user closed it, or the page did): rather than
//! ending the task, a card asks the user to open or pick the page to go on with, and the loop
//! continues on the tab they are looking at when they press Continue.

use super::context::TaskContext;
use super::control::Operator;
use super::interventions::{Intervention, InterventionKind};
use super::runner::{Agent, Flow};
use super::{Env, Journal, Llm, Page, PageError, TaskEvent, TaskEvents};
use crate::text::counted;

/// How often one observation may ask for a new tab before the task ends with the reason.
pub(super) const MAX_TAB_REPLACEMENTS: u32 = 3;

impl<L: Llm, P: Page, E: Env, V: TaskEvents, O: Operator, J: Journal> Agent<'_, L, P, E, V, O, J> {
    /// Asks the user for a new tab after `reason` (the tab is gone) and moves the task to the
    /// tab they are looking at; `Err` ends the task (they stopped it, or no page is open).
    pub(super) async fn replace_closed_tab(
        &self,
        ctx: &mut TaskContext,
        reason: &PageError,
    ) -> Result<(), Flow> {
        let card = Intervention {
            kind: InterventionKind::TakeOver,
            title: "The tab Waymark was working on was closed".into(),
            message: "Open the page Waymark should go on with (or click its tab), then press \
                      Continue. Stop ends the task; what was done so far stays listed."
                .into(),
            questions: vec![],
            allow_similar: None,
        };
        let stopped = format!(
            "Stopped by you after the tab closed; {} done before it, listed below.",
            counted(ctx.steps.len(), "action")
        );
        self.ask_user_or_stop(ctx, card, stopped).await?;
        match self.page.adopt_active_tab().await {
            Ok(url) => {
                self.events
                    .emit(TaskEvent::Noted { text: format!("Going on in the tab showing {url}.") });
                Ok(())
            }
            Err(e) => {
                let msg = format!(
                    "Could not read the page: {reason}; and no other page to go on with ({e})."
                );
                Err(self.finish(ctx, msg.clone(), false, Some(msg)).await)
            }
        }
    }
}
