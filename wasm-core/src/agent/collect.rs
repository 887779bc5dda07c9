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
use crate::safety::{NetworkPermit, TaintLedger};
use std::collections::HashSet;
use waymark_page::action::{Action, ActionOutcome, ScrollDirection};
use waymark_page::collect::{CollectSpec, MAX_ROWS, PagerKind};
use waymark_page::observation::{Observation, Ref};
use waymark_protocol::{Table, TableEnd, TableRow};

/// Rows shown to the model in the collect's outcome: enough to check the columns.
pub const ROWS_SHOWN: usize = 3;

/// What to do after a page was read.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Go to the next page with this action (through the gate), then read again.
    Turn(Action),
    /// The table is complete.
    Stop,
}

/// The pages of one `collect`, gathered: de-duplicated rows with the page each was read on,
/// taint recorded, secrets as handles, and what to do next. One definition for the agent's
/// loop and the external agents' bridge.
pub struct Collector {
    request: CollectSpec,
    frame: u32,
    budget: u32,
    table: Table,
    seen: HashSet<Vec<String>>,
    skipped: u32,
}

impl Collector {
    /// A collect of `spec`; `name` is the table's name.
    pub fn new(spec: &CollectSpec, name: String) -> Self {
        Self {
            request: spec.clone(),
            frame: spec.record.map_or(0, |r| r.frame),
            budget: spec.page_budget(),
            table: Table { name, columns: spec.column_names(), ..Table::default() },
            seen: HashSet::new(),
            skipped: 0,
        }
    }

    /// The read of the current page (with the learned shape after the first).
    pub fn read_action(&self) -> Action {
        Action::Collect(Box::new(self.request.clone()))
    }

    /// Pages read so far.
    pub fn pages(&self) -> u32 {
        self.table.pages
    }

    /// Takes in what one read gave; a failed read ends the collect (the first one's failure
    /// is the caller's to report: [`Collector::pages`] is then 0).
    pub fn take(&mut self, read: &mut ActionOutcome, taint: &mut TaintLedger) -> Next {
        let page = match (read.ok, read.take_page()) {
            (true, Some(page)) => page,
            _ => return self.stop(TableEnd::Blocked),
        };
        self.table.pages += 1;
        if self.request.shape.is_none() {
            self.request.shape = page.shape.clone();
        }
        self.skipped += page.skipped;
        let mut new = 0usize;
        for row in page.rows {
            if self.table.rows.len() >= MAX_ROWS {
                break;
            }
            taint.record_page_text(&page.url, &row.join("\n"));
            let values: Vec<String> = row.iter().map(|v| taint.conceal(v)).collect();
            if self.seen.insert(values.clone()) {
                new += 1;
                self.table.rows.push(TableRow { values, source: page.url.clone() });
            }
        }
        if self.table.pages > 1 && new == 0 {
            // A read that brought nothing is no page of the listing.
            self.table.pages -= 1;
            return self.stop(TableEnd::NothingNew);
        }
        if self.table.rows.len() >= MAX_ROWS {
            return self.stop(TableEnd::RowCap);
        }
        let Some(pager) = page.pager else { return self.stop(TableEnd::LastPage) };
        if self.table.pages >= self.budget {
            return self.stop(TableEnd::Budget);
        }
        match pager.control {
            Some(r) => {
                Next::Turn(Action::Click { ref_id: Ref { frame: self.frame, index: r.index } })
            }
            None if pager.kind == PagerKind::Scroll => {
                Next::Turn(Action::Scroll { direction: ScrollDirection::Bottom, ref_id: None })
            }
            None => self.stop(TableEnd::LastPage),
        }
    }

    /// Ends the collect for `end`.
    pub fn stop(&mut self, end: TableEnd) -> Next {
        self.table.end = end;
        Next::Stop
    }

    /// `Collected page 2: 20 new rows (40 in all)`, for the timeline.
    pub fn progress(&self) -> String {
        format!("Collected page {}: {} rows so far", self.table.pages, self.table.rows.len())
    }

    /// What the model reads about the collect (the rows stay in the finding).
    pub fn finish(self) -> ActionOutcome {
        outcome(self.table, self.skipped)
    }
}

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
        let mut collector = Collector::new(spec, table_name(ctx, spec));
        let mut page_view = observation.clone();
        loop {
            let started = self.env.precise_ms();
            let read = self.page.act(&collector.read_action(), permit).await;
            ctx.overhead_page_ms += self.env.precise_ms() - started;
            let mut read = read.unwrap_or_else(|e| ActionOutcome::failed(e.to_string()));
            let next = collector.take(&mut read, &mut ctx.taint);
            if collector.pages() == 0 {
                return Ok(read);
            }
            self.events.emit(TaskEvent::Noted { text: collector.progress() });
            let Next::Turn(mut next) = next else { break };
            if !self.turn_page(ctx, step, &page_view, &mut next).await? {
                collector.stop(TableEnd::Blocked);
                break;
            }
            page_view = self.observe(ctx).await?;
        }
        Ok(collector.finish())
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
    let taken = ctx.steps.iter().filter(|s| s.outcome.table().is_some()).count();
    let base = spec
        .name
        .as_deref()
        .map(waymark_page::observation::clean)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "table".to_owned());
    let base = waymark_page::observation::shorten(&base, 60);
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
    ActionOutcome {
        collected: Some(Box::new(waymark_page::collect::Collected::Table(table))),
        ..ActionOutcome::with_text(text)
    }
}
