//! The one safety gate. Every path that acts — the agent loop, a workflow's replay (the
//! loop's `execute`), `waymark_run_task` (the loop again), an external agent's browser calls
//! (`police_external`) and the page's own script sends (a held request) — is judged here:
//! [`SafetyGate::judge`] before the action (canonical URLs, the live element's facts,
//! [`decide`]: scope, risk classes, the write budget, information flow, outbound data,
//! take-over classes; the card and the re-check after an approval) returns a typed
//! [`GateVerdict`], and [`SafetyGate::held`] turns a state-changing request the network layer
//! held during the action into a card and, on approval, a permit releasing exactly it.
//!
//! The gate needs only the page, a clock, the timeline and the user: no model, no journal.
//! What the user decided (answers, sites, allowances) comes back as journal entries the
//! caller persists (the agent's loop journals them; an external agent's calls are not a
//! resumable task).

use super::context::{JournalEntry, TaskContext};
use super::control::Operator;
use super::interventions::{Intervention, InterventionKind, Reply};
use super::police::{approved_destination, judged_facts, new_destination, submitted_to};
use super::policy::{
    Decision, canonical, decide, form_fit, judged_ref, needs_facts, record_sends, user_site,
};
use super::script_send::{held_card, held_requests};
use super::{Env, Page, TaskEvents};
use crate::safety::network::body;
use crate::safety::spend::fit_request;
use crate::safety::{
    ActionTarget, Baseline, BaselineState, BlockedRequest, Fit, NetworkPermit, Spend, WebUrl,
};
use waymark_page::action::{Action, ActionOutcome, Refuser};
use waymark_page::observation::Observation;

/// An action the gate lets go.
#[derive(Debug, Clone)]
pub struct Cleared {
    /// What the browser lets the tab reach while it runs.
    pub permit: NetworkPermit,
    /// Where it sends data, as judged (canonical URL), if anywhere.
    pub destination: Option<String>,
    /// The live element's facts as judged (for actions on an element).
    pub facts: Option<ActionTarget>,
    /// Whether what the action types goes into a field other people can read (a status, a
    /// comment box): such a field counts as publishing, for every check that cares.
    pub publishes: bool,
}

/// The gate's ruling on one action.
#[derive(Debug)]
pub enum GateVerdict {
    /// Go on: the browser holds the tab to the permit while the action runs.
    Go(Box<Cleared>),
    /// Not done: refused by the policy or the user, or the element could not be checked.
    NotDone(ActionOutcome),
    /// The user stopped at a card.
    Stopped,
}

/// What a held request came to.
#[derive(Debug)]
pub enum Held {
    /// Nothing to ask about, or the user denied it: the block stands.
    Stands,
    /// Do the action again under `permit`, which releases exactly `pinned` (and the
    /// requests of the same attempt that fit the write budget).
    Release {
        /// The action's permit with the requests' URLs released (and the approved one's
        /// body pinned).
        permit: Box<NetworkPermit>,
        /// The request the card showed, or the first one the budget let go (what was sent is
        /// checked against it).
        pinned: Box<BlockedRequest>,
        /// No card was shown: everything released fit the write budget.
        by_budget: bool,
    },
    /// The user stopped at the card.
    Stopped,
}

/// The gate: the page, a clock, the timeline and the user.
pub struct SafetyGate<'a, P, E, V, O> {
    /// The tab acted on.
    pub page: &'a P,
    /// For the overhead measured in page calls.
    pub env: &'a E,
    /// The timeline.
    pub events: &'a V,
    /// The user's answers.
    pub operator: &'a O,
}

impl<P: Page, E: Env, V: TaskEvents, O: Operator> SafetyGate<'_, P, E, V, O> {
    /// Shows `card`; `None` when the user stopped. Their words join the task (and `entries`).
    async fn ask(
        &self,
        ctx: &mut TaskContext,
        card: Intervention,
        entries: &mut Vec<JournalEntry>,
    ) -> Option<Reply> {
        ctx.overhead_from = None;
        let reply = self.operator.ask(card).await;
        if reply.stop {
            return None;
        }
        let text = reply.text.trim();
        if !text.is_empty() {
            let entry = JournalEntry::Guidance { text: text.to_owned() };
            ctx.apply(&entry);
            entries.push(entry);
        }
        Some(reply)
    }

    /// Judges one action before its intent is journaled. A navigation's URL is rewritten in
    /// `action` to the canonical form judged, so the journal and the browser get exactly that
    /// string. A workflow step whose destination differs from the recorded one is always put
    /// to the user. Decisions the user made are applied to `ctx` and pushed to `entries`.
    pub async fn judge(
        &self,
        ctx: &mut TaskContext,
        observation: &Observation,
        action: &mut Action,
        entries: &mut Vec<JournalEntry>,
    ) -> GateVerdict {
        match canonical(action) {
            Ok(judged) => *action = judged,
            Err(e) => {
                let refusal = format!("refused: {e}");
                return GateVerdict::NotDone(ActionOutcome::refused(Refuser::Policy, refusal));
            }
        }
        let action = &*action;
        self.read_baseline(ctx).await;
        ctx.spent.begin_action();
        ctx.denied_this_action.clear();
        let facts = if needs_facts(action) {
            let started = self.env.precise_ms();
            let described =
                self.page.describe(judged_ref(action)).await.map(|f| judged_facts(action, f));
            ctx.overhead_page_ms += self.env.precise_ms() - started;
            match described {
                Ok(facts) => Some(facts),
                Err(e) => {
                    return GateVerdict::NotDone(ActionOutcome::failed(format!(
                        "the element could not be checked before acting ({e}); observe again"
                    )));
                }
            }
        } else {
            None
        };
        let destination = approved_destination(action, facts.as_ref());
        let publishes = facts.as_ref().is_some_and(crate::safety::effects::publishes);
        let mut decision = decide(action, facts.as_ref(), observation, ctx);
        if let Some(expected) = ctx.replay_expect.take()
            && matches!(decision, Decision::Go | Decision::Remembered)
        {
            let name =
                action.target_ref().and_then(|r| observation.element(r)).map(|e| e.name.as_str());
            if let Some(card) =
                new_destination(&expected, destination.as_deref(), &action.describe(name))
            {
                decision = Decision::Confirm { card, allow: None, similar: None, flow: None };
            }
        }
        let (card, allow, similar, flow, refusal) = match decision {
            Decision::Go => {
                record_sends(&mut ctx.taint, action, facts.as_ref(), observation);
                // Every write is held and read when it happens (`held`): the budget says
                // which kinds, where and how many, which no origin rule can tell.
                let permit = match submitted_to(action, facts.as_ref()) {
                    Some(form_action) => {
                        // A free submission by POST fit the budget (the policy judged it):
                        // it spends now.
                        if let Some(t) = &facts
                            && let Some(Fit::Within { spend }) = form_fit(ctx, t, &form_action)
                        {
                            spent(ctx, spend, entries);
                        }
                        NetworkPermit::submitting(&ctx.scope, |_| false, &form_action)
                    }
                    None => NetworkPermit::reading(&ctx.scope),
                };
                return GateVerdict::Go(Box::new(Cleared {
                    permit,
                    destination,
                    facts,
                    publishes,
                }));
            }
            Decision::Remembered => {
                record_sends(&mut ctx.taint, action, facts.as_ref(), observation);
                let permit = approved_permit(ctx, destination.as_deref(), facts.as_ref());
                return GateVerdict::Go(Box::new(Cleared {
                    permit,
                    destination,
                    facts,
                    publishes,
                }));
            }
            Decision::Refuse(reason) => {
                return GateVerdict::NotDone(ActionOutcome::refused(Refuser::Policy, reason));
            }
            Decision::Confirm { card, allow, similar, flow } => {
                let what = card.message.lines().next().unwrap_or_default().to_owned();
                let refusal = format!("refused by the user: they did not approve “{what}”");
                (card, allow, similar, flow, refusal)
            }
            Decision::TakeOver { card, reason } => {
                let refusal =
                    format!("{reason}; the user was asked to do it and may have changed the page");
                (card, None, None, None, refusal)
            }
        };
        let confirm = card.kind == InterventionKind::Confirm;
        let Some(reply) = self.ask(ctx, card, entries).await else { return GateVerdict::Stopped };
        if !(confirm && reply.approve) {
            // A take-over is the user doing it by hand, not a refusal.
            return GateVerdict::NotDone(if confirm {
                ActionOutcome::refused(Refuser::User, refusal)
            } else {
                ActionOutcome::failed(refusal)
            });
        }
        // The user approved what the card showed: the element must still be exactly that (a
        // page could rewrite a form's action while the card was open).
        if let Some(approved) = &facts {
            let now = self.page.describe(judged_ref(action)).await.map(|f| judged_facts(action, f));
            if now.as_ref() != Ok(approved) {
                return GateVerdict::NotDone(ActionOutcome::failed(
                    "not done: the element changed while the user was deciding (what they \
                     approved is no longer what it would do); observe again",
                ));
            }
        }
        let site = allow.map(|(origin, sensitive)| JournalEntry::SiteAllowed { origin, sensitive });
        // "Allow this kind of action on this site" counts only where the card offered it.
        let kind = similar
            .filter(|_| reply.allow_similar)
            .map(|(class, origin)| JournalEntry::SimilarAllowed { class, origin });
        let flow = flow.map(|origin| JournalEntry::FlowAllowed { origin });
        for entry in site.into_iter().chain(kind).chain(flow) {
            ctx.apply(&entry);
            entries.push(entry);
        }
        record_sends(&mut ctx.taint, action, facts.as_ref(), observation);
        let permit = approved_permit(ctx, destination.as_deref(), facts.as_ref());
        GateVerdict::Go(Box::new(Cleared { permit, destination, facts, publishes }))
    }

    /// Before the task's first action: what the page's forms would have sent before Waymark
    /// first acted in the document (the content script keeps that reading). Never after the
    /// task acted (a resumed task, or an external agent's later call, has none).
    async fn read_baseline(&self, ctx: &mut TaskContext) {
        if ctx.baseline != BaselineState::Unread {
            return;
        }
        ctx.baseline = if ctx.steps.is_empty() && ctx.pending.is_none() {
            let started = self.env.precise_ms();
            let forms = self.page.forms().await;
            ctx.overhead_page_ms += self.env.precise_ms() - started;
            BaselineState::Read(Baseline::of_page(&forms))
        } else {
            BaselineState::None
        };
    }

    /// After `action` (`what`) ran under `permit` and the network layer blocked `blocked`: the
    /// held state-changing request, if any, put to the user with what it would send.
    pub async fn held(
        &self,
        ctx: &mut TaskContext,
        action: &Action,
        what: &str,
        permit: &NetworkPermit,
        blocked: &[BlockedRequest],
        entries: &mut Vec<JournalEntry>,
    ) -> Held {
        // Typing appended twice is not the same action done again.
        if matches!(action, Action::Type { append: true, .. }) {
            return Held::Stands;
        }
        // The action's requests are one write of each kind, over all its attempts (what it
        // released before is counted in `this_action`); what fits only when the action is
        // done again is not released (a further redo would re-send what already went).
        let redo = !permit.released.is_empty();
        let mut budget = ctx.spent.clone();
        let mut within: Vec<(&BlockedRequest, String, Spend)> = Vec::new();
        let mut outside: Option<(&BlockedRequest, WebUrl, String, String)> = None;
        for request in held_requests(permit, blocked, &ctx.scope) {
            let Ok(url) = WebUrl::parse(&request.url) else { continue };
            if ctx.denied_this_action.iter().any(|d| d == url.as_str()) {
                continue;
            }
            let data = request_data(request);
            // Data that may not go there gets no second chance.
            if ctx.taint.check(url.as_str(), &data).is_err() {
                continue;
            }
            let mine = user_site(ctx, &url.origin());
            match fit_request(&ctx.budget, &budget, request, mine, ctx.baseline.baseline()) {
                Fit::Dropped => {}
                Fit::Within { spend } if !redo => {
                    budget.record(&spend);
                    within.push((request, data, spend));
                }
                // Sent only when the action was done again (a follow-up to a write that
                // went): releasing it would need one more redo, which sends the first write
                // twice. It stays blocked, and the model is told.
                Fit::Within { .. } => {}
                Fit::Outside(why) => {
                    outside.get_or_insert((request, url, data, why));
                }
            }
        }
        let mut released = permit.clone();
        let mut by_budget = outside.is_none();
        let pinned = match outside {
            Some((held, url, data, why)) => {
                let card = held_card(what, held, &url, &why);
                let Some(reply) = self.ask(ctx, card, entries).await else {
                    return Held::Stopped;
                };
                if reply.approve {
                    ctx.taint.record_sent(url.as_str(), &data);
                    released = released.pinning(held);
                    held
                } else {
                    // Denied: it stays blocked; what fit the budget still goes — unless it
                    // goes to the same address (a release is by URL: the browser cannot tell
                    // two bodies apart, so releasing it would let the denied one go too).
                    by_budget = true;
                    let denied = url.as_str().split('#').next().unwrap_or_default().to_owned();
                    within.retain(|(r, ..)| r.url.split('#').next() != Some(denied.as_str()));
                    ctx.denied_this_action.push(url.as_str().to_owned());
                    match within.first() {
                        Some((first, ..)) => first,
                        None => return Held::Stands,
                    }
                }
            }
            None => match within.first() {
                Some((first, ..)) => first,
                None => return Held::Stands,
            },
        };
        for (request, data, spend) in within {
            ctx.taint.record_sent(&request.url, &data);
            released = released.releasing(&request.url);
            spent(ctx, spend, entries);
        }
        Held::Release { permit: Box::new(released), pinned: Box::new(pinned.clone()), by_budget }
    }

    /// After an action done again with `pinned` released (and `blocked` what was blocked on
    /// the redo): what the page really sent there, checked against what the card showed.
    /// While the browser pins the body (`safety::network::pin`) a request with other fields
    /// was not sent: it is among `blocked` and becomes the next card. Where it could not pin
    /// (the debugger could not attach), a page that changed the fields after the approval is
    /// reported loudly (also in the timeline). A control that already shows the new state (a
    /// box ticked, an option chosen) sends nothing when it is operated again, which the model
    /// is told.
    pub async fn check_pinned(
        &self,
        pinned: &BlockedRequest,
        blocked: &[BlockedRequest],
    ) -> PinCheck {
        // Never silently: a redo the browser could not pin says so in the timeline too.
        let unpinned = self.page.unpinned().await.map(|why| {
            let note = crate::safety::network::pin::not_pinned(&why);
            self.events.emit(super::TaskEvent::Noted { text: note.clone() });
            note
        });
        PinCheck { unpinned, pinned: self.compare_pinned(pinned, blocked).await }
    }

    /// What went to the pinned address, against what the card showed.
    async fn compare_pinned(&self, pinned: &BlockedRequest, blocked: &[BlockedRequest]) -> Pinned {
        let bare = |u: &str| u.split('#').next().unwrap_or(u).to_owned();
        let at_pin = |s: &&BlockedRequest| bare(&s.url) == bare(&pinned.url);
        let sent = self.page.sent_requests().await;
        let there: Vec<&BlockedRequest> =
            sent.iter().filter(at_pin).filter(|s| s.method == pinned.method).collect();
        if there.is_empty() {
            return match blocked.iter().find(at_pin) {
                Some(held) => Pinned::Held(format!(
                    "the page tried to send {} {} with other fields than the card the user \
                     approved showed; Waymark held it (nothing was sent)",
                    held.method,
                    bare(&held.url)
                )),
                None => Pinned::NotSent,
            };
        }
        let changed = there.into_iter().find(|s| {
            (pinned.body.is_some() || s.body.is_some())
                && !body::same_fields(&pinned.url, pinned.body.as_ref(), &s.url, s.body.as_ref())
        });
        let Some(changed) = changed else { return Pinned::Same };
        let now = body::describe_fields(&body::fields(&changed.url, changed.body.as_ref()));
        let warning = format!(
            "WARNING: the page sent {} {} with other fields than the card you approved showed; \
             it sent:\n{now}\nCheck the site: Waymark could not hold this request (see the \
             note on why the browser did not let it pin the body).",
            changed.method,
            bare(&changed.url)
        );
        self.events.emit(super::TaskEvent::Noted { text: warning.clone() });
        Pinned::Changed(warning)
    }
}

/// A request's fields as `name=value&…`, for the outbound check.
fn request_data(request: &BlockedRequest) -> String {
    let fields: Vec<String> = body::fields(&request.url, request.body.as_ref())
        .into_iter()
        .map(|f| format!("{}={}", f.name, f.value))
        .collect();
    fields.join("&")
}

/// Journals what a write that fit the budget spent.
fn spent(ctx: &mut TaskContext, spend: Spend, entries: &mut Vec<JournalEntry>) {
    if spend.extra == 0 {
        return;
    }
    let entry = JournalEntry::WriteSpent { spend };
    ctx.apply(&entry);
    entries.push(entry);
}

/// The permit of an action the user approved: state-changing requests only to exactly the
/// destination the card named; an action that names none (an upload, a choice, typing) may
/// change state on the element's own site, which the card named.
fn approved_permit(
    ctx: &TaskContext,
    destination: Option<&str>,
    facts: Option<&ActionTarget>,
) -> NetworkPermit {
    match (destination, facts.and_then(crate::safety::document_origin)) {
        (None, Some(here)) => NetworkPermit::within(&ctx.scope, |o| o == here),
        (destination, _) => NetworkPermit::approved(&ctx.scope, destination),
    }
}

/// What the check of a redo found: whether the browser pinned it, and what was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinCheck {
    /// Why the body was not pinned (in words), when it was not.
    pub unpinned: Option<String>,
    /// What went to the approved address.
    pub pinned: Pinned,
}

impl PinCheck {
    /// In words for the action's outcome, when there is something to say.
    pub fn note(&self) -> Option<String> {
        let parts: Vec<String> = self.unpinned.iter().cloned().chain(self.pinned.note()).collect();
        (!parts.is_empty()).then(|| parts.join("\n"))
    }
}

/// What an approved request came to when its action was done again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pinned {
    /// Sent with the fields the card showed (or no body either way).
    Same,
    /// Sent with other fields: the warning, in words.
    Changed(String),
    /// Not sent again (a control that already shows the new state sends nothing).
    NotSent,
    /// Not sent: the browser held a request there with other fields (the next card).
    Held(String),
}

impl Pinned {
    /// In words for the action's outcome, when there is something to say.
    pub fn note(&self) -> Option<String> {
        match self {
            Self::Same => None,
            Self::Changed(warning) | Self::Held(warning) => Some(warning.clone()),
            Self::NotSent => Some(
                "the page sent nothing when the action was done again (a control that already \
                 shows the new state sends nothing): the change the user approved is not saved"
                    .into(),
            ),
        }
    }
}
