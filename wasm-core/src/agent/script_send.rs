//! Held requests: a state-changing request an action made that its network permit did not
//! cover. During every action (click, key, type, select, check, drag, hover, scroll, upload;
//! live, replayed or an external agent's) the network layer blocks any state-changing request
//! outside the task's write budget; nothing was sent. The blocked request is put to the user
//! as what it is — the site, the path and the decoded fields it carried — and on approval
//! exactly that URL is released and the action done again; anything else the page then sends
//! is held again. Two earlier mechanisms are cases of this one:
//! - **script sends**: an approved form whose page posts it with its own `fetch()` to another
//!   address than the card named (a form without an `action` "sends to its own page" as far as
//!   anything before the click can tell);
//! - **the form guard**: a free form submission may post a document only to the judged action
//!   URL; a document posted elsewhere under such a permit (or an approved one) is a rewritten
//!   form and is not asked about.
//!
//! Only requests to a site of the task's scope whose data passes the outbound check are put to
//! the user: another site needs no second chance. The safety gate asks
//! ([`super::gate::SafetyGate::held`]); this module says which request and in what words.

use super::interventions::{Intervention, InterventionKind};
use crate::safety::network::body;
use crate::safety::{BlockedRequest, NetworkPermit, SiteScope, WebUrl};

/// At most this many held requests are put to the user per action (each approval does the
/// action again; a page that sends something new every time is not chased for ever).
pub const MAX_HOLDS_PER_ACTION: usize = 3;

/// Whether a blocked request is a document load (a form posted, a navigation).
fn is_document(b: &BlockedRequest) -> bool {
    matches!(b.kind.as_str(), "main_frame" | "sub_frame")
}

/// The blocked requests of an action to put to the user (or let go when they fit the
/// write budget), under `permit`, in order: state-changing requests to a site of `scope`
/// that the permit held, or ones the pin failed at a released URL because they were not what
/// the card showed (see [`crate::safety::network::pin`]). Under a permit that judged a form
/// (approved, or a free submission), a document posted elsewhere is a rewritten form: blocked
/// without a card.
pub fn held_requests<'a>(
    permit: &NetworkPermit,
    blocked: &'a [BlockedRequest],
    scope: &SiteScope,
) -> Vec<&'a BlockedRequest> {
    let judged_form = permit.approved_destination.is_some() || permit.form_submission.is_some();
    blocked
        .iter()
        .filter(|b| {
            let Ok(url) = WebUrl::parse(&b.url) else { return false };
            b.changes_state()
                && !(judged_form && is_document(b))
                && scope.check(url.as_str()).is_ok()
                && (permit.holds_write_to(url.as_str()) || permit.pins(url.as_str()))
        })
        .collect()
}

/// The card for a held request: the site, the method and path, and the decoded fields.
pub(super) fn held_card(
    what: &str,
    held: &BlockedRequest,
    url: &WebUrl,
    budget: &str,
) -> Intervention {
    let fields = body::fields(&held.url, held.body.as_ref());
    let shown = match (&held.body, held.method.as_str()) {
        (None, "POST" | "PUT" | "PATCH") => format!(
            "{}\n  (the browser did not show the request's body)",
            body::describe_fields(&fields)
        ),
        _ => body::describe_fields(&fields),
    };
    let path = url.as_str().strip_prefix(&url.origin()).unwrap_or(url.as_str());
    Intervention {
        kind: InterventionKind::Confirm,
        title: "Approve what the page would send?".into(),
        message: format!(
            "{what}: the page tried to change something on {site} — {budget}. Nothing was sent.\n\
             It would send {method} {path} to {site} with:\n{shown}\nApproving lets exactly this \
             request go and the action is done again; anything else the page sends is held again.",
            site = url.site(),
            method = held.method,
        ),
        questions: vec![],
        allow_similar: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held_request<'a>(
        permit: &NetworkPermit,
        blocked: &'a [BlockedRequest],
        scope: &SiteScope,
    ) -> Option<&'a BlockedRequest> {
        held_requests(permit, blocked, scope).into_iter().next()
    }

    fn blocked(url: &str, method: &str, kind: &str) -> BlockedRequest {
        BlockedRequest { url: url.into(), method: method.into(), kind: kind.into(), body: None }
    }

    #[test]
    fn a_held_write_in_scope_is_asked_about_a_rewritten_form_is_not() {
        let scope = SiteScope::starting_at("https://shop.example/contact");
        let approved = NetworkPermit::approved(&scope, Some("https://shop.example/contact"));
        let api = blocked("https://shop.example/api/support", "POST", "xmlhttprequest");
        assert_eq!(
            held_request(&approved, std::slice::from_ref(&api), &scope).map(|b| b.url.as_str()),
            Some("https://shop.example/api/support")
        );
        // A read-only free action: a benign-named control's POST is held too.
        let reading = NetworkPermit::reading(&scope);
        assert!(held_request(&reading, std::slice::from_ref(&api), &scope).is_some());
        let form_post = blocked("https://shop.example/account/close", "POST", "main_frame");
        assert!(held_request(&reading, std::slice::from_ref(&form_post), &scope).is_some());
        // Under a write budget for the site nothing there is held.
        let writing = NetworkPermit::within(&scope, |_| true);
        assert!(held_request(&writing, std::slice::from_ref(&api), &scope).is_none());
        // A document posted elsewhere under a judged form is a rewritten form; reads are not
        // sends; another site gets no second chance; the approved URL is not asked again.
        let rewritten = blocked("https://shop.example/checkout", "POST", "main_frame");
        let read = blocked("https://shop.example/api/support", "GET", "xmlhttprequest");
        let elsewhere = blocked("https://evil.example/c", "POST", "xmlhttprequest");
        let same = blocked("https://shop.example/contact#x", "POST", "xmlhttprequest");
        assert!(held_request(&approved, &[rewritten, read, elsewhere, same], &scope).is_none());
        // Beacons change state too.
        let ping = blocked("https://shop.example/track", "POST", "ping");
        assert!(held_request(&reading, &[ping], &scope).is_some());
    }

    #[test]
    fn the_card_shows_the_site_path_and_decoded_fields() {
        let held = BlockedRequest {
            body: Some(crate::safety::RequestBody::Raw {
                bytes: br#"{"sku":"TEA-7","quantity":1}"#.to_vec(),
            }),
            ..blocked("https://shop.example/api/orders?oneclick=1", "POST", "xmlhttprequest")
        };
        let url = WebUrl::parse(&held.url).expect("url");
        let card = held_card("Click “Reorder”", &held, &url, "your task asks only to read");
        assert!(
            card.message.contains("POST /api/orders?oneclick=1 to shop.example"),
            "{}",
            card.message
        );
        assert!(card.message.contains("  quantity: 1"), "{}", card.message);
        assert!(card.message.contains("  sku: TEA-7"), "{}", card.message);
        assert!(card.message.contains("  oneclick: 1"), "{}", card.message);
    }
}
