//! Where a tracked value came from, and so where it may go.

use crate::safety::origin_of;
use std::collections::BTreeSet;
use std::fmt;

/// Which words of the user a value was in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum UserText {
    /// The task as the user wrote it.
    Task,
    /// An answer the user typed on a card during the task.
    Answer,
}

/// The origin of a tracked value: it decides where the value may be sent.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum TaintSource {
    /// Text of a page the model read (observation, extract or find output): it may go back to
    /// that origin only.
    Page {
        /// The page's (or frame's) origin.
        origin: String,
    },
    /// A token inside a link a page showed: it may go to the page's origin and to the link's.
    Link {
        /// The page's origin.
        origin: String,
        /// The origins the link sends to (its own, and any an open redirect in it forwards
        /// to): clicking it sends them its own tokens anyway.
        targets: Vec<String>,
    },
    /// The value of a sensitive field (password, one-time code): it may go nowhere.
    SensitiveField {
        /// The page's origin.
        origin: String,
    },
    /// The user's own words: the value may go only where the user's task sends it (the
    /// task's sites at its start and the sites the user's words name), never to a site a
    /// page later lured the agent to.
    User {
        /// Task or card answer.
        said: UserText,
    },
    /// The name or path of a file the user attached (its content reaches a page only by an
    /// upload the user approved, and never the model): like the user's words.
    File {
        /// The resource's name.
        name: String,
    },
    /// A finding of an earlier task of the session: it may go back to the sites it was read
    /// on, and nowhere when that is unknown.
    SessionNote {
        /// Origins it was read on (its provenance).
        from: Vec<String>,
    },
    /// Text whose origin is no longer known (what earlier steps read, after the service
    /// worker restarted): it may go nowhere.
    Unattributed,
    /// A secret the user gave a workflow's input: it may go only to the origins the
    /// workflow's own steps name (never where a page later lured the run).
    WorkflowInput {
        /// The input's name.
        name: String,
        /// The origins of the workflow's steps.
        origins: Vec<String>,
    },
}

impl TaintSource {
    /// The user's own words or attached files (not something read in the browser).
    pub fn from_the_user(&self) -> bool {
        matches!(self, Self::User { .. } | Self::File { .. })
    }

    /// Where a value came from in a few words, for its handle (`dash.example`, `your task`):
    /// a page by its host (and port), never its path, which is the page's own words.
    pub fn label(&self) -> String {
        let host = |origin: &str| {
            url::Url::parse(origin)
                .ok()
                .and_then(|u| {
                    let host = u.host_str()?.to_owned();
                    Some(match u.port() {
                        Some(port) => format!("{host}:{port}"),
                        None => host,
                    })
                })
                .unwrap_or_else(|| "a page".to_owned())
        };
        match self {
            Self::Page { origin } | Self::Link { origin, .. } => host(origin),
            Self::SensitiveField { origin } => format!("a sensitive field on {}", host(origin)),
            Self::User { said: UserText::Task } => "your task".to_owned(),
            Self::User { said: UserText::Answer } => "your answer".to_owned(),
            Self::File { .. } => "an attached file".to_owned(),
            Self::SessionNote { .. } => "earlier notes".to_owned(),
            Self::Unattributed => "an earlier page".to_owned(),
            Self::WorkflowInput { name, .. } => format!("the workflow input “{name}”"),
        }
    }

    /// Whether a value from this source may be sent to `destination` (an origin).
    pub fn allows(&self, destination: &str, user: &UserSites) -> bool {
        match self {
            Self::Page { origin } => origin == destination,
            Self::Link { origin, targets } => {
                origin == destination || targets.iter().any(|t| t == destination)
            }
            Self::User { .. } | Self::File { .. } => user.allows(destination),
            Self::SessionNote { from } => from.iter().any(|site| same_site(site, destination)),
            Self::WorkflowInput { origins, .. } => origins.iter().any(|o| o == destination),
            Self::SensitiveField { .. } | Self::Unattributed => false,
        }
    }
}

/// Whether `destination` (an origin) is `site`: an origin, or a host the user named.
fn same_site(site: &str, destination: &str) -> bool {
    if site.contains("://") {
        return site == destination;
    }
    let mut named = UserSites::default();
    named.add_named(site);
    named.allows(destination)
}

impl fmt::Display for TaintSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Page { origin } | Self::Link { origin, .. } => write!(f, "{origin}"),
            Self::SensitiveField { origin } => write!(f, "a sensitive field on {origin}"),
            Self::User { said: UserText::Task } => f.write_str("your task"),
            Self::User { said: UserText::Answer } => f.write_str("your answer on a card"),
            Self::File { name } => write!(f, "the attached file “{name}”"),
            Self::SessionNote { from } if from.is_empty() => {
                f.write_str("the notes of an earlier task")
            }
            Self::SessionNote { from } => {
                write!(f, "the notes of an earlier task (read on {})", from.join(", "))
            }
            Self::Unattributed => f.write_str("an earlier page of this task"),
            Self::WorkflowInput { name, .. } => write!(f, "your workflow input “{name}”"),
        }
    }
}

/// Where the user's own data may go: the sites of the task's scope at its start (the start
/// tab, the sites allowed in Settings) and the sites the user's words name (with their
/// subdomains). A site approved on a card later is not among them: a page may have lured the
/// agent there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserSites {
    /// Exact origins.
    origins: BTreeSet<String>,
    /// Hosts (with a port when the user wrote one) named in the user's words.
    named: BTreeSet<String>,
}

impl UserSites {
    /// Adds an origin of the task's scope at its start.
    pub fn add_origin(&mut self, url: &str) {
        if let Some(origin) = origin_of(url) {
            self.origins.insert(origin);
        }
    }

    /// Adds a host the user named (`shop.example`, `shop.localhost:8080`).
    pub fn add_named(&mut self, host: &str) {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if !host.is_empty() {
            self.named.insert(host.strip_prefix("www.").map(str::to_owned).unwrap_or(host));
        }
    }

    /// Whether the user's data may go to `destination` (an origin).
    pub fn allows(&self, destination: &str) -> bool {
        if self.origins.contains(destination) {
            return true;
        }
        let Ok(url) = url::Url::parse(destination) else { return false };
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return false;
        };
        self.named.iter().any(|named| {
            let (named_host, named_port) = match named.rsplit_once(':') {
                Some((h, p)) => (h, p.parse::<u16>().ok()),
                None => (named.as_str(), None),
            };
            let same_port = named_port.is_none_or(|p| p == port);
            let same_site = host == named_host || host.ends_with(&format!(".{named_host}"));
            same_site && same_port
        })
    }

    /// The sites, for provenance in session notes.
    pub fn list(&self) -> Vec<String> {
        self.origins.iter().chain(self.named.iter()).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_sites_are_the_start_and_the_named_sites_with_subdomains() {
        let mut sites = UserSites::default();
        sites.add_origin("https://start.example/page");
        sites.add_named("www.shop.example");
        sites.add_named("dash.localhost:8080");
        assert!(sites.allows("https://start.example"));
        assert!(sites.allows("https://shop.example"));
        assert!(sites.allows("https://login.shop.example"));
        assert!(sites.allows("http://dash.localhost:8080"));
        assert!(!sites.allows("http://dash.localhost:9999"));
        assert!(!sites.allows("https://evilshop.example"));
        assert!(!sites.allows("https://shop.example.evil.example"));
        assert!(!sites.allows("https://sub.start.example"));
    }

    #[test]
    fn sources_say_where_values_may_go() {
        let user = UserSites::default();
        let page = TaintSource::Page { origin: "https://a.example".into() };
        assert!(page.allows("https://a.example", &user));
        assert!(!page.allows("https://b.example", &user));
        let note = TaintSource::SessionNote { from: vec![] };
        assert!(!note.allows("https://a.example", &user));
        assert!(!TaintSource::Unattributed.allows("https://a.example", &user));
    }
}
