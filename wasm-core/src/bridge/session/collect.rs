//! `collect` for an external agent: the same [`Collector`] as the agent's own loop, each read
//! and each page turn policed for this agent's context like its other calls.

use super::{ExternalSession, fail, fenced};
use crate::agent::{CollectNext, Collector, Operator, Page, Policed, TaskEvents, police_external};
use crate::bridge::{Browser, ExternalOperator, page_failure};
use crate::platform::Env;
use waymark_page::action::Action;
use waymark_page::collect::{CollectSpec, ColumnSpec};
use waymark_protocol::TableEnd;
use waymark_protocol::{BridgeColumn, BridgeFailure, BridgeFailureKind as Kind, BridgeOutput};

impl ExternalSession {
    /// Reads every page of the listing whose example record `ref_id` names.
    #[allow(clippy::too_many_arguments, reason = "the call's fields and the gate's parts")]
    pub(super) async fn collect<B: Browser, E: Env, V: TaskEvents, O: Operator>(
        &mut self,
        (ref_id, columns, pages, name): (
            Option<String>,
            Vec<BridgeColumn>,
            Option<u32>,
            Option<String>,
        ),
        browser: &B,
        env: &E,
        events: &V,
        operator: &ExternalOperator<O>,
    ) -> Result<BridgeOutput, BridgeFailure> {
        let record = ref_id.as_deref().map(super::parse_ref).transpose()?;
        let columns: Vec<ColumnSpec> =
            columns.into_iter().map(|c| ColumnSpec { name: c.name, example: c.example }).collect();
        if columns.is_empty() {
            return Err(fail(Kind::BadArguments, "give at least one column (name and example)"));
        }
        let spec = CollectSpec { record, columns, pages, name: name.clone(), shape: None };
        let mut collector = Collector::new(&spec, name.unwrap_or_else(|| "table".to_owned()));
        loop {
            let tab = self.tab(browser).await?;
            let mut read = collector.read_action();
            let target = if collector.pages() == 0 { read.target_ref() } else { None };
            let observation = self.observation_for(browser, tab, target).await?;
            let page = browser.page(tab);
            let policed = police_external(
                &page,
                env,
                events,
                operator,
                &mut self.ctx,
                &observation,
                &mut read,
            )
            .await;
            let permit = match policed {
                Policed::Permit(permit) => permit,
                Policed::NotDone(outcome) => {
                    return Err(self.failure_of(&outcome, operator).unwrap_or_else(|| {
                        fail(Kind::Refused, outcome.error.unwrap_or_default())
                    }));
                }
                Policed::Stopped => {
                    return Err(fail(Kind::Stopped, "the user stopped this agent"));
                }
            };
            let mut outcome = page.act(&read, &permit).await.map_err(|e| page_failure(&e))?;
            let next = collector.take(&mut outcome, &mut self.ctx.taint);
            if collector.pages() == 0 {
                return Err(fail(Kind::PageFailed, outcome.error.unwrap_or_default()));
            }
            let CollectNext::Turn(turn) = next else { break };
            // A page turn is one of this agent's actions: policed, shown and recorded.
            if self.act(turn, browser, env, events, operator).await.is_err() {
                collector.stop(TableEnd::Blocked);
                break;
            }
            let tab = self.tab(browser).await?;
            self.observe(browser, tab).await?;
        }
        let outcome = collector.finish();
        let nonce = format!("{:016x}", env.random_u64());
        let said = outcome.text.clone().unwrap_or_default();
        self.step += 1;
        self.record(events, self.step, &Action::Collect(Box::new(spec)), None, outcome.clone());
        Ok(BridgeOutput {
            text: fenced(&nonce, &said),
            table: outcome.table().cloned().map(Box::new),
            ..BridgeOutput::default()
        })
    }
}
