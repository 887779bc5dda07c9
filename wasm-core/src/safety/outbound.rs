//! The outbound data check: every value the task saw is tracked with where it came from
//! ([`TaintSource`]: a page's origin, the user's own words, an attached file, a session note),
//! and an action that would carry one somewhere its source does not allow is refused — in any
//! spelling ([`Spelling`]), partly, or in pieces over several actions to one site. Every URL
//! embedded in a destination (an open redirect's target) is a destination too, so a trusted
//! site's redirector cannot forward a value elsewhere.

mod destinations;
mod handles;
mod redact;
mod source;
mod spelling;
mod values;

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod handle_tests;
#[cfg(test)]
mod tests;

pub use destinations::destinations;
pub use handles::{
    Audience, Concealed, HANDLE_OPEN, HandleRefusal, SecretHandle, SecretKind, audience,
    handle_refs, has_handle, spells_handle,
};
pub use redact::REDACTED;
pub use source::{TaintSource, UserSites, UserText};
pub use spelling::Spelling;

use spelling::{Needle, Payload, Sent};
use std::collections::{BTreeMap, BTreeSet};
use values::{Speaker, named_hosts, values};

/// Shortest value tracked from a page by its shape alone.
const MIN_PAGE_VALUE: usize = 6;

/// Shortest value tracked when a secret's name or a sensitive field says what it is.
const MIN_NAMED_VALUE: usize = 4;

/// What is remembered per site of what was sent there: enough for a task's pieces.
const MAX_SENT_PER_SITE: usize = 64;

/// Where a value was found in session notes: normalised value → origins or hosts it was read
/// on (or, for the user's own values, the sites the user's task named).
pub type Provenance = BTreeMap<String, Vec<String>>;

/// One tracked value.
#[derive(Clone, PartialEq, Eq)]
struct Tainted {
    value: Concealed,
    needle: Needle,
    /// Every source it was seen in: it may go where any of them allows.
    sources: Vec<TaintSource>,
    /// A credential, code, key or card number: cut from anything stored, and shown to the
    /// model only as this handle.
    handle: Option<SecretHandle>,
}

impl Tainted {
    fn secret(&self) -> bool {
        self.handle.is_some()
    }
}

/// Values seen during a task, where they came from, and what was sent where. Never printed
/// (its `Debug` says how many values it holds): it holds the task's secrets.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TaintLedger {
    entries: Vec<Tainted>,
    /// Normalised value → index in `entries`.
    index: BTreeMap<String, usize>,
    /// Where the user's own data may go.
    user_sites: UserSites,
    /// Site → what was sent there during the task, oldest first.
    sent: BTreeMap<String, Vec<Payload>>,
    /// The origins of the pages read.
    read: BTreeSet<String>,
    /// Handles given out so far.
    handles: u32,
}

impl std::fmt::Debug for TaintLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaintLedger")
            .field("values", &self.entries.len())
            .field("secrets", &self.handles)
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

/// Why an outbound action was blocked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("blocked: this would send data from {from} ({form}) to {destination}")]
pub struct OutboundBlock {
    /// Where the value came from.
    pub from: TaintSource,
    /// Where it would go (an origin).
    pub destination: String,
    /// How it was spelled.
    pub form: Spelling,
}

impl TaintLedger {
    /// Tracks `value` from `source`; `secret` says what kind of secret it is, if one.
    fn add(&mut self, value: &str, source: TaintSource, secret: Option<SecretKind>, min: usize) {
        let Some(needle) = Needle::new(value, min) else { return };
        let i = match self.index.get(&needle.full) {
            Some(&i) => {
                let entry = &mut self.entries[i];
                if !entry.sources.contains(&source) {
                    entry.sources.push(source);
                }
                i
            }
            None => {
                self.index.insert(needle.full.clone(), self.entries.len());
                self.entries.push(Tainted {
                    value: Concealed::new(value),
                    needle,
                    sources: vec![source],
                    handle: None,
                });
                self.entries.len() - 1
            }
        };
        if let Some(kind) = secret {
            self.give_handle(i, kind);
        }
    }

    /// Makes entry `i` a secret with a handle of its own (once).
    fn give_handle(&mut self, i: usize, kind: SecretKind) {
        let entry = &mut self.entries[i];
        if entry.handle.is_some() {
            return;
        }
        self.handles += 1;
        let origin = entry.sources.first().map(TaintSource::label).unwrap_or_default();
        entry.handle = Some(SecretHandle { id: self.handles, kind, origin });
    }

    /// Records the values of page text read on `url` (an observation, extract or find output).
    /// Text read in a document without a web origin (`about:srcdoc`, `data:`, an empty
    /// address) is tracked as of unknown origin: it may leave for nowhere.
    pub fn record_page_text(&mut self, url: &str, text: &str) {
        let Some(origin) = crate::safety::origin_of(url) else {
            self.record_unattributed(text);
            return;
        };
        if !self.read.contains(&origin) {
            self.read.insert(origin.clone());
        }
        for found in values(text, Speaker::Page) {
            let source = if found.link.iter().any(|target| *target != origin) {
                TaintSource::Link { origin: origin.clone(), targets: found.link }
            } else {
                TaintSource::Page { origin: origin.clone() }
            };
            self.add(&found.value, source, found.secret.then_some(found.kind), MIN_PAGE_VALUE);
        }
    }

    /// Records the values of page text whose origin is no longer known (what earlier steps
    /// extracted, after the service worker restarted): they may leave for no origin.
    pub fn record_unattributed(&mut self, text: &str) {
        for found in values(text, Speaker::Page) {
            let secret = found.secret.then_some(found.kind);
            self.add(&found.value, TaintSource::Unattributed, secret, MIN_PAGE_VALUE);
        }
    }

    /// Records a value from a sensitive field: it may leave for no origin at all.
    pub fn record_sensitive(&mut self, url: &str, value: &str) {
        let origin = crate::safety::origin_of(url).unwrap_or_else(|| url.to_owned());
        let source = TaintSource::SensitiveField { origin };
        self.add(value, source, Some(SecretKind::FieldValue), MIN_NAMED_VALUE);
    }

    /// Records the user's own words (the task, a card answer): their values may go only to
    /// the user's sites, and the sites they name join those.
    pub fn record_user_text(&mut self, text: &str, said: UserText) {
        for host in named_hosts(text) {
            self.user_sites.add_named(&host);
        }
        for found in values(text, Speaker::User) {
            let secret = found.secret.then_some(found.kind);
            self.add(&found.value, TaintSource::User { said }, secret, MIN_NAMED_VALUE);
        }
    }

    /// Records one value the user gave a workflow's input: like their task's words.
    pub fn record_user_value(&mut self, value: &str) {
        self.record_user_text(value, UserText::Task);
    }

    /// Records a secret the user gave a workflow's input `name`: a secret (shown to the model
    /// and typed by the run only as its handle) that may go only to `origins`, the origins the
    /// workflow's own steps name.
    pub fn record_workflow_secret(&mut self, name: &str, value: &str, origins: Vec<String>) {
        let source = TaintSource::WorkflowInput { name: name.to_owned(), origins };
        self.add(value, source, Some(SecretKind::Secret), MIN_NAMED_VALUE);
    }

    /// The handle of `value`, when the ledger holds it as a secret.
    pub fn handle_of(&self, value: &str) -> Option<&SecretHandle> {
        let needle = Needle::new(value, MIN_NAMED_VALUE)?;
        let &i = self.index.get(&needle.full)?;
        self.entries.get(i)?.handle.as_ref()
    }

    /// A site of the task's scope at its start (the start tab, a site allowed in Settings):
    /// the user's data may go there.
    pub fn allow_user_site(&mut self, url: &str) {
        self.user_sites.add_origin(url);
    }

    /// Records an attached file's name and path: they reach the model (the resource list) and
    /// a page only by an upload, so they may go only where the user's data may. They are
    /// tracked, never secret: the model names the file it uploads and reads what the page says
    /// of it (a random temporary directory is no credential), and the file's content never
    /// reaches the model at all.
    pub fn record_file(&mut self, name: &str, path: &str) {
        let source = TaintSource::File { name: name.to_owned() };
        for found in values(&format!("{name} {path}"), Speaker::User) {
            self.add(&found.value, source.clone(), None, MIN_NAMED_VALUE);
        }
    }

    /// Records what the session notes of earlier tasks hold: each value may go back only to
    /// where it was read (`provenance`), and nowhere when that is unknown.
    pub fn record_session_notes(&mut self, text: &str, provenance: &Provenance) {
        for found in values(text, Speaker::Page) {
            let Some(needle) = Needle::new(&found.value, MIN_PAGE_VALUE) else { continue };
            let from = provenance.get(&needle.full).cloned().unwrap_or_default();
            let source = TaintSource::SessionNote { from };
            self.add(&found.value, source, found.secret.then_some(found.kind), MIN_PAGE_VALUE);
        }
    }

    /// Takes over what `other` read (pages, sensitive fields, session notes): an external
    /// agent's earlier calls for a task it asks for, and that task's pages for its later
    /// calls. Each value keeps only where it was read, even where this ledger had it from the
    /// user's words: an external agent's task text is not the user's, so a value it read on
    /// one site cannot reach another by being written into its task.
    pub fn adopt_read(&mut self, other: &TaintLedger) {
        for entry in &other.entries {
            let read: Vec<&TaintSource> =
                entry.sources.iter().filter(|s| !s.from_the_user()).collect();
            if read.is_empty() {
                continue;
            }
            let i = match self.index.get(&entry.needle.full) {
                Some(&i) => {
                    let mine = &mut self.entries[i];
                    mine.sources.retain(|s| !s.from_the_user());
                    for source in read {
                        if !mine.sources.contains(source) {
                            mine.sources.push(source.clone());
                        }
                    }
                    i
                }
                None => {
                    self.index.insert(entry.needle.full.clone(), self.entries.len());
                    self.entries.push(Tainted {
                        value: entry.value.clone(),
                        needle: entry.needle.clone(),
                        sources: read.into_iter().cloned().collect(),
                        handle: None,
                    });
                    self.entries.len() - 1
                }
            };
            if let Some(handle) = &entry.handle {
                self.give_handle(i, handle.kind);
            }
        }
        self.read.extend(other.read.iter().cloned());
    }

    /// Number of values tracked (for tests and the timeline).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is tracked yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The origins of the pages the task read.
    pub fn page_origins(&self) -> Vec<String> {
        self.read.iter().cloned().collect()
    }

    /// Where the user's own data may go.
    pub fn user_sites(&self) -> &UserSites {
        &self.user_sites
    }

    /// Checks data about to be sent to `destination_url` (a URL to open, text to type into a
    /// field of that page, a form's serialized values, an option to choose) together with what
    /// was sent to the same sites earlier in the task.
    pub fn check(&self, destination_url: &str, outbound: &str) -> Result<(), OutboundBlock> {
        let mut destinations = destinations(destination_url);
        if destinations.is_empty() {
            destinations.push(destination_url.to_owned());
        }
        let payload = Payload::outbound(destination_url, outbound);
        let sites: BTreeSet<String> = destinations.iter().map(|d| site_key(d)).collect();
        let mut history: Vec<&Payload> =
            sites.iter().filter_map(|s| self.sent.get(s)).flatten().collect();
        let earlier = history.len();
        history.push(&payload);
        let sent = Sent::new(&history);
        for entry in &self.entries {
            let refused = destinations
                .iter()
                .find(|d| !entry.sources.iter().any(|s| s.allows(d, &self.user_sites)));
            let Some(destination) = refused else { continue };
            let form = entry.needle.find(&payload).or_else(|| {
                (earlier > 0 && entry.needle.in_pieces(&sent)).then_some(Spelling::Pieces)
            });
            if let Some(form) = form {
                return Err(OutboundBlock {
                    from: entry.sources[0].clone(),
                    destination: destination.clone(),
                    form,
                });
            }
        }
        Ok(())
    }

    /// Remembers data that went to `destination_url` (after the check let it go), so pieces
    /// sent over several actions are recognised.
    pub fn record_sent(&mut self, destination_url: &str, outbound: &str) {
        let payload = Payload::outbound(destination_url, outbound);
        let mut sites: BTreeSet<String> =
            destinations(destination_url).iter().map(|d| site_key(d)).collect();
        if sites.is_empty() {
            sites.insert(destination_url.to_owned());
        }
        for site in sites {
            let sent = self.sent.entry(site).or_default();
            if sent.len() >= MAX_SENT_PER_SITE {
                sent.remove(0);
            }
            sent.push(payload.clone());
        }
    }

    /// `text` with every secret this task knows cut out (credentials, codes, keys, card
    /// numbers, sensitive fields' values), before it is stored in the session.
    pub fn redact_secrets(&self, text: &str) -> String {
        let needles: Vec<&Needle> =
            self.entries.iter().filter(|e| e.secret()).map(|e| &e.needle).collect();
        redact::redact(text, &needles)
    }

    /// `text` with every tracked value cut out (an export without the user's consent to
    /// include them).
    pub fn redact_all(&self, text: &str) -> String {
        let needles: Vec<&Needle> = self.entries.iter().map(|e| &e.needle).collect();
        redact::redact(text, &needles)
    }

    /// `text` as the model may read it: every secret this task knows, in any spelling the
    /// redaction recognises (also a part of it), replaced by its handle. What the model never
    /// read it cannot spell out for a page.
    pub fn conceal(&self, text: &str) -> String {
        let secrets: Vec<&Tainted> = self.entries.iter().filter(|e| e.secret()).collect();
        if secrets.is_empty() {
            return text.to_owned();
        }
        let needles: Vec<&Needle> = secrets.iter().map(|e| &e.needle).collect();
        redact::replace(text, &needles, |i| {
            secrets
                .get(i)
                .and_then(|e| e.handle.as_ref())
                .map_or_else(|| REDACTED.to_owned(), SecretHandle::to_string)
        })
    }

    /// A ledger of this one's secrets alone (handles and values kept), for concealing what
    /// is shown while this ledger is busy (an external agent's card, told to it as progress).
    pub fn secrets_only(&self) -> TaintLedger {
        let entries: Vec<Tainted> = self.entries.iter().filter(|e| e.secret()).cloned().collect();
        let index = entries.iter().enumerate().map(|(i, e)| (e.needle.full.clone(), i)).collect();
        TaintLedger { entries, index, handles: self.handles, ..TaintLedger::default() }
    }

    /// `text` with its handles replaced by their real values, for typing into a field of a
    /// page of `destination` (the field's document origin) whose readers are `audience`:
    /// refused when a secret may not go there or other people could read it.
    pub fn reveal(
        &self,
        text: &str,
        destination: &str,
        audience: &Audience,
    ) -> Result<String, HandleRefusal> {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (range, id) in handle_refs(text) {
            let entry = self.by_handle(id).ok_or(HandleRefusal::Unknown(id))?;
            let handle = entry.handle.clone().ok_or(HandleRefusal::Unknown(id))?;
            if let Audience::Public(why) = audience {
                return Err(HandleRefusal::Public { handle, why: why.clone() });
            }
            if !entry.sources.iter().any(|s| s.allows(destination, &self.user_sites)) {
                return Err(HandleRefusal::Elsewhere {
                    allowed: self.allowed_for(entry),
                    handle,
                    destination: destination.to_owned(),
                });
            }
            out.push_str(text.get(last..range.start).unwrap_or_default());
            out.push_str(entry.value.expose());
            last = range.end;
        }
        out.push_str(text.get(last..).unwrap_or_default());
        Ok(out)
    }

    /// The handle numbered `id` and its real value (the panel's reveal: the user may see it).
    pub fn secret(&self, id: u32) -> Option<(&SecretHandle, &Concealed)> {
        let entry = self.by_handle(id)?;
        Some((entry.handle.as_ref()?, &entry.value))
    }

    /// Every handle given out so far, in order.
    pub fn handles(&self) -> Vec<&SecretHandle> {
        let mut out: Vec<&SecretHandle> =
            self.entries.iter().filter_map(|e| e.handle.as_ref()).collect();
        out.sort_by_key(|h| h.id);
        out
    }

    fn by_handle(&self, id: u32) -> Option<&Tainted> {
        self.entries.iter().find(|e| e.handle.as_ref().is_some_and(|h| h.id == id))
    }

    /// Where a secret may be typed, in words for the model.
    fn allowed_for(&self, entry: &Tainted) -> String {
        let mut sites: Vec<String> = Vec::new();
        for source in &entry.sources {
            match source {
                TaintSource::Page { origin } => sites.push(origin.clone()),
                TaintSource::Link { origin, targets } => {
                    sites.push(origin.clone());
                    sites.extend(targets.iter().cloned());
                }
                TaintSource::User { .. } | TaintSource::File { .. } => {
                    sites.extend(self.user_sites.list())
                }
                TaintSource::SessionNote { from } => sites.extend(from.iter().cloned()),
                TaintSource::WorkflowInput { origins, .. } => sites.extend(origins.iter().cloned()),
                TaintSource::SensitiveField { .. } | TaintSource::Unattributed => {}
            }
        }
        sites.sort();
        sites.dedup();
        if sites.is_empty() { "no site".to_owned() } else { sites.join(", ") }
    }

    /// Where the tracked values of `text` came from, for the session notes: page values keep
    /// their origins, the user's their task's sites; values of unknown origin are left out
    /// (a later task may send them nowhere).
    pub fn provenance(&self, text: &str) -> Provenance {
        let mut out = Provenance::new();
        for found in values(text, Speaker::Page) {
            let Some(needle) = Needle::new(&found.value, MIN_PAGE_VALUE) else { continue };
            let Some(&i) = self.index.get(&needle.full) else { continue };
            let mut from: Vec<String> = Vec::new();
            for source in &self.entries[i].sources {
                match source {
                    TaintSource::Page { origin } => from.push(origin.clone()),
                    TaintSource::Link { origin, targets } => {
                        from.push(origin.clone());
                        from.extend(targets.iter().cloned());
                    }
                    TaintSource::User { .. } | TaintSource::File { .. } => {
                        from.extend(self.user_sites.list());
                    }
                    TaintSource::SessionNote { from: earlier } => from.extend(earlier.clone()),
                    TaintSource::WorkflowInput { origins, .. } => from.extend(origins.clone()),
                    TaintSource::SensitiveField { .. } | TaintSource::Unattributed => {}
                }
            }
            from.sort();
            from.dedup();
            if !from.is_empty() {
                out.insert(needle.full, from);
            }
        }
        out
    }
}

/// The site an origin belongs to for pieces: its host's last two labels (`a.evil.example` and
/// `b.evil.example` are one attacker), the whole host for IP addresses.
fn site_key(origin: &str) -> String {
    match url::Url::parse(origin).ok().as_ref().and_then(url::Url::host) {
        Some(url::Host::Domain(host)) => {
            let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
            labels[labels.len().saturating_sub(2)..].join(".")
        }
        Some(ip) => ip.to_string(),
        None => origin.to_owned(),
    }
}
