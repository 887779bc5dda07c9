//! The page's errors, by kind: what the content script answers when it cannot do a request
//! ([`ContentError`]), and what the agent's page calls fail with ([`PageError`]).
//!
//! Why kinds: the agent decides on them (a closed tab asks the user for another, a stale ref
//! asks the model to observe again), so a kind must survive every hop — the content script's
//! wasm, `content.js`, `chrome.scripting`, the worker — and never be recovered by reading an
//! error's words. Across the JS boundary an error is a JS `Error` whose `name` is its kind
//! ([`NamedError`]; the helpers are in `crate::js`).

use crate::observation::Ref;

/// An error that crosses the JS boundary as a JS `Error` whose `name` is its kind and whose
/// `message` is its text, so the other side gets the kind back without parsing the text.
pub trait NamedError: std::error::Error {
    /// The kind's stable name (never a built-in JS error name such as `TypeError`).
    fn name(&self) -> &'static str;
}

/// The kinds of [`ContentError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContentErrorKind {
    /// The worker's request could not be decoded (the worker and the content script are of
    /// different builds, or a bug).
    BadRequest,
    /// The frame has no window or document (it is being torn down).
    NoDocument,
    /// The ref names no element of this frame's latest observation.
    NoSuchElement,
    /// The ref's element left the page or is no longer the element the model saw.
    StaleElement,
    /// The reply could not be encoded for the worker.
    EncodeFailed,
    /// The content script itself failed: it did not load, or threw. Any JS error that is not
    /// one of ours (and not a trap) has this kind.
    ScriptFailed,
    /// The content script's wasm trapped (a panic): `content.js` runs the next request on a
    /// fresh instance, and what this one was doing may or may not have been done.
    Crashed,
}

impl ContentErrorKind {
    /// Every kind, for the name round trip.
    pub const ALL: [Self; 7] = [
        Self::BadRequest,
        Self::NoDocument,
        Self::NoSuchElement,
        Self::StaleElement,
        Self::EncodeFailed,
        Self::ScriptFailed,
        Self::Crashed,
    ];

    /// The JS `Error.name` of this kind.
    pub const fn name(self) -> &'static str {
        match self {
            Self::BadRequest => "BadRequest",
            Self::NoDocument => "NoDocument",
            Self::NoSuchElement => "NoSuchElement",
            Self::StaleElement => "StaleElement",
            Self::EncodeFailed => "EncodeFailed",
            Self::ScriptFailed => "ScriptFailed",
            Self::Crashed => "Crashed",
        }
    }

    /// The kind a JS `Error.name` stands for: a wasm trap's `RuntimeError` (a panic) is
    /// [`Self::Crashed`]; anything else that is not one of our names (a `TypeError` while
    /// loading) is [`Self::ScriptFailed`].
    pub fn from_name(name: &str) -> Self {
        if name == "RuntimeError" {
            return Self::Crashed;
        }
        Self::ALL.into_iter().find(|k| k.name() == name).unwrap_or(Self::ScriptFailed)
    }
}

/// Why the content script could not do a request (an action that ran and failed is not an
/// error: it is an `ActionOutcome` the model reads).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ContentError {
    /// What went wrong, for decisions.
    pub kind: ContentErrorKind,
    /// In words, for the model and the user.
    pub message: String,
}

impl ContentError {
    /// An error of `kind`.
    pub fn new(kind: ContentErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }

    /// The ref names no element of the latest observation.
    pub fn no_such_element(r: Ref) -> Self {
        Self::new(
            ContentErrorKind::NoSuchElement,
            format!("no element [{r}] in the latest observation"),
        )
    }

    /// The ref's element is gone or changed.
    pub fn stale(message: impl Into<String>) -> Self {
        Self::new(ContentErrorKind::StaleElement, message)
    }

    /// The frame has no document.
    pub fn no_document() -> Self {
        Self::new(ContentErrorKind::NoDocument, "the frame has no document")
    }

    /// Rebuilds an error from the `name` and `message` of the JS error that carried it.
    pub fn from_parts(name: &str, message: impl Into<String>) -> Self {
        Self::new(ContentErrorKind::from_name(name), message)
    }
}

impl NamedError for ContentError {
    fn name(&self) -> &'static str {
        self.kind.name()
    }
}

/// Why a page call of the agent (observe, act, describe, change tabs) failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    /// The task's tab is gone (the user or a page closed it): the agent asks for another.
    #[error(
        "the tab Waymark was working on (tab {tab}) was closed{during}; reopen the page and \
         start the task again, or tell Waymark which tab to use"
    )]
    TabClosed {
        /// The tab's id.
        tab: i32,
        /// When it was noticed (` during the action`), or empty.
        during: String,
    },
    /// The frame that holds the element is gone (it navigated or was removed).
    #[error("frame {frame} of the page is gone (it navigated or was removed); observe again")]
    FrameGone {
        /// Chrome's frame id.
        frame: u32,
    },
    /// The browser lets no extension script this page (`chrome://` pages, the Web Store, the
    /// browser's error pages).
    #[error(
        "Waymark cannot read or act on {url}: the browser does not let extensions into this page"
    )]
    NoAccess {
        /// The tab's URL.
        url: String,
    },
    /// The ref names no element, or no longer the element the model saw.
    #[error("{0}")]
    StaleRef(String),
    /// The content script could not be put into the page.
    #[error("the page could not be reached: {0}")]
    InjectionFailed(String),
    /// The content script failed while handling the request (it did not load, or crashed).
    #[error("the page's script failed: {0}")]
    ScriptFailed(String),
    /// An answer from the content script or the browser could not be read.
    #[error("bad reply from the page: {0}")]
    BadReply(String),
    /// A browser call about the tab failed (navigate, reload, capture, list tabs).
    #[error("{0}")]
    Browser(String),
    /// Refused before it reached the browser (only http and https pages can be opened).
    #[error("{0}")]
    Refused(String),
    /// No web page is open to go on with.
    #[error("no web page is open")]
    NoPage,
    /// This page cannot do that (it has no tabs to change to).
    #[error("this page cannot change tabs")]
    Unsupported,
}

impl PageError {
    /// The error of a content script's reply from `frame`.
    pub fn from_content(frame: u32, error: ContentError) -> Self {
        match error.kind {
            ContentErrorKind::NoSuchElement | ContentErrorKind::StaleElement => {
                Self::StaleRef(error.message)
            }
            ContentErrorKind::NoDocument => Self::FrameGone { frame },
            ContentErrorKind::BadRequest | ContentErrorKind::EncodeFailed => {
                Self::BadReply(error.message)
            }
            ContentErrorKind::ScriptFailed => Self::ScriptFailed(error.message),
            // Not retried: the request may have had its effect before the trap.
            ContentErrorKind::Crashed => Self::ScriptFailed(format!(
                "it crashed ({}) and is loaded afresh for the next request; what it was doing \
                 may or may not have been done, so read the page before doing it again",
                error.message
            )),
        }
    }
}

impl NamedError for PageError {
    fn name(&self) -> &'static str {
        match self {
            Self::TabClosed { .. } => "TabClosed",
            Self::FrameGone { .. } => "FrameGone",
            Self::NoAccess { .. } => "NoAccess",
            Self::StaleRef(_) => "StaleRef",
            Self::InjectionFailed(_) => "InjectionFailed",
            Self::ScriptFailed(_) => "ScriptFailed",
            Self::BadReply(_) => "BadReply",
            Self::Browser(_) => "BrowserFailed",
            Self::Refused(_) => "Refused",
            Self::NoPage => "NoPage",
            Self::Unsupported => "Unsupported",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_content_kind_survives_its_name() {
        for kind in ContentErrorKind::ALL {
            assert_eq!(ContentErrorKind::from_name(kind.name()), kind);
            let e = ContentError::new(kind, "x");
            assert_eq!(ContentError::from_parts(e.name(), e.to_string()), e);
        }
    }

    #[test]
    fn a_js_error_that_is_not_ours_is_a_failed_script() {
        for name in ["TypeError", "CompileError", "Error", ""] {
            assert_eq!(ContentErrorKind::from_name(name), ContentErrorKind::ScriptFailed);
        }
    }

    #[test]
    fn a_trap_is_a_crash_whose_action_may_or_may_not_have_been_done() {
        assert_eq!(ContentErrorKind::from_name("RuntimeError"), ContentErrorKind::Crashed);
        let trap = ContentError::from_parts("RuntimeError", "unreachable");
        let e = PageError::from_content(0, trap);
        assert_eq!(e.name(), "ScriptFailed");
        let text = e.to_string();
        assert!(text.starts_with("the page's script failed: it crashed (unreachable)"), "{text}");
        assert!(text.contains("may or may not have been done"), "{text}");
    }

    #[test]
    fn content_errors_become_page_errors_by_kind() {
        let stale = ContentError::stale("element [3] is no longer on the page; observe again");
        assert_eq!(PageError::from_content(0, stale.clone()), PageError::StaleRef(stale.message));
        let missing = ContentError::no_such_element(Ref { frame: 2, index: 5 });
        assert!(
            matches!(PageError::from_content(2, missing), PageError::StaleRef(m) if m.contains("[f2:5]"))
        );
        assert_eq!(
            PageError::from_content(4, ContentError::no_document()),
            PageError::FrameGone { frame: 4 }
        );
        let failed = ContentError::from_parts("TypeError", "import failed");
        assert_eq!(
            PageError::from_content(0, failed),
            PageError::ScriptFailed("import failed".into())
        );
        let bad = ContentError::new(ContentErrorKind::BadRequest, "unknown op");
        assert!(matches!(PageError::from_content(0, bad), PageError::BadReply(_)));
    }

    #[test]
    fn page_error_names_are_distinct_and_not_js_builtins() {
        let all = [
            PageError::TabClosed { tab: 1, during: String::new() },
            PageError::FrameGone { frame: 1 },
            PageError::NoAccess { url: "chrome://settings".into() },
            PageError::StaleRef(String::new()),
            PageError::InjectionFailed(String::new()),
            PageError::ScriptFailed(String::new()),
            PageError::BadReply(String::new()),
            PageError::Browser(String::new()),
            PageError::Refused(String::new()),
            PageError::NoPage,
            PageError::Unsupported,
        ];
        let names: std::collections::BTreeSet<_> = all.iter().map(NamedError::name).collect();
        assert_eq!(names.len(), all.len());
        assert!(names.iter().all(|n| !n.ends_with("Error")), "{names:?}");
        let closed = PageError::TabClosed { tab: 7, during: " during the action".into() };
        assert!(
            closed.to_string().starts_with(
                "the tab Waymark was working on (tab 7) was closed during the action;"
            )
        );
    }
}
