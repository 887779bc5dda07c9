//! The declarativeNetRequest session rules that enforce a [`NetworkPermit`]: which requests of
//! which tabs the browser blocks while an action runs. Decided here, natively tested; the
//! browser adapter (`waymark-worker`'s `netguard.rs`) only installs the list and reports what it blocked.
//!
//! Shape: three block rules (navigations, state-changing methods, send-only channels) and allow
//! rules of a higher priority for what the permit lets through. Allow rules use anchored
//! `urlFilter`s (`|prefix` or `|exact|`), never regular expressions: Chrome limits a regex to
//! 2 KB of compiled memory, and a long approved URL must not make the whole update fail.

use super::NetworkPermit;
use serde::{Deserialize, Serialize};
use url::Url;

/// Priority of the block rules.
const BLOCK: u32 = 1;
/// Priority of the allow rules: a higher priority wins over the block rules.
const ALLOW: u32 = 2;

/// Which tabs a rule set covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guarded {
    /// Exactly these tabs (`-1`: requests of no tab): after an action, the task's tab, the
    /// popups it opened and workers; between actions, the task's tab alone. The user may open
    /// and use other tabs freely.
    Tabs(Vec<i32>),
    /// Every tab except these (the user's other tabs when the action started), and requests
    /// from no tab (service and shared workers): while an action runs, a popup the page opens
    /// and a worker the page hands data to are covered before their first request.
    AllBut(Vec<i32>),
}

impl Guarded {
    /// Whether a request of `tab_id` (`-1`: no tab) falls under the rules.
    pub fn covers(&self, tab_id: i32) -> bool {
        match self {
            Self::Tabs(tabs) => tabs.contains(&tab_id),
            Self::AllBut(others) => !others.contains(&tab_id),
        }
    }
}

/// One session rule, as `chrome.declarativeNetRequest.updateSessionRules` takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Unique among the extension's session rules.
    pub id: u32,
    /// Higher wins.
    pub priority: u32,
    /// Block or allow.
    pub action: RuleAction,
    /// Which requests.
    pub condition: Condition,
}

/// What a matching rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RuleAction {
    /// `block` or `allow`.
    #[serde(rename = "type")]
    pub kind: Verdict,
}

/// A rule's effect on a request (also what [`RuleSet::verdict`] answers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// The request fails with `net::ERR_BLOCKED_BY_CLIENT`.
    Block,
    /// The request goes.
    Allow,
}

/// A rule's condition; unset fields match everything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// `|prefix` or `|exact|` (see the module doc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url_filter: Option<String>,
    /// Paths are case-sensitive: `/Pay` is not `/pay`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_url_filter_case_sensitive: Option<bool>,
    /// Only these resource types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_types: Option<Vec<ResourceType>>,
    /// Not these resource types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_resource_types: Option<Vec<ResourceType>>,
    /// Only these methods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_methods: Option<Vec<Method>>,
    /// Not these methods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_request_methods: Option<Vec<Method>>,
    /// Only requests of these tabs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tab_ids: Option<Vec<i32>>,
    /// Not requests of these tabs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_tab_ids: Option<Vec<i32>>,
}

/// Chrome's resource types (`declarativeNetRequest.ResourceType`, also what `webRequest`
/// reports as `type`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs, reason = "Chrome's own names")]
pub enum ResourceType {
    MainFrame,
    SubFrame,
    Stylesheet,
    Script,
    Image,
    Font,
    Object,
    Xmlhttprequest,
    Ping,
    CspReport,
    Media,
    Websocket,
    Webtransport,
    Webbundle,
    #[default]
    #[serde(other)]
    Other,
}

/// HTTP methods as DNR names them (lower case); anything else is `other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs, reason = "HTTP's own names")]
pub enum Method {
    Connect,
    Delete,
    Get,
    Head,
    Options,
    Patch,
    Post,
    Put,
    #[serde(other)]
    Other,
}

impl Method {
    /// From an HTTP method as `webRequest` reports it (upper case).
    pub fn parse(method: &str) -> Self {
        match method.to_ascii_uppercase().as_str() {
            "CONNECT" => Self::Connect,
            "DELETE" => Self::Delete,
            "GET" => Self::Get,
            "HEAD" => Self::Head,
            "OPTIONS" => Self::Options,
            "PATCH" => Self::Patch,
            "POST" => Self::Post,
            "PUT" => Self::Put,
            _ => Self::Other,
        }
    }
}

/// Methods that only read: everything else can carry data to the server and change state.
const READS: [Method; 3] = [Method::Get, Method::Head, Method::Options];
/// Navigations: a document load carries its URL (and a form GET its values) to the server.
const DOCUMENTS: [ResourceType; 2] = [ResourceType::MainFrame, ResourceType::SubFrame];
/// Request types that exist only to send (`ping` = `<a ping>` and `sendBeacon`) or open a
/// two-way channel.
const CHANNELS: [ResourceType; 4] = [
    ResourceType::Ping,
    ResourceType::CspReport,
    ResourceType::Websocket,
    ResourceType::Webtransport,
];

/// Every resource type. Chrome's rules match every type *but* `main_frame` when neither
/// `resourceTypes` nor `excludedResourceTypes` is given, so every rule here names its types.
const ALL: [ResourceType; 15] = [
    ResourceType::MainFrame,
    ResourceType::SubFrame,
    ResourceType::Stylesheet,
    ResourceType::Script,
    ResourceType::Image,
    ResourceType::Font,
    ResourceType::Object,
    ResourceType::Xmlhttprequest,
    ResourceType::Ping,
    ResourceType::CspReport,
    ResourceType::Media,
    ResourceType::Websocket,
    ResourceType::Webtransport,
    ResourceType::Webbundle,
    ResourceType::Other,
];

/// `ALL` without `except`.
fn all_but(except: &[ResourceType]) -> Vec<ResourceType> {
    ALL.iter().copied().filter(|t| !except.contains(t)).collect()
}

/// The rules for one permit and tab set, ready to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSet {
    /// In id order.
    pub rules: Vec<Rule>,
}

/// One request as the browser reports it, for [`RuleSet::verdict`].
#[derive(Debug, Clone, Copy)]
pub struct RequestFacts<'a> {
    /// The full URL.
    pub url: &'a str,
    /// HTTP method.
    pub method: Method,
    /// Resource type.
    pub kind: ResourceType,
    /// `-1` for no tab.
    pub tab_id: i32,
}

impl RuleSet {
    /// The rules enforcing `permit` on the `guarded` tabs, numbered from `first_id`.
    ///
    /// Always blocked: navigations (documents), state-changing methods and send-only channels.
    /// Let through again: with no approved destination, reads (and WebSockets) of the
    /// permit's origins (the task's scope) and anything to its write origins (what the write
    /// budget covers; other state-changing requests are held); with one, documents and reads from the scope and from the destination's
    /// origin (the redirect after a POST), a GET navigation to the destination's path with any
    /// query (a GET form replaces the query), and any request to exactly the destination. In
    /// every case any request to exactly a URL the user released after a hold.
    /// Origins and destinations that do not parse as http(s) URLs get no allow rule (closed).
    pub fn build(permit: &NetworkPermit, guarded: &Guarded, first_id: u32) -> Self {
        let tabs = |c: Condition| match guarded {
            Guarded::Tabs(tabs) => Condition { tab_ids: Some(tabs.clone()), ..c },
            Guarded::AllBut(others) if others.is_empty() => c,
            Guarded::AllBut(others) => Condition { excluded_tab_ids: Some(others.clone()), ..c },
        };
        let mut rules: Vec<(u32, Verdict, Condition)> = vec![
            (
                BLOCK,
                Verdict::Block,
                Condition { resource_types: Some(DOCUMENTS.into()), ..Default::default() },
            ),
            (
                BLOCK,
                Verdict::Block,
                Condition {
                    resource_types: Some(ALL.into()),
                    excluded_request_methods: Some(READS.into()),
                    ..Default::default()
                },
            ),
            (
                BLOCK,
                Verdict::Block,
                Condition { resource_types: Some(CHANNELS.into()), ..Default::default() },
            ),
        ];
        let origins: Vec<Url> = permit.origins.iter().filter_map(|o| web_url(o)).collect();
        let destination = permit.approved_destination.as_deref().map(web_url);
        let submission = permit.form_submission.as_deref().map(web_url);
        // Reads of the scope (documents and requests by GET, HEAD or OPTIONS, and the
        // scope's WebSockets); everything to the origins the write budget covers.
        let scope_rules = |types: &[ResourceType], rules: &mut Vec<(u32, Verdict, Condition)>| {
            for origin in &origins {
                let writes = permit
                    .write_origins
                    .iter()
                    .any(|w| web_url(w).is_some_and(|w| w.origin() == origin.origin()));
                for prefix in origin_prefixes(origin) {
                    if writes {
                        rules.push((ALLOW, Verdict::Allow, filter(format!("|{prefix}"), types)));
                    } else if prefix.starts_with("ws") {
                        rules.push((
                            ALLOW,
                            Verdict::Allow,
                            filter(format!("|{prefix}"), &[ResourceType::Websocket]),
                        ));
                    } else {
                        let reads: Vec<ResourceType> =
                            types.iter().copied().filter(|t| !CHANNELS.contains(t)).collect();
                        rules.push((
                            ALLOW,
                            Verdict::Allow,
                            Condition {
                                request_methods: Some(READS.into()),
                                ..filter(format!("|{prefix}"), &reads)
                            },
                        ));
                    }
                }
            }
        };
        match (destination, submission) {
            (None, None) => scope_rules(&ALL, &mut rules),
            // A free form submission: the scope for everything but documents, which may only
            // be read (GET navigations, the redirect after the POST) — except the judged
            // action URL, which the form may POST to. A form rewritten on the click to post
            // elsewhere, on the same site too, is blocked.
            (None, Some(submission)) => {
                scope_rules(&all_but(&DOCUMENTS), &mut rules);
                for origin in &origins {
                    let documents = Condition {
                        request_methods: Some(READS.into()),
                        ..filter(format!("|{}", http_prefix(origin)), &DOCUMENTS)
                    };
                    rules.push((ALLOW, Verdict::Allow, documents));
                }
                if let Some(s) = submission.filter(|s| is_literal(s.as_str())) {
                    rules.push((ALLOW, Verdict::Allow, filter(format!("|{s}|"), &DOCUMENTS)));
                }
            }
            // An approved destination that does not parse allows nothing beyond reads.
            (Some(destination), _) => {
                let reads = |prefix: String| Condition {
                    request_methods: Some(READS.into()),
                    ..filter(format!("|{prefix}"), &all_but(&CHANNELS))
                };
                for origin in &origins {
                    rules.push((ALLOW, Verdict::Allow, reads(http_prefix(origin))));
                }
                if let Some(d) = destination.filter(|d| is_literal(d.as_str())) {
                    if !origins.iter().any(|o| o.origin() == d.origin()) {
                        rules.push((
                            ALLOW,
                            Verdict::Allow,
                            Condition {
                                resource_types: Some(DOCUMENTS.into()),
                                ..reads(http_prefix(&d))
                            },
                        ));
                    }
                    let mut path = d.clone();
                    path.set_query(None);
                    let gets = |f: String| Condition {
                        request_methods: Some(vec![Method::Get]),
                        ..filter(f, &DOCUMENTS)
                    };
                    rules.push((ALLOW, Verdict::Allow, gets(format!("|{path}|"))));
                    rules.push((ALLOW, Verdict::Allow, gets(format!("|{path}?"))));
                    rules.push((ALLOW, Verdict::Allow, filter(format!("|{d}|"), &ALL)));
                }
            }
        }
        // Requests the user released after a hold: exactly those URLs, any method.
        for released in permit.released.iter().filter_map(|r| web_url(r)) {
            if is_literal(released.as_str()) {
                rules.push((ALLOW, Verdict::Allow, filter(format!("|{released}|"), &ALL)));
            }
        }
        let rules = rules
            .into_iter()
            .zip(first_id..)
            .map(|((priority, kind, condition), id)| Rule {
                id,
                priority,
                action: RuleAction { kind },
                condition: tabs(condition),
            })
            .collect();
        Self { rules }
    }

    /// The ids, for removing the set later.
    pub fn ids(&self) -> Vec<u32> {
        self.rules.iter().map(|r| r.id).collect()
    }

    /// What the browser does with `request` under these rules (Chrome's matching: the highest
    /// priority among matching rules wins, allow over block at equal priority; no match lets
    /// the request go). Used to tell our blocks from other extensions' and in tests.
    pub fn verdict(&self, request: RequestFacts<'_>) -> Verdict {
        self.rules
            .iter()
            .filter(|r| matches(&r.condition, request))
            .max_by_key(|r| (r.priority, r.action.kind == Verdict::Allow))
            .map_or(Verdict::Allow, |r| r.action.kind)
    }
}

/// An http(s) URL without its fragment, as the browser writes it.
fn web_url(s: &str) -> Option<Url> {
    let mut url = Url::parse(s).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

/// `scheme://host[:port]/` of a URL's origin.
fn http_prefix(url: &Url) -> String {
    format!("{}/", url.origin().ascii_serialization())
}

/// The origin's document prefix and its WebSocket twin (`ws` for `http`, `wss` for `https`,
/// same default ports).
fn origin_prefixes(url: &Url) -> Vec<String> {
    let http = http_prefix(url);
    if !is_literal(&http) {
        return Vec::new();
    }
    let ws = http.replacen("http", "ws", 1);
    vec![http, ws]
}

/// Whether a URL can be written into a `urlFilter` as itself: `*`, `^` and `|` are the
/// filter's wildcards and anchors, so a URL containing one would match more than itself.
fn is_literal(url: &str) -> bool {
    url.is_ascii() && !url.contains(['*', '^', '|'])
}

/// A case-sensitive `urlFilter` over the resource types `types`.
fn filter(url_filter: String, types: &[ResourceType]) -> Condition {
    Condition {
        url_filter: Some(url_filter),
        is_url_filter_case_sensitive: Some(true),
        resource_types: Some(types.to_vec()),
        ..Default::default()
    }
}

/// Whether `condition` matches `request` (only the condition fields [`RuleSet::build`] writes,
/// and only its two filter forms).
fn matches(condition: &Condition, r: RequestFacts<'_>) -> bool {
    let url_ok = match condition.url_filter.as_deref() {
        None => true,
        Some(f) => match f.strip_prefix('|') {
            Some(rest) => match rest.strip_suffix('|') {
                Some(exact) => r.url == exact,
                None => r.url.starts_with(rest),
            },
            None => r.url.contains(f),
        },
    };
    // Chrome: with no type list at all, a rule never matches a main frame.
    let untyped = condition.resource_types.is_none() && condition.excluded_resource_types.is_none();
    url_ok
        && !(untyped && r.kind == ResourceType::MainFrame)
        && within(&condition.resource_types, &r.kind)
        && outside(&condition.excluded_resource_types, &r.kind)
        && within(&condition.request_methods, &r.method)
        && outside(&condition.excluded_request_methods, &r.method)
        && within(&condition.tab_ids, &r.tab_id)
        && outside(&condition.excluded_tab_ids, &r.tab_id)
}

/// An unset list matches everything; a set one only its items.
fn within<T: PartialEq>(list: &Option<Vec<T>>, item: &T) -> bool {
    list.as_ref().is_none_or(|l| l.contains(item))
}

/// An unset list excludes nothing; a set one its items.
fn outside<T: PartialEq>(list: &Option<Vec<T>>, item: &T) -> bool {
    list.as_ref().is_none_or(|l| !l.contains(item))
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
