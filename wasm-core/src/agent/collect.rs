//! `collect` in the loop: the model names the records and columns once; every page of the
//! listing is then read without it. Each way to the next page (a click on "Next", a page
//! number or "Load more", or a scroll) is policed by the one safety gate like any action the
//! model asks for, and stops the collect when it is refused. Rows are page text: recorded in
//! the taint ledger with the page they were read on, secrets replaced by their handles before
//! the table is kept, and only a summary and a few rows go to the model (fenced as a step's
//! output).

use super::context::TaskContext;
use super::control::Operator;
use super::runner::{Agent, Flow};
use super::{Env, Journal, Llm, Page, TaskEvent, TaskEvents};
use crate::action::{Action, ActionOutcome, ScrollDirection};
use crate::collect::{CollectSpec, MAX_ROWS, PagerKind};
use crate::observation::{Observation, Ref};
use crate::protocol::{Table, TableEnd, TableRow};
use crate::safety::NetworkPermit;
use std::collections::HashSet;

/// Rows shown to the model in the collect's outcome: enough to check the columns.
pub const ROWS_SHOWN: usize = 3;

impl<L: Llm, P: Page, E: Env, V: TaskEvents, O: Operator, J: Journal> Agent<'_, L, P, E, V, O, J> {
    /// Reads every page of the listing `spec` names, starting on `observation` (whose refs
    /// the content script holds), under `permit` for the reads. `Err` when the task ended
    /// (stopped at a card, the page gone).
    pub(super) async fn collect(
        &self,
        ctx: &mut TaskContext,
        step: u32,
        observation: &Observation,
        spec: &CollectSpec,
        permit: &NetworkPermit,
    ) -> Result<ActionOutcome, Flow> {
        let frame = spec.record.map_or(0, |r| r.frame);
        let mut request = spec.clone();
        let mut table =
            Table { name: table_name(ctx, spec), columns: spec.column_names(), ..Table::default() };
        let mut seen: HashSet<Vec<String>> = HashSet::new();
        let mut skipped = 0u32;
        let mut page_view = observation.clone();
        let budget = spec.page_budget();
        loop {
            let started = self.env.precise_ms();
            let read = self.page.act(&Action::Collect(request.clone()), permit).await;
            ctx.overhead_page_ms += self.env.precise_ms() - started;
            let mut read = read.unwrap_or_else(|e| ActionOutcome::failed(e.to_string()));
            let page = match (read.ok, read.collected.take()) {
                (true, Some(page)) => page,
                _ if table.pages == 0 => return Ok(read),
                _ => {
                    table.end = TableEnd::Blocked;
                    break;
                }
            };
            table.pages += 1;
            if request.shape.is_none() {
                request.shape = page.shape.clone();
            }
            skipped += page.skipped;
            let mut new = 0usize;
            for row in page.rows {
                if table.rows.len() >= MAX_ROWS {
                    break;
                }
                ctx.taint.record_page_text(&page.url, &row.join("\n"));
                let values: Vec<String> = row.iter().map(|v| ctx.taint.conceal(v)).collect();
                if seen.insert(values.clone()) {
                    new += 1;
                    table.rows.push(TableRow { values, source: page.url.clone() });
                }
            }
            self.events.emit(TaskEvent::Noted {
                text: format!(
                    "Collected page {}: {} new row{} ({} in all)",
                    table.pages,
                    new,
                    if new == 1 { "" } else { "s" },
                    table.rows.len()
                ),
            });
            if table.pages > 1 && new == 0 {
                table.end = TableEnd::NothingNew;
                break;
            }
            if table.rows.len() >= MAX_ROWS {
                table.end = TableEnd::RowCap;
                break;
            }
            let Some(pager) = page.pager else {
                table.end = TableEnd::LastPage;
                break;
            };
            if table.pages >= budget {
                table.end = TableEnd::Budget;
                break;
            }
            let mut next = match pager.control {
                Some(r) => Action::Click { ref_id: Ref { frame, index: r.index } },
                None if pager.kind == PagerKind::Scroll => {
                    Action::Scroll { direction: ScrollDirection::Bottom, ref_id: None }
                }
                None => {
                    table.end = TableEnd::LastPage;
                    break;
                }
            };
            if !self.turn_page(ctx, step, &page_view, &mut next).await? {
                table.end = TableEnd::Blocked;
                break;
            }
            page_view = self.observe(ctx).await?;
        }
        Ok(outcome(table, skipped))
    }

    /// Goes to the next page through the gate; whether it went.
    async fn turn_page(
        &self,
        ctx: &mut TaskContext,
        step: u32,
        page_view: &Observation,
        next: &mut Action,
    ) -> Result<bool, Flow> {
        let target = next.target_ref().and_then(|r| page_view.element(r));
        if next.target_ref().is_some() && target.is_none() {
            return Ok(false);
        }
        let description = format!(
            "{} (next page of the listing)",
            next.describe(target.map(|el| el.name.as_str()))
        );
        let cleared = match self.police(ctx, page_view, next).await? {
            Ok(cleared) => cleared,
            Err(refused) => {
                let why = refused.error.unwrap_or_default();
                self.note(ctx, format!("The collect stopped before the next page: {why}")).await;
                return Ok(false);
            }
        };
        let outcome =
            self.act_held(ctx, step, (&*next, &*next), &description, cleared.permit).await?;
        if !outcome.ok {
            let why = outcome.error.unwrap_or_default();
            self.note(ctx, format!("The collect could not open the next page: {why}")).await;
        }
        Ok(outcome.ok)
    }
}

/// The table's name: the model's, else `table` (numbered after the task's first).
fn table_name(ctx: &TaskContext, spec: &CollectSpec) -> String {
    let taken = ctx.steps.iter().filter(|s| s.outcome.table.is_some()).count();
    let base = spec
        .name
        .as_deref()
        .map(crate::observation::clean)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "table".to_owned());
    let base = crate::observation::shorten(&base, 60);
    if taken == 0 { base } else { format!("{base} {}", taken + 1) }
}

/// What the model reads about the collect (the rows stay in the finding).
fn outcome(table: Table, skipped: u32) -> ActionOutcome {
    let mut text = format!(
        "Collected {} into the table finding (the user sees every row; {}).",
        table.summary_line(),
        table.end.words()
    );
    if skipped > 0 {
        text.push_str(&format!(" Skipped {skipped} item(s) of another shape between records."));
    }
    if !table.rows.is_empty() {
        text.push_str(&format!("\nFirst rows ({}):", table.columns.join(" | ")));
        for row in table.rows.iter().take(ROWS_SHOWN) {
            text.push_str(&format!("\n{}", row.values.join(" | ")));
        }
    }
    ActionOutcome { table: Some(table), ..ActionOutcome::with_text(text) }
}
