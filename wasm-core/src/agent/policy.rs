//! The safety policy applied to every proposed action before its intent is journaled and before
//! any side effect: scope, outbound data, risk class and uploads, decided from the live
//! element's facts ([`ActionTarget`]) and never from the model's claims.

use super::interventions::{Intervention, InterventionKind};
use crate::action::Action;
use crate::observation::{Item, Observation};
use crate::safety::scope::sensitive_category;
use crate::safety::{ActionKind, ActionTarget, Risk, ScopeError, SiteScope, TaintLedger, classify};
use std::collections::BTreeMap;

/// What the policy decided for one action.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Done without asking.
    Go,
    /// Done only if the user approves the card with a click; on approval `allow` (a site and
    /// whether it is an explicit sensitive grant) joins the task's scope.
    Confirm {
        /// The card, naming exactly the action and its target.
        card: Intervention,
        /// The site the approval adds to the scope.
        allow: Option<(String, bool)>,
    },
    /// Never done by the agent: the user is asked to do it themselves.
    TakeOver {
        /// The card explaining why.
        card: Intervention,
        /// Why, for the model.
        reason: String,
    },
    /// Refused outright (outbound data, an upload of a file the user did not attach, a page
    /// that is not a web page); the model is told why.
    Refuse(String),
}

/// The risk-relevant kind of an action; `SwitchTab` counts as opening that tab's URL.
fn kind_of(action: &Action, observation: &Observation) -> ActionKind {
    match action {
        Action::Click { .. } | Action::DoubleClick { .. } => ActionKind::Click,
        Action::Type { text, .. } => ActionKind::Type { text: text.clone() },
        Action::Clear { .. } => ActionKind::Type { text: String::new() },
        Action::PressKeys { keys, .. } => ActionKind::PressKey { key: keys.clone() },
        Action::SelectOption { .. } | Action::Check { .. } | Action::Uncheck { .. } => {
            ActionKind::Choose
        }
        Action::Upload { file, .. } => ActionKind::Upload { file: file.clone() },
        Action::Navigate { url } | Action::OpenTab { url } => {
            ActionKind::Navigate { url: url.clone() }
        }
        Action::SwitchTab { tab } => match observation.tabs.iter().find(|t| t.id == *tab) {
            Some(t) => ActionKind::Navigate { url: t.url.clone() },
            None => ActionKind::Read,
        },
        _ => ActionKind::Read,
    }
}

/// Whether the policy needs the live element's facts for this action (`describe` first).
pub fn needs_facts(action: &Action) -> bool {
    match action {
        Action::PressKeys { .. } => true,
        a => {
            a.target_ref().is_some()
                && !matches!(kind_of(a, &Observation::default()), ActionKind::Read)
        }
    }
}

/// Decides one action. `target` is the live element's facts (from [`super::Page::describe`]);
/// `resources` the files the user attached to the task.
pub fn decide(
    action: &Action,
    target: Option<&ActionTarget>,
    observation: &Observation,
    resources: &BTreeMap<String, String>,
    scope: &SiteScope,
    taint: &TaintLedger,
) -> Decision {
    let kind = kind_of(action, observation);
    if kind == ActionKind::Read {
        return Decision::Go;
    }
    // The same resolution the upload itself uses, so the policy and the upload agree on what
    // "attached" means.
    if let ActionKind::Upload { file } = &kind
        && let Err(e) = crate::upload::resolve_resource(resources, file)
    {
        return Decision::Refuse(format!("refused: {e}"));
    }
    if let ActionKind::Navigate { url } = &kind
        && crate::safety::origin_of(url).is_none()
    {
        return Decision::Refuse(format!(
            "refused: only http and https addresses can be opened, not “{url}”"
        ));
    }
    let page_url = target.map_or(observation.url.as_str(), |t| t.page_url.as_str());
    let here = ActionTarget { page_url: page_url.to_owned(), ..ActionTarget::default() };
    let facts = target.unwrap_or(&here);
    if let Some(block) = outbound(action, &kind, facts, taint) {
        return Decision::Refuse(block);
    }
    let risk = classify(&kind, Some(facts));
    if let Risk::Never { reason } = risk {
        return take_over(action, facts, &reason);
    }
    // Where the action takes effect: the destination of a navigation, else the page.
    let destination = match (&kind, &facts.href) {
        (ActionKind::Navigate { url }, _) => Some(url.clone()),
        (ActionKind::Click, Some(href)) => Some(href.clone()),
        _ => None,
    };
    let acting_on = destination.as_deref().unwrap_or(page_url);
    let scope_issue = match scope.check(acting_on) {
        // A frame embedded in an allowed page belongs to that page (a form or widget served
        // from another origin), unless it is a sensitive site, which needs its own grant.
        Err(ScopeError::NotAllowed(origin))
            if destination.is_none()
                && scope.check(&observation.url).is_ok()
                && sensitive_category(&origin).is_none() =>
        {
            None
        }
        other => other.err(),
    };
    let (category, what) = match (risk, &scope_issue) {
        (Risk::Confirm { category, what }, _) => (category, what),
        (_, None) => return Decision::Go,
        (_, Some(_)) => ("new site", describe_plainly(action, facts)),
        // `Never` returned above.
    };
    // A navigation to a site the user already allowed is not "a new site".
    if category == "navigation to a new site" && scope_issue.is_none() {
        return Decision::Go;
    }
    let (note, allow) = match &scope_issue {
        None => (String::new(), None),
        Some(ScopeError::NotWeb(url)) => {
            return Decision::Refuse(format!("refused: `{url}` is not a web page"));
        }
        Some(ScopeError::NotAllowed(origin)) => match sensitive_category(origin) {
            Some(category) => (
                format!(
                    "\n{origin} looks like a {category} site and is not among the sites of this \
                     task: approving explicitly grants Waymark access to it for this task."
                ),
                Some((origin.clone(), true)),
            ),
            None => (
                format!(
                    "\n{origin} is not among the sites of this task: approving also lets \
                     Waymark act there for this task."
                ),
                Some((origin.clone(), false)),
            ),
        },
        Some(ScopeError::Sensitive { origin, category }) => (
            format!(
                "\n{origin} looks like a {category} site: approving explicitly grants Waymark access to it for this task."
            ),
            Some((origin.clone(), true)),
        ),
    };
    let card = Intervention {
        kind: InterventionKind::Confirm,
        title: format!("Approve this {category}?"),
        message: format!("{what}{note}"),
        questions: vec![],
    };
    Decision::Confirm { card, allow }
}

/// Data that would leave with this action for a destination its source does not allow, as
/// the refusal's words.
fn outbound(
    action: &Action,
    kind: &ActionKind,
    t: &ActionTarget,
    taint: &TaintLedger,
) -> Option<String> {
    let block =
        sends(action, kind, t).into_iter().find_map(|(to, data)| taint.check(&to, &data).err());
    block.map(|b| {
        format!(
            "refused by the outbound data check: {b}. Data may go only back to where it came \
             from (the user's own data: only to the sites of the user's task); do the task \
             without it"
        )
    })
}

/// Everything an action can send and where, as (destination URL, data): a navigation's URL;
/// text typed, an option chosen, keys pressed or a file's name on the element's page (its
/// scripts read them); a link's target; a submitted form's values to its final action URL.
fn sends(action: &Action, kind: &ActionKind, t: &ActionTarget) -> Vec<(String, String)> {
    let on_page = |data: &str| (t.page_url.clone(), data.to_owned());
    let mut out = Vec::new();
    match kind {
        ActionKind::Navigate { url } => out.push((url.clone(), String::new())),
        ActionKind::Type { text } => out.push(on_page(text)),
        ActionKind::Upload { file } => out.push(on_page(file)),
        ActionKind::Choose => {
            if let Action::SelectOption { option, .. } = action {
                out.push(on_page(option));
            }
        }
        ActionKind::Click | ActionKind::PressKey { .. } => {
            if let ActionKind::PressKey { key } = kind {
                out.push(on_page(key));
            }
            if let Some(href) = &t.href {
                out.push((href.clone(), String::new()));
            }
            let submits = t.submits_form || matches!(kind, ActionKind::PressKey { .. });
            if let (Some(form_action), true) = (&t.form_action, submits) {
                out.push((form_action.clone(), t.form_data.clone()));
            }
        }
        ActionKind::Read => {}
    }
    out
}

/// Remembers what an action that is about to run sends where, so that pieces of a value sent
/// over several actions to one site are recognised ([`TaintLedger::record_sent`]).
pub fn record_sends(
    taint: &mut TaintLedger,
    action: &Action,
    target: Option<&ActionTarget>,
    observation: &Observation,
) {
    let kind = kind_of(action, observation);
    let here = ActionTarget { page_url: observation.url.clone(), ..ActionTarget::default() };
    for (to, data) in sends(action, &kind, target.unwrap_or(&here)) {
        taint.record_sent(&to, &data);
    }
}

fn take_over(action: &Action, facts: &ActionTarget, reason: &str) -> Decision {
    let card = Intervention {
        kind: InterventionKind::TakeOver,
        title: "Please do this yourself".into(),
        message: format!(
            "Waymark never does this itself: {reason}. Credentials, one-time codes, payment \
             details, CAPTCHAs, consent screens and account recovery settings are handled by \
             you.\nThe agent wanted to: {}.\nDo it yourself in the tab if you want it done, then \
             press Continue (or Stop).",
            action.describe(Some(facts.name.as_str()).filter(|n| !n.is_empty()))
        ),
        questions: vec![],
    };
    Decision::TakeOver {
        card,
        reason: format!("not done by Waymark: {reason}; such steps are the user's to do"),
    }
}

/// The action in plain words with its live target, for a card.
fn describe_plainly(action: &Action, t: &ActionTarget) -> String {
    let name = if t.name.is_empty() { t.tag.clone() } else { format!("“{}”", t.name) };
    match action {
        Action::Navigate { url } | Action::OpenTab { url } => format!("Open {url}"),
        Action::SwitchTab { tab } => format!("Switch to tab {tab}"),
        Action::Type { text, .. } => format!("Type “{text}” into {name} on {}", t.page_url),
        other => format!("{} {name} on {}", other.name().replace('_', " "), t.page_url),
    }
}

/// Records what the model is about to read in the taint ledger: page text, element names and
/// values, per frame origin.
pub fn record_observation(taint: &mut TaintLedger, observation: &Observation) {
    record_items(taint, &observation.url, &observation.items);
}

fn record_items(taint: &mut TaintLedger, url: &str, items: &[Item]) {
    for item in items {
        match item {
            Item::Text { text, .. } => taint.record_page_text(url, text),
            Item::Element(el) => {
                taint.record_page_text(url, &el.name);
                if let Some(value) = &el.value {
                    taint.record_page_text(url, value);
                }
            }
            Item::Frame(frame) => {
                let frame_url = if frame.url.is_empty() { url } else { &frame.url };
                record_items(taint, frame_url, &frame.items);
            }
        }
    }
}
