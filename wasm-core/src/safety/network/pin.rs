//! Body pinning: while an action is done again after the user approved a held request, the
//! browser pauses every request of the tab (`chrome.debugger`, CDP `Fetch.requestPaused` at
//! the request stage) and this module rules on each: the approved request goes on only if it
//! is exactly what the card showed — method, address and decoded body — and any other
//! state-changing request is failed and becomes a held request again (a new card showing what
//! it would really send). Reads go on (the declarativeNetRequest rules stay the first layer).
//!
//! **Equal** means: the same effective method (a method-override header such as
//! `X-HTTP-Method-Override: DELETE` counts as the method), the same address after WHATWG
//! parsing without its fragment (query order counts: the address is released exactly), and
//! the same body as decoded fields — JSON compared as values (object keys in any order, array
//! order and value types kept), form and multipart bodies as the multiset of their fields
//! (a file part counts as its file name, as the browser showed it on the card), anything else
//! as its text. A card that showed no body pins "no fields": a request that then carries
//! fields is held again, now with what it carries. Other headers are not part of the card and
//! not compared. Each approved request goes on at most once per redo.

use super::body::{self, RequestBody};
use super::{BlockedRequest, NetworkPermit};
use base64::Engine;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Headers whose value replaces the request's method on many servers (Rails, Express's
/// `method-override`, ASP.NET, Google APIs): the method a request really has.
const METHOD_OVERRIDES: &[&str] = &["x-http-method-override", "x-http-method", "x-method-override"];

/// CDP's resource types (`Network.ResourceType`), as `Fetch.requestPaused` names them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[allow(missing_docs, reason = "CDP's own names")]
pub enum CdpResourceType {
    Document,
    Stylesheet,
    Image,
    Media,
    Font,
    Script,
    XHR,
    Fetch,
    EventSource,
    WebSocket,
    Ping,
    CSPViolationReport,
    Preflight,
    #[default]
    #[serde(other)]
    Other,
}

impl CdpResourceType {
    /// The name `webRequest` and the rest of the network layer use for the same kind.
    fn web_request_name(self) -> &'static str {
        match self {
            Self::Document => "main_frame",
            Self::Stylesheet => "stylesheet",
            Self::Image => "image",
            Self::Media => "media",
            Self::Font => "font",
            Self::Script => "script",
            Self::XHR | Self::Fetch | Self::EventSource | Self::Preflight => "xmlhttprequest",
            Self::WebSocket => "websocket",
            Self::Ping => "ping",
            Self::CSPViolationReport => "csp_report",
            Self::Other => "other",
        }
    }
}

/// One entry of a paused request's body (`Network.PostDataEntry`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PostDataEntry {
    /// The bytes, base64-encoded.
    #[serde(default)]
    pub bytes: Option<String>,
}

/// The HTTP request of a paused request (`Network.Request`), the fields read here.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PausedHttp {
    /// Without the fragment.
    pub url: String,
    /// As sent.
    pub method: String,
    /// Header name → value.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The body as text, when CDP gives it.
    #[serde(default)]
    pub post_data: Option<String>,
    /// Whether the request has a body at all (it may not be given).
    #[serde(default)]
    pub has_post_data: bool,
    /// The body's bytes, exactly.
    #[serde(default)]
    pub post_data_entries: Vec<PostDataEntry>,
}

/// `Fetch.requestPaused`'s parameters, the fields read here.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PausedRequest {
    /// What `Fetch.continueRequest` / `Fetch.failRequest` need.
    pub request_id: String,
    /// The request itself.
    pub request: PausedHttp,
    /// Its kind.
    #[serde(default)]
    pub resource_type: CdpResourceType,
}

/// What to do with a paused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinVerdict {
    /// `Fetch.continueRequest`: a read, the approved request itself, or a write the action's
    /// permit covers without a release.
    Continue,
    /// `Fetch.failRequest` (`BlockedByClient`): nothing is sent; the request, as it really
    /// is, becomes a held request (a card).
    Fail(Box<BlockedRequest>),
}

/// The pinning of one redo: the permit it runs under (its `pinned` requests are what the
/// cards showed) and which of them went already.
#[derive(Debug, Clone)]
pub struct Pinning {
    permit: NetworkPermit,
    used: Vec<bool>,
}

impl Pinning {
    /// Pins what `permit` pins; `None` when it pins nothing (no debugger is needed).
    pub fn new(permit: &NetworkPermit) -> Option<Self> {
        (!permit.pinned.is_empty())
            .then(|| Self { permit: permit.clone(), used: vec![false; permit.pinned.len()] })
    }

    /// The permit it pins for.
    pub fn permit(&self) -> &NetworkPermit {
        &self.permit
    }

    /// The ruling on one paused request.
    pub fn judge(&mut self, paused: &PausedRequest) -> PinVerdict {
        let sent = as_sent(paused);
        if !sent.changes_state() {
            return PinVerdict::Continue;
        }
        let unused = self
            .permit
            .pinned
            .iter()
            .zip(self.used.iter_mut())
            .find(|(pin, used)| !**used && same_request(pin, &sent));
        if let Some((_, used)) = unused {
            *used = true;
            return PinVerdict::Continue;
        }
        let bare = bare_url(&sent.url);
        let pinned_there = self.permit.pinned.iter().any(|p| bare_url(&p.url) == bare);
        if !pinned_there && !self.permit.holds_write_to(&bare) {
            // The budget, the approved destination or the judged form covers it: it would
            // have gone on the first run too.
            return PinVerdict::Continue;
        }
        PinVerdict::Fail(Box::new(sent))
    }
}

/// What the user and the model are told when the browser could not pin an approved
/// request (`reason`: Chrome's words — DevTools already open on the tab, a policy, the user
/// closing the debugging infobar): the redo ran under the network rules alone, which pin
/// the address, and what was sent there is checked against the card afterwards.
pub fn not_pinned(reason: &str) -> String {
    let reason: String = reason.chars().filter(|c| !c.is_control()).take(160).collect();
    format!(
        "NOTE: Waymark could not hold the approved request in the browser ({reason}); the \
         action was done again with only its address pinned, and what the page sent there is \
         checked against the card afterwards."
    )
}

/// The address without its fragment, as the WHATWG parser writes it (unparsable: as given).
fn bare_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.into()
        }
        Err(_) => url.split('#').next().unwrap_or(url).to_owned(),
    }
}

/// A header's value, by name in any case.
fn header<'a>(headers: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim())
}

/// The method the server acts on: a method-override header wins over the request line.
fn effective_method(http: &PausedHttp) -> String {
    METHOD_OVERRIDES
        .iter()
        .find_map(|h| header(&http.headers, h).filter(|v| !v.is_empty()))
        .unwrap_or(&http.method)
        .to_ascii_uppercase()
}

/// A paused request as the network layer describes requests (the body decoded by its
/// content type, the method as the server will take it).
pub fn as_sent(paused: &PausedRequest) -> BlockedRequest {
    let http = &paused.request;
    BlockedRequest {
        url: http.url.clone(),
        method: effective_method(http),
        kind: paused.resource_type.web_request_name().to_owned(),
        body: paused_body(http),
    }
}

/// The body's bytes: the exact entries when given, else the text.
fn body_bytes(http: &PausedHttp) -> Option<Vec<u8>> {
    let engine = base64::engine::general_purpose::STANDARD;
    let mut bytes = Vec::new();
    let mut any = false;
    for entry in &http.post_data_entries {
        if let Some(data) = &entry.bytes {
            bytes.extend(engine.decode(data).ok()?);
            any = true;
        }
    }
    if any {
        return Some(bytes);
    }
    http.post_data.as_ref().map(|text| text.as_bytes().to_vec())
}

/// The body decoded by its `Content-Type`: form and multipart bodies as fields (as
/// `webRequest` shows them), anything else as bytes. `None` when the request carries none
/// or CDP did not give it.
fn paused_body(http: &PausedHttp) -> Option<RequestBody> {
    let bytes = body_bytes(http)?;
    let kind = header(&http.headers, "content-type").and_then(|t| t.parse::<mime::Mime>().ok());
    let form = match &kind {
        Some(m) if m.essence_str() == "application/x-www-form-urlencoded" => {
            let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (name, value) in url::form_urlencoded::parse(&bytes) {
                fields.entry(name.into_owned()).or_default().push(value.into_owned());
            }
            Some(fields)
        }
        Some(m) if m.essence_str() == "multipart/form-data" => {
            m.get_param(mime::BOUNDARY).and_then(|b| multipart_fields(&bytes, b.as_str()))
        }
        _ => None,
    };
    Some(match form {
        Some(fields) => RequestBody::Form { fields },
        None => RequestBody::Raw { bytes },
    })
}

/// Where `needle` first occurs in `hay` at or after `from`.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let rest = hay.get(from..)?;
    rest.windows(needle.len().max(1)).position(|w| w == needle).map(|i| i + from)
}

/// A `Content-Disposition` parameter (`name`, `filename`), quotes respected.
fn disposition_param(head: &str, key: &str) -> Option<String> {
    let line = head
        .lines()
        .find(|l| l.trim_start().to_ascii_lowercase().starts_with("content-disposition:"))?;
    let mut rest = line.split_once(';')?.1;
    loop {
        rest = rest.trim_start();
        let (name, after) = rest.split_once('=')?;
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"')?;
                let value = quoted.get(..end)?;
                let next = quoted.get(end + 1..)?.split_once(';').map_or("", |(_, n)| n);
                (value, next)
            }
            None => after.split_once(';').unwrap_or((after, "")),
        };
        if name.trim().eq_ignore_ascii_case(key) {
            return Some(value.trim().to_owned());
        }
        if next.is_empty() {
            return None;
        }
        rest = next;
    }
}

/// A `multipart/form-data` body's fields: name → values, a file part as its file name (as
/// the browser shows such a part). `None` when the body is not well formed.
fn multipart_fields(bytes: &[u8], boundary: &str) -> Option<BTreeMap<String, Vec<String>>> {
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut at = find(bytes, delimiter, 0)? + delimiter.len();
    loop {
        let rest = bytes.get(at..)?;
        if rest.starts_with(b"--") {
            return Some(fields);
        }
        let start = at + 2; // the line break after the delimiter
        let next = find(bytes, delimiter, start)?;
        // The part ends with the line break before the next delimiter.
        let part = bytes.get(start..next.checked_sub(2)?)?;
        let split = find(part, b"\r\n\r\n", 0)?;
        let head = String::from_utf8_lossy(part.get(..split)?);
        let content = part.get(split + 4..)?;
        let name = disposition_param(&head, "name")?;
        let value = match disposition_param(&head, "filename") {
            Some(file) => file,
            None => String::from_utf8_lossy(content).into_owned(),
        };
        fields.entry(name).or_default().push(value);
        at = next + delimiter.len();
    }
}

/// Whether `sent` is exactly the request `pinned` (what a card showed): see the module doc.
pub fn same_request(pinned: &BlockedRequest, sent: &BlockedRequest) -> bool {
    pinned.method.eq_ignore_ascii_case(&sent.method)
        && bare_url(&pinned.url) == bare_url(&sent.url)
        && same_body(pinned.body.as_ref(), sent.body.as_ref())
}

/// A body as JSON, when it is JSON.
fn as_json(b: Option<&RequestBody>) -> Option<serde_json::Value> {
    match b {
        Some(RequestBody::Raw { bytes }) => serde_json::from_slice(bytes).ok(),
        _ => None,
    }
}

/// Whether two bodies carry the same content (see the module doc).
pub fn same_body(pinned: Option<&RequestBody>, sent: Option<&RequestBody>) -> bool {
    if let (Some(a), Some(b)) = (as_json(pinned), as_json(sent)) {
        return a == b;
    }
    let mut left = body::fields("about:blank", pinned);
    let mut right = body::fields("about:blank", sent);
    left.sort();
    right.sort();
    left == right
}

#[cfg(test)]
#[path = "pin_tests.rs"]
mod tests;
