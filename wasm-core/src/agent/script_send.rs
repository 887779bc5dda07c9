//! An approved action whose page sends with its own script (`fetch`/XHR) to another address
//! than the card named. A form without an `action` is "sent to its own page" as far as anything
//! before the click can tell; most web apps then post it to their API from script, and the
//! network guard — which lets state-changing requests go only to exactly the approved URL —
//! blocks that post. The guard is right (the user approved another address); the card was
//! judged on all that could be known. So the blocked attempt, which sent nothing, is shown to
//! the user as what it is: one more card naming exactly the address the page used, and on
//! approval the action is done again with exactly that address allowed. Only for requests of
//! the page's script to a site of the task whose data passes the outbound check: a document
//! posted elsewhere is a rewritten form, and another site needs no second chance.

use super::context::TaskContext;
use super::control::Operator;
use super::interventions::{Intervention, InterventionKind};
use super::runner::{Agent, Flow};
use super::{Env, Journal, Llm, Page, TaskEvents};
use crate::safety::{ActionTarget, BlockedRequest, NetworkPermit, WebUrl};

/// A request the page's script made to send data (not a document load, not a read).
fn sent_by_script(b: &BlockedRequest) -> bool {
    b.kind == "xmlhttprequest" && !matches!(b.method.as_str(), "GET" | "HEAD" | "OPTIONS")
}

/// The blocked request to ask about after an action that ran under `permit`: a script's send
/// to another URL than the approved one, as the URL parser writes it.
pub fn script_destination(permit: &NetworkPermit, blocked: &[BlockedRequest]) -> Option<String> {
    let approved = permit.approved_destination.as_deref()?;
    blocked.iter().filter(|b| sent_by_script(b)).find_map(|b| {
        let url = WebUrl::parse(&b.url).ok()?.as_str().to_owned();
        let bare = url.split('#').next().unwrap_or(&url).to_owned();
        (bare != approved).then_some(bare)
    })
}

impl<L: Llm, P: Page, E: Env, V: TaskEvents, O: Operator, J: Journal> Agent<'_, L, P, E, V, O, J> {
    /// After an approved action `what` whose page's script send was blocked: asks the user
    /// about exactly that address; `Ok(Some(permit))` to do the action again under it.
    pub(super) async fn approve_script_send(
        &self,
        ctx: &mut TaskContext,
        what: &str,
        facts: Option<&ActionTarget>,
        permit: &NetworkPermit,
        blocked: &[BlockedRequest],
    ) -> Result<Option<NetworkPermit>, Flow> {
        let Some(url) = script_destination(permit, blocked) else { return Ok(None) };
        let approved = permit.approved_destination.as_deref().unwrap_or_default();
        let data = facts.map_or("", |f| f.form_data.as_str());
        if ctx.scope.check(&url).is_err() || ctx.taint.check(&url, data).is_err() {
            return Ok(None);
        }
        let card = Intervention {
            kind: InterventionKind::Confirm,
            title: "Approve where the page sends it?".into(),
            message: format!(
                "{what}: the page sends it with its own script to {url}, not to {approved} as \
                 the card you approved said. Nothing was sent.\nApproving lets exactly {url} \
                 receive it, and the action is done again."
            ),
            questions: vec![],
            allow_similar: None,
        };
        let reply = self.ask_user(ctx, card).await?;
        if !reply.approve {
            return Ok(None);
        }
        ctx.taint.record_sent(&url, data);
        Ok(Some(NetworkPermit::approved(&ctx.scope, Some(&url))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::safety::SiteScope;

    fn blocked(url: &str, method: &str, kind: &str) -> BlockedRequest {
        BlockedRequest { url: url.into(), method: method.into(), kind: kind.into() }
    }

    #[test]
    fn only_a_scripts_send_elsewhere_after_an_approval_is_asked_about() {
        let scope = SiteScope::starting_at("https://shop.example/contact");
        let approved = NetworkPermit::approved(&scope, Some("https://shop.example/contact"));
        let api = blocked("https://shop.example/api/support", "POST", "xmlhttprequest");
        assert_eq!(
            script_destination(&approved, std::slice::from_ref(&api)).as_deref(),
            Some("https://shop.example/api/support")
        );
        // A free action's permit approved nothing: its blocks stand without a card.
        assert_eq!(
            script_destination(&NetworkPermit::within(&scope), std::slice::from_ref(&api)),
            None
        );
        // A document posted elsewhere is a rewritten form; reads are not sends.
        let rewritten = blocked("https://shop.example/checkout", "POST", "main_frame");
        let read = blocked("https://shop.example/api/support", "GET", "xmlhttprequest");
        assert_eq!(script_destination(&approved, &[rewritten, read]), None);
        // The approved URL itself is not asked about again.
        let same = blocked("https://shop.example/contact#x", "POST", "xmlhttprequest");
        assert_eq!(script_destination(&approved, &[same]), None);
    }
}
